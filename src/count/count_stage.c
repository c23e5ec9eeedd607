/* The instruction-count stage over a run directory (count.h: count_run):
 * for every kat.json entry that passed (PASS) or is the OpenSSL baseline
 * (BASELINE), counts the library the KATs checked (rundir_instance_library)
 * in one Valgrind run: every size of the stage, then every length of the
 * curve (count_plan.h). It writes one record per size,
 * DIR/count/<cand>/<Inst>__count_<S>.json, and the curve,
 * DIR/count/<cand>/<Inst>__count_curve.json. The sizes are the options',
 * else campaign.json's, else S1-S8. The counted records of an instance
 * whose library, sizes, Valgrind options and method are unchanged are kept
 * (resume).
 * Instances are counted by a small pool of threads (each worker only
 * starts sandboxed processes), COUNT_MAX_JOBS at most. */
#include "count/count.h"

#include <limits.h>
#include <pthread.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/digest.h"
#include "common/fs.h"
#include "common/walk.h"
#include "common/json.h"
#include "compile/build.h"
#include "compile/override.h"
#include "count/count_model.h"
#include "count/count_plan.h"
#include "kat/kat.h"
#include "measure/settings.h"
#include "probe/trial_msg.h"
#include "rundir/rundir.h"
#include "runner/client.h"
#include "sandbox/check.h"

#define COUNT_METHOD_RULE "per call at a length = the instructions callgrind counts " \
    "with collection on from just before the call to just after it (one dump per call), " \
    "less the median count of an empty window; the figure is the median over the " \
    "length's calls, the spread (max - min) / median is flagged above 0.1 %"
#define COUNT_FUNCTIONS_RULE "per size, each function's self instructions summed over the " \
    "size's calls (callgrind's exclusive cost), its share of the calls' instructions; a " \
    "shared helper's share: the instructions of the calls into its group from outside it"
#define COUNT_SCHEMA 2

/* The sizes of the stage into SIZES (*N): the options', else those
 * campaign.json records, else the defaults; sizes above COUNT_MAX_BYTES are
 * left out. */
static int stage_sizes(const count_options *o, unsigned *sizes, int *n, hb_err *err)
{
    measure_settings s;
    memset(&s, 0, sizeof s);
    if (o->sizes && o->n_sizes > 0) {
        for (int i = 0; i < o->n_sizes && i < MEASURE_MAX_SIZES; i++)
            s.sizes[s.n_sizes++] = o->sizes[i];
    } else {
        char path[PATH_MAX];
        json_t *doc = NULL;
        if (rundir_path(path, sizeof path, o->run_dir, RUNDIR_CAMPAIGN_JSON, err) != 0)
            return -1;
        if (hb_is_file(path)) {
            if (hb_json_load(path, &doc, err) != 0)
                return -1;
            const json_t *st = json_object_get(doc, "settings");
            int rc = st ? measure_settings_from_json(st, path, &s, err) : 0;
            json_decref(doc);
            if (rc != 0)
                return -1;
        }
    }
    measure_settings_resolve(&s);
    *n = 0;
    for (int i = 0; i < s.n_sizes && *n < COUNT_MAX_SIZES; i++)
        if (s.sizes[i] <= COUNT_MAX_BYTES)
            sizes[(*n)++] = s.sizes[i];
    if (*n == 0)
        return hb_fail(err, "count: no size of at most %u bytes to count; give --sizes",
                       COUNT_MAX_BYTES);
    return 0;
}

json_t *count_sizes_json(const unsigned *sizes, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_integer(sizes[i]));
    return a;
}

/* The lengths of the curve: every byte to COUNT_CURVE_FINE, then every
 * COUNT_CURVE_STEP to COUNT_CURVE_MAX. */
static int curve_lengths(unsigned *out)
{
    int n = 0;
    for (unsigned l = 0; l <= COUNT_CURVE_FINE; l++)
        out[n++] = l;
    for (unsigned l = COUNT_CURVE_FINE + COUNT_CURVE_STEP; l <= COUNT_CURVE_MAX;
         l += COUNT_CURVE_STEP)
        out[n++] = l;
    return n;
}

