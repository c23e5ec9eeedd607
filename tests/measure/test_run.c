/* Whole measure runs over a small run directory holding fixture libraries:
 * records for each (instance, size) with derived figures that
 * stats_derive_record reproduces, a FAILED record for a nondeterministic
 * instance without stopping the run, skipped instances that did not build or
 * are excluded, both planners (each trial a fresh process on the chosen
 * core), resuming and --force; the digests of every trial checked by
 * hashbench-runner, with seeds, folds and outside figures in the record, and
 * INCONSISTENT records without figures for a library that keeps digests by
 * message address, one that fakes its digests only in the probe, and one
 * that replays digests within a trial's messages. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/fs.h"
#include "common/json.h"
#include "measure/measure.h"
#include "measure/stats.h"
#include "measure_fixture.h"

static char probe[4096], build_dir[4096], run_dir[4096];

static void copy_fixture(const char *fixture, const char *dest_rel)
{
    char src[8192], dst[8192];
    hb_err err;
    snprintf(src, sizeof src, "%s/%s", build_dir, fixture);
    snprintf(dst, sizeof dst, "%s/%s", run_dir, dest_rel);
    if (hb_copy_file(src, dst, &err) != 0)
        fail_msg("%s", err.msg);
}

static json_t *entry(const char *inst, const char *status, const char *excl)
{
    char lib[256];
    snprintf(lib, sizeof lib, "lib/T/lib%s.so", inst);
    json_t *e = json_pack("{s:s, s:s, s:s, s:i, s:s, s:s, s:s, s:s, s:s}",
        "candidate", "T", "algorithm", "T", "instance", inst, "digest_bits", 256,
        "variant", "Reference", "profile", "performance", "flags_kind", "guide",
        "flags", "-O2 -fPIC -shared", "compiler_version", "cc 1");
    if (!strcmp(status, "BUILT")) {
        json_object_set_new(e, "library", json_string(lib));
        json_object_set_new(e, "library_sha256", json_string("00"));
    }
    json_object_set_new(e, "status", json_string(status));
    json_object_set_new(e, "exclude_timing", json_string(excl));
    return e;
}

static int setup_dir(void **state)
{
    (void)state;
    snprintf(run_dir, sizeof run_dir, "/tmp/hb-measure-run-XXXXXX");
    assert_non_null(mkdtemp(run_dir));
    copy_fixture("libmfix_plain.so", "lib/T/libPlain.so");
    copy_fixture("libmfix_nondet.so", "lib/T/libNondet.so");
    copy_fixture("libmfix_plain.so", "lib/T/libExcluded.so");
    copy_fixture("libmfix_addrcache.so", "lib/T/libAddrCache.so");
    copy_fixture("libmfix_probeonly.so", "lib/T/libProbeOnly.so");
    copy_fixture("libmfix_replay.so", "lib/T/libReplay.so");
    json_t *b = json_pack("{s:i, s:[o, o, o, o, o, o, o]}", "schema", 1, "instances",
                          entry("Plain", "BUILT", ""), entry("Nondet", "BUILT", ""),
                          entry("Broken", "BUILDFAIL", ""),
                          entry("Excluded", "BUILT", "reference only"),
                          entry("AddrCache", "BUILT", ""), entry("ProbeOnly", "BUILT", ""),
                          entry("Replay", "BUILT", ""));
    json_t *k = json_pack("{s:i, s:[{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}]}",
        "schema", 1, "instances", "candidate", "T", "instance", "Plain",
        "status", "PASS", "log", "kat/T/Plain.log", "log_sha256", "ab",
        "library", "lib/T/libPlain.so", "library_sha256", "11",
        "flags_kind", "harness-default", "flags", "-O1");
    char p[8192];
    hb_err err;
    snprintf(p, sizeof p, "%s/build.json", run_dir);
    assert_int_equal(hb_json_save(p, b, &err), 0);
    snprintf(p, sizeof p, "%s/kat.json", run_dir);
    assert_int_equal(hb_json_save(p, k, &err), 0);
    json_decref(b);
    json_decref(k);
    return 0;
}

static int teardown_dir(void **state)
{
    (void)state;
    char cmd[8300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", run_dir);
    return system(cmd) == 0 ? 0 : -1;
}

static json_t *load_record(const char *inst, unsigned size)
{
    char p[8192];
    snprintf(p, sizeof p, "%s/records/T/%s__hash_%u.json", run_dir, inst, size);
    json_t *r = NULL;
    hb_err err;
    if (hb_json_load(p, &r, &err) != 0)
        fail_msg("%s", err.msg);
    return r;
}

/* The instances the planner tests measure; the attack test names its own. */
static const char *const usual[] = {"Plain", "Nondet", "Broken", "Excluded"};
static const char *const *selection = usual;
static int n_selection = 4;

