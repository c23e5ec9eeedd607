/* Calibrated shard costs (see costs.h). The estimate asks the planner of
 * planner table (src/measure/planners.h) for what a cell would cost: it is rough (one
 * calibration per size, the adaptive planners taken at the trials their
 * floors need) but it ranks a 64 KiB hash of a slow instance far above a
 * 32-byte hash of a fast one, which is what balancing needs. */
#include "campaign/costs.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "compile/build.h"
#include "common/clock.h"
#include "common/digest.h"
#include "common/fs.h"
#include "common/json.h"
#include "measure/plan.h"
#include "measure/planners.h"
#include "measure/trial.h"
#include "rundir/rundir.h"

/* Start-up of one probe process (fork, exec, dlopen, pinning), seconds. */
#define COSTS_PROBE_START_S 0.005
/* Calibration grows the call count until a run lasts this long, ns. */
#define COSTS_CALIB_MIN_NS 1e6
#define COSTS_CALIB_ROUNDS 4

double costs_estimate(const measure_settings *s, double t1_ns, double rate_hz)
{
    measure_settings given = *s;
    measure_settings_resolve(&given);
    plan_settings ps = {0};
    ps.planner = given.planner;
    ps.min_trials = given.trials;
    ps.budget_s = given.budget_s;
    ps.budget_explicit = given.budget_s > 0;
    ps.host_rate_hz = rate_hz;
    if (!(t1_ns > 0))
        t1_ns = 1;
    /* the planner's own estimate: its windows or its trials, the memory
     * run and the calibration runs */
    return plan_planner_of(&ps)->cell_cost_s(&ps, t1_ns, COSTS_PROBE_START_S);
}

/* Nanoseconds per call of LIB at SIZE; a negative value when the probe
 * failed (the instance then costs only its start-up). */
static int calibrate(const costs_request *rq, const char *lib, int digest_bits,
                     unsigned long long size, double *t1_ns, hb_err *err)
{
    trial_request t;
    memset(&t, 0, sizeof t);
    t.probe_path = rq->probe_path;
    t.run_dir = rq->run_dir;
    t.lib = lib;
    t.size = size;
    t.calls = 8;
    t.warmup = 2;
    t.cpu = rq->cpu;
    t.counter = rq->counter;
    t.digest_bits = digest_bits;
    t.calibrate = 1;
    t.timeout_s = 60;
    *t1_ns = -1;
    for (int round = 0; round < COSTS_CALIB_ROUNDS; round++) {
        trial_result r;
        if (trial_run(&t, &r, err) != 0)
            return -1;
        if (!r.ok || r.calls == 0)
            return 0;
        *t1_ns = (double)r.ns / (double)r.calls;
        if ((double)r.ns >= COSTS_CALIB_MIN_NS)
            break;
        t.calls *= 16;
    }
    return 0;
}

/* One build.json entry: its key and estimated seconds (0 when it will not
 * be timed). */
static int entry_cost(const costs_request *rq, const json_t *e, double *cost,
                      hb_err *err)
{
    const char *status = json_string_value(json_object_get(e, "status"));
    const char *lib = json_string_value(json_object_get(e, "library"));
    const char *excl = json_string_value(json_object_get(e, "exclude_timing"));
    int bits = (int)json_integer_value(json_object_get(e, "digest_bits"));
    *cost = 0;
    if (!status || strcmp(status, "BUILT") != 0 || !lib || bits <= 0 ||
        (excl && *excl))
        return 0;
    const measure_settings *s = &rq->settings->measure;
    for (int i = 0; i < s->n_sizes; i++) {
        double t1;
        if (calibrate(rq, lib, bits, (unsigned long long)s->sizes[i], &t1,
                      err) < 0)
            return -1;
        *cost += t1 > 0 ? costs_estimate(s, t1, rq->rate_hz)
                        : COSTS_PROBE_START_S;
    }
    return 0;
}

