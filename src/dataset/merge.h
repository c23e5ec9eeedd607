/* Joining shards: run directories of one campaign, split with --shard K/N
 * and measured independently, become one run directory. Each instance comes
 * from the shard that owned it (its build.json entry, kat.json entry,
 * library, logs and records); campaign.json lists the shards. Shards measured
 * under different host settings (counter, processor, governor, turbo, SMT)
 * or planning settings (profile, planner, sizes, ...) are refused, as are two
 * shards that measured the same record. */
#ifndef HB_DATASET_MERGE_H
#define HB_DATASET_MERGE_H

#include <stdio.h>
#include "common/err.h"

typedef struct merge_counts {
    int shards;
    int instances;
    int records;
    int missing_shards; /* shards of 1..N not given */
} merge_counts;

/* Merges the N_DIRS run directories DIRS into OUT_DIR, which must not exist,
 * be empty, or hold an earlier merge (it is then replaced). COUNTS may be
 * NULL. */
int merge_run(const char *out_dir, const char *const *dirs, int n_dirs,
              merge_counts *counts, hb_err *err);

#endif
