/* Adapting the campaign to the stage libraries (see stages.h). Each stage
 * keeps its own finished work, so calling one again after an interruption
 * continues it. */
#include "campaign/stages.h"
#include "campaign/progress.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compile/build.h"
#include "common/fs.h"
#include "common/json.h"
#include "kat/kat.h"
#include "measure/drift.h"
#include "measure/measure.h"
#include "rundir/baselines.h"
#include "report/ratiodrift.h"
#include "rundir/rundir.h"

int stages_instances(const char *run_dir, strlist *out, hb_err *err)
{
    char path[PATH_MAX];
    json_t *doc, *arr, *e;
    size_t i;
    if (rundir_path(path, sizeof path, run_dir, RUNDIR_BUILD_JSON, err) != 0 ||
        hb_json_load(path, &doc, err) < 0)
        return -1;
    if (hb_json_get_arr(doc, "instances", &arr, path, err) < 0) {
        json_decref(doc);
        return -1;
    }
    json_array_foreach(arr, i, e) {
        const char *cand, *inst;
        char key[512];
        if (hb_json_get_str(e, "candidate", &cand, path, err) < 0 ||
            hb_json_get_str(e, "instance", &inst, path, err) < 0) {
            json_decref(doc);
            return -1;
        }
        snprintf(key, sizeof key, "%s/%s", cand, inst);
        if (!strlist_contains(out, key) && strlist_push(out, key) < 0) {
            json_decref(doc);
            return hb_fail(err, "out of memory");
        }
    }
    json_decref(doc);
    return 0;
}

int stages_build(const campaign_options *o, const campaign_settings *s,
                 int *n_failed, hb_err *err)
{
    build_options b = {0};
    b.run_dir = o->run_dir;
    b.profile = s->profile[0] ? s->profile : NULL;
    b.plain_shared = s->plain_shared;
    b.cc = o->cc;
    b.jobs = o->jobs;
    b.packages = o->packages;
    b.n_packages = (int)o->n_packages;
    b.baseline_lib = o->baseline_lib;
    b.baseline_packages = o->baseline_packages;
    b.n_baseline_packages = (int)o->n_baseline_packages;
    b.progress = o->progress;
    b.progress_ctx = o->progress_ctx;
    return build_run(&b, n_failed, err);
}

int stages_kat(const campaign_options *o, const campaign_settings *s,
               const strlist *instances, int *n_failed, hb_err *err)
{
    kat_options k = {0};
    k.run_dir = o->run_dir;
    k.instance_budget_s = s->instance_budget_s;
    k.loop = o->loop;
    k.full = o->full;
    k.retry_timeout = o->retry_timeout;
    k.timeout_s = o->timeout_s;
    k.jobs = o->jobs;
    k.instances = (const char *const *)instances->v;
    k.n_instances = instances->n;
    k.progress = o->progress;
    k.progress_ctx = o->progress_ctx;
    /* the campaign's display estimates the time left from the known work */
    if (o->progress == campaign_progress_fn)
        k.work = campaign_progress_work;
    k.log = o->log;
    return stages_kat_with_rebuilds(&k, n_failed, err);
}

/* The compilers a harness-default rebuild of the selected guide builds of
 * DIR/build.json would run, checked before any instance is tested rather
 * than when the first rebuild needs one. A build.json that cannot be read
 * is left for kat_run to report. */
static int check_rebuild_compilers(const kat_options *k, hb_err *err)
{
    char path[PATH_MAX];
    json_t *doc = NULL, *b, *seen;
    hb_err ignored;
    if (rundir_path(path, sizeof path, k->run_dir, RUNDIR_BUILD_JSON, &ignored) != 0 ||
        !hb_is_file(path) || hb_json_load(path, &doc, &ignored) != 0)
        return 0;
    const json_t *list = json_object_get(doc, "instances");
    size_t i, j;
    int rc = 0;
    json_array_foreach(list, i, b) {
        const char *cc = hb_json_str(b, "compiler");
        int again = 0;
        json_array_foreach(list, j, seen)
            again |= j < i && strcmp(hb_json_str(seen, "compiler"), cc) == 0;
        if (rc != 0 || again || !cc[0] || strcmp(hb_json_str(b, "status"), "BUILT") != 0 ||
            strcmp(hb_json_str(b, "flags_kind"), "guide") != 0 ||
            rundir_entry_builtin_baseline(b) ||
            !kat_selected(k, hb_json_str(b, "candidate"), hb_json_str(b, "instance")))
            continue;
        hb_err why;
        if (build_check_compiler(cc, &why) != 0)
            rc = hb_fail(err, "%s: the compiler '%s' (the --cc of hashbench build), "
                         "needed for a harness-default rebuild, cannot be run: %s",
                         path, cc, why.msg);
    }
    json_decref(doc);
    return rc;
}

int stages_kat_with_rebuilds(const kat_options *k, int *n_failed, hb_err *err)
{
    strlist wanted = {0};
    int n_rebuilt = 0;
    *n_failed = 0;
    int rc = check_rebuild_compilers(k, err);
    if (rc == 0)
        rc = kat_run(k, n_failed, err);
    if (rc == 0)
        rc = kat_rebuilds_wanted(k, &wanted, err);
    if (rc == 0 && wanted.n > 0)
        rc = build_harness_default(k->run_dir, (const char *const *)wanted.v, wanted.n,
                                   &n_rebuilt, err);
    if (rc == 0 && n_rebuilt > 0)
        rc = kat_run(k, n_failed, err);
    strlist_free(&wanted);
    return rc;
}

int stages_measure(const campaign_options *o, const campaign_settings *s,
                   const strlist *instances, int *n_failed, hb_err *err)
{
    measure_options m = {0};
    m.run_dir = o->run_dir;
    m.probe_path = o->probe_path;
    m.cpu = o->cpu;
    m.settings = s->measure;
    m.instance_budget_s = s->instance_budget_s;
    m.instances = (const char *const *)instances->v;
    m.n_instances = instances->n;
    m.time_failed = o->time_failed;
    m.no_independent_check = o->no_independent_check;
    m.progress = o->progress;
    m.progress_ctx = o->progress_ctx;
    return measure_run(&m, n_failed, err);
}

json_t *stages_host_drift(const char *run_dir)
{
    rundir_loaded b;
    hb_err ignored;
    json_t *out = NULL;
    drift_series d;
    /* the primary baseline's records, in the order of their names */
    if (rundir_load_records(run_dir, RUNDIR_BASELINE_CANDIDATE, hb_baseline_primary()->instance,
                            &b, &ignored) == 0 && b.n > 0 &&
        drift_of_records((const json_t *const *)b.v, b.n, &d) == 0) {
        out = d.n ? drift_summary_json(&d) : NULL;
        drift_free(&d);
    }
    rundir_loaded_free(&b);
    return out;
}

json_t *stages_ratio_drift(const char *run_dir)
{
    return ratiodrift_of_dir(run_dir);
}
