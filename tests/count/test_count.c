/* Tests of the instruction-count stage (src/count): the SHA-256 example is
 * counted twice, from different seeds, and every count must be equal (not
 * close); code Valgrind cannot run is NOT_COUNTABLE with the reason; a
 * library that answers differently under Valgrind is INCONSISTENT; and the
 * stage over a run directory writes records that the record check of
 * `validate` accepts, keeps them when run again, and rejects once a figure
 * or a status is changed. One instance, two sizes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fs.h"
#include "common/json.h"
#include "count/count.h"
#include "count/count_plan.h"
#include "dataset/dataset.h"
#include "report/pages.h"
#include "report/validate.h"
#include "rundir/rundir.h"

static const unsigned sizes[] = {32, 1024};

static void lib_path(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/lib%s.so", HB_COUNT_LIB_DIR, name);
}

static json_t *count_of(const char *name, const unsigned *sz, int n, uint64_t seed)
{
    char lib[1024];
    json_t *out = NULL;
    hb_err err;
    count_events ev = {1, 0};
    lib_path(lib, sizeof lib, name);
    if (count_library(lib, name, 256, sz, n, seed, &ev, NULL, &out, &err) != 0)
        fail_msg("%s", err.msg);
    assert_non_null(out);
    return out;
}

static const json_t *at(const json_t *res, size_t i)
{
    return json_array_get(json_object_get(res, "sizes"), i);
}

static void test_two_runs_equal(void **state)
{
    (void)state;
    json_t *a = count_of("hbex_SHA256", sizes, 2, 0x1234567890abcdefULL);
    json_t *b = count_of("hbex_SHA256", sizes, 2, 0xfedcba0987654321ULL);
    assert_string_equal(json_string_value(json_object_get(a, "valgrind")),
                        json_string_value(json_object_get(b, "valgrind")));
    assert_true(strncmp(json_string_value(json_object_get(a, "valgrind")), "Valgrind-", 9) == 0);
    for (size_t i = 0; i < 2; i++) {
        const json_t *x = at(a, i), *y = at(b, i);
        assert_string_equal(json_string_value(json_object_get(x, "status")), "COUNTED");
        assert_string_equal(json_string_value(json_object_get(y, "status")), "COUNTED");
        const json_t *dx = json_object_get(x, "derived"), *dy = json_object_get(y, "derived");
        const char *ev[] = {"Ir", "Bc"};
        for (size_t k = 0; k < 2; k++) {
            const json_t *ex = json_object_get(dx, ev[k]), *ey = json_object_get(dy, ev[k]);
            assert_non_null(ex);
            double px = json_number_value(json_object_get(ex, "per_call"));
            double py = json_number_value(json_object_get(ey, "per_call"));
            assert_true(px == py); /* equality, not closeness */
            assert_true(px > 0 && px == (double)(long long)px);
            assert_true(json_number_value(json_object_get(ex, "per_byte")) ==
                        px / sizes[i]);
        }
        /* more bytes, more instructions: 1 KiB needs at least 16 blocks */
        if (i == 1)
            assert_true(json_number_value(json_object_get(json_object_get(dx, "Ir"),
                        "per_call")) > 10 * json_number_value(json_object_get(json_object_get(
                        json_object_get(at(a, 0), "derived"), "Ir"), "per_call")));
    }
    json_decref(a);
    json_decref(b);
}

static void test_not_countable(void **state)
{
    (void)state;
    json_t *r = count_of("hbct_sigill", sizes, 1, 7);
    const json_t *e = at(r, 0);
    assert_string_equal(json_string_value(json_object_get(e, "status")), "NOT_COUNTABLE");
    const char *why = json_string_value(json_object_get(e, "reason"));
    assert_non_null(why);
    assert_true(strstr(why, "SIGILL") || strstr(why, "signal 4") || strstr(why, "nstruction"));
    assert_true(json_is_null(json_object_get(e, "derived")));
    json_decref(r);
}

/* A library that can ask Valgrind whether it runs there (count_liar.c:
 * RUNNING_ON_VALGRIND) is not counted at all: a leaner but correct path
 * under Valgrind alone would not be caught by the digests. */
static void test_client_request_not_countable(void **state)
{
    (void)state;
    json_t *r = count_of("hbcount_liar", sizes, 2, 9);
    for (size_t i = 0; i < 2; i++) {
        const json_t *e = at(r, i);
        assert_string_equal(json_string_value(json_object_get(e, "status")), "NOT_COUNTABLE");
        assert_non_null(strstr(json_string_value(json_object_get(e, "reason")),
                               "Valgrind client request"));
        assert_true(json_is_null(json_object_get(e, "derived")));
    }
    json_decref(r);
}

