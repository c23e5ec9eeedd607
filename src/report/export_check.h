/* The check of an export (report.h: report_export_csv, report_export_json)
 * against the dataset it was made from: every row or size entry names a
 * record of the dataset, no record is missing or given twice, and every
 * exported figure (identity, status, the record's derived figures, the
 * paired ratio and its interval) is the record's, to the precision the form
 * keeps (10 significant digits in CSV, the full value in JSON). */
#ifndef HB_REPORT_EXPORT_CHECK_H
#define HB_REPORT_EXPORT_CHECK_H

#include <stdio.h>
#include "common/err.h"

typedef struct export_check_stats {
    int entries;   /* rows (CSV) or size entries (JSON) checked */
    int figures;   /* figures compared */
    int problems;  /* each printed as one line to OUT */
} export_check_stats;

/* Checks EXPORT_PATH (JSON when it starts with '{', else CSV) against
 * DATA_DIR; prints each problem to OUT as one line naming the export's
 * line (CSV) or the JSON field, the exported and the recorded value, e.g.
 * "out.csv:3: field mb_per_s: exported 1, the record x86_1/... has 2".
 * Returns 0 without problem, 1 with problems, -1 when the check could not
 * run (unreadable dataset or export, malformed CSV/JSON; ERR filled). */
int report_check_export(const char *data_dir, const char *export_path, FILE *out,
                        export_check_stats *st, hb_err *err);

#endif
