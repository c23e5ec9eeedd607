/* The variant check of the KAT stage (src/kat/variants.h) end to end on
 * fixture libraries: two implementations of one function agree (and their
 * KATs use the submission's instance name); a variant wrong only on bit
 * lengths that are not multiples of 8, or only above 12000 bits, is named
 * with the first disagreeing message, whose length is recomputed here from
 * the seed, and reproduced with `hashbench drng`; a variant that crashes or
 * does not load is a named outcome; results are kept on resume and redone
 * when a library or the seed changes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/digest.h"
#include "common/fs.h"
#include "common/json.h"
#include "kat/kat.h"
#include "kat/manifest.h"
#include "kat/variants.h"
#include "kat_test_util.h"

#define SEED "00112233445566778899aabbccddeeff"

static char *root;

static int setup(void **state)
{
    (void)state;
    root = kt_mkdtemp("variants");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    kt_release(root);
    return 0;
}

/* A new run directory ROOT/NAME into OUT. */
static void new_run(char *out, size_t n, const char *name)
{
    hb_err err;
    snprintf(out, n, "%s/%s", root, name);
    if (hb_mkdirs(out, &err) != 0)
        fail_msg("%s", err.msg);
}

/* Appends instance INST (variant VARIANT of ALG_INST) built from fixture FX. */
static void add_variant(json_t *build, const char *run, const char *cand, const char *inst,
                        const char *alg_inst, const char *variant, const char *fx,
                        const char *package)
{
    char lib[4096];
    snprintf(lib, sizeof lib, "%s/libkatfx_%s.so", KAT_FIXTURE_DIR, fx);
    kt_build_add(build, run, cand, inst, 256, lib, package, "harness-default");
    json_t *list = json_object_get(build, "instances");
    json_t *e = json_array_get(list, json_array_size(list) - 1);
    json_object_set_new(e, "algorithm_instance", json_string(alg_inst));
    json_object_set_new(e, "variant", json_string(variant));
}

static int run_kat(const char *run, const char *seed, int *n_failed)
{
    kat_options o = {0};
    hb_err err;
    o.run_dir = run;
    o.timeout_s = 60;
    o.variants_seed = seed;
    int rc = kat_run(&o, n_failed, &err);
    if (rc != 0)
        print_error("kat_run: %s\n", err.msg);
    return rc;
}

/* The "variants" result on CAND/INST's kat.json entry (a new reference). */
static json_t *result_of(const char *run, const char *cand, const char *inst)
{
    json_t *e = kt_kat_entry(run, cand, inst);
    assert_non_null(e);
    json_t *v = json_incref(json_object_get(e, "variants"));
    json_decref(e);
    return v;
}

static const char *str(const json_t *o, const char *k)
{
    const char *v = json_string_value(json_object_get(o, k));
    return v ? v : "";
}

static long long num(const json_t *o, const char *k)
{
    return json_integer_value(json_object_get(o, k));
}

static const json_t *member(const json_t *v, size_t i)
{
    return json_array_get(json_object_get(v, "members"), i);
}

static void stream_of(const json_t *v, variants_stream *st)
{
    snprintf(st->seed, sizeof st->seed, "%s", str(v, "seed"));
    st->max_bits = (unsigned)num(v, "max_bits");
    st->short_max_bits = (unsigned)num(v, "short_max_bits");
}

static unsigned long long bits_of(const variants_stream *st, unsigned long i)
{
    unsigned long long bits = 0;
    hb_err err;
    if (variants_message(st, i, NULL, &bits, &err) != 0)
        fail_msg("%s", err.msg);
    return bits;
}

/* Member 1 of V disagrees exactly on the messages WRONG says, first on the
 * first of them; the recorded length is the stream's. */
