/* The report stage: from a published dataset (DATA/<system>/...) to the
 * published pages, their validation and a CSV export.
 *
 * report_site writes into OUT_DIR, for each system S and candidate C:
 *   S/C.md, S/C.svg, S/C.html; S/summary.{md,svg,html}; S/method.{md,html};
 * and index.md, index.html at the top; with comparisons (report_options),
 * compare/<name>/compare.{md,svg,html,json} for each, listed by the index
 * (report/site_compare.h). System and candidate names become
 * file names through esc_file_component (characters outside [A-Za-z0-9._-]
 * become '_'). The same dataset always gives byte-identical files; one
 * whose path fields break the dataset's path rule (dataset/paths.h) is refused
 * before anything is written. Validation is in validate.h. */
#ifndef HB_REPORT_REPORT_H
#define HB_REPORT_REPORT_H

#include <stdio.h>
#include "common/err.h"

int report_site(const char *data_dir, const char *out_dir, hb_err *err);

/* report_site with a submitter's self-assessment SA_PATH (NULL: none;
 * report/selfassess.h): each candidate page it claims figures for gets a
 * section holding them against the system's figures. Fails before writing
 * anything when the file cannot be read or names an instance a system does
 * not have. */
int report_site_sa(const char *data_dir, const char *out_dir, const char *sa_path,
                   hb_err *err);

typedef struct report_options {
    const char *sa_path;              /* a self-assessment, or NULL */
    const char *const *compare_dirs;  /* folders written by `compare --out` */
    size_t ncompare;
    const char *notes_path;           /* the evaluator's notes in place of every
                                         system's own DATA/<system>/notes.txt
                                         (dataset/notes.h), or NULL */
} report_options;

/* report_site with OPT (NULL: none): the self-assessment as in
 * report_site_sa, and each comparison of COMPARE_DIRS installed into the
 * site and linked from its index. Fails before writing anything when a
 * comparison folder holds no comparison or two would share a name, or
 * when a system's notes file (or NOTES_PATH) does not parse or names an
 * instance the system (for NOTES_PATH: no system) has, with "FILE:LINE:
 * ..." and what to do. */
int report_site_opts(const char *data_dir, const char *out_dir, const report_options *opt,
                     hb_err *err);

/* Writes CSV_PATH (atomically; "-": standard output): a header and one row
 * per record (system, candidate, instance, size) with the headline and
 * dispersion figures, the paired ratio to the baseline and its interval, RFC
 * 4180 (CRLF line ends, fields quoted when they hold a comma, quote or line
 * break). *ROWS (may be NULL) gets the number of data rows. */
int report_export_csv(const char *data_dir, const char *csv_path, int *rows, hb_err *err);

/* Writes JSON_PATH (atomically): the whole dataset as one JSON document
 * (kind "hashbench-export"; schema in docs/FORMATS.md): systems with their
 * environment and counter, candidates, instances with build, KAT and
 * constant-time status and static size, and for each message size every
 * figure of the record with its interval, the paired ratio and the
 * memory. *RECORDS (may be NULL) gets the number of records exported. */
int report_export_json(const char *data_dir, const char *json_path, int *records,
                       hb_err *err);

/* Writes LEN bytes of TEXT to PATH atomically, or to standard output when
 * PATH is "-" (every export takes "-"). */
int report_export_write(const char *path, const char *text, size_t len, hb_err *err);

#endif
