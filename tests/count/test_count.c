/* Tests of the instruction-count stage (src/count): the SHA-256 example is
 * counted twice, from different seeds, and every count must be equal (not
 * close), its curve too, with a step where SHA-256 needs another block
 * (55 -> 56 bytes, and every 64 bytes after); a library that does extra
 * work in calls it chooses gets the median of its honest copy and a flagged
 * spread; code Valgrind cannot run is NOT_COUNTABLE with the reason; a
 * library that answers differently under Valgrind, or writes into
 * Valgrind's output, is INCONSISTENT; and the
 * stage over a run directory writes records that the record check of
 * `validate` accepts, keeps them when run again, and rejects once a figure
 * or a status is changed; the pages show the figures, the flag and the
 * curve. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fs.h"
#include "common/json.h"
#include "count/count.h"
#include "count/count_plan.h"
#include "count/count_syms.h"
#include "compile/elfsize.h"
#include "dataset/dataset.h"
#include "report/pages.h"
#include "report/validate.h"
#include "rundir/rundir.h"

static const unsigned sizes[] = {32, 1024};

static void lib_path(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/lib%s.so", HB_COUNT_LIB_DIR, name);
}

/* A plan: SZ (N sizes, COUNT_CALLS_SIZE calls each), then, with CURVE,
 * every length of the stage's curve. Returns the number of entries. */
static int plan_of(const unsigned *sz, int n, int curve, unsigned *ps, unsigned *pc)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        ps[k] = sz[i];
        pc[k++] = COUNT_CALLS_SIZE;
    }
    for (unsigned l = 0; curve && l <= COUNT_CURVE_MAX;
         l += l < COUNT_CURVE_FINE ? 1 : COUNT_CURVE_STEP) {
        ps[k] = l;
        pc[k++] = COUNT_CALLS_CURVE;
    }
    return k;
}

static json_t *count_of(const char *name, const unsigned *sz, int n, int curve, uint64_t seed)
{
    static unsigned ps[COUNT_MAX_ENTRIES], pc[COUNT_MAX_ENTRIES];
    char lib[1024];
    json_t *out = NULL;
    hb_err err;
    count_events ev = {1, 0};
    lib_path(lib, sizeof lib, name);
    int k = plan_of(sz, n, curve, ps, pc);
    if (count_library(lib, name, 256, ps, pc, k, seed, &ev, NULL, &out, &err) != 0)
        fail_msg("%s", err.msg);
    assert_non_null(out);
    return out;
}

static const json_t *at(const json_t *res, size_t i)
{
    return json_array_get(json_object_get(res, "entries"), i);
}

static double fig(const json_t *e, const char *ev, const char *what)
{
    return json_number_value(json_object_get(json_object_get(json_object_get(e, "derived"),
                                                             ev), what));
}

static int flagged(const json_t *e)
{
    return json_is_true(json_object_get(json_object_get(e, "derived"), "spread_flagged"));
}

static void test_two_runs_equal(void **state)
{
    (void)state;
    json_t *a = count_of("hbex_SHA256", sizes, 2, 1, 0x1234567890abcdefULL);
    json_t *b = count_of("hbex_SHA256", sizes, 2, 1, 0xfedcba0987654321ULL);
    assert_string_equal(json_string_value(json_object_get(a, "valgrind")),
                        json_string_value(json_object_get(b, "valgrind")));
    assert_true(strncmp(json_string_value(json_object_get(a, "valgrind")), "Valgrind-", 9) == 0);
    size_t n = json_array_size(json_object_get(a, "entries"));
    assert_int_equal(n, 2 + COUNT_CURVE_POINTS);
    for (size_t i = 0; i < n; i++) {
        const json_t *x = at(a, i), *y = at(b, i);
        assert_string_equal(json_string_value(json_object_get(x, "status")), "COUNTED");
        assert_string_equal(json_string_value(json_object_get(y, "status")), "COUNTED");
        const char *ev[] = {"Ir", "Bc"};
        for (size_t k = 0; k < 2; k++) {
            double px = fig(x, ev[k], "per_call"), py = fig(y, ev[k], "per_call");
            assert_true(px == py); /* equality, not closeness */
            assert_true(px > 0 && px == (double)(long long)px);
            assert_true(fig(x, ev[k], "min") == px && fig(x, ev[k], "max") == px);
        }
        assert_false(flagged(x));
        long long size = json_integer_value(json_object_get(x, "size_bytes"));
        if (size > 0)
            assert_true(fig(x, "Ir", "per_byte") == fig(x, "Ir", "per_call") / (double)size);
    }
    /* more bytes, more instructions: 1 KiB needs at least 16 blocks */
    assert_true(fig(at(a, 1), "Ir", "per_call") > 10 * fig(at(a, 0), "Ir", "per_call"));
    /* the curve: SHA-256 needs another block from 56 bytes on, and every 64
     * after; the steps there are far above any step between */
    double small = 0, big = -1;
    for (unsigned l = 1; l <= COUNT_CURVE_FINE; l++) {
        double d = fig(at(a, 2 + l), "Ir", "per_call") - fig(at(a, 1 + l), "Ir", "per_call");
        if (l % 64 == 56)
            big = big < 0 || d < big ? d : big;
        else
            small = d > small ? d : small;
    }
    assert_true(big > 5 * small);
    /* past 512, one block per 64 bytes: equal steps */
    double step0 = -1;
    for (int i = 2 + COUNT_CURVE_FINE + 1; i < 2 + COUNT_CURVE_POINTS; i++) {
        double d = fig(at(a, (size_t)i), "Ir", "per_call") -
                   fig(at(a, (size_t)i - 1), "Ir", "per_call");
        if (step0 < 0)
            step0 = d;
        assert_true(fabs(d - step0) <= 0.01 * step0);
    }
    assert_true(step0 > 0.5 * big && step0 < 2 * big);
    json_decref(a);
    json_decref(b);
}