static void test_inconsistent(void **state)
{
    (void)state;
    json_t *r = count_of("hbcount_liar_env", sizes, 1, 9);
    const json_t *e = at(r, 0);
    assert_string_equal(json_string_value(json_object_get(e, "status")), "INCONSISTENT");
    assert_non_null(strstr(json_string_value(json_object_get(e, "reason")), "natively"));
    assert_true(json_is_null(json_object_get(e, "derived")));
    json_decref(r);
}

/* A run directory DIR whose build.json and kat.json name the SHA-256
 * example. */
static void make_run_dir_at(const char *dir)
{
    char lib[1024], dst[PATH_MAX], path[PATH_MAX];
    hb_err err;
    lib_path(lib, sizeof lib, "hbex_SHA256");
    snprintf(dst, sizeof dst, "%s/lib/SHA2/libSHA256.so", dir);
    assert_int_equal(hb_mkdirs_for(dst, &err), 0);
    assert_int_equal(hb_copy_file(lib, dst, &err), 0);
    json_t *entry = json_pack("{s:s, s:s, s:i, s:s, s:s, s:s, s:s}", "candidate", "SHA2",
                              "instance", "SHA256", "digest_bits", 256, "library",
                              "lib/SHA2/libSHA256.so", "status", "BUILT", "flags_kind",
                              "guide", "flags", "-O2");
    json_t *build = json_pack("{s:[O]}", "instances", entry);
    json_object_set_new(entry, "status", json_string("PASS"));
    json_t *kat = json_pack("{s:[O]}", "instances", entry);
    snprintf(path, sizeof path, "%s/%s", dir, RUNDIR_BUILD_JSON);
    assert_int_equal(hb_json_save(path, build, &err), 0);
    snprintf(path, sizeof path, "%s/%s", dir, RUNDIR_KAT_JSON);
    assert_int_equal(hb_json_save(path, kat, &err), 0);
    json_decref(entry);
    json_decref(build);
    json_decref(kat);
}

static void make_run_dir(char *dir, size_t n)
{
    snprintf(dir, n, "/tmp/count-test-XXXXXX");
    assert_non_null(mkdtemp(dir));
    make_run_dir_at(dir);
}

