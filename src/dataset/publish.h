/* Publishing a run directory as one system of a dataset: DATA/ID/ receives
 * campaign.json, build.json, kat.json, the records, the KAT logs, the
 * evaluator's notes (notes.txt, copied as they are once they parse) and the
 * compiler logs (their run-directory and package paths rewritten), with
 * every path field rewritten relative to DATA (e.g. a KAT log's becomes
 * "x86_1/" and its path in the run directory, rundir.h),
 * the submission's absolute "package" dropped and libraries left behind
 * (their SHA-256 identifies them). Any other absolute path of the host that
 * a text or log quotes is redacted to "<path>/NAME", and campaign.json's
 * "publish" says where. The new DATA/ID is assembled beside the old one and
 * swapped in, and nothing is published while a path field stays absolute.
 * Text submitted code could have written ("raw_*_untrusted") stays in the
 * run directory, and an instance whose data would carry a host identifier
 * is withheld (campaign.json's "withheld"), not the whole dataset. */
#ifndef HB_DATASET_PUBLISH_H
#define HB_DATASET_PUBLISH_H

#include <stdio.h>
#include <jansson.h>
#include "common/err.h"

typedef struct publish_counts {
    int records;
    int kat_logs;
    int build_logs;
    int withheld;   /* instances withheld for host data (campaign.json) */
} publish_counts;

/* Publishes RUN_DIR as system SYSTEM ([A-Za-z0-9_-], at most 64) under
 * DATA_DIR. COUNTS (may be NULL) gets what was copied. */
int publish_run(const char *run_dir, const char *system, const char *data_dir,
                publish_counts *counts, hb_err *err);

/* Fails naming FILE and the JSON path of the first string in ROOT that is an
 * absolute path, quotes one in its text (except the kernel's /proc, /sys and
 * /dev), or contains FORBIDDEN (may be NULL), e.g. the run directory's
 * absolute path. */
int publish_check_no_absolute(const json_t *root, const char *forbidden,
                              const char *file, hb_err *err);

#endif
