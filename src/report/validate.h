/* The validation of a published dataset: every figure re-derived from the
 * raw evidence, every log against its digest, the path rule (dataset/paths.h), and
 * optionally the site regenerated (report.h) and compared byte for byte. */
#ifndef HB_REPORT_VALIDATE_H
#define HB_REPORT_VALIDATE_H

#include <stdio.h>
#include "common/err.h"

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
 * path, no ".."), no symbolic link anywhere in the dataset, no file
 * holding this host's boot_id as it is or hex-encoded, and with
 * SITE_DIR (may be NULL) that report_site regenerates SITE_DIR byte for
 * byte. Each problem is printed to OUT as one line, e.g.
 * "x86_1/<record path>: field mean_ticks_per_call: recorded 1, recomputed 2",
 * with the record path of rundir_record_rel.
 * Returns 0 when there is no problem, 1 when problems were printed, -1 when
 * the check could not run (ERR filled). ST gets the counts. */
int report_validate(const char *data_dir, const char *site_dir, FILE *out,
                    report_validate_stats *st, hb_err *err);

/* report_validate, and also a problem for every file of DATA_DIR that holds
 * a host identifier (dataset/hostdata.h): this host's boot_id, and with
 * RUN_DIR (may be NULL; report_validate gives none) the run directory's
 * absolute path, each as it is or hex-encoded. */
int report_validate_ex(const char *data_dir, const char *site_dir, const char *run_dir,
                       FILE *out, report_validate_stats *st, hb_err *err);

#endif
