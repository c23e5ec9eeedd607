/* Comparisons linked from a report site. `hashbench compare A B --out DIR`
 * writes a comparison into DIR (report/compare.h); `hashbench report DATA
 * --out SITE --compare DIR` then installs it as SITE/compare/<name>/, where
 * <name> is DIR's last component made a file name (esc_file_component), and
 * the site's index lists it with its verdict counts. The installed page is
 * rendered again with a breadcrumb back to the site, so the site stays one
 * self-contained folder. `hashbench validate --site SITE` regenerates the
 * site with the comparisons it finds installed there (site_compare_found),
 * so a site with comparisons still compares byte for byte. */
#ifndef HB_REPORT_SITE_COMPARE_H
#define HB_REPORT_SITE_COMPARE_H

#include <stdio.h>
#include <jansson.h>
#include "common/err.h"

#define SITE_COMPARE_DIR "compare" /* SITE/compare/<name>/ */

typedef struct site_comparison {
    char from[4096];  /* the folder given */
    char name[256];   /* its folder under SITE/compare/ */
    json_t *summary;  /* its compare.json (compare_summary_json) */
} site_comparison;

/* Reads DIR's compare.json (it must be a comparison's summary) into OUT and
 * checks that DIR also holds compare.md and compare.svg. Fails naming the
 * file and saying how to write it. Release with site_compare_free. */
int site_compare_load(const char *dir, site_comparison *out, hb_err *err);
void site_compare_free(site_comparison *c);

/* Fails when two of the N comparisons C would be installed under one name. */
int site_compare_names_distinct(const site_comparison *c, size_t n, hb_err *err);

/* Installs C into SITE/compare/<name>/: compare.md, compare.svg and
 * compare.json copied, compare.html rendered from them with a breadcrumb
 * to SITE/index.html. Every file is written atomically. */
int site_compare_install(const site_comparison *c, const char *site, hb_err *err);

/* The index's section listing the N comparisons C, with links of extension
 * EXT (".md" or ".html"); nothing when N is 0. */
void site_compare_index(FILE *fp, const site_comparison *c, size_t n, const char *ext);

/* Appends to DIRS (an array) the path of every SITE/compare/<name>/ folder
 * that holds a comparison's compare.json, in name order. */
int site_compare_found(const char *site, json_t *dirs, hb_err *err);

#endif