static int curve_rel(char *out, size_t cap, const char *cand, const char *inst, hb_err *err)
{
    int w = snprintf(out, cap, "%s/%s/%s__count_curve.json", RUNDIR_COUNT, cand, inst);
    if (w < 0 || (size_t)w >= cap)
        return hb_fail(err, "count: the curve's path of %s/%s is too long", cand, inst);
    return 0;
}

/* The method object of a record: the plan and the rule. */
static json_t *method_json(const unsigned *sizes, int n, int curve, const char *seed)
{
    return json_pack("{s:i, s:i, s:o, s:b, s:s, s:s, s:s, s:s}", "calls_size", COUNT_CALLS_SIZE,
                     "calls_curve", COUNT_CALLS_CURVE, "sizes", count_sizes_json(sizes, n), "curve",
                     curve, "seed", seed, "message_rule", "call i of entry k of the plan (the "
                     "sizes, then the curve's lengths) hashes call 0 of a probe trial of seed "
                     "s(k, i) = the first 16 hex digits of SHA-256(\"<seed>:<k>:<i>\"); " TM_RULE,
                     "rule",
                     COUNT_METHOD_RULE, "functions_rule", COUNT_FUNCTIONS_RULE);
}

/* 1 when the record of REL exists, COUNTED, for library LIB_SHA with the
 * same Valgrind options TOOL and the same plan (METHOD, but the seed). */
static int kept(const char *run_dir, const char *rel, const char *lib_sha, const json_t *tool,
                const json_t *method)
{
    char path[PATH_MAX];
    json_t *r = NULL;
    hb_err ignored;
    if (rundir_path(path, sizeof path, run_dir, rel, &ignored) != 0 || !hb_is_file(path) ||
        hb_json_load(path, &r, &ignored) != 0)
        return 0;
    json_t *m = json_deep_copy(json_object_get(r, "method"));
    json_object_set(m, "seed", json_object_get(method, "seed"));
    int ok = json_integer_value(json_object_get(r, "schema")) == COUNT_SCHEMA &&
             strcmp(hb_json_str(r, "library_sha256"), lib_sha) == 0 &&
             strcmp(hb_json_str(r, "status"), "COUNTED") == 0 &&
             json_equal(json_object_get(r, "tool_options"), tool) && json_equal(m, method);
    json_decref(m);
    json_decref(r);
    return ok;
}

/* The kept records of an instance: every size's record and the curve
 * (when asked for) are kept (an instance not counted is tried again: its
 * run ends early and costs little). Counts them into *COUNTED. */
static int reusable(const count_options *o, const char *cand, const char *inst,
                    const char *lib_sha, const unsigned *sizes, int n, const json_t *tool,
                    int *counted)
{
    json_t *method = method_json(sizes, n, !o->no_curve, "");
    int ok = 1;
    for (int i = 0; i < n && ok; i++) {
        char rel[PATH_MAX];
        hb_err ignored;
        ok = rundir_count_rel(rel, sizeof rel, cand, inst, sizes[i], &ignored) == 0 &&
             kept(o->run_dir, rel, lib_sha, tool, method);
    }
    char rel[PATH_MAX];
    hb_err ignored;
    if (ok && !o->no_curve)
        ok = curve_rel(rel, sizeof rel, cand, inst, &ignored) == 0 &&
             kept(o->run_dir, rel, lib_sha, tool, method);
    json_decref(method);
    if (ok)
        *counted += n;
    return ok;
}

static int save_record(const char *run_dir, const char *rel, json_t *r, hb_err *err)
{
    char path[PATH_MAX];
    if (!r)
        return hb_fail(err, "out of memory for %s", rel);
    if (rundir_path(path, sizeof path, run_dir, rel, err) != 0 ||
        hb_mkdirs_for(path, err) != 0)
        return -1;
    return hb_json_save(path, r, err);
}

