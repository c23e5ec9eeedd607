/* Tests of instance discovery (src/compile/discover.c) on package layouts
 * written by the tests: drivers are left out, a hostile instance name is
 * refused with the header's file and line, an extra top folder is searched,
 * variants of one instance get distinct names and a shared
 * algorithm_instance, and hashbench.ini replaces, completes, skips or adds
 * instances. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compile/discover.h"
#include "fixture.h"

#define REF "Implementations/Reference_Implementation/"

static discover_instance *find(discover_list *l, const char *inst)
{
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->v[i].instance, inst) == 0)
            return &l->v[i];
    return NULL;
}

static void discover_ok(const char *pkg, discover_list *l)
{
    hb_err err;
    if (discover_package(fx_path(fx_root, pkg), l, &err) != 0)
        fail_msg("%s", err.msg);
}

static void test_drivers_left_out(void **state)
{
    (void)state;
    fx_instance(fx_root, "Drv", "D1", "D1", 256);
    const char *drivers[] = {"KAT_CryptHash.c", "main.c", "main_speed.c",
                             "test_vectors.c", "testing.c", "bench.c",
                             "speedtest.c", "drng.c", "Bench2.c"};
    char rel[512];
    for (size_t i = 0; i < sizeof drivers / sizeof drivers[0]; i++) {
        snprintf(rel, sizeof rel, "Drv/" REF "D1/%s", drivers[i]);
        fx_write(fx_root, rel, "int main(void) { return 0; }\n");
    }
    fx_write(fx_root, "Drv/" REF "D1/runner.c", "#include <stdio.h>\nint\nmain (int c, char **v)\n"
                                             "{ (void)c; (void)v; return 0; }\n");
    fx_write(fx_root, "Drv/" REF "D1/demo.c", "void main(void) { }\n");
    fx_write(fx_root, "Drv/" REF "D1/helper.c", "int helper(void);\n"
                                             "int helper(void) { return 1; } /* domain() */\n");
    fx_write(fx_root, "Drv/" REF "D1/notes.txt", "int main(void)\n");
    fx_write(fx_root, "outside.c", "int outside;\n");
    char link[4096];
    snprintf(link, sizeof link, "%s/Drv/" REF "D1/leak.c", fx_root);
    assert_int_equal(symlink(fx_path(fx_root, "outside.c"), link), 0);
    discover_list l = {0};
    discover_ok("Drv", &l);
    assert_int_equal(l.n, 1);
    discover_instance *d = &l.v[0];
    assert_string_equal(d->candidate, "Drv");
    assert_string_equal(d->instance, "D1");
    assert_int_equal(d->digest_bits, 256);
    assert_string_equal(d->variant, "Reference");
    assert_string_equal(d->source_dir, REF "D1");
    assert_string_equal(d->error, "");
    assert_int_equal(d->sources.n, 2);
    assert_string_equal(d->sources.v[0], REF "D1/helper.c");
    assert_string_equal(d->sources.v[1], REF "D1/impl.c");
    /* Every driver, runner.c (main with a line break), demo.c (void main)
     * and the link leading out of the package are listed as left out. */
    assert_int_equal(d->excluded.n, (int)(sizeof drivers / sizeof drivers[0]) + 3);
    int runner = 0, demo = 0, leak = 0;
    for (int i = 0; i < d->excluded.n; i++) {
        runner |= strstr(d->excluded.v[i], "runner.c (driver: defines main()") != NULL;
        demo |= strstr(d->excluded.v[i], "demo.c (driver: defines main()") != NULL;
        leak |= strstr(d->excluded.v[i], "leak.c (leads outside") != NULL;
    }
    assert_true(runner);
    assert_true(demo);
    assert_true(leak);
    discover_free(&l);
}

