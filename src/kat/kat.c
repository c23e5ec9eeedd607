/* The KAT stage over a run directory: see kat.h. kat.json is saved after
 * every instance, so a killed run loses at most the instance in flight. */
#include "kat/kat.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <jansson.h>
#include "build/build.h"
#include "common/fs.h"
#include "common/json.h"
#include "kat/kat_instance.h"
#include "kat/variants.h"
#include "sandbox/check.h"

#define BASELINE_REASON "OpenSSL libcrypto baseline; the oracle, not KAT-checked"

static const char *str_of(const json_t *o, const char *k)
{
    const char *v = json_string_value(json_object_get(o, k));
    return v ? v : "";
}

static int safe_name(const char *s)
{
    return s[0] && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..");
}

/* 1 when the entry's file list is what the options ask for BUILD, and it
 * names the same submitted files as not checked. */
static int files_match_options(const json_t *entry, const json_t *build,
                               const kat_options *o)
{
    int loop = 0, full = 0;
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(entry, "files"), i, f) {
        loop |= strncmp(str_of(f, "name"), "KAT_Loop_", 9) == 0;
        full |= strncmp(str_of(f, "name"), "KAT_2_33_", 9) == 0;
    }
    json_t *unchecked = kat_instance_not_checked(build, o->loop, o->full);
    int same = json_equal(unchecked, json_object_get(entry, "not_checked"));
    json_decref(unchecked);
    return same && loop == kat_instance_runs_loop(build, o->loop) && full == !!o->full;
}

/* 1 when the submitted vectors of every compared file of ENTRY are still
 * what they were (a manifest or text file added, changed or removed since
 * makes the result stale). */
static int vectors_unchanged(const json_t *entry, const json_t *build)
{
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(entry, "files"), i, f) {
        const char *verdict = str_of(f, "verdict"), *was = str_of(f, "expected_sha256");
        char now[HB_SHA256_HEX];
        if (strcmp(verdict, "PASS") && strcmp(verdict, "MISMATCH") && strcmp(verdict, "NOKAT"))
            continue; /* not compared: the library failed first */
        int rc = kat_instance_expected(build, str_of(f, "name"), now);
        if (rc < 0 || (rc == 0 && was[0]) || (rc == 1 && strcmp(now, was) != 0))
            return 0;
    }
    return 1;
}

/* 1 when OLD (kat.json) still stands for BUILD (build.json) under O. */
static int reusable(const json_t *old, const json_t *build, const kat_options *o)
{
    const char *want = str_of(build, "library_sha256");
    const json_t *guide = json_object_get(old, "guide");
    if (!old || strcmp(str_of(old, "status"), "BASELINE") == 0 || !want[0])
        return 0;
    const char *had = json_is_object(guide) ? str_of(guide, "library_sha256")
                                            : str_of(old, "library_sha256");
    return strcmp(had, want) == 0 && files_match_options(old, build, o) &&
           vectors_unchanged(old, build);
}

static json_t *baseline_entry(const json_t *b)
{
    return json_pack("{s:s, s:s, s:s, s:n, s:n, s:s, s:s, s:s, s:s, s:n, s:[], s:s}",
        "candidate", str_of(b, "candidate"), "instance", str_of(b, "instance"),
        "status", "BASELINE", "log", "log_sha256",
        "library", str_of(b, "library"), "library_sha256", str_of(b, "library_sha256"),
        "flags_kind", str_of(b, "flags_kind"), "flags", str_of(b, "flags"),
        "guide", "files", "reason", BASELINE_REASON);
}

static int run_one(const kat_options *o, const json_t *build, const char *suffix,
                   json_t **out, hb_err *err)
{
    char log_rel[PATH_MAX], texts_rel[PATH_MAX];
    const char *cand = str_of(build, "candidate"), *inst = str_of(build, "instance");
    snprintf(log_rel, sizeof log_rel, "kat/%s/%s%s%s.log", cand, inst,
             suffix ? "." : "", suffix ? suffix : "");
    snprintf(texts_rel, sizeof texts_rel, "kat/%s/%s%s%s", cand, inst,
             suffix ? "/" : "", suffix ? suffix : "");
    kat_instance_spec s = {o->run_dir, build, log_rel, texts_rel, o->loop, o->full,
                           o->timeout_s};
    return kat_instance_run(&s, out, err);
}

static void append_reason(json_t *entry, const char *more)
{
    char buf[2 * HB_ERR_MAX];
    const char *old = str_of(entry, "reason");
    snprintf(buf, sizeof buf, "%s%s%s", old, old[0] ? "; " : "", more);
    json_object_set_new(entry, "reason", json_string(buf));
}