static void expect_disagreement(const json_t *v, int (*wrong)(unsigned long long))
{
    variants_stream st;
    stream_of(v, &st);
    long first = -1, count = 0;
    for (unsigned long i = 0; i < VARIANTS_MESSAGES; i++)
        if (wrong(bits_of(&st, i))) {
            if (first < 0)
                first = (long)i;
            count++;
        }
    assert_true(first >= 0);
    const json_t *m = member(v, 1), *d = json_object_get(m, "first_disagreement");
    assert_string_equal(str(v, "verdict"), "DISAGREE");
    assert_string_equal(str(m, "outcome"), "OK");
    assert_int_equal(num(m, "compared"), VARIANTS_MESSAGES);
    assert_int_equal(num(m, "disagreements"), count);
    assert_non_null(d);
    assert_int_equal(num(d, "index"), first);
    assert_int_equal(num(d, "bits"), bits_of(&st, (unsigned long)first));
    assert_int_equal(strlen(str(d, "digest")), 64);
    assert_string_not_equal(str(d, "digest"), str(d, "first_digest"));
}

static int not_whole_bytes(unsigned long long bits)
{
    return bits % 8 != 0;
}

static int above_12000(unsigned long long bits)
{
    return bits > 12000;
}

/* Two implementations of one function, a package whose manifest names the
 * instance as submitted (Fx; written from the run, also into a copy moved
 * since, found by its folder's name): both pass their KATs and agree. Resuming
 * keeps the result; a changed library or another seed redoes it; a group
 * reduced to one variant loses it. */
