/* The HTML site: each page's Markdown rendered with md4c (tables extension,
 * raw HTML disabled, so nothing from a dataset can pass through as markup)
 * inside one page template: inline CSS, navigation (site › system › page,
 * and the same page on every other system), the chart inlined as SVG where
 * the Markdown shows its image. No external resource, no timestamp. */
#ifndef HB_REPORT_HTML_H
#define HB_REPORT_HTML_H

#include <stdio.h>
#include "common/err.h"
#include "dataset/dataset.h"

typedef struct html_page {
    const report_dataset *ds;
    const report_system *sys; /* NULL for the site index */
    const char *cand;         /* candidate of a candidate page, else NULL */
    const char *label;        /* last breadcrumb: candidate, "summary", "method" */
    const char *stem;         /* file stem of this page in its folder ("summary") */
    const char *svg_name;     /* image the Markdown shows, e.g. "SM3.svg"; NULL none */
    const char *svg_text;     /* that chart's SVG, inlined in its place */
    const char *root;         /* a page of no system inside a site (a linked
                                 comparison): the path from it to the site's
                                 root ("../../"), for the breadcrumb; NULL none */
} html_page;

/* Renders MD (LEN bytes) as page P into FP. */
int html_render(FILE *fp, const html_page *p, const char *md, size_t len, hb_err *err);

#endif