/* The guide result kept inside the fallback's entry. */
static json_t *guide_summary(const json_t *g)
{
    return json_pack("{s:O, s:O, s:O, s:O, s:O, s:O}",
        "status", json_object_get(g, "status"), "log", json_object_get(g, "log"),
        "log_sha256", json_object_get(g, "log_sha256"),
        "library", json_object_get(g, "library"),
        "library_sha256", json_object_get(g, "library_sha256"),
        "flags", json_object_get(g, "flags"));
}

/* SPEC §2: a guide build that neither passes nor lacks vectors is rebuilt
 * once with the harness-default flags and tested again. */
static int fallback(const kat_options *o, const json_t *build, json_t **entry, hb_err *err)
{
    json_t *rebuilt = NULL, *second = NULL;
    hb_err berr;
    if (build_rebuild_default(o->run_dir, build, &rebuilt, &berr) != 0) {
        char msg[HB_ERR_MAX + 64];
        snprintf(msg, sizeof msg, "harness-default rebuild failed: %s", berr.msg);
        append_reason(*entry, msg);
        return 0;
    }
    if (strcmp(str_of(rebuilt, "status"), "BUILT") != 0) {
        append_reason(*entry, "the harness-default rebuild did not compile either "
                      "(see its build log)");
        json_decref(rebuilt);
        return 0;
    }
    int rc = run_one(o, rebuilt, "harness-default", &second, err);
    json_decref(rebuilt);
    if (rc != 0)
        return -1;
    json_object_set_new(second, "guide", guide_summary(*entry));
    char msg[HB_ERR_MAX + 64];
    snprintf(msg, sizeof msg, "guide flags gave %s; rebuilt with harness-default flags",
             str_of(*entry, "status"));
    json_t *r = json_string(str_of(second, "reason"));
    json_object_set_new(second, "reason", json_string(msg));
    if (json_string_length(r))
        append_reason(second, json_string_value(r));
    json_decref(r);
    json_decref(*entry);
    *entry = second;
    return 0;
}

static int test_instance(const kat_options *o, const json_t *build, json_t **out,
                         hb_err *err)
{
    if (run_one(o, build, NULL, out, err) != 0)
        return -1;
    const char *st = str_of(*out, "status");
    if (!kat_status_failed(st) || strcmp(str_of(build, "flags_kind"), "guide") != 0)
        return 0;
    return fallback(o, build, out, err);
}

static int load_kat_json(const char *path, json_t **kat, hb_err *err)
{
    if (!hb_is_file(path)) {
        *kat = json_pack("{s:i, s:[]}", "schema", 1, "instances");
        return 0;
    }
    if (hb_json_load(path, kat, err) != 0)
        return -1;
    if (!json_is_array(json_object_get(*kat, "instances"))) {
        json_decref(*kat);
        return hb_fail(err, "%s: no 'instances' array; remove the file to start "
                       "the KAT stage again", path);
    }
    return 0;
}

/* Puts ENTRY (stolen) in place of the old one or at the end. */
static void store(json_t *arr, json_t *entry)
{
    size_t idx;
    if (kat_find_entry(arr, str_of(entry, "candidate"), str_of(entry, "instance"), &idx))
        json_array_set_new(arr, idx, entry);
    else
        json_array_append_new(arr, entry);
}

static int count_selected(const kat_options *o, const json_t *list)
{
    size_t i;
    json_t *b;
    int n = 0;
    json_array_foreach(list, i, b)
        n += kat_selected(o, str_of(b, "candidate"), str_of(b, "instance"));
    return n;
}

/* Another entry of LIST with the candidate and instance of B, or NULL. */
static const json_t *name_twin(const json_t *list, const json_t *b)
{
    size_t i;
    json_t *e;
    json_array_foreach(list, i, e)
        if (e != b && strcmp(str_of(e, "candidate"), str_of(b, "candidate")) == 0 &&
            strcmp(str_of(e, "instance"), str_of(b, "instance")) == 0)
            return e;
    return NULL;
}

/* Handles one build.json entry; *entry_out is the (borrowed) kat.json entry
 * or NULL when the instance has no library to test (any older entry of it
 * is then dropped). */