static void test_stage_records(void **state)
{
    (void)state;
    char dir[64], rel[512], path[PATH_MAX];
    hb_err err;
    make_run_dir(dir, sizeof dir);
    count_options o = {0};
    o.run_dir = dir;
    o.sizes = sizes;
    o.n_sizes = 1;
    o.events.branches = 1;
    int counted = 0, not = 0;
    if (count_run(&o, &counted, &not, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(counted, 1);
    assert_int_equal(not, 0);
    assert_int_equal(rundir_count_rel(rel, sizeof rel, "SHA2", "SHA256", 32, &err), 0);
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    json_t *r = NULL;
    assert_int_equal(hb_json_load(path, &r, &err), 0);
    if (count_record_check(r, rel, &err) != 0)
        fail_msg("%s", err.msg);
    const char *seed = json_string_value(json_object_get(json_object_get(r, "method"), "seed"));
    char kept[32];
    snprintf(kept, sizeof kept, "%s", seed);
    /* the exact command names the library relative to the run directory */
    const json_t *cmd = json_object_get(json_object_get(r, "more"), "command");
    int named = 0;
    for (size_t i = 0; i < json_array_size(cmd); i++)
        named |= strcmp(json_string_value(json_array_get(cmd, i)), "lib/SHA2/libSHA256.so") == 0;
    assert_true(named);

    /* run again: the record is kept (same seed) */
    counted = not = 0;
    assert_int_equal(count_run(&o, &counted, &not, &err), 0);
    assert_int_equal(counted, 1);
    json_t *again = NULL;
    assert_int_equal(hb_json_load(path, &again, &err), 0);
    assert_string_equal(json_string_value(json_object_get(json_object_get(again, "method"),
                                                          "seed")), kept);
    json_decref(again);

    /* a changed total no longer gives the derived figures */
    json_t *t = json_deep_copy(r);
    json_t *tot = json_object_get(json_object_get(t, "more"), "totals");
    json_object_set_new(tot, "Ir", json_integer(json_integer_value(json_object_get(tot, "Ir")) + 2));
    assert_int_equal(count_record_check(t, rel, &err), -1);
    assert_non_null(strstr(err.msg, "derived"));
    json_decref(t);
    /* a NOT_COUNTABLE record with figures, or without a reason, is refused */
    t = json_deep_copy(r);
    json_object_set_new(t, "status", json_string("NOT_COUNTABLE"));
    assert_int_equal(count_record_check(t, rel, &err), -1);
    json_object_set_new(t, "derived", json_null());
    assert_int_equal(count_record_check(t, rel, &err), -1);
    json_object_set_new(t, "reason", json_string("cannot run"));
    assert_int_equal(count_record_check(t, rel, &err), 0);
    json_decref(t);
    json_decref(r);
    assert_int_equal(hb_remove_tree(dir, &err), 0);
}

/* TEXT written by FN to a memory stream (caller frees). */
static char *page(int (*fn)(FILE *, const report_dataset *, const report_system *,
                            const char *, const char *, hb_err *),
                  const report_dataset *ds, const char *cand)
{
    char *buf = NULL;
    size_t len = 0;
    hb_err err;
    FILE *fp = open_memstream(&buf, &len);
    assert_non_null(fp);
    if (fn)
        assert_int_equal(fn(fp, ds, &ds->sys[0], cand, ".md", &err), 0);
    else if (cand)
        assert_int_equal(pages_summary_md(fp, &ds->sys[0], ".md", &err), 0);
    else
        assert_int_equal(pages_method_md(fp, &ds->sys[0], ".md", &err), 0);
    fclose(fp);
    return buf;
}

static int problems(const char *data)
{
    report_validate_stats st;
    hb_err err;
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    assert_true(report_validate(data, NULL, fp, &st, &err) >= 0);
    fclose(fp);
    free(buf);
    return st.problems;
}

/* A dataset whose system folder is a run directory the stage counted: the
 * candidate page puts the figure beside the timed one, the summary ranks
 * by it, the method page explains it, a not-countable record shows its
 * reason, and validate catches a changed figure. */
static void test_pages_and_validate(void **state)
{
    (void)state;
    char data[64], sys[128], rel[512], path[PATH_MAX], want[64];
    hb_err err;
    snprintf(data, sizeof data, "/tmp/count-test-XXXXXX");
    assert_non_null(mkdtemp(data));
    snprintf(sys, sizeof sys, "%s/x86_1", data);
    make_run_dir_at(sys);
    count_options o = {0};
    o.run_dir = sys;
    o.sizes = sizes;
    o.n_sizes = 1;
    o.events.branches = 1;
    int counted = 0, not = 0;
    if (count_run(&o, &counted, &not, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(rundir_count_rel(rel, sizeof rel, "SHA2", "SHA256", 32, &err), 0);
    snprintf(path, sizeof path, "%s/%s", sys, rel);
    json_t *r = NULL;
    assert_int_equal(hb_json_load(path, &r, &err), 0);
    snprintf(want, sizeof want, "| SHA256 | 32 B | — | %.1f |", json_number_value(
             json_object_get(json_object_get(json_object_get(r, "derived"), "Ir"), "per_byte")));

    report_dataset ds;
    if (report_dataset_load(data, &ds, &err) != 0)
        fail_msg("%s", err.msg);
    char *cand = page(pages_candidate_md, &ds, "SHA2");
    assert_non_null(strstr(cand, "instructions/B (exact)"));
    assert_non_null(strstr(cand, want));
    assert_non_null(strstr(cand, "**not cycles**"));
    char *sum = page(NULL, &ds, "summary");
    assert_non_null(strstr(sum, "Second view: ranked by instructions per byte"));
    assert_non_null(strstr(sum, "| 1 | SHA2 / SHA256 | 32 B |"));
    char *meth = page(NULL, &ds, NULL);
    assert_non_null(strstr(meth, "## Instruction counts (exact)"));
    assert_non_null(strstr(meth, "1 (instance, size) record, 1 counted"));
    free(cand);
    free(sum);
    free(meth);
    report_dataset_free(&ds);

    int before = problems(data);
    json_t *t = json_deep_copy(r);
    json_t *d = json_object_get(json_object_get(t, "derived"), "Ir");
    json_object_set_new(d, "per_byte", json_real(json_number_value(json_object_get(d,
                        "per_byte")) * 0.9));
    assert_int_equal(hb_json_save(path, t, &err), 0);
    assert_int_equal(problems(data), before + 1);
    json_decref(t);

    json_object_set_new(r, "status", json_string("NOT_COUNTABLE"));
    json_object_set_new(r, "reason", json_string("an instruction Valgrind cannot run"));
    json_object_set_new(r, "derived", json_null());
    assert_int_equal(hb_json_save(path, r, &err), 0);
    assert_int_equal(problems(data), before);
    assert_int_equal(report_dataset_load(data, &ds, &err), 0);
    cand = page(pages_candidate_md, &ds, "SHA2");
    assert_non_null(strstr(cand, "not countable: an instruction Valgrind cannot run"));
    free(cand);
    report_dataset_free(&ds);
    json_decref(r);
    assert_int_equal(hb_remove_tree(data, &err), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_runs_equal),
        cmocka_unit_test(test_not_countable),
        cmocka_unit_test(test_inconsistent),
        cmocka_unit_test(test_client_request_not_countable),
        cmocka_unit_test(test_stage_records),
        cmocka_unit_test(test_pages_and_validate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