/* ENTRY as a point of the curve: its functions are in the sizes' records. */
static json_t *point_of(const json_t *entry)
{
    json_t *p = json_copy((json_t *)entry);
    json_object_del(p, "functions");
    return p;
}

/* The length model (count_model.h) of the TOTAL entries ENTRIES, the
 * stage's sizes then the curve, fitted on the lengths the KAT vectors cover
 * byte by byte (0..COUNT_CURVE_FINE) into *M; NULL when a length was not
 * counted (the model is then left out). */
static json_t *length_model(const json_t *entries, int total, count_model *m)
{
    unsigned len[COUNT_MAX_SIZES + COUNT_CURVE_POINTS];
    double ir[COUNT_MAX_SIZES + COUNT_CURVE_POINTS];
    int n = 0;
    for (int i = 0; i < total; i++) {
        const json_t *e = json_array_get(entries, (size_t)i);
        const json_t *v = json_object_get(json_object_get(json_object_get(e, "derived"),
                                                          "Ir"), "per_call");
        if (strcmp(hb_json_str(e, "status"), "COUNTED") != 0 || !json_is_number(v))
            return NULL;
        len[n] = (unsigned)json_integer_value(json_object_get(e, "size_bytes"));
        ir[n++] = json_number_value(v);
    }
    count_model_fit(len, ir, n, COUNT_CURVE_FINE, m);
    return count_model_json(m);
}

/* The reason of the record of SIZE bytes (its count per call IR) of an
 * instance the model found below it, into OUT. */
static void below_reason(const count_model *m, unsigned size, double ir, char *out,
                         size_t cap)
{
    if (m->verdict == COUNT_MODEL_BELOW_LINE) {
        double p = m->lin_base + m->lin_slope * size;
        snprintf(out, cap, "below its own counts: no staircase within 0-%u B (%s), but at %u B "
                 "it executes %.2f of the instructions the straight line through its counts "
                 "within 0-%u B, the lengths its KAT vectors cover, predicts (lowest %.2f at "
                 "%u B; below %.2f is flagged): beyond %u B the code does less work per byte "
                 "where no vector checks what it computes, so its figures there are not "
                 "borne out", m->covered, m->why, size, p > 0 ? ir / p : 0.0, m->covered,
                 m->worst_ratio, m->worst_len, COUNT_MODEL_LINEAR_LOW, m->covered);
        return;
    }
    double p = count_model_predict(m, size);
    snprintf(out, cap, "below its own cost model: at %u B it executes %.2f of the "
             "instructions its staircase predicts (block %u B, %.0f instructions per block, "
             "fitted on the lengths 0-%u B its KAT vectors cover; lowest %.2f at %u B; below "
             "%.2f is flagged): beyond %u B the code does less work per byte where no vector "
             "checks what it computes, so its figures there are not borne out", size,
             p > 0 ? ir / p : 0.0, m->block, m->per_block, m->covered, m->worst_ratio,
             m->worst_len, COUNT_MODEL_LOW, m->covered);
}

