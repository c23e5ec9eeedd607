/* The path rule of a published dataset: every path field (log, library,
 * package, ..., any key ending in _path, _dir or _log, and every element of
 * probe_command) is relative to the dataset and holds no ".." component,
 * since the pages print and link these paths. report_site refuses a dataset
 * that breaks it before writing anything (report_check_paths); report_validate
 * lists every break. Both report.c and validate.c use this file, which uses
 * neither. */
#ifndef HB_DATASET_PATHS_H
#define HB_DATASET_PATHS_H

#include <jansson.h>
#include "common/err.h"
#include "dataset/dataset.h"

/* Receives one break of the rule as one line ("FILE: field X: path 'P' must
 * be relative ..."). */
typedef void (*report_path_fn)(void *ctx, const char *line);

/* 1 when P is absolute or holds a ".." component. */
int report_path_is_bad(const char *p);

/* Calls BAD(CTX, line) for every path field of J (FILE names J in the
 * line) that breaks the rule. */
void report_paths_of(const char *file, const json_t *j, report_path_fn bad, void *ctx);

/* The same for campaign.json, build.json and kat.json of S. */
void report_paths_of_system(const report_system *s, report_path_fn bad, void *ctx);

/* The first path field of DS (a record's, then campaign.json's, build.json's
 * and kat.json's, system by system) that breaks the rule: fills ERR with the
 * line report_validate prints for it and returns -1; 0 when every path is
 * clean. */
int report_check_paths(const report_dataset *ds, hb_err *err);

#endif
