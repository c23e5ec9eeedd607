/* The constant-time stage over a run directory (ct.h: ct_run): for every
 * kat.json entry that passed (PASS) or is the OpenSSL baseline (BASELINE),
 * rebuilds the KAT's library with -g for the taint check (a submitted
 * instance; the baseline is hashbench's own build and is used as it is),
 * runs both methods, and writes DIR/ct/<cand>/<Inst>.json. Beside the
 * record, in the run directory only: the -g library and its compiler log
 * and Valgrind's XML and text output. A record whose library, settings and
 * tool are unchanged is kept (resume). */
#include "ct/ct.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/build.h"
#include "compile/compile.h"
#include "compile/override.h"
#include "common/clock.h"
#include "common/fs.h"
#include "common/json.h"
#include "kat/kat.h"
#include "measure/counter.h"
#include "rundir/ibudget.h"
#include "rundir/rundir.h"
#include "sandbox/check.h"

static const char *field(const json_t *o, const char *k)
{
    const char *v = json_string_value(json_object_get(o, k));
    return v ? v : "";
}

/* Splits FLAGS (words joined by single spaces, as build.json writes them)
 * into L, then adds -g. */
static int debug_flags(const char *flags, strlist *l)
{
    char *copy = strdup(flags);
    if (!copy)
        return -1;
    int rc = 0;
    for (char *w = strtok(copy, " "); w && rc == 0; w = strtok(NULL, " "))
        rc = strlist_push(l, w);
    free(copy);
    return rc == 0 ? strlist_push(l, "-g") : -1;
}

/* The -g rebuild of build entry B with the flags FLAGS the KAT used into
 * LIB (log LOG). *BUILT gets 1 or 0 (REASON then says why). */
static int rebuild_g(const json_t *b, const char *flags, const char *lib, const char *log,
                     int *built, char *reason, size_t cap, hb_err *err)
{
    compile_toolchain tc;
    strlist fl = {0}, src = {0};
    size_t i;
    json_t *s;
    *built = 0;
    const char *cc = field(b, "compiler");
    if (compile_toolchain_probe(cc[0] ? cc : "cc", &tc, err) != 0) {
        snprintf(reason, cap, "%s", err->msg);
        return 0;
    }
    int rc = debug_flags(flags, &fl);
    json_array_foreach(json_object_get(b, "sources"), i, s) {
        const char *p = json_is_object(s) ? field(s, "path") : json_string_value(s);
        if (rc == 0 && (!p || !*p || strlist_push(&src, p) != 0))
            rc = -1;
    }
    if (rc != 0) {
        strlist_free(&fl);
        strlist_free(&src);
        return hb_fail(err, "%s: malformed sources of %s/%s; run hashbench build again",
                       BUILD_JSON, field(b, "candidate"), field(b, "instance"));
    }
    compile_job job = {&tc, field(b, "package"), &fl, &src, NULL, lib, log, 0, NULL, 1};
    compile_outcome out;
    rc = compile_instance(&job, &out, err);
    strlist_free(&fl);
    strlist_free(&src);
    if (rc != 0)
        return -1;
    *built = out.built;
    if (!out.built)
        snprintf(reason, cap, "the -g rebuild failed: %.900s", out.reason);
    return 0;
}

/* A kept record: same library, message length, measurement count and
 * counter. */
static int reusable(const char *path, const char *lib_sha, const ct_options *o,
                    const char *counter)
{
    json_t *r = NULL;
    hb_err ignored;
    if (!hb_is_file(path) || hb_json_load(path, &r, &ignored) != 0)
        return 0;
    const json_t *t = json_object_get(r, "timing");
    int ok = strcmp(field(r, "library_sha256"), lib_sha) == 0 &&
             strcmp(field(t, "counter"), counter) == 0 &&
             strcmp(field(t, "status"), "MEASURED") == 0 &&
             json_integer_value(json_object_get(t, "message_bytes")) == (json_int_t)o->bytes &&
             json_integer_value(json_object_get(t, "measurements")) == o->measurements;
    json_decref(r);
    return ok;
}

