/* Tests of the hashbench.ini parser (src/compile/override.c): a complete file
 * is read into the right fields, and every kind of mistake is refused with
 * an error naming hashbench.ini and the line the test put it on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/override.h"
#include "fixture.h"

static void test_full_file(void **state)
{
    (void)state;
    fx_write(fx_root, "full/hashbench.ini",
             "# a comment\n"
             "[candidate]\n"
             "id = Cand-1\n"
             "algorithm = Cand 1   # trailing comment\n"
             "\n"
             "[instance Cand_256]\n"
             "dir = Implementations/Reference_Implementation/X\n"
             "sources = a.c, b.c c.c\n"
             "digest_bits = 256\n"
             "variant = Optimized\n"
             "defines = ALGORITHM_INSTANCE=\"Cand 256\" DIGEST_BIT_LENGTH=256 FLAG\n"
             "includes = ../common\n"
             "exclude_timing = too slow\n"
             "[instance Cand_512]\n"
             "skip = does not build\n");
    override_file o;
    hb_err err;
    assert_int_equal(override_load(fx_path(fx_root, "full"), &o, &err), 0);
    assert_true(o.present);
    assert_string_equal(o.id, "Cand-1");
    assert_string_equal(o.algorithm, "Cand 1");
    assert_int_equal(o.n, 2);
    const override_instance *a = override_find(&o, "Cand_256");
    assert_non_null(a);
    assert_string_equal(a->dir, "Implementations/Reference_Implementation/X");
    assert_int_equal(a->sources_raw.n, 3);
    assert_string_equal(a->sources_raw.v[2], "c.c");
    assert_int_equal(a->digest_bits, 256);
    assert_string_equal(a->variant, "Optimized");
    assert_int_equal(a->defines.n, 3);
    assert_string_equal(a->defines.v[0], "ALGORITHM_INSTANCE=\"Cand 256\"");
    assert_string_equal(a->defines.v[2], "FLAG");
    assert_string_equal(a->includes_raw.v[0], "../common");
    assert_string_equal(a->exclude_timing, "too slow");
    assert_int_equal(a->line, 6);
    const override_instance *b = override_find(&o, "Cand_512");
    assert_non_null(b);
    assert_string_equal(b->skip, "does not build");
    override_free(&o);
}

static void test_no_file(void **state)
{
    (void)state;
    fx_write(fx_root, "none/README", "no override here\n");
    override_file o;
    hb_err err;
    assert_int_equal(override_load(fx_path(fx_root, "none"), &o, &err), 0);
    assert_false(o.present);
    assert_int_equal(o.n, 0);
}

/* Writes TEXT as hashbench.ini of a fresh package and expects the load to
 * fail with "hashbench.ini:LINE:". */
static void expect_error(const char *pkg, const char *text, int line)
{
    fx_write(fx_root, fx_path(pkg, "hashbench.ini"), text);
    override_file o;
    hb_err err;
    assert_int_equal(override_load(fx_path(fx_root, pkg), &o, &err), -1);
    char want[64];
    snprintf(want, sizeof want, "hashbench.ini:%d: ", line);
    if (!strstr(err.msg, want))
        fail_msg("expected '%s' in: %s", want, err.msg);
}

static void test_errors_name_the_line(void **state)
{
    (void)state;
    expect_error("e1", "[candidate]\nid = X\ncolour = blue\n", 3);
    expect_error("e2", "# c\n\n[instance A]\ndir = Implementations/R\n", 3);
    expect_error("e3", "[instance A]\ndigest_bits = 250\n", 2);
    expect_error("e4", "[instance A]\ndigest_bits = 256x\n", 2);
    expect_error("e5", "\n[instance <script>alert(1)</script>]\n", 2);
    expect_error("e6", "id = X\n", 1);
    expect_error("e7", "[candidate]\n[weird]\n", 2);
    expect_error("e8", "[instance A]\n[instance A]\n", 2);
    expect_error("e9", "[instance A]\ndefines = 9BAD=1\n", 2);
    expect_error("e10", "[candidate]\nid = has space\n", 2);
    expect_error("e11", "[instance A]\ndefines = X=\"open\n", 2);
    expect_error("e12", "[candidate]\nalgorithm = <b>\n", 2);
    expect_error("e13", "[instance A]\nno equals sign\n", 2);
    expect_error("e14", "[instance A\n", 1);
    expect_error("e15", "[instance A]\nsources = a.c\nskip = x\nsources = b.c\n", 4);
    expect_error("e16", "[candidate]\nid = A\n[instance A]\nskip = x\n"
                        "[instance B]\nskip = y\nskip = z\n", 7);
}

