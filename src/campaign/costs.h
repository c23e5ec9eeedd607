/* Calibrated costs for sharding: how many seconds measuring each instance
 * will take, so `--shard K/N` can deal the instances out in shares of equal
 * time rather than equal count. Every shard must split from the same costs,
 * yet shards run apart (two cores, or the tasks of a job array), so the
 * costs live in one shared file (`--shard-costs FILE`): the first shard to
 * need it calibrates every built instance at every size (one short probe
 * run each) and publishes the file with an atomic link, which fails if
 * another shard got there first; the loser then reads the winner's file, so
 * all shards agree. */
#ifndef HB_CAMPAIGN_COSTS_H
#define HB_CAMPAIGN_COSTS_H

#include <jansson.h>
#include "common/strlist.h"
#include "campaign/settings.h"
#include "common/err.h"
#include "probe/counter_read.h"

/* What the estimate depends on beyond the instances themselves. */
typedef struct costs_request {
    const char *run_dir;          /* holds build.json and the libraries */
    const char *probe_path;
    int cpu;
    counter_kind counter;
    double rate_hz;               /* the counter's rate (adaptive trial length) */
    const campaign_settings *settings; /* planner, sizes, trials, budget */
} costs_request;

/* Seconds one (instance, size) is expected to take under SETTINGS for a
 * calibrated T1_NS nanoseconds per call: the trials the planner would give
 * it (plan_trial_shape: their calls and warm-up, as many as its floors
 * need) plus a fixed start-up cost per probe process. */
double costs_estimate(const measure_settings *settings, double t1_ns,
                      double rate_hz);

/* Loads FILE, or calibrates the instances of RQ->run_dir/build.json and
 * publishes FILE (see above). *DOC gets the file's document (new reference):
 * {"kind": "hashbench-shard-costs", "instances": {"cand/Inst": seconds}, ...}
 * and SHA256 (HB_SHA256_HEX bytes) the SHA-256 of its bytes. */
int costs_obtain(const char *file, const costs_request *rq, json_t **doc,
                 char *sha256, hb_err *err);

/* The cost of each of KEYS from DOC into COSTS (the caller's array). A key
 * the file does not know gets the largest known cost; returns how many keys
 * were missing. */
int costs_lookup(const json_t *doc, const strlist *keys, double *costs);

#endif