static int do_instance(const ct_options *o, const char *run_dir, const json_t *k,
                       const json_t *b, counter_kind counter, const char **verdict,
                       hb_err *err)
{
    const char *cand = field(k, "candidate"), *inst = field(k, "instance");
    const char *status = field(k, "status");
    rundir_library used;
    rundir_instance_library(b, k, &used);
    const char *lib_rel = used.library ? used.library : "";
    const char *flags = used.flags ? used.flags : field(b, "flags");
    const char *flags_kind = used.flags_kind ? used.flags_kind : field(b, "flags_kind");
    int bits = (int)json_integer_value(json_object_get(b, "digest_bits"));
    if (!override_name_valid(cand) || !override_name_valid(inst) || !lib_rel[0] || bits <= 0)
        return hb_fail(err, "%s: entry %.64s/%.64s has no usable name, library or digest "
                       "size; run hashbench kat again", KAT_JSON, cand, inst);
    char lib[PATH_MAX], rec[PATH_MAX], prefix[PATH_MAX], glib[PATH_MAX], glog[PATH_MAX];
    char rel[PATH_MAX], glib_rel[PATH_MAX], rec_rel[PATH_MAX], glog_rel[PATH_MAX];
    char lib_sha[HB_SHA256_HEX] = "";
    if (rundir_ct_dir_rel(rel, sizeof rel, cand, inst, err) != 0 ||
        rundir_ct_rel(rec_rel, sizeof rec_rel, cand, inst, err) != 0 ||
        rundir_ct_debug_library_rel(glib_rel, sizeof glib_rel, cand, inst, err) != 0 ||
        rundir_ct_debug_log_rel(glog_rel, sizeof glog_rel, cand, inst, err) != 0 ||
        hb_path_join(lib, sizeof lib, run_dir, lib_rel, err) != 0 ||
        hb_path_join(prefix, sizeof prefix, run_dir, rel, err) != 0 ||
        hb_path_join(rec, sizeof rec, run_dir, rec_rel, err) != 0 ||
        hb_path_join(glib, sizeof glib, run_dir, glib_rel, err) != 0 ||
        hb_path_join(glog, sizeof glog, run_dir, glog_rel, err) != 0)
        return -1;
    hb_err ignored;
    if (hb_sha256_file_hex(lib, lib_sha, &ignored) != 0)
        lib_sha[0] = '\0';
    if (lib_sha[0] && reusable(rec, lib_sha, o, counter_kind_name(counter))) {
        json_t *r = NULL;
        if (hb_json_load(rec, &r, err) != 0)
            return -1;
        *verdict = strcmp(field(r, "verdict"), "FOUND") == 0 ? "FOUND"
                 : strcmp(field(r, "verdict"), "NONE_FOUND") == 0 ? "NONE_FOUND"
                 : "NOT_ANALYSABLE";
        json_decref(r);
        return 0;
    }
    if (hb_mkdirs_for(rec, err) != 0)
        return -1;
    double t0 = hb_mono_s();
    /* the library of the taint check */
    int submitted = strcmp(status, "BASELINE") != 0 && field(b, "package")[0];
    int built = 1;
    char reason[HB_ERR_MAX] = "";
    json_t *taint = NULL, *timing = NULL;
    json_t *tb = json_object();
    if (submitted) {
        if (rebuild_g(b, flags, glib, glog, &built, reason, sizeof reason, err) != 0) {
            json_decref(tb);
            return -1;
        }
        char gflags[8192];
        snprintf(gflags, sizeof gflags, "%s%s-g", flags, flags[0] ? " " : "");
        json_object_set_new(tb, "library", built ? json_string(glib_rel) : json_null());
        json_object_set_new(tb, "flags", json_string(gflags));
        json_object_set_new(tb, "status", json_string(built ? "BUILT" : "BUILDFAIL"));
    } else {
        json_object_set_new(tb, "library", json_string(lib_rel));
        json_object_set_new(tb, "flags", json_string(flags));
        json_object_set_new(tb, "status", json_string("KAT_LIBRARY"));
    }
    /* the instance's wall budget (not the baseline's, hashbench's own):
     * each step gets no more than what is left, and a step cut short by it,
     * or not started, says so */
    ibudget bu = {run_dir, cand, inst, submitted ? o->instance_budget_s : 0};
    char why[400];
    double step_s = 0, t1 = hb_mono_s();
    int limited = 0, rc = ibudget_charge(&bu, IBUDGET_CT, t1 - t0, err); /* the rebuild */
    if (rc == 0)
        rc = ibudget_step_timeout(&bu, CT_TAINT_TIMEOUT_S, &step_s, &limited, err);
    ibudget_reason(&bu, why, sizeof why);
    if (rc == 0 && (!built || ibudget_spent(&bu, err) == 1))
        taint = json_pack("{s:s, s:[], s:s, s:s, s:[], s:i}", "tool", "memcheck",
                          "lengths_bits", "status", "NOT_ANALYSABLE", "reason",
                          built ? why : reason, "findings", "other_errors", 0);
    else if (rc == 0)
        rc = ct_taint_within(submitted ? glib : lib, bits,
                             submitted ? field(b, "package") : NULL, prefix, step_s,
                             limited ? why : NULL, &taint, err);
    if (rc == 0)
        rc = ibudget_charge(&bu, IBUDGET_CT, hb_mono_s() - t1, err);
    ct_time_opts to = {counter, o->bytes, o->measurements, 120.0, NULL};
    if (rc == 0)
        rc = ibudget_step_timeout(&bu, to.timeout_s, &to.timeout_s, &limited, err);
    ibudget_reason(&bu, why, sizeof why);
    to.timeout_reason = limited ? why : NULL;
    t1 = hb_mono_s();
    if (rc == 0 && ibudget_spent(&bu, err) == 1)
        timing = json_pack("{s:s, s:I, s:s, s:I, s:s, s:s}", "counter",
                           counter_kind_name(counter), "message_bytes",
                           (json_int_t)(o->bytes), "fixed_message", "all zero bytes",
                           "measurements", (json_int_t)0, "status", "FAILED", "reason", why);
    else if (rc == 0)
        rc = ct_timing(lib, bits, &to, &timing, err);
    if (rc == 0)
        rc = ibudget_charge(&bu, IBUDGET_CT, hb_mono_s() - t1, err);
    if (rc == 0) {
        *verdict = ct_verdict(taint, timing);
        json_t *r = json_pack("{s:i, s:s, s:s, s:s, s:s, s:i, s:s, s:s, s:s, s:s, s:s, s:o, "
                              "s:s, s:O, s:O, s:s, s:f}",
            "schema", 1, "kind", "hashbench-ct", "candidate", cand, "instance", inst,
            "algorithm_instance", build_algorithm_instance(b), "digest_bits", bits,
            "kat_status", status, "library", lib_rel, "library_sha256", lib_sha,
            "flags_kind", flags_kind, "flags", flags, "taint_build", tb,
            "sandbox", hb_sandbox_describe(), "taint", taint, "timing", timing,
            "verdict", *verdict, "seconds", round((hb_mono_s() - t0) * 100) / 100);
        tb = NULL;
        rc = r ? hb_json_save(rec, r, err) : hb_fail(err, "out of memory for %s", rec);
        json_decref(r);
    }
    json_decref(tb);
    json_decref(taint);
    json_decref(timing);
    return rc;
}