static void test_hostile_name_refused(void **state)
{
    (void)state;
    fx_write(fx_root, "Hostile/" REF "H/CryptHash_AlgorithmInstance.h",
             "/* line 1 */\n"
             "#define DIGEST_BIT_LENGTH 256\n"
             "#define ALGORITHM_INSTANCE \"<script>alert(1)</script>\"\n");
    fx_write(fx_root, "Hostile/" REF "H/impl.c", fx_source);
    fx_instance(fx_root, "Hostile", "Fine", "Fine", 512);
    discover_list l = {0};
    discover_ok("Hostile", &l);
    assert_int_equal(l.n, 2);
    discover_instance *h = NULL;
    for (int i = 0; i < l.n; i++)
        if (l.v[i].error[0])
            h = &l.v[i];
    assert_non_null(h);
    assert_true(override_name_valid(h->instance));
    assert_non_null(strstr(h->error, REF "H/CryptHash_AlgorithmInstance.h:3: "));
    assert_null(strstr(h->error, "<"));
    assert_string_equal(find(&l, "Fine")->error, "");
    discover_free(&l);
}

static void test_extra_top_folder_and_variants(void **state)
{
    (void)state;
    fx_write(fx_root, "Top/Cand_v2/Implementations/Optimized_Implementation/Fast/"
                   "CryptHash_Fast.h", "#define DIGEST_BIT_LENGTH (384)\n");
    fx_write(fx_root, "Top/Cand_v2/Implementations/Optimized_Implementation/Fast/f.c",
             "int f;\n");
    fx_write(fx_root, "Top/Cand_v2/Implementations/Additional_Implementation/NoHeader/"
                   "x.c", "int x;\n");
    discover_list l = {0};
    discover_ok("Top", &l);
    assert_int_equal(l.n, 1);
    assert_string_equal(l.v[0].instance, "Fast"); /* folder name: no literal */
    assert_int_equal(l.v[0].digest_bits, 384);
    assert_string_equal(l.v[0].variant, "Optimized");
    assert_string_equal(l.v[0].source_dir,
                        "Cand_v2/Implementations/Optimized_Implementation/Fast");
    discover_free(&l);
}

/* The same instance in three variants: the Reference one keeps its name,
 * the others get -<Variant>; all three share their algorithm_instance. A
 * twin in the same variant keeps its name (the build stage refuses it). */
static void test_variant_twins(void **state)
{
    (void)state;
    static const char *const variants[] = {"Optimized", "Additional"};
    char rel[512];
    fx_instance(fx_root, "Twins", "T", "T", 256);
    fx_instance(fx_root, "Twins", "Copy", "T", 256);
    for (size_t i = 0; i < 2; i++) {
        snprintf(rel, sizeof rel, "Twins/Implementations/%s_Implementation/T/"
                 "CryptHash_AlgorithmInstance.h", variants[i]);
        fx_write(fx_root, rel, fx_header("T", 256));
        snprintf(rel, sizeof rel, "Twins/Implementations/%s_Implementation/T/impl.c",
                 variants[i]);
        fx_write(fx_root, rel, fx_source);
    }
    discover_list l = {0};
    discover_ok("Twins", &l);
    assert_int_equal(l.n, 4);
    int plain = 0;
    for (int i = 0; i < l.n; i++) {
        assert_string_equal(l.v[i].algorithm_instance, "T");
        plain += strcmp(l.v[i].instance, "T") == 0;
    }
    assert_int_equal(plain, 2); /* Reference/Copy and Reference/T */
    assert_string_equal(find(&l, "T-Optimized")->variant, "Optimized");
    assert_string_equal(find(&l, "T-Additional")->variant, "Additional");
    discover_free(&l);
}

