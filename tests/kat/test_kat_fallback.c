/* The flag fallback of SPEC §2 end to end: a package whose instance is
 * only right in GNU C mode (fixtures/fx_strict.c) is built with the guide's
 * reference flags by hashbench build, fails its submitted vectors, is
 * rebuilt once with the harness-default flags by the build stage (recorded
 * in build.json) and passes. Both results are kept (two logs, the guide's
 * inside the kat.json entry), and the later stages use the rebuilt library
 * (rundir_instance_library); a second run keeps the
 * result until the submitted vectors change. The submitted vectors are
 * text files in a nested Test_Vectors folder, one with CR LF line ends and
 * trailing blanks, so the canonical comparison is exercised too; they come
 * from the fixture built as a GNU-mode module by CMake. A rebuild that
 * fails as well stops at its first failing file, and the stage's log times
 * it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "compile/build.h"
#include "common/digest.h"
#include "common/fs.h"
#include "common/json.h"
#include "campaign/stages.h"
#include "kat/kat.h"
#include "kat_test_util.h"
#include "rundir/rundir.h"

static char *root;

static int setup(void **state)
{
    (void)state;
    root = kt_mkdtemp("fallback");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    kt_release(root);
    return 0;
}

static void write_text(const char *path, const char *text)
{
    hb_err err;
    if (hb_write_atomic(path, text, strlen(text), &err) != 0)
        fail_msg("%s", err.msg);
}

/* Copies SRC to DST with CR LF line ends, a trailing blank on every line
 * and a blank line first: the same canonical text. */
static void copy_crlf(const char *src, const char *dst)
{
    char *text = NULL;
    hb_err err;
    size_t len = 0, n = 0;
    assert_int_equal(hb_read_file(src, &text, &len, &err), 0);
    char *out = malloc(3 * len + 3);
    assert_non_null(out);
    memcpy(out, "\r\n", 2);
    n = 2;
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\n') {
            out[n++] = ' ';
            out[n++] = '\r';
        }
        out[n++] = text[i];
    }
    assert_int_equal(hb_mkdirs_for(dst, &err), 0);
    assert_int_equal(hb_write_atomic(dst, out, n, &err), 0);
    free(out);
    free(text);
}

static int run_kat_log(const char *run, int *failed, FILE *log)
{
    kat_options o = {0};
    hb_err err;
    o.run_dir = run;
    o.log = log;
    o.timeout_s = 120;
    int rc = stages_kat_with_rebuilds(&o, failed, &err);
    if (rc != 0)
        print_error("kat_run: %s\n", err.msg);
    return rc;
}

static int run_kat(const char *run, int *failed)
{
    return run_kat_log(run, failed, NULL);
}

/* The reference texts: the fixture as a GNU-mode module, no vectors. */
static void reference_texts(const char *run)
{
    char done[1100];
    snprintf(done, sizeof done, "%s/kat.json", run);
    if (hb_is_file(done)) /* made by an earlier test of this program */
        return;
    int failed = -1;
    assert_int_equal(hb_mkdirs(run, &(hb_err){{0}}), 0);
    json_t *b = kt_build_new();
    kt_build_add(b, run, "ref", "Strict", 256, KAT_FIXTURE_DIR "/libkatfx_strict.so", NULL,
                 "harness-default");
    kt_build_save(b, run);
    json_decref(b);
    assert_int_equal(run_kat(run, &failed), 0);
    assert_int_equal(failed, 0);
}

static void make_package(const char *pkg, const char *ref)
{
    char dir[2048], src[4096], dst[4096];
    hb_err err;
    snprintf(dir, sizeof dir, "%s/Implementations/Reference_Implementation/Strict", pkg);
    assert_int_equal(hb_mkdirs(dir, &err), 0);
    snprintf(dst, sizeof dst, "%s/CryptHash_AlgorithmInstance.h", dir);
    write_text(dst, "#define ALGORITHM_INSTANCE \"Strict\"\n#define DIGEST_BIT_LENGTH 256\n");
    snprintf(dst, sizeof dst, "%s/strict.c", dir);
    assert_int_equal(hb_copy_file(KAT_FIXTURE_SRC_DIR "/fx_strict.c", dst, &err), 0);
    snprintf(src, sizeof src, "%s/kat/ref/Strict/KAT_2_12_Strict.txt", ref);
    snprintf(dst, sizeof dst, "%s/Test_Vectors/v1/Strict/KAT_2_12_Strict.txt", pkg);
    assert_int_equal(hb_copy_file(src, dst, &err), 0);
    snprintf(src, sizeof src, "%s/kat/ref/Strict/KAT_2_23_Strict.txt", ref);
    snprintf(dst, sizeof dst, "%s/Test_Vectors/v1/Strict/KAT_2_23_Strict.txt", pkg);
    copy_crlf(src, dst);
}

static const char *str(const json_t *o, const char *k)
{
    const char *v = json_string_value(json_object_get(o, k));
    if (!v)
        fail_msg("no string '%s' in the kat.json entry", k);
    return v;
}