int ct_run(const ct_options *opt, int *n_found, int *n_na, hb_err *err)
{
    ct_options o = *opt;
    if (!o.bytes)
        o.bytes = CT_DEFAULT_BYTES;
    if (!o.measurements)
        o.measurements = CT_DEFAULT_MEASUREMENTS;
    *n_found = *n_na = 0;
    kat_passed passed;
    if (kat_passed_load(o.run_dir, o.instances, o.n_instances, &passed, err) != 0) {
        kat_passed_free(&passed);
        return -1;
    }
    counter_state cs;
    counter_select(&cs, NULL, NULL, err);
    size_t total = passed.n, done = 0;
    int rc = 0;
    for (size_t i = 0; i < passed.n; i++) {
        const json_t *k = passed.kat[i], *b = passed.build[i];
        const char *cand = field(k, "candidate"), *inst = field(k, "instance");
        if (o.progress) {
            char step[300];
            snprintf(step, sizeof step, "ct %.128s/%.128s", cand, inst);
            o.progress(o.progress_ctx, step, (int)done, (int)total);
        }
        const char *verdict = "NOT_ANALYSABLE";
        if ((rc = do_instance(&o, o.run_dir, k, b, cs.kind, &verdict, err)) != 0)
            break;
        *n_found += strcmp(verdict, "FOUND") == 0;
        *n_na += strcmp(verdict, "NOT_ANALYSABLE") == 0;
        done++;
    }
    if (o.progress && rc == 0)
        o.progress(o.progress_ctx, "ct", (int)done, (int)total);
    kat_passed_free(&passed);
    return rc;
}