static void test_resolve_paths(void **state)
{
    (void)state;
    const char *ini =
        "[instance A]\n"
        "dir = Implementations/Reference_Implementation/A\n"
        "digest_bits = 256\n"
        "sources = a.c\n"
        "[instance B]\n"
        "dir = Implementations/Reference_Implementation/A\n"
        "digest_bits = 256\n"
        "sources = missing.c\n"
        "[instance C]\n"
        "dir = ../../etc\n"
        "digest_bits = 256\n"
        "[instance D]\n"
        "dir = Implementations/Reference_Implementation/A\n"
        "digest_bits = 256\n"
        "includes = ../../../../..\n";
    fx_write(fx_root, "res/hashbench.ini", ini);
    fx_write(fx_root, "res/Implementations/Reference_Implementation/A/a.c", "int x;\n");
    const char *pkg = fx_path(fx_root, "res");
    char pkgbuf[4096];
    snprintf(pkgbuf, sizeof pkgbuf, "%s", pkg);
    override_file o;
    hb_err err;
    assert_int_equal(override_load(pkgbuf, &o, &err), 0);
    char dir[1024];
    strlist src = {0}, inc = {0};
    assert_int_equal(override_resolve(&o, &o.inst[0], pkgbuf, o.inst[0].dir, dir,
                                      &src, &inc, &err), 0);
    assert_string_equal(dir, "Implementations/Reference_Implementation/A");
    assert_int_equal(src.n, 1);
    assert_string_equal(src.v[0], "Implementations/Reference_Implementation/A/a.c");
    strlist_free(&src);
    assert_int_equal(override_resolve(&o, &o.inst[1], pkgbuf, o.inst[1].dir, dir,
                                      &src, &inc, &err), -1);
    assert_non_null(strstr(err.msg, "hashbench.ini:8: "));
    strlist_free(&src);
    assert_int_equal(override_resolve(&o, &o.inst[2], pkgbuf, o.inst[2].dir, dir,
                                      &src, &inc, &err), -1);
    assert_non_null(strstr(err.msg, "hashbench.ini:10: "));
    assert_int_equal(override_resolve(&o, &o.inst[3], pkgbuf, o.inst[3].dir, dir,
                                      &src, &inc, &err), -1);
    assert_non_null(strstr(err.msg, "hashbench.ini:15: "));
    strlist_free(&src);
    strlist_free(&inc);
    override_free(&o);
}

/* A file saved by a Windows editor: byte order mark and CR LF line ends. */
static void test_bom_and_crlf(void **state)
{
    (void)state;
    fx_write(fx_root, "crlf/hashbench.ini",
             "\xEF\xBB\xBF# written on Windows\r\n[candidate]\r\nid = Crlf\r\n"
             "[instance Crlf_256]\r\nskip = not this round\r\n");
    override_file o;
    hb_err err;
    if (override_load(fx_path(fx_root, "crlf"), &o, &err) != 0)
        fail_msg("%s", err.msg);
    assert_string_equal(o.id, "Crlf");
    assert_int_equal(o.n, 1);
    assert_string_equal(o.inst[0].name, "Crlf_256");
    assert_string_equal(o.inst[0].skip, "not this round");
    override_free(&o);
}

/* Only C and assembly sources are compiled: an object file, a library or
 * a header named in sources is refused at its line. */
static void test_sources_must_be_source_files(void **state)
{
    (void)state;
    const char *names[] = {"blob.o", "libfast.so", "api.h", "c", "x.c.o"};
    fx_write(fx_root, "kinds/Implementations/Reference_Implementation/A/ok.c", "int x;\n");
    fx_write(fx_root, "kinds/Implementations/Reference_Implementation/A/ok.S", "\n");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char rel[256], ini[512];
        snprintf(rel, sizeof rel, "kinds/Implementations/Reference_Implementation/A/%s",
                 names[i]);
        fx_write(fx_root, rel, "x\n");
        snprintf(ini, sizeof ini, "[instance A]\n"
                 "dir = Implementations/Reference_Implementation/A\n"
                 "digest_bits = 256\n"
                 "sources = ok.c, ok.S %s\n", names[i]);
        fx_write(fx_root, "kinds/hashbench.ini", ini);
        char pkg[4096], dir[1024];
        snprintf(pkg, sizeof pkg, "%s", fx_path(fx_root, "kinds"));
        override_file o;
        hb_err err;
        assert_int_equal(override_load(pkg, &o, &err), 0);
        strlist src = {0}, inc = {0};
        assert_int_equal(override_resolve(&o, &o.inst[0], pkg, o.inst[0].dir, dir,
                                          &src, &inc, &err), -1);
        if (!strstr(err.msg, "hashbench.ini:4: ") || !strstr(err.msg, names[i]))
            fail_msg("%s: %s", names[i], err.msg);
        strlist_free(&src);
        strlist_free(&inc);
        override_free(&o);
    }
    assert_true(override_is_source_name("a/b/x.c"));
    assert_true(override_is_source_name("x.s"));
    assert_true(override_is_source_name("x.S"));
    assert_false(override_is_source_name("a.c/x"));
    assert_false(override_is_source_name(".c"));
}

static void test_name_rule(void **state)
{
    (void)state;
    char longest[66];
    memset(longest, 'a', 64);
    longest[64] = '\0';
    assert_true(override_name_valid(longest));
    longest[64] = 'a';
    longest[65] = '\0';
    assert_false(override_name_valid(longest));
    assert_true(override_name_valid("SHA3_256-x"));
    assert_false(override_name_valid(""));
    assert_false(override_name_valid("a.b"));
    assert_false(override_name_valid("a/b"));
    assert_false(override_name_valid("<script>"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_file),
        cmocka_unit_test(test_no_file),
        cmocka_unit_test(test_errors_name_the_line),
        cmocka_unit_test(test_resolve_paths),
        cmocka_unit_test(test_bom_and_crlf),
        cmocka_unit_test(test_sources_must_be_source_files),
        cmocka_unit_test(test_name_rule),
    };
    return cmocka_run_group_tests(tests, fx_setup, fx_teardown);
}
