/* The report stage: from a published dataset (DATA/<system>/...) to the
 * published pages, their validation and a CSV export.
 *
 * report_site writes into OUT_DIR, for each system S and candidate C:
 *   S/C.md, S/C.svg, S/C.html; S/summary.{md,svg,html}; S/method.{md,html};
 * and index.md, index.html at the top. System and candidate names become
 * file names through esc_file_component (characters outside [A-Za-z0-9._-]
 * become '_'). The same dataset always gives byte-identical files; one
 * whose path fields break the dataset's path rule (paths.h) is refused
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

/* Writes CSV_PATH (atomically): a header and one row per record (system,
 * candidate, instance, size) with the headline and dispersion figures, RFC
 * 4180 (CRLF line ends, fields quoted when they hold a comma, quote or line
 * break). *ROWS (may be NULL) gets the number of data rows. */
int report_export_csv(const char *data_dir, const char *csv_path, int *rows, hb_err *err);

#endif