static void assert_file_has(const char *run, const char *rel, const char *needle)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", run, rel);
    if (!kt_contains(path, needle))
        fail_msg("%s: '%s' not found", path, needle);
}

static void test_fallback(void **state)
{
    char ref[1024], pkg[1024], run[1024], path[4096], sha[HB_SHA256_HEX];
    int failed = -1;
    hb_err err;
    (void)state;
    snprintf(ref, sizeof ref, "%s/ref", root);
    snprintf(pkg, sizeof pkg, "%s/Quirk", root);
    snprintf(run, sizeof run, "%s/run", root);
    reference_texts(ref);
    make_package(pkg, ref);

    const char *pkgs[] = {pkg};
    build_options bo = {run, "reference", NULL, 1, pkgs, 1, NULL, NULL, NULL, NULL, 0, 0};
    assert_int_equal(build_run(&bo, &failed, &err), 0);
    assert_int_equal(failed, 0);
    assert_int_equal(run_kat(run, &failed), 0);
    assert_int_equal(failed, 0);

    json_t *e = kt_kat_entry(run, "Quirk", "Strict");
    assert_non_null(e);
    assert_string_equal(str(e, "status"), "PASS");
    assert_string_equal(str(e, "flags_kind"), "harness-default");
    assert_string_equal(str(e, "library"), "lib/Quirk/harness-default/libStrict.so");
    assert_non_null(strstr(str(e, "flags"), "-std=gnu11"));
    assert_non_null(strstr(str(e, "reason"), "guide flags gave MISMATCH"));
    snprintf(path, sizeof path, "%s/%s", run, str(e, "library"));
    assert_int_equal(hb_sha256_file_hex(path, sha, &err), 0);
    assert_string_equal(str(e, "library_sha256"), sha);
    json_t *f = json_array_get(json_object_get(e, "files"), 1);
    assert_string_equal(str(f, "expected_from"), "file");
    assert_string_equal(str(f, "verdict"), "PASS");
    assert_file_has(run, str(e, "log"), "\nflags_kind: harness-default\n");
    assert_file_has(run, str(e, "log"), "RESULT Quirk Strict PASS\n");

    /* The guide result, kept: its own library, log and MISMATCH at 2048. */
    json_t *g = json_object_get(e, "guide");
    assert_true(json_is_object(g));
    assert_string_equal(str(g, "status"), "MISMATCH");
    assert_string_equal(str(g, "library"), "lib/Quirk/libStrict.so");
    assert_non_null(strstr(str(g, "flags"), "-std=c99 -Wpedantic -Wall -Wextra -O2"));
    assert_string_not_equal(str(g, "log"), str(e, "log"));
    assert_file_has(run, str(g, "log"), "\nflags_kind: guide\n");
    assert_file_has(run, str(g, "log"), "first difference in record Msg_Len = 2048");
    assert_file_has(run, str(g, "log"), "RESULT Quirk Strict MISMATCH\n");
    snprintf(path, sizeof path, "%s/%s", run, str(g, "log"));
    assert_int_equal(hb_sha256_file_hex(path, sha, &err), 0);
    assert_string_equal(str(g, "log_sha256"), sha);

    /* The build stage made the rebuild and build.json records it, beside
     * the guide build; the later stages are pointed at it. */
    json_t *bdoc = NULL;
    snprintf(path, sizeof path, "%s/build.json", run);
    assert_int_equal(hb_json_load(path, &bdoc, &err), 0);
    size_t bi;
    const json_t *be = kat_find_entry(json_object_get(bdoc, "instances"), "Quirk", "Strict",
                                      &bi);
    assert_non_null(be);
    assert_string_equal(str(be, "library"), "lib/Quirk/libStrict.so");
    const json_t *hd = json_object_get(be, "harness_default");
    assert_true(json_is_object(hd));
    assert_string_equal(str(hd, "status"), "BUILT");
    assert_string_equal(str(hd, "from_sha256"), str(be, "library_sha256"));
    assert_string_equal(str(hd, "library"), str(e, "library"));
    assert_string_equal(str(hd, "library_sha256"), str(e, "library_sha256"));
    assert_string_equal(str(hd, "log"), "logs/build/Quirk/Strict.harness-default.log");
    rundir_library used;
    rundir_instance_library(be, e, &used);
    assert_string_equal(used.library, "lib/Quirk/harness-default/libStrict.so");
    assert_string_equal(used.flags_kind, "harness-default");
    json_decref(bdoc);
    json_decref(e);

    /* A second run keeps the result without rebuilding or testing again. */
    snprintf(path, sizeof path, "%s/kat.json", run);
    char before[HB_SHA256_HEX];
    assert_int_equal(hb_sha256_file_hex(path, before, &err), 0);
    assert_int_equal(run_kat(run, &failed), 0);
    assert_int_equal(failed, 0);
    assert_int_equal(hb_sha256_file_hex(path, sha, &err), 0);
    assert_string_equal(before, sha);

    /* Changed vectors make the kept result stale: without the KAT_2_23
     * text the instance is tested again and that file has no vector. */
    snprintf(path, sizeof path, "%s/Test_Vectors/v1/Strict/KAT_2_23_Strict.txt", pkg);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(run_kat(run, &failed), 0);
    e = kt_kat_entry(run, "Quirk", "Strict");
    assert_string_equal(str(e, "status"), "PASS");
    f = json_array_get(json_object_get(e, "files"), 1);
    assert_string_equal(str(f, "verdict"), "NOKAT");
    assert_true(json_is_null(json_object_get(f, "expected_sha256")));
    json_decref(e);
}