static void test_agree_and_resume(void **state)
{
    char run[1024], pkg[1024], path[4096];
    int failed = -1;
    hb_err err;
    (void)state;
    new_run(run, sizeof run, "agree");
    new_run(pkg, sizeof pkg, "agree-pkg");
    json_t *b = kt_build_new();
    add_variant(b, run, "fx", "Fx", "Fx", "Reference", "good", pkg);
    add_variant(b, run, "fx", "Fx-Optimized", "Fx", "Optimized", "alt", pkg);
    add_variant(b, run, "fx", "Other", "Other", "Reference", "good", pkg);
    kt_build_save(b, run);
    assert_int_equal(run_kat(run, NULL, &failed), 0);
    int n = 0;
    if (kat_manifest_write_run(pkg, run, &n, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(n, 4); /* KAT_2_12 and KAT_2_23 of Fx and of Other */
    /* a copy moved elsewhere is found by its folder's name, the candidate
     * id; a folder of another name is refused, naming what was looked for */
    char moved[1024], other[1024];
    new_run(moved, sizeof moved, "moved/fx");
    new_run(other, sizeof other, "moved/fy");
    n = 0;
    if (kat_manifest_write_run(moved, run, &n, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(n, 4);
    assert_int_equal(kat_manifest_write_run(other, run, &n, &err), -1);
    if (!strstr(err.msg, "/build.json: no instance was built from ") ||
        !strstr(err.msg, "nor of a candidate named fy") || !strstr(err.msg, pkg))
        fail_msg("unexpected refusal: %s", err.msg);
    assert_int_equal(run_kat(run, NULL, &failed), 0);
    assert_int_equal(failed, 0);
    json_t *e = kt_kat_entry(run, "fx", "Fx-Optimized");
    assert_string_equal(str(e, "status"), "PASS");
    assert_null(json_object_get(e, "variants"));
    json_decref(e);
    assert_null(result_of(run, "fx", "Other"));

    json_t *v = result_of(run, "fx", "Fx");
    assert_non_null(v);
    assert_string_equal(str(v, "verdict"), "AGREE");
    assert_string_equal(str(v, "algorithm_instance"), "Fx");
    assert_string_equal(str(v, "seed_source"), "getrandom");
    assert_true(variants_seed_valid(str(v, "seed")));
    assert_int_equal(num(v, "messages"), VARIANTS_MESSAGES);
    assert_int_equal(json_array_size(json_object_get(v, "members")), 2);
    assert_string_equal(str(member(v, 0), "instance"), "Fx");
    assert_string_equal(str(member(v, 1), "variant"), "Optimized");
    for (size_t i = 0; i < 2; i++) {
        assert_string_equal(str(member(v, i), "outcome"), "OK");
        assert_int_equal(num(member(v, i), "answered"), VARIANTS_MESSAGES);
    }
    assert_int_equal(num(member(v, 1), "disagreements"), 0);
    assert_true(json_is_null(json_object_get(member(v, 1), "first_disagreement")));

    /* Resumed: kept as it was (same seed, same time taken). */
    assert_int_equal(run_kat(run, NULL, &failed), 0);
    json_t *again = result_of(run, "fx", "Fx");
    assert_true(json_equal(v, again));
    json_decref(again);
    /* Another seed: compared again with it. */
    assert_int_equal(run_kat(run, SEED, &failed), 0);
    again = result_of(run, "fx", "Fx");
    assert_string_equal(str(again, "seed"), SEED);
    assert_string_equal(str(again, "seed_source"), "given");
    assert_string_equal(str(again, "verdict"), "AGREE");
    json_decref(again);
    /* The optimized library replaced by a wrong one: compared again. */
    json_decref(b);
    b = kt_build_new();
    add_variant(b, run, "fx", "Fx", "Fx", "Reference", "good", pkg);
    add_variant(b, run, "fx", "Fx-Optimized", "Fx", "Optimized", "partial", pkg);
    kt_build_save(b, run);
    assert_int_equal(run_kat(run, NULL, &failed), 0);
    assert_int_equal(failed, 2); /* MISMATCH of Fx-Optimized and DISAGREE */
    again = result_of(run, "fx", "Fx");
    assert_string_equal(str(again, "verdict"), "DISAGREE");
    assert_string_not_equal(str(again, "seed"), SEED);
    json_decref(again);
    /* One variant left: no group, no result. */
    json_decref(b);
    b = kt_build_new();
    add_variant(b, run, "fx", "Fx", "Fx", "Reference", "good", pkg);
    kt_build_save(b, run);
    assert_int_equal(run_kat(run, NULL, &failed), 0);
    assert_null(result_of(run, "fx", "Fx"));
    json_decref(v);
    json_decref(b);
    snprintf(path, sizeof path, "%s/kat.sha256", pkg);
    assert_true(kt_contains(path, " strict Fx/KAT_2_12_Fx.txt\n"));
}

/* The message `hashbench drng <seed>-<index> 32 <bits>` prints (its second
 * line, after w) is message INDEX of the stream. */
static void expect_drng_reproduces(const variants_stream *st, unsigned long index)
{
    unsigned char msg[VARIANTS_MAX_BITS / 8 + 1];
    char want[2 * sizeof msg + 2], cmd[512], line1[64], *line2 = malloc(2 * sizeof msg + 8);
    unsigned long long bits;
    hb_err err;
    const char *dir = getenv("HB_BUILD_DIR");
    assert_non_null(dir);
    assert_non_null(line2);
    assert_int_equal(variants_message(st, index, msg, &bits, &err), 0);
    hb_hex_encode(msg, (size_t)((bits + 7) / 8), want, 1);
    snprintf(cmd, sizeof cmd, "'%s/hashbench' drng '%s-%lu' 32 %llu", dir, st->seed, index,
             bits);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    assert_non_null(fgets(line1, sizeof line1, p));
    assert_non_null(fgets(line2, (int)(2 * sizeof msg + 8), p));
    assert_int_equal(pclose(p), 0);
    line2[strcspn(line2, "\n")] = '\0';
    assert_string_equal(line2, want);
    unsigned long w = strtoul(line1, NULL, 16);
    assert_int_equal(w % ((index % 2 ? st->short_max_bits : st->max_bits) + 1), bits);
    free(line2);
}

/* A variant wrong only on partial bytes, one wrong only above 12000 bits:
 * each named with its first disagreeing message. */
static void test_disagreements_named(void **state)
{
    char run[1024];
    int failed = -1;
    (void)state;
    new_run(run, sizeof run, "disagree");
    json_t *b = kt_build_new();
    add_variant(b, run, "fx", "Part", "Part", "Reference", "good", NULL);
    add_variant(b, run, "fx", "Part-Optimized", "Part", "Optimized", "partial", NULL);
    add_variant(b, run, "fx", "Long-Additional", "Long", "Additional", "long", NULL);
    add_variant(b, run, "fx", "Long", "Long", "Reference", "good", NULL);
    kt_build_save(b, run);
    json_decref(b);
    assert_int_equal(run_kat(run, SEED, &failed), 0);
    assert_int_equal(failed, 2);
    json_t *v = result_of(run, "fx", "Part");
    assert_non_null(v);
    assert_string_equal(str(v, "seed"), SEED);
    expect_disagreement(v, not_whole_bytes);
    variants_stream st;
    stream_of(v, &st);
    expect_drng_reproduces(&st, (unsigned long)num(json_object_get(member(v, 1),
                                                                   "first_disagreement"),
                                                   "index"));
    json_decref(v);
    /* The Reference variant heads the group even when listed second. */
    assert_null(result_of(run, "fx", "Long-Additional"));
    v = result_of(run, "fx", "Long");
    assert_non_null(v);
    assert_string_equal(str(member(v, 1), "instance"), "Long-Additional");
    expect_disagreement(v, above_12000);
    json_decref(v);
}

/* A variant that crashes, one that does not load, and a first variant that
 * crashes: named outcomes, INCOMPLETE, the campaign goes on. */
static void test_failures_named(void **state)
{
    char run[1024];
    int failed = -1;
    (void)state;
    new_run(run, sizeof run, "failures");
    json_t *b = kt_build_new();
    add_variant(b, run, "fx", "C", "C", "Reference", "good", NULL);
    add_variant(b, run, "fx", "C-Optimized", "C", "Optimized", "crashlong", NULL);
    add_variant(b, run, "fx", "C-Additional", "C", "Additional", "nosym", NULL);
    add_variant(b, run, "fx", "R", "R", "Reference", "crashlong", NULL);
    add_variant(b, run, "fx", "R-Optimized", "R", "Optimized", "alt", NULL);
    kt_build_save(b, run);
    json_decref(b);
    assert_int_equal(run_kat(run, SEED, &failed), 0);
    json_t *v = result_of(run, "fx", "C");
    assert_non_null(v);
    assert_string_equal(str(v, "verdict"), "INCOMPLETE");
    const json_t *crash = member(v, 1), *nosym = member(v, 2);
    assert_string_equal(str(crash, "outcome"), "CRASH");
    assert_non_null(strstr(str(crash, "detail"), "SIGSEGV"));
    const json_t *at = json_object_get(crash, "failed_at");
    assert_true(num(at, "bits") > 8000);
    variants_stream st;
    stream_of(v, &st);
    for (long i = 0; i < num(at, "index"); i++)
        assert_true(bits_of(&st, (unsigned long)i) <= 8000);
    assert_int_equal(num(crash, "answered"), num(at, "index"));
    assert_int_equal(num(crash, "compared"), num(at, "index"));
    assert_int_equal(num(crash, "disagreements"), 0);
    assert_string_equal(str(nosym, "outcome"), "LOADFAIL");
    assert_non_null(strstr(str(nosym, "detail"), "did not load"));
    assert_non_null(strstr(str(nosym, "raw_detail_untrusted"), "CryptHash"));
    assert_true(json_is_null(json_object_get(nosym, "failed_at")));
    /* With no variant left to compare, the first one is not asked further. */
    assert_int_equal(num(member(v, 0), "answered"), num(at, "index") + 1);
    assert_string_equal(str(member(v, 0), "outcome"), "OK");
    json_decref(v);

    v = result_of(run, "fx", "R");
    assert_string_equal(str(v, "verdict"), "INCOMPLETE");
    assert_string_equal(str(member(v, 0), "outcome"), "CRASH");
    at = json_object_get(member(v, 0), "failed_at");
    assert_int_equal(num(member(v, 1), "compared"), num(at, "index"));
    assert_string_equal(str(member(v, 1), "outcome"), "OK");
    json_decref(v);
    /* C-Optimized, C-Additional and R fail their KATs; both groups are
     * INCOMPLETE. */
    assert_int_equal(failed, 5);
}

static void test_seed_checked(void **state)
{
    char run[1024];
    int failed = -1;
    kat_options o = {0};
    hb_err err;
    (void)state;
    new_run(run, sizeof run, "seed");
    o.run_dir = run;
    o.variants_seed = "0011";
    assert_int_equal(kat_run(&o, &failed, &err), -1);
    assert_non_null(strstr(err.msg, "32 hex digits"));
    assert_true(variants_seed_valid(SEED));
    assert_true(variants_seed_valid("00112233445566778899AABBCCDDEEFF"));
    assert_false(variants_seed_valid("00112233445566778899aabbccddeef"));
    assert_false(variants_seed_valid("00112233445566778899aabbccddeefg"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_agree_and_resume),
        cmocka_unit_test(test_disagreements_named),
        cmocka_unit_test(test_failures_named),
        cmocka_unit_test(test_seed_checked),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
