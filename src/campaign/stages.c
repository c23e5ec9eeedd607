/* Adapting the campaign to the stage libraries (see stages.h). Each stage
 * keeps its own finished work, so calling one again after an interruption
 * continues it. */
#include "campaign/stages.h"

#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include "compile/build.h"
#include "common/json.h"
#include "kat/kat.h"
#include "measure/drift.h"
#include "measure/measure.h"

int stages_instances(const char *run_dir, strlist *out, hb_err *err)
{
    char path[PATH_MAX];
    json_t *doc, *arr, *e;
    size_t i;
    snprintf(path, sizeof path, "%s/%s", run_dir, BUILD_JSON);
    if (hb_json_load(path, &doc, err) < 0)
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
    b.cc = o->cc;
    b.jobs = o->jobs;
    b.packages = o->packages;
    b.n_packages = (int)o->n_packages;
    b.baseline_lib = o->baseline_lib;
    b.progress = o->progress;
    b.progress_ctx = o->progress_ctx;
    return build_run(&b, n_failed, err);
}

int stages_kat(const campaign_options *o, const campaign_settings *s,
               const strlist *instances, int *n_failed, hb_err *err)
{
    (void)s;
    kat_options k = {0};
    k.run_dir = o->run_dir;
    k.loop = o->loop;
    k.full = o->full;
    k.timeout_s = o->timeout_s;
    k.jobs = o->jobs;
    k.instances = (const char *const *)instances->v;
    k.n_instances = instances->n;
    k.progress = o->progress;
    k.progress_ctx = o->progress_ctx;
    return kat_run(&k, n_failed, err);
}

int stages_measure(const campaign_options *o, const campaign_settings *s,
                   const strlist *instances, int *n_failed, hb_err *err)
{
    measure_options m = {0};
    m.run_dir = o->run_dir;
    m.probe_path = o->probe_path;
    m.cpu = o->cpu;
    m.settings = *s;
    m.instances = (const char *const *)instances->v;
    m.n_instances = instances->n;
    m.time_failed = o->time_failed;
    m.progress = o->progress;
    m.progress_ctx = o->progress_ctx;
    return measure_run(&m, n_failed, err);
}

json_t *stages_host_drift(const char *run_dir)
{
    char pattern[PATH_MAX];
    glob_t g;
    if (snprintf(pattern, sizeof pattern, "%s/records/baseline/OpenSSL_SM3__hash_*.json",
                 run_dir) >= (int)sizeof pattern ||
        glob(pattern, 0, NULL, &g) != 0)
        return NULL;
    json_t **recs = calloc(g.gl_pathc, sizeof *recs);
    size_t n = 0;
    for (size_t i = 0; recs && i < g.gl_pathc; i++)
        if (hb_json_load(g.gl_pathv[i], &recs[n], NULL) == 0)
            n++;
    globfree(&g);
    drift_series d;
    json_t *out = NULL;
    if (recs && drift_of_records((const json_t *const *)recs, n, &d) == 0) {
        out = d.n ? drift_summary_json(&d) : NULL;
        drift_free(&d);
    }
    for (size_t i = 0; i < n; i++)
        json_decref(recs[i]);
    free(recs);
    return out;
}
