/* The report stage: from a published dataset (DATA/<system>/...) to the
 * published pages, their validation and a CSV export.
 *
 * report_site writes into OUT_DIR, for each system S and candidate C:
 *   S/C.md, S/C.svg, S/C.html; S/summary.{md,svg,html}; S/method.{md,html};
 * and index.md, index.html at the top. System and candidate names become
 * file names through esc_file_component (characters outside [A-Za-z0-9._-]
 * become '_'). The same dataset always gives byte-identical files. */
#ifndef HB_REPORT_REPORT_H
#define HB_REPORT_REPORT_H

#include <stdio.h>
#include "common/err.h"

int report_site(const char *data_dir, const char *out_dir, hb_err *err);

/* The first path field of DS (a record's, then campaign.json's, build.json's
 * and kat.json's, system by system) that is absolute or holds a ".."
 * component: fills ERR with the line report_validate prints for it and
 * returns -1; 0 when every path is clean. report_site refuses such a
 * dataset before writing anything: its pages print and link these paths. */
struct report_dataset;
int report_check_paths(const struct report_dataset *ds, hb_err *err);

/* Counts of what report_validate looked at and found. */
typedef struct report_validate_stats {
    int records;   /* record files checked */
    int kat_logs;  /* KAT logs checked */
    int build_logs; /* compiler logs checked */
    int pages;     /* site files compared (0 without SITE_DIR) */
    int problems;  /* each printed as one line to OUT */
} report_validate_stats;

/* Checks DATA_DIR: every record's derived figures against a recomputation
 * from its raw trials (stats_derive_record), every KAT log's SHA-256 and
 * RESULT line against kat.json, every compiler log's SHA-256 against
 * build.json (and no log it does not cite), every path field (no absolute
 * path, no ".."), no symbolic link anywhere in the dataset, and with
 * SITE_DIR (may be NULL) that report_site regenerates SITE_DIR byte for
 * byte. Each problem is printed to OUT as one line, e.g.
 * "<system>/<record path>: field mean_ticks_per_call: recorded 1, recomputed 2"
 * (the record path of rundir_record_rel).
 * Returns 0 when there is no problem, 1 when problems were printed, -1 when
 * the check could not run (ERR filled). ST gets the counts. */
int report_validate(const char *data_dir, const char *site_dir, FILE *out,
                    report_validate_stats *st, hb_err *err);

/* Writes CSV_PATH (atomically): a header and one row per record (system,
 * candidate, instance, size) with the headline and dispersion figures, RFC
 * 4180 (CRLF line ends, fields quoted when they hold a comma, quote or line
 * break). *ROWS (may be NULL) gets the number of data rows. */
int report_export_csv(const char *data_dir, const char *csv_path, int *rows, hb_err *err);

#endif
