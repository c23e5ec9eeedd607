/* Measuring on several cores of one machine in one command (`hashbench run
 * --cpus LIST`), built from the shard and merge machinery rather than
 * inside the measurement planner: core number i of the list gets shard i/N
 * of the instances in its own run directory DIR/cores/cpu<C>. First the
 * whole campaign is built and KAT-tested once in DIR/cores/all (the KAT
 * stage on every usable core), then each shard is host-checked on its core
 * and takes its build and its own KAT results from there (seed.h); then
 * one measuring child per core, pinned to it, measures
 * its shard while the others measure theirs, each after its own host check
 * of its core; at the end the shards are merged into DIR (dataset/merge.h), whose
 * campaign.json lists each core's shard with its host check, and whose
 * records name their core. Running the same command again resumes every
 * shard and merges again. */
#ifndef HB_CAMPAIGN_CORES_H
#define HB_CAMPAIGN_CORES_H

#include "campaign/campaign.h"
#include "common/err.h"

#define CORES_MAX 256

/* Parses "0,1" or "2-5,7" into CPUS (capacity CORES_MAX); each core must be
 * one this process may run on, and given once. Returns the count, or -1
 * with ERR naming the bad item. */
int cores_parse(const char *list, int *cpus, hb_err *err);

/* Runs or resumes the campaign of O (O->cpu and O->settings.shard are
 * ignored: each core gets its shard) on the N_CPUS cores CPUS, then merges
 * the shards into O->run_dir. RES adds up the shards' failures (build
 * failures as the merged build.json counts them). Returns 0 when every
 * shard was measured and merged, -1 with ERR otherwise (naming the core
 * whose shard stopped). */
int cores_run(const campaign_options *o, const int *cpus, int n_cpus,
              campaign_result *res, hb_err *err);

#endif