static int run(const char *planner, const unsigned *sizes, int n, int force,
               int *failed)
{
    measure_options o;
    memset(&o, 0, sizeof o);
    o.instances = selection;
    o.n_instances = n_selection;
    o.run_dir = run_dir;
    o.probe_path = probe;
    if (planner)
        snprintf(o.settings.planner, sizeof o.settings.planner, "%s", planner);
    o.cpu = -1;
    for (int i = 0; sizes && i < n; i++)
        o.settings.sizes[o.settings.n_sizes++] = sizes[i];
    o.settings.target_ci = 1.0;
    o.settings.budget_s = 1.0;
    o.instance_budget_s = 1800; /* a campaign's default (campaign/settings.h) */
    o.force = force;
    hb_err err;
    int rc = measure_run(&o, failed, &err);
    if (rc != 0)
        fail_msg("%s", err.msg);
    return rc;
}

static void no_absolute_path(const json_t *v)
{
    const char *k;
    json_t *x;
    size_t i;
    if (json_is_string(v))
        assert_true(json_string_value(v)[0] != '/');
    else if (json_is_object(v))
        json_object_foreach((json_t *)v, k, x) no_absolute_path(x);
    else if (json_is_array(v))
        json_array_foreach(v, i, x) no_absolute_path(x);
}

static void check_ok_record(const json_t *r, unsigned size, const char *planner)
{
    if (strcmp(json_string_value(json_object_get(r, "status")), "OK") != 0)
        fail_msg("%s", json_string_value(json_object_get(r, "failure")));
    json_t *derived;
    hb_err err;
    assert_int_equal(stats_derive_record(r, "rec", &derived, &err), 0);
    assert_true(json_equal(derived, json_object_get(r, "derived")));
    json_decref(derived);
    const json_t *plan = json_object_get(r, "plan");
    assert_string_equal(json_string_value(json_object_get(plan, "planner")), planner);
    const json_t *trials = json_object_get(r, "trials");
    long long calls = 0, kept = 0;
    size_t i;
    json_t *t;
    int cpu = measure_default_cpu();
    json_array_foreach(trials, i, t) {
        if (json_is_false(json_object_get(t, "disturbed"))) {
            kept++;
            calls += json_integer_value(json_object_get(t, "calls"));
        }
        /* each trial a fresh probe process, pinned to the chosen core */
        json_int_t pid = json_integer_value(json_object_get(t, "pid"));
        assert_true(pid > 0);
        for (size_t j = 0; j < i; j++)
            assert_true(json_integer_value(json_object_get(json_array_get(trials, j),
                                                           "pid")) != pid);
        assert_int_equal(json_integer_value(json_object_get(t, "cpu")), cpu);
    }
    assert_int_equal(json_integer_value(json_object_get(plan, "trials")), kept);
    assert_true(kept >= 5 && calls >= 100);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(r, "derived"),
                                                         "n")), calls);
    char hex[65], msg_sha[65], path[8192];
    snprintf(path, sizeof path, "%s/lib/T/libPlain.so", run_dir);
    assert_int_equal(fixture_digest(path, size, hex, msg_sha), 0);
    /* the library's digest of the fixed message is checked by nothing
     * independent: it is not published (docs/THREAT_MODEL.md) */
    assert_null(json_object_get(r, "digest"));
    assert_string_equal(json_string_value(json_object_get(
        json_object_get(r, "message"), "sha256")), msg_sha);
    /* the plain fixture keeps nothing: only the loader's records of it */
    json_int_t heap = json_integer_value(json_object_get(json_object_get(r, "memory"),
                                                         "heap_peak_bytes"));
    assert_true(heap > 0 && heap < 16 * 1024);
    assert_string_equal(json_string_value(json_array_get(
        json_object_get(r, "probe_command"), 0)), "hashbench-probe");
    /* KAT stage's library and flags win over build.json's */
    assert_string_equal(json_string_value(json_object_get(r, "flags_kind")),
                        "harness-default");
    assert_string_equal(json_string_value(json_object_get(r, "kat_status")), "PASS");
    no_absolute_path(r);
}