static int do_instance(const count_options *o, const json_t *k, const json_t *b,
                       const unsigned *sizes, int n, int *counted, int *not, hb_err *err)
{
    const char *cand = hb_json_str(k, "candidate"), *inst = hb_json_str(k, "instance");
    rundir_library used;
    rundir_instance_library(b, k, &used);
    const char *lib_rel = used.library ? used.library : "";
    int bits = (int)json_integer_value(json_object_get(b, "digest_bits"));
    if (!override_name_valid(cand) || !override_name_valid(inst) || !lib_rel[0] || bits <= 0)
        return hb_fail(err, "%s: entry %.64s/%.64s has no usable name, library or digest "
                       "size; run hashbench kat again", KAT_JSON, cand, inst);
    char lib[PATH_MAX], lib_sha[HB_SHA256_HEX] = "";
    hb_err ignored;
    if (hb_path_join(lib, sizeof lib, o->run_dir, lib_rel, err) != 0)
        return -1;
    if (hb_sha256_file_hex(lib, lib_sha, &ignored) != 0)
        lib_sha[0] = '\0';
    json_t *tool = json_array();
    const char *const *opts = count_tool_options(&o->events);
    for (int i = 0; opts[i]; i++)
        json_array_append_new(tool, json_string(opts[i]));
    int reuse = lib_sha[0] && reusable(o, cand, inst, lib_sha, sizes, n, tool, counted);
    json_decref(tool);
    if (reuse)
        return 0;
    /* the plan: the stage's sizes, then the curve */
    unsigned plan_sizes[COUNT_MAX_SIZES + COUNT_CURVE_POINTS];
    unsigned plan_calls[COUNT_MAX_SIZES + COUNT_CURVE_POINTS];
    int total = 0;
    for (int i = 0; i < n; i++) {
        plan_sizes[total] = sizes[i];
        plan_calls[total++] = COUNT_CALLS_SIZE;
    }
    if (!o->no_curve) {
        int c = curve_lengths(plan_sizes + total);
        for (int i = 0; i < c; i++)
            plan_calls[total++] = COUNT_CALLS_CURVE;
    }
    uint64_t seed;
    if (getrandom(&seed, sizeof seed, 0) != sizeof seed)
        return hb_fail_errno(err, "count: getrandom");
    double t0 = hb_mono_s();
    json_t *res = NULL;
    /* hashbench's own baseline has no budget */
    ibudget bu = {o->run_dir, cand, inst,
                  strcmp(hb_json_str(k, "status"), "BASELINE") == 0 ? 0 : o->instance_budget_s};
    if (count_library(lib, lib_rel, bits, plan_sizes, plan_calls, total, seed, &o->events,
                      &bu, &res, err) != 0)
        return -1;
    double secs = round((hb_mono_s() - t0) * 100) / 100;
    json_t *method = method_json(sizes, n, !o->no_curve, hb_json_str(res, "seed"));
    /* what every record of the instance holds */
    json_t *head = json_pack(
        "{s:i, s:s, s:s, s:s, s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:O, s:O, s:O, s:O, "
        "s:O, s:f}",
        "schema", COUNT_SCHEMA, "candidate", cand, "instance", inst, "algorithm_instance",
        build_algorithm_instance(b), "digest_bits", bits, "kat_status",
        hb_json_str(k, "status"), "library", lib_rel, "library_sha256", lib_sha,
        "flags_kind", used.flags_kind ? used.flags_kind : "", "flags",
        used.flags ? used.flags : "", "sandbox", hb_sandbox_describe(), "valgrind",
        json_object_get(res, "valgrind"), "tool_options", json_object_get(res, "tool_options"),
        "method", method, "command", json_object_get(res, "command"), "empty",
        json_object_get(res, "empty"), "instance_seconds", secs);
    const json_t *entries = json_object_get(res, "entries");
    int rc = head ? 0 : hb_fail(err, "out of memory for the count of %s/%s", cand, inst);
    /* the length model, from every counted length (curve and sizes) */
    count_model model;
    json_t *model_json = o->no_curve ? NULL : length_model(entries, total, &model);
    int below = model_json && (model.verdict == COUNT_MODEL_BELOW ||
                               model.verdict == COUNT_MODEL_BELOW_LINE);
    for (int i = 0; rc == 0 && i < n; i++) {
        const json_t *e = json_array_get(entries, (size_t)i);
        char rel[PATH_MAX];
        json_t *r = json_deep_copy(head);
        json_object_set_new(r, "kind", json_string("hashbench-count"));
        json_object_update(r, (json_t *)e);
        if (below && sizes[i] > model.covered &&
            strcmp(hb_json_str(e, "status"), "COUNTED") == 0) {
            /* the raw counts stay; the figure is not one to trust */
            char why[768];
            below_reason(&model, sizes[i], json_number_value(json_object_get(
                         json_object_get(json_object_get(e, "derived"), "Ir"), "per_call")),
                         why, sizeof why);
            json_object_set_new(r, "status", json_string("INCONSISTENT"));
            json_object_set_new(r, "reason", json_string(why));
            json_object_set_new(r, "derived", json_null());
            json_object_set_new(r, "length_model",
                                json_string(count_model_verdict_name(model.verdict)));
        }
        rc = rundir_count_rel(rel, sizeof rel, cand, inst, sizes[i], err) != 0 ? -1 :
             save_record(o->run_dir, rel, r, err);
        if (rc == 0 && strcmp(hb_json_str(r, "status"), "COUNTED") == 0)
            (*counted)++;
        else if (rc == 0)
            (*not)++;
        json_decref(r);
    }
    if (rc == 0 && !o->no_curve) {
        /* the curve's lengths, and the stage's sizes above them */
        json_t *points = json_array();
        const json_t *failed = NULL;
        for (int i = n; i < total; i++)
            json_array_append_new(points, point_of(json_array_get(entries, (size_t)i)));
        for (int i = 0; i < n; i++)
            if (sizes[i] > COUNT_CURVE_MAX)
                json_array_append_new(points, point_of(json_array_get(entries, (size_t)i)));
        size_t j;
        json_t *p;
        json_array_foreach(points, j, p)
            if (!failed && strcmp(hb_json_str(p, "status"), "COUNTED") != 0)
                failed = p;
        char rel[PATH_MAX];
        json_t *r = json_deep_copy(head);
        json_object_set_new(r, "kind", json_string("hashbench-count-curve"));
        json_object_set_new(r, "status", json_string(failed ? hb_json_str(failed, "status")
                                                            : "COUNTED"));
        json_object_set_new(r, "reason", json_string(failed ? hb_json_str(failed, "reason")
                                                            : ""));
        const json_t *raw_why = failed ? json_object_get(failed, "raw_reason_untrusted") : NULL;
        if (raw_why)
            json_object_set(r, "raw_reason_untrusted", (json_t *)raw_why);
        json_object_set_new(r, "points", points);
        json_object_set(r, "length_model", model_json ? model_json : json_null());
        rc = curve_rel(rel, sizeof rel, cand, inst, err) != 0 ? -1 :
             save_record(o->run_dir, rel, r, err);
        json_decref(r);
    }
    json_decref(model_json);
    json_decref(head);
    json_decref(method);
    json_decref(res);
    return rc;
}