/* A rebuild that fails too stops at its first failing file: the submitted
 * KAT_2_12 is wrong in its first record, so both the guide build and the
 * harness-default rebuild MISMATCH there. The guide build runs every file
 * (its result is the published one); the rebuild's KAT_2_23 is not run, its
 * reason names where it stopped, and the stage's log says how long the
 * rebuild's KAT took and that it stopped. */
static void test_rebuild_stops_early(void **state)
{
    char ref[1024], pkg[1024], run[1024], path[4096];
    int failed = -1;
    hb_err err;
    (void)state;
    snprintf(ref, sizeof ref, "%s/ref", root);
    snprintf(pkg, sizeof pkg, "%s/Stop", root);
    snprintf(run, sizeof run, "%s/run_stop", root);
    reference_texts(ref);
    make_package(pkg, ref);
    /* the first record's digest, one hex digit changed */
    char *text = NULL;
    size_t len = 0;
    snprintf(path, sizeof path, "%s/Test_Vectors/v1/Strict/KAT_2_12_Strict.txt", pkg);
    assert_int_equal(hb_read_file(path, &text, &len, &err), 0);
    char *dst = strstr(text, "Dst = ");
    assert_non_null(dst);
    dst[6] = dst[6] == '0' ? '1' : '0';
    assert_int_equal(hb_write_atomic(path, text, len, &err), 0);
    free(text);

    const char *pkgs[] = {pkg};
    build_options bo = {0};
    bo.run_dir = run;
    bo.profile = "reference";
    bo.jobs = 1;
    bo.packages = pkgs;
    bo.n_packages = 1;
    assert_int_equal(build_run(&bo, &failed, &err), 0);
    char *logtext = NULL;
    size_t loglen = 0;
    FILE *log = open_memstream(&logtext, &loglen);
    assert_non_null(log);
    assert_int_equal(run_kat_log(run, &failed, log), 0);
    fclose(log);
    assert_int_equal(failed, 1);

    json_t *e = kt_kat_entry(run, "Stop", "Strict");
    assert_non_null(e);
    assert_string_equal(str(e, "status"), "MISMATCH");
    assert_string_equal(str(e, "flags_kind"), "harness-default");
    json_t *files = json_object_get(e, "files");
    assert_int_equal(json_array_size(files), 2);
    json_t *f0 = json_array_get(files, 0), *f1 = json_array_get(files, 1);
    assert_string_equal(str(f0, "name"), "KAT_2_12_Strict.txt");
    assert_string_equal(str(f0, "verdict"), "MISMATCH");
    assert_string_equal(str(f1, "verdict"), "NOTRUN");
    assert_true(json_is_null(json_object_get(f1, "generated_sha256")));
    if (!strstr(str(e, "reason"), "stopped at its first failing file (KAT_2_12_Strict.txt)") ||
        !strstr(str(e, "reason"), "KAT_2_23_Strict.txt not run"))
        fail_msg("the reason does not say where the rebuild stopped: %s", str(e, "reason"));
    assert_file_has(run, str(e, "log"), "KAT_2_23_Strict.txt - generated none");
    char status[512];
    kat_status_text(e, status, sizeof status);
    /* a rebuild's verdict says the flags that gave it */
    assert_string_equal(status, "MISMATCH (2_12; 2_23 not run: stopped at the first "
                        "failure; harness-default flags)");

    /* the guide build ran both files */
    json_t *g = json_object_get(e, "guide");
    assert_string_equal(str(g, "status"), "MISMATCH");
    assert_file_has(run, str(g, "log"), "KAT_2_23_Strict.txt ");
    snprintf(path, sizeof path, "%s/%s", run, str(g, "log"));
    assert_false(kt_contains(path, "KAT_2_23_Strict.txt - generated none"));
    json_decref(e);

    if (!logtext || !strstr(logtext, "kat Stop/Strict: harness-default rebuild: MISMATCH in ") ||
        !strstr(logtext, " s (1 of 2 files not run: stopped at its first failing file)\n"))
        fail_msg("the stage's log does not time the rebuild's KAT: %s", logtext ? logtext : "");
    free(logtext);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fallback),
        cmocka_unit_test(test_rebuild_stops_early),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