static void test_adaptive_then_resume(void **state)
{
    (void)state;
    unsigned sizes[] = {32, 1024};
    int failed = -1;
    run("adaptive", sizes, 2, 0, &failed);
    for (int s = 0; s < 2; s++) {
        json_t *r = load_record("Plain", sizes[s]);
        check_ok_record(r, sizes[s], "adaptive");
        assert_true(json_is_boolean(json_object_get(json_object_get(r, "plan"),
                                                    "target_reached")));
        json_decref(r);
        r = load_record("Nondet", sizes[s]);
        assert_string_equal(json_string_value(json_object_get(r, "status")), "FAILED");
        assert_non_null(strstr(json_string_value(json_object_get(r, "failure")),
                               "NONDETERMINISTIC"));
        assert_null(json_object_get(r, "derived"));
        json_decref(r);
    }
    char p[8192];
    snprintf(p, sizeof p, "%s/records/T/Broken__hash_32.json", run_dir);
    assert_false(hb_is_file(p));
    snprintf(p, sizeof p, "%s/records/T/Excluded__hash_32.json", run_dir);
    assert_false(hb_is_file(p));
    assert_int_equal(failed, 2);

    /* resume: same settings keep the records byte for byte */
    char *before, *after;
    hb_err err;
    snprintf(p, sizeof p, "%s/records/T/Plain__hash_32.json", run_dir);
    assert_int_equal(hb_read_file(p, &before, NULL, &err), 0);
    run("adaptive", sizes, 2, 0, &failed);
    assert_int_equal(failed, 2);
    assert_int_equal(hb_read_file(p, &after, NULL, &err), 0);
    assert_string_equal(before, after);
    free(after);
    /* --force redoes it */
    run("adaptive", sizes, 1, 1, &failed);
    assert_int_equal(hb_read_file(p, &after, NULL, &err), 0);
    assert_string_not_equal(before, after);
    free(before);
    free(after);
}

static void test_reference_replaces_other_settings(void **state)
{
    (void)state;
    unsigned sizes[] = {32, 1024};
    int failed = -1;
    run("reference", sizes, 2, 0, &failed);
    for (int s = 0; s < 2; s++) {
        json_t *r = load_record("Plain", sizes[s]);
        check_ok_record(r, sizes[s], "reference");
        const json_t *plan = json_object_get(r, "plan");
        assert_int_equal(json_integer_value(json_object_get(plan, "trials")), 5);
        double t1 = json_number_value(json_object_get(json_object_get(plan, "calibration"),
                                                      "ns_per_call"));
        double want = fmin(20000, fmax(ceil(1e9 / t1), 20));
        assert_int_equal(json_integer_value(json_object_get(plan, "calls_per_trial")),
                         (long long)want);
        assert_true(json_integer_value(json_object_get(json_object_get(plan,
                    "calibration"), "calls")) > 1);
        json_decref(r);
    }
}

/* The record's trials each carry their own seed, their fold and the
 * outside figures, and the runner agreed with every fold. */