/* A library that does extra work in calls it chooses (the first counted
 * calls, every fourth): its median is its honest copy's, its spread
 * flagged. */
static void test_steered(void **state)
{
    (void)state;
    json_t *s = count_of("hbcount_steer", sizes, 2, 0, 5);
    json_t *h = count_of("hbcount_honest", sizes, 2, 0, 6);
    for (size_t i = 0; i < 2; i++) {
        const json_t *x = at(s, i), *y = at(h, i);
        assert_string_equal(json_string_value(json_object_get(x, "status")), "COUNTED");
        assert_string_equal(json_string_value(json_object_get(y, "status")), "COUNTED");
        double ms = fig(x, "Ir", "per_call"), mh = fig(y, "Ir", "per_call");
        assert_true(fabs(ms - mh) <= 0.001 * mh);
        assert_true(fig(x, "Ir", "max") > 1.5 * mh); /* the extra work shows */
        assert_true(flagged(x));
        assert_false(flagged(y));
    }
    json_decref(s);
    json_decref(h);
}

/* A library that writes a part of its own into callgrind's output (its
 * standard error) is inconsistent, its made-up figure never taken. */
static void test_forged_output(void **state)
{
    (void)state;
    json_t *r = count_of("hbcount_forge", sizes, 2, 0, 11);
    for (size_t i = 0; i < 2; i++) {
        const json_t *e = at(r, i);
        assert_string_equal(json_string_value(json_object_get(e, "status")), "INCONSISTENT");
        assert_non_null(strstr(json_string_value(json_object_get(e, "reason")),
                               "one part per call"));
        assert_true(json_is_null(json_object_get(e, "derived")));
    }
    json_decref(r);
}