/* The instances to count and the workers' shared state. */
typedef struct count_pool {
    const count_options *o;
    const unsigned *sizes;
    int n_sizes;
    const json_t **kat, **build;  /* the entries to count */
    size_t n, next, done;
    int counted, not, rc;
    hb_err err;
    pthread_mutex_t lock;
} count_pool;

static void *worker(void *arg)
{
    count_pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        size_t i = p->next++;
        int stop = i >= p->n || p->rc != 0;
        if (!stop && p->o->progress) {
            char step[300];
            snprintf(step, sizeof step, "count %.128s/%.128s", hb_json_str(p->kat[i],
                     "candidate"), hb_json_str(p->kat[i], "instance"));
            p->o->progress(p->o->progress_ctx, step, (int)p->done, (int)p->n);
        }
        pthread_mutex_unlock(&p->lock);
        if (stop)
            return NULL;
        int counted = 0, not = 0;
        hb_err err;
        int rc = do_instance(p->o, p->kat[i], p->build[i], p->sizes, p->n_sizes, &counted,
                             &not, &err);
        pthread_mutex_lock(&p->lock);
        p->counted += counted;
        p->not += not;
        p->done++;
        if (rc != 0 && p->rc == 0) {
            p->rc = rc;
            p->err = err;
        }
        pthread_mutex_unlock(&p->lock);
    }
}

int count_default_jobs(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > COUNT_MAX_JOBS ? COUNT_MAX_JOBS : (int)n;
}