static void test_override_merges(void **state)
{
    (void)state;
    /* Shared folder K (discovered once as "K256"), replaced by two
     * instances; instance S is completed (timing excluded) by name; Z skipped. */
    fx_instance(fx_root, "Ovr", "K", "K256", 256);
    fx_instance(fx_root, "Ovr", "S", "S", 256);
    fx_instance(fx_root, "Ovr", "Z", "Z", 256);
    fx_write(fx_root, "Ovr/hashbench.ini",
             "[candidate]\nid = OvrId\nalgorithm = Ovr-Alg\n"
             "[instance K_256]\ndir = " REF "K\ndigest_bits = 256\n"
             "defines = ALGORITHM_INSTANCE=\"K_256\" DIGEST_BIT_LENGTH=256\n"
             "[instance K_512]\ndir = " REF "K\ndigest_bits = 512\nsources = impl.c\n"
             "variant = Additional\n"
             "[instance S]\nexclude_timing = reason one\n"
             "[instance Z]\nskip = broken on purpose\n");
    discover_list l = {0};
    discover_ok("Ovr", &l);
    assert_int_equal(l.n, 4);
    assert_null(find(&l, "K256"));
    discover_instance *k = find(&l, "K_512");
    assert_non_null(k);
    assert_string_equal(k->candidate, "OvrId");
    assert_string_equal(k->algorithm, "Ovr-Alg");
    assert_int_equal(k->digest_bits, 512);
    assert_string_equal(k->variant, "Additional");
    assert_int_equal(k->sources.n, 1);
    k = find(&l, "K_256");
    assert_int_equal(k->digest_bits, 256);
    assert_string_equal(k->variant, "Reference");
    assert_int_equal(k->defines.n, 2);
    /* The shared name: a define, else the discovered instance, else the
     * section's name. */
    assert_string_equal(k->algorithm_instance, "K_256");
    assert_string_equal(find(&l, "K_512")->algorithm_instance, "K_512");
    discover_instance *s = find(&l, "S");
    assert_string_equal(s->algorithm_instance, "S");
    assert_string_equal(s->exclude_timing, "reason one");
    assert_string_equal(s->source_dir, REF "S");
    assert_int_equal(s->digest_bits, 256);
    assert_string_equal(find(&l, "Z")->skip, "broken on purpose");
    discover_free(&l);
}

static void expect_package_error(const char *pkg, const char *needle)
{
    discover_list l = {0};
    hb_err err;
    assert_int_equal(discover_package(fx_path(fx_root, pkg), &l, &err), -1);
    if (!strstr(err.msg, needle))
        fail_msg("expected '%s' in: %s", needle, err.msg);
    discover_free(&l);
}

static void test_package_errors(void **state)
{
    (void)state;
    fx_instance(fx_root, "NoDir", "A", "A", 256);
    fx_write(fx_root, "NoDir/hashbench.ini", "[candidate]\nid = N\n\n[instance Ghost]\n"
                                          "digest_bits = 256\n");
    expect_package_error("NoDir", "hashbench.ini:4: ");
    fx_write(fx_root, "Empty/README", "nothing\n");
    expect_package_error("Empty", "no instance found");
    expect_package_error("does-not-exist", "not a folder");
    /* a folder name that is no valid id: the enclosing folder's, said in a note */
    fx_instance(fx_root, "bad name", "A", "A", 256);
    discover_list l = {0};
    discover_ok("bad name", &l);
    assert_int_equal(l.n, 1);
    const char *root = strrchr(fx_root, '/') ? strrchr(fx_root, '/') + 1 : fx_root;
    assert_string_equal(l.v[0].candidate, root);
    assert_int_equal(l.notes.n, 1);
    assert_non_null(strstr(l.notes.v[0], "from the enclosing folder"));
    assert_non_null(strstr(l.notes.v[0], "[candidate] id = NAME"));
    discover_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_drivers_left_out),
        cmocka_unit_test(test_hostile_name_refused),
        cmocka_unit_test(test_extra_top_folder_and_variants),
        cmocka_unit_test(test_variant_twins),
        cmocka_unit_test(test_override_merges),
        cmocka_unit_test(test_package_errors),
    };
    return cmocka_run_group_tests(tests, fx_setup, fx_teardown);
}