static void test_not_countable(void **state)
{
    (void)state;
    json_t *r = count_of("hbct_sigill", sizes, 1, 0, 7);
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
    json_t *r = count_of("hbcount_liar", sizes, 2, 0, 9);
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
    json_t *r = count_of("hbcount_liar_env", sizes, 1, 0, 9);
    const json_t *e = at(r, 0);
    assert_string_equal(json_string_value(json_object_get(e, "status")), "INCONSISTENT");
    const char *why = json_string_value(json_object_get(e, "reason"));
    assert_non_null(strstr(why, "natively"));
    /* the folds are the library's bytes: kept apart, not in the wording */
    assert_null(strstr(why, "fold "));
    const char *raw = json_string_value(json_object_get(e, "raw_reason_untrusted"));
    assert_non_null(raw);
    assert_non_null(strstr(raw, "fold "));
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
    o.no_curve = 1;
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
    const json_t *cmd = json_object_get(r, "command");
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

    /* the plan is nowhere on the command line */
    for (size_t i = 0; i < json_array_size(cmd); i++)
        assert_null(strstr(json_string_value(json_array_get(cmd, i)), "32"));
    /* a changed count no longer gives the derived figures */
    json_t *t = json_deep_copy(r);
    json_t *ir = json_object_get(json_object_get(t, "raw"), "Ir");
    json_array_set_new(ir, 0, json_integer(json_integer_value(json_array_get(ir, 0)) + 2));
    assert_int_equal(count_record_check(t, rel, &err), -1);
    assert_non_null(strstr(err.msg, "derived"));
    json_decref(t);
    /* a count missing is refused */
    t = json_deep_copy(r);
    json_array_remove(json_object_get(json_object_get(t, "raw"), "Ir"), 0);
    assert_int_equal(count_record_check(t, rel, &err), -1);
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

/* Where the SHA-256 example's instructions go, at the guide's eight sizes
 * (the stage's default), its library as hashbench builds it (symbol table
 * zeroed, the names kept beside it): every record's functions and the rest
 * add up to 100 % of its calls' instructions, the compression function
 * named among them, in the library, and memcpy in the C library; validate
 * accepts the record and refuses it once a function's count is changed. */
static void test_function_shares(void **state)
{
    (void)state;
    char dir[64], rel[512], path[PATH_MAX];
    hb_err err;
    make_run_dir(dir, sizeof dir);
    /* as hashbench builds it: the symbol table zeroed, the functions' names
     * kept beside the library */
    char lib[PATH_MAX];
    json_t *syms = NULL;
    unsigned long long blanked = 0;
    snprintf(lib, sizeof lib, "%s/lib/SHA2/libSHA256.so", dir);
    assert_int_equal(count_syms_read(lib, &syms, &err), 0);
    assert_int_equal(elfsize_blank_unloaded(lib, &blanked, &err), 0);
    assert_true(blanked > 0);
    assert_int_equal(count_syms_write(lib, syms, &err), 0);
    json_decref(syms);
    count_options o = {0};
    o.run_dir = dir;
    o.no_curve = 1;
    int counted = 0, not = 0;
    if (count_run(&o, &counted, &not, &err) != 0)
        fail_msg("%s", err.msg);
    if (counted != 8) {
        char rp[PATH_MAX];
        json_t *x = NULL;
        snprintf(rp, sizeof rp, "%s/count/SHA2/SHA256__count_32.json", dir);
        if (hb_json_load(rp, &x, &err) == 0)
            fail_msg("%d counted, %d not: %s", counted, not,
                     json_string_value(json_object_get(x, "reason")));
        fail_msg("%d counted, %d not", counted, not);
    }
    static const unsigned guide[] = {32, 128, 512, 1024, 4096, 8192, 16384, 65536};
    for (size_t k = 0; k < 8; k++) {
        assert_int_equal(rundir_count_rel(rel, sizeof rel, "SHA2", "SHA256", guide[k], &err),
                         0);
        snprintf(path, sizeof path, "%s/%s", dir, rel);
        json_t *r = NULL;
        assert_int_equal(hb_json_load(path, &r, &err), 0);
        if (count_record_check(r, rel, &err) != 0)
            fail_msg("%s", err.msg);
        const json_t *fns = json_object_get(r, "functions");
        assert_true(json_is_object(fns));
        long long calls_ir = 0;
        size_t i;
        json_t *x;
        json_array_foreach(json_object_get(json_object_get(r, "raw"), "Ir"), i, x)
            calls_ir += json_integer_value(x);
        assert_int_equal(json_integer_value(json_object_get(fns, "Ir")), calls_ir);
        double sum = json_number_value(json_object_get(json_object_get(fns, "rest"),
                                                       "share"));
        int block = 0, crypthash = 0, memcpy_libc = 0;
        json_array_foreach(json_object_get(fns, "functions"), i, x) {
            const char *f = json_string_value(json_object_get(x, "function"));
            const char *obj = json_string_value(json_object_get(x, "object"));
            sum += json_number_value(json_object_get(x, "share"));
            block |= strcmp(f, "sha256_block") == 0 && strcmp(obj, "library") == 0;
            crypthash |= strcmp(f, "CryptHash") == 0 && strcmp(obj, "library") == 0;
            memcpy_libc |= strstr(f, "memcpy") && strcmp(obj, "C library") == 0;
        }
        if (fabs(100 * sum - 100) > 0.01)
            fail_msg("%u B: the shares add up to %.4f %%", guide[k], 100 * sum);
        assert_true(block && crypthash && memcpy_libc);
        /* the compression function does most of the work from 1 KiB on */
        const json_t *top = json_array_get(json_object_get(fns, "functions"), 0);
        if (guide[k] >= 1024)
            assert_string_equal(json_string_value(json_object_get(top, "function")),
                                "sha256_block");
        json_t *t = json_deep_copy(r);
        json_t *f0 = json_array_get(json_object_get(json_object_get(t, "functions"),
                                                    "functions"), 0);
        json_object_set_new(f0, "Ir", json_integer(json_integer_value(json_object_get(f0,
                            "Ir")) + 1));
        assert_int_equal(count_record_check(t, rel, &err), -1);
        assert_non_null(strstr(err.msg, "functions"));
        json_decref(t);
        json_decref(r);
    }
    assert_int_equal(hb_remove_tree(dir, &err), 0);
}

/* A library calling functions under the shared helpers' names: the
 * pseudo-hash group's share holds what it calls, the SM3 calls among it;
 * SM3's share is its own functions' calls. */
static void test_helper_shares(void **state)
{
    (void)state;
    static const unsigned len[] = {4096};
    json_t *res = count_of("hbcount_helpers", len, 1, 0, 42);
    const json_t *e = at(res, 0);
    assert_string_equal(json_string_value(json_object_get(e, "status")), "COUNTED");
    const json_t *fns = json_object_get(e, "functions");
    const json_t *h = json_object_get(fns, "helpers");
    double sm3 = -1, pseudo = -1, sm3_self = 0;
    size_t i;
    json_t *x;
    json_array_foreach(h, i, x) {
        const char *g = json_string_value(json_object_get(x, "helper"));
        if (strcmp(g, "SM3") == 0)
            sm3 = json_number_value(json_object_get(x, "share"));
        if (strcmp(g, "pseudo-hash") == 0)
            pseudo = json_number_value(json_object_get(x, "share"));
    }
    json_array_foreach(json_object_get(fns, "functions"), i, x)
        if (strcmp(json_string_value(json_object_get(x, "function")), "sm3hash") == 0)
            sm3_self = json_number_value(json_object_get(x, "share"));
    assert_true(sm3 > 0.5 && pseudo > sm3 && pseudo < 1.0);
    assert_true(sm3 >= sm3_self && sm3_self > 0.5);
    json_decref(res);
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

/* count --nokat: an instance that submitted no KAT vectors (NOKAT) is
 * left out unless asked for; asked for, it is counted, its records say
 * kat_status NOKAT and the candidate page and the summary mark it. */
static void test_nokat(void **state)
{
    (void)state;
    char data[64], sys[128], path[PATH_MAX];
    hb_err err;
    snprintf(data, sizeof data, "/tmp/count-test-XXXXXX");
    assert_non_null(mkdtemp(data));
    snprintf(sys, sizeof sys, "%s/x86_1", data);
    make_run_dir_at(sys);
    snprintf(path, sizeof path, "%s/%s", sys, RUNDIR_KAT_JSON);
    json_t *kat = NULL;
    assert_int_equal(hb_json_load(path, &kat, &err), 0);
    json_object_set_new(json_array_get(json_object_get(kat, "instances"), 0), "status",
                        json_string("NOKAT"));
    assert_int_equal(hb_json_save(path, kat, &err), 0);
    json_decref(kat);
    count_options o = {0};
    o.run_dir = sys;
    o.sizes = sizes;
    o.n_sizes = 1;
    o.no_curve = 1;
    int counted = 0, not = 0;
    assert_int_equal(count_run(&o, &counted, &not, &err), 0);
    assert_int_equal(counted + not, 0);
    o.nokat = 1;
    if (count_run(&o, &counted, &not, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(counted, 1);
    char rel[512];
    assert_int_equal(rundir_count_rel(rel, sizeof rel, "SHA2", "SHA256", 32, &err), 0);
    snprintf(path, sizeof path, "%s/%s", sys, rel);
    json_t *r = NULL;
    assert_int_equal(hb_json_load(path, &r, &err), 0);
    assert_string_equal(json_string_value(json_object_get(r, "kat_status")), "NOKAT");
    json_decref(r);
    report_dataset ds;
    if (report_dataset_load(data, &ds, &err) != 0)
        fail_msg("%s", err.msg);
    char *cand = page(pages_candidate_md, &ds, "SHA2");
    assert_non_null(strstr(cand, "| SHA256 (NOKAT: not KAT-checked) | 32 B |"));
    char *sum = page(NULL, &ds, "summary");
    assert_non_null(strstr(sum, "| 1 | SHA2 / SHA256 (NOKAT: not KAT-checked) | 32 B |"));
    free(cand);
    free(sum);
    report_dataset_free(&ds);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s", data);
    assert_int_equal(system(cmd), 0);
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
    assert_non_null(strstr(cand, "Instructions per byte against message length"));
    assert_non_null(strstr(cand, "](SHA2" PAGES_COUNT_CURVE_SUFFIX ".svg)"));
    char *svg = NULL;
    size_t svg_len = 0;
    FILE *sf = open_memstream(&svg, &svg_len);
    assert_true(pages_count_has_curve(&ds.sys[0], "SHA2"));
    assert_int_equal(pages_count_curve_svg(sf, &ds.sys[0], "SHA2"), 0);
    fclose(sf);
    assert_non_null(strstr(svg, "<svg"));
    assert_non_null(strstr(svg, "SHA256"));
    free(svg);
    assert_non_null(strstr(cand, "**not cycles**"));
    /* where the instructions go: the compression function, the C library's
     * memcpy, and the rest, in shares of the calls' instructions */
    assert_non_null(strstr(cand, "Where the instructions of SHA256 go:"));
    assert_non_null(strstr(cand, "| sha256_block | library |"));
    assert_non_null(strstr(cand, "| C library |"));
    assert_non_null(strstr(cand, "| other functions | |"));
    char *sum = page(NULL, &ds, "summary");
    assert_non_null(strstr(sum, "Second view: ranked by instructions per byte"));
    assert_non_null(strstr(sum, "| 1 | SHA2 / SHA256 | 32 B |"));
    /* one figure per instance: the geometric mean over the guide's sizes
     * counted (here 32 B alone) */
    char geo[128];
    snprintf(geo, sizeof geo, "| 1 | SHA2 / SHA256 | %.2f | 1 of 8 | no |", json_number_value(
             json_object_get(json_object_get(json_object_get(r, "derived"), "Ir"), "per_byte")));
    assert_non_null(strstr(sum, "One figure per instance: geometric mean over S1–S8"));
    assert_non_null(strstr(sum, geo));
    /* with a second size at twice the figure per byte: the geometric mean,
     * sqrt(2) times the first */
    char rel2[512], path2[PATH_MAX];
    assert_int_equal(rundir_count_rel(rel2, sizeof rel2, "SHA2", "SHA256", 128, &err), 0);
    snprintf(path2, sizeof path2, "%s/%s", sys, rel2);
    json_t *r2 = json_deep_copy(r);
    double ipb = json_number_value(json_object_get(json_object_get(json_object_get(r,
                 "derived"), "Ir"), "per_byte"));
    json_object_set_new(r2, "size_bytes", json_integer(128));
    json_object_set_new(json_object_get(json_object_get(r2, "derived"), "Ir"), "per_byte",
                        json_real(2 * ipb));
    assert_int_equal(hb_json_save(path2, r2, &err), 0);
    json_decref(r2);
    report_dataset ds2;
    assert_int_equal(report_dataset_load(data, &ds2, &err), 0);
    char *sum2 = page(NULL, &ds2, "summary");
    snprintf(geo, sizeof geo, "| 1 | SHA2 / SHA256 | %.2f | 2 of 8 | no |", ipb * sqrt(2.0));
    assert_non_null(strstr(sum2, geo));
    free(sum2);
    report_dataset_free(&ds2);
    assert_int_equal(unlink(path2), 0);
    char *meth = page(NULL, &ds, NULL);
    assert_non_null(strstr(meth, "## Instruction counts (exact)"));
    assert_non_null(strstr(meth, "Where the instructions go: the same dumps"));
    assert_non_null(strstr(meth, "1 (instance, size) record, 1 counted, and 1 length curve"));
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

    /* a call that did more: the spread is flagged on the page, the median
     * unmoved, and validate accepts the record */
    t = json_deep_copy(r);
    json_t *ir = json_object_get(json_object_get(t, "raw"), "Ir");
    json_array_set_new(ir, 0, json_integer(json_integer_value(json_array_get(ir, 0)) * 2));
    json_object_set_new(t, "derived", count_derive(json_object_get(t, "raw"),
                        json_object_get(t, "empty"), 32));
    assert_int_equal(hb_json_save(path, t, &err), 0);
    /* the functions' tally no longer adds up to the calls' counts */
    assert_int_equal(problems(data), before + 1);
    json_object_del(t, "functions");
    assert_int_equal(hb_json_save(path, t, &err), 0);
    assert_int_equal(problems(data), before);
    assert_int_equal(report_dataset_load(data, &ds, &err), 0);
    cand = page(pages_candidate_md, &ds, "SHA2");
    assert_non_null(strstr(cand, want));
    assert_non_null(strstr(cand, " % flagged** |"));
    free(cand);
    report_dataset_free(&ds);
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
        cmocka_unit_test(test_steered),
        cmocka_unit_test(test_forged_output),
        cmocka_unit_test(test_not_countable),
        cmocka_unit_test(test_inconsistent),
        cmocka_unit_test(test_client_request_not_countable),
        cmocka_unit_test(test_stage_records),
        cmocka_unit_test(test_function_shares),
        cmocka_unit_test(test_helper_shares),
        cmocka_unit_test(test_pages_and_validate),
        cmocka_unit_test(test_nokat),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