static int do_instance(const kat_options *o, const json_t *list, const json_t *b,
                       json_t *arr, json_t **entry_out, hb_err *err)
{
    const char *cand = str_of(b, "candidate"), *inst = str_of(b, "instance");
    size_t idx;
    json_t *entry = NULL;
    *entry_out = NULL;
    if (!safe_name(cand) || !safe_name(inst))
        return hb_fail(err, "%s/build.json: candidate '%s' / instance '%s' is not "
                       "a plain name; rebuild the run directory", o->run_dir, cand, inst);
    const json_t *twin = strcmp(str_of(b, "status"), "BUILT") == 0 ? name_twin(list, b)
                                                                   : NULL;
    if (twin) /* one kat.json entry per name: one verdict would replace the other */
        return hb_fail(err, "%s/build.json: %s/%s is listed for both %s and %s, and "
                       "one of them is built; run 'hashbench build' again (instances "
                       "sharing a name are not built)", o->run_dir, cand, inst,
                       str_of(b, "source_dir"), str_of(twin, "source_dir"));
    if (json_is_true(json_object_get(b, "baseline"))) {
        entry = baseline_entry(b);
    } else if (strcmp(str_of(b, "status"), "BUILT") != 0) {
        if (kat_find_entry(arr, cand, inst, &idx)) /* an older library's result */
            json_array_remove(arr, idx);
        return 0;
    } else if (reusable(kat_find_entry(arr, cand, inst, &idx), b, o)) {
        *entry_out = json_array_get(arr, idx);
        return 0;
    } else if (test_instance(o, b, &entry, err) != 0) {
        return -1;
    }
    if (!entry)
        return hb_fail(err, "out of memory");
    store(arr, entry);
    *entry_out = entry;
    return 0;
}

/* The compilers a harness-default rebuild of the selected guide builds of
 * LIST would run, checked before any instance is tested rather than when
 * the first fallback needs one. */
static int check_compilers(const kat_options *o, const json_t *list, const char *bpath,
                           hb_err *err)
{
    size_t i, j;
    json_t *b, *seen;
    json_array_foreach(list, i, b) {
        const char *cc = str_of(b, "compiler");
        int again = 0;
        json_array_foreach(list, j, seen)
            again |= j < i && strcmp(str_of(seen, "compiler"), cc) == 0;
        if (again || !cc[0] || strcmp(str_of(b, "status"), "BUILT") != 0 ||
            strcmp(str_of(b, "flags_kind"), "guide") != 0 ||
            json_is_true(json_object_get(b, "baseline")) ||
            !kat_selected(o, str_of(b, "candidate"), str_of(b, "instance")))
            continue;
        hb_err why;
        if (build_check_compiler(cc, &why) != 0)
            return hb_fail(err, "%s: the compiler '%s' (the --cc of hashbench build), "
                           "needed for a harness-default rebuild, cannot be run: "
                           "%s", bpath, cc, why.msg);
    }
    return 0;
}

int kat_run(const kat_options *o, int *n_failed, hb_err *err)
{
    char bpath[PATH_MAX], kpath[PATH_MAX];
    json_t *build = NULL, *kat = NULL;
    *n_failed = 0;
    if (o->variants_seed && !variants_seed_valid(o->variants_seed))
        return hb_fail(err, "variant seed '%.40s': give %d hex digits (the seed a "
                       "variants result records)", o->variants_seed, VARIANTS_SEED_DIGITS);
    if (hb_path_join(bpath, sizeof bpath, o->run_dir, "build.json", err) != 0 ||
        hb_path_join(kpath, sizeof kpath, o->run_dir, KAT_JSON, err) != 0)
        return -1;
    if (!hb_is_file(bpath))
        return hb_fail(err, "%s: not found; run 'hashbench build' on this run "
                       "directory first", bpath);
    if (hb_remove_stale_tmp(o->run_dir, NULL, err) != 0 ||
        hb_json_load(bpath, &build, err) != 0)
        return -1;
    json_t *list = json_object_get(build, "instances");
    int rc = json_is_array(list) ? check_compilers(o, list, bpath, err)
                                 : hb_fail(err, "%s: no 'instances' array; run "
                                           "'hashbench build' again", bpath);
    if (rc == 0)
        rc = load_kat_json(kpath, &kat, err);
    int total = rc == 0 ? count_selected(o, list) : 0, done = 0;
    size_t i;
    json_t *b;
    json_array_foreach(list, i, b) {
        char step[300];
        json_t *entry;
        if (rc != 0 || !kat_selected(o, str_of(b, "candidate"), str_of(b, "instance")))
            continue;
        snprintf(step, sizeof step, "kat %s/%s", str_of(b, "candidate"), str_of(b, "instance"));
        if (o->progress)
            o->progress(o->progress_ctx, step, done, total);
        rc = do_instance(o, list, b, json_object_get(kat, "instances"), &entry, err);
        hb_sandbox_record(kat);
        if (rc == 0)
            rc = hb_json_save(kpath, kat, err);
        if (rc == 0 && entry && kat_status_failed(str_of(entry, "status")))
            (*n_failed)++;
        done++;
    }
    if (rc == 0)
        rc = variants_run(o, list, kat, kpath, n_failed, err);
    if (rc == 0 && o->progress)
        o->progress(o->progress_ctx, "kat", done, total);
    json_decref(build);
    json_decref(kat);
    return rc;
}