int count_run(const count_options *o, int *n_counted, int *n_not, hb_err *err)
{
    unsigned sizes[COUNT_MAX_SIZES];
    int n = 0;
    *n_counted = *n_not = 0;
    if (stage_sizes(o, sizes, &n, err) != 0)
        return -1;
    kat_passed passed;
    int rc = kat_passed_load_nokat(o->run_dir, o->instances, o->n_instances, o->nokat,
                                   &passed, err);
    count_pool p;
    memset(&p, 0, sizeof p);
    p.o = o;
    p.sizes = sizes;
    p.n_sizes = n;
    p.kat = passed.kat;
    p.build = passed.build;
    p.n = passed.n;
    if (rc == 0 && p.n > 0) {
        int jobs = o->jobs > 0 ? o->jobs : count_default_jobs();
        count_driver_path(); /* found once before the workers read them */
        runner_path();
        hb_sandbox_describe();
        pthread_t threads[COUNT_MAX_JOBS];
        int started = 0;
        pthread_mutex_init(&p.lock, NULL);
        for (; started < jobs && (size_t)started < p.n; started++)
            if (pthread_create(&threads[started], NULL, worker, &p) != 0)
                break;
        if (started == 0)
            worker(&p);
        for (int t = 0; t < started; t++)
            pthread_join(threads[t], NULL);
        pthread_mutex_destroy(&p.lock);
        rc = p.rc;
        if (rc != 0)
            *err = p.err;
    }
    *n_counted = p.counted;
    *n_not = p.not;
    if (o->progress && rc == 0)
        o->progress(o->progress_ctx, "count", (int)p.done, (int)p.n);
    kat_passed_free(&passed);
    return rc;
}

int count_stage_sizes(const count_options *o, unsigned *sizes, int *n, hb_err *err)
{
    return stage_sizes(o, sizes, n, err);
}

typedef struct below_walk {
    void (*fn)(void *, const char *, const char *, const char *);
    void *ctx;
    int n;
} below_walk;

static int below_visit(const hb_walk_entry *e, void *ctx, hb_err *err)
{
    (void)err;
    below_walk *w = ctx;
    static const char tail[] = "__count_curve.json";
    size_t n = strlen(e->name), t = sizeof tail - 1;
    json_t *r = NULL;
    hb_err ignored;
    if (e->type != HB_WALK_FILE || n <= t || strcmp(e->name + n - t, tail) != 0 ||
        hb_json_load(e->path, &r, &ignored) != 0)
        return HB_WALK_CONTINUE;
    const json_t *m = json_object_get(r, "length_model");
    const char *v = hb_json_str(m, "verdict");
    int line_model = strcmp(v, "BELOW_LINE") == 0;
    if (strcmp(v, "BELOW_MODEL") == 0 || line_model) {
        char line[400];
        long long covered = json_integer_value(json_object_get(m, "covered_bytes"));
        snprintf(line, sizeof line, "its counts beyond %lld B are below its own %s (%.2f of "
                 "it at %lld B, below %.2f): its figures beyond %lld B are not borne out (%s)",
                 covered, line_model ? "counts' line (no staircase)" : "cost model",
                 json_number_value(json_object_get(m, "worst_ratio")),
                 (long long)json_integer_value(json_object_get(m, "worst_length")),
                 line_model ? COUNT_MODEL_LINEAR_LOW : COUNT_MODEL_LOW, covered, e->rel);
        w->fn(w->ctx, hb_json_str(r, "candidate"), hb_json_str(r, "instance"), line);
        w->n++;
    }
    json_decref(r);
    return HB_WALK_CONTINUE;
}

int count_below_model(const char *run_dir,
                      void (*fn)(void *ctx, const char *cand, const char *inst,
                                 const char *line),
                      void *ctx)
{
    char dir[PATH_MAX];
    hb_err ignored;
    below_walk w = {fn, ctx, 0};
    if (rundir_path(dir, sizeof dir, run_dir, RUNDIR_COUNT, &ignored) != 0)
        return 0;
    hb_walk(dir, 2, HB_WALK_MISSING_OK, below_visit, &w, &ignored);
    return w.n;
}