static json_t *calibrate_all(const costs_request *rq, hb_err *err)
{
    char path[PATH_MAX];
    json_t *build, *arr, *e;
    size_t i;
    if (rundir_path(path, sizeof path, rq->run_dir, RUNDIR_BUILD_JSON, err) < 0 ||
        hb_json_load(path, &build, err) < 0)
        return NULL;
    if (hb_json_get_arr(build, "instances", &arr, path, err) < 0) {
        json_decref(build);
        return NULL;
    }
    json_t *costs = json_object();
    json_array_foreach(arr, i, e) {
        char key[512];
        double cost;
        snprintf(key, sizeof key, "%s/%s", hb_json_str(e, "candidate"),
                 hb_json_str(e, "instance"));
        if (json_object_get(costs, key))
            continue;
        if (entry_cost(rq, e, &cost, err) < 0) {
            json_decref(costs);
            json_decref(build);
            return NULL;
        }
        json_object_set_new(costs, key, json_real(cost));
    }
    json_decref(build);
    char now[32];
    hb_utc_now(now, sizeof now);
    json_t *doc = json_object();
    json_object_set_new(doc, "kind", json_string("hashbench-shard-costs"));
    json_object_set_new(doc, "schema", json_integer(1));
    json_object_set_new(doc, "made_utc", json_string(now));
    json_t *settings = campaign_settings_json(rq->settings);
    json_object_del(settings, "shard"); /* the same file serves every shard */
    json_object_set_new(doc, "settings", settings);
    json_object_set_new(doc, "unit", json_string("estimated seconds of "
                        "measurement per instance, all sizes"));
    json_object_set_new(doc, "instances", costs);
    return doc;
}

static int load_costs(const char *file, json_t **doc, char *sha256, hb_err *err)
{
    if (hb_json_load(file, doc, err) < 0)
        return -1;
    const char *kind = json_string_value(json_object_get(*doc, "kind"));
    if (!kind || strcmp(kind, "hashbench-shard-costs") != 0 ||
        !json_is_object(json_object_get(*doc, "instances"))) {
        json_decref(*doc);
        *doc = NULL;
        return hb_fail_at(err, file, 1, "not a shard costs file (kind "
                          "\"hashbench-shard-costs\" with \"instances\"); "
                          "remove it and run the shards again to recalibrate");
    }
    return hb_sha256_file_hex(file, sha256, err);
}

int costs_obtain(const char *file, const costs_request *rq, json_t **doc,
                 char *sha256, hb_err *err)
{
    *doc = NULL;
    if (hb_is_file(file))
        return load_costs(file, doc, sha256, err);
    json_t *made = calibrate_all(rq, err);
    if (!made)
        return -1;
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", file, (long)getpid());
    char *text = json_dumps(made, JSON_INDENT(2) | JSON_SORT_KEYS);
    json_decref(made);
    if (!text)
        return hb_fail(err, "out of memory");
    int rc = hb_write_atomic(tmp, text, strlen(text), err);
    free(text);
    if (rc < 0)
        return -1;
    /* link() publishes the complete file, and fails when another shard
     * published first: then its costs are the ones everybody uses. */
    if (link(tmp, file) != 0 && errno != EEXIST) {
        int e = errno;
        unlink(tmp);
        return hb_fail(err, "%s: cannot create the shard costs file: %s; "
                       "choose a --shard-costs path in a writable folder "
                       "shared by all shards", file, strerror(e));
    }
    unlink(tmp);
    return load_costs(file, doc, sha256, err);
}

int costs_lookup(const json_t *doc, const strlist *keys, double *costs)
{
    const json_t *inst = json_object_get(doc, "instances");
    double max = 0;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)inst, k, v)
        if (json_is_number(v) && json_number_value(v) > max)
            max = json_number_value(v);
    int missing = 0;
    for (int i = 0; i < keys->n; i++) {
        json_t *c = json_object_get(inst, keys->v[i]);
        if (json_is_number(c) && json_number_value(c) >= 0) {
            costs[i] = json_number_value(c);
        } else {
            costs[i] = max > 0 ? max : 1.0;
            missing++;
        }
    }
    return missing;
}