static void check_verified(const json_t *r)
{
    const json_t *trials = json_object_get(r, "trials"), *v = json_object_get(r, "verification");
    size_t i, n = json_array_size(trials);
    json_t *t;
    assert_true(n >= 1);
    assert_int_equal(json_integer_value(json_object_get(v, "folds_checked")), n);
    assert_int_equal(json_integer_value(json_object_get(v, "buffers")), 2);
    json_int_t spot = json_integer_value(json_object_get(v, "spot_trial"));
    assert_true(spot >= 0 && (size_t)spot < n);
    json_array_foreach(trials, i, t) {
        const char *seed = json_string_value(json_object_get(t, "seed"));
        const char *fold = json_string_value(json_object_get(t, "fold"));
        assert_true(seed && strlen(seed) == 16 && fold && strlen(fold) == 32);
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(seed, json_string_value(json_object_get(
                json_array_get(trials, j), "seed")));
        const json_t *out = json_object_get(t, "outside");
        assert_true(json_integer_value(json_object_get(out, "window_ns")) >=
                    json_integer_value(json_object_get(t, "ns")));
    }
    const json_t *plan = json_object_get(r, "plan");
    assert_non_null(json_string_value(json_object_get(plan, "stopped")));
    assert_true(json_integer_value(json_object_get(plan, "processes")) > (json_int_t)n);
}

/* Digests kept by message address, fake digests only in the probe, and
 * digests replayed within a trial's run of messages (alike in the probe and
 * in the runner): the runner's recomputation, or its check of one call on
 * its own, disagrees; the records are INCONSISTENT, without figures; the
 * plain instance beside them is verified. A record made
 * before trials were verified is measured again on resume. */
static void test_attacks_inconsistent(void **state)
{
    (void)state;
    static const char *const attacks[] = {"Plain", "AddrCache", "ProbeOnly", "Replay"};
    selection = attacks;
    n_selection = 4;
    unsigned sizes[] = {1024};
    int failed = -1;
    run("adaptive", sizes, 1, 1, &failed);
    for (int i = 1; i < 4; i++) {
        json_t *r = load_record(attacks[i], 1024);
        const char *status = json_string_value(json_object_get(r, "status"));
        const char *why = json_string_value(json_object_get(r, "failure"));
        printf("# %s: %s %s\n", attacks[i], status, why);
        assert_string_equal(status, "INCONSISTENT");
        assert_non_null(strstr(why, "INCONSISTENT"));
        assert_null(json_object_get(r, "derived"));
        assert_true(json_array_size(json_object_get(r, "trials")) >= 1);
        json_decref(r);
    }
    assert_int_equal(failed, 3);
    json_t *r = load_record("Plain", 1024);
    check_ok_record(r, 1024, "adaptive");
    check_verified(r);
    /* an older record without its verification is redone */
    json_object_del(r, "verification");
    char p[8192];
    hb_err err;
    snprintf(p, sizeof p, "%s/records/T/Plain__hash_1024.json", run_dir);
    assert_int_equal(hb_json_save(p, r, &err), 0);
    json_decref(r);
    run("adaptive", sizes, 1, 0, &failed);
    r = load_record("Plain", 1024);
    check_verified(r);
    json_decref(r);
    selection = usual;
    n_selection = 4;
}

static void test_bad_run_dir(void **state)
{
    (void)state;
    measure_options o;
    memset(&o, 0, sizeof o);
    o.run_dir = "/nonexistent-hb-run";
    o.probe_path = probe;
    o.cpu = -1;
    hb_err err;
    assert_int_equal(measure_run(&o, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "build.json"));
    o.probe_path = "/nonexistent/hashbench-probe";
    assert_int_equal(measure_run(&o, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "probe"));
}

int main(void)
{
    if (fixture_env(build_dir, sizeof build_dir, probe, sizeof probe) != 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_adaptive_then_resume),
        cmocka_unit_test(test_reference_replaces_other_settings),
        cmocka_unit_test(test_attacks_inconsistent),
        cmocka_unit_test(test_bad_run_dir),
    };
    return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
