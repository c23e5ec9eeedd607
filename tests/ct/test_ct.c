/* Tests of the constant-time methods (src/ct): the taint check under
 * Valgrind in the sandbox on the fixtures of tests/ct/fixtures (an S-box
 * indexed by message bytes, an early exit on a message byte, a table read
 * at public indexes only, code Valgrind cannot run), on the bundled SHA-256,
 * SHA3-256 and SM3 examples and on the OpenSSL baselines; the timing test
 * on the early-exit fixture; Welch's t; the XML reader on malformed input;
 * and the record check `validate` applies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fs.h"
#include "common/vgreq.h"
#include "ct/ct.h"
#include "ct/vgxml.h"

static void lib_path(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/lib%s.so", HB_CT_LIB_DIR, name);
}

/* The line of fixture FILE that carries MARKER. */
static long marker_line(const char *file, const char *marker)
{
    char path[1024], buf[1024];
    snprintf(path, sizeof path, "%s/%s", HB_CT_FIXTURE_DIR, file);
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    long n = 0, found = -1;
    while (fgets(buf, sizeof buf, fp)) {
        n++;
        if (strstr(buf, marker) && strstr(buf, "/*"))
            found = n;
    }
    fclose(fp);
    assert_true(found > 0);
    return found;
}

static json_t *taint_of(const char *name, int bits, const char *root)
{
    char lib[1024];
    json_t *t = NULL;
    hb_err err;
    lib_path(lib, sizeof lib, name);
    int rc = ct_taint(lib, bits, root, NULL, &t, &err);
    if (rc != 0)
        fail_msg("%s", err.msg);
    assert_non_null(t);
    return t;
}

static const char *s(const json_t *o, const char *k)
{
    const char *v = json_string_value(json_object_get(o, k));
    assert_non_null(v);
    return v;
}

static void expect_one(const char *fixture, const char *file, const char *marker,
                       const char *kind, const char *text)
{
    json_t *t = taint_of(fixture, 256, HB_CT_FIXTURE_DIR);
    assert_string_equal(s(t, "status"), "ANALYSED");
    json_t *f = json_object_get(t, "findings");
    if (json_array_size(f) != 1)
        fail_msg("%s: %zu findings, expected one", fixture, json_array_size(f));
    json_t *x = json_array_get(f, 0);
    assert_string_equal(s(x, "kind"), kind);
    assert_string_equal(s(x, "file"), file);
    assert_int_equal(json_integer_value(json_object_get(x, "line")), marker_line(file, marker));
    assert_non_null(strstr(s(x, "excerpt"), text));
    assert_true(json_integer_value(json_object_get(x, "count")) >= 1);
    json_decref(t);
}

static void test_sbox_memory_index(void **state)
{
    (void)state;
    expect_one("hbct_sbox", "ct_sbox.c", "SBOX-LOOKUP", "memory_index", "sbox[msg[i]]");
}

static void test_early_exit_branch(void **state)
{
    (void)state;
    expect_one("hbct_early", "ct_early.c", "EARLY-EXIT", "branch", "if (msg[i] == 0)");
}

static void expect_none(const char *name, const char *root)
{
    json_t *t = taint_of(name, 256, root);
    if (strcmp(s(t, "status"), "ANALYSED") != 0 || json_array_size(json_object_get(t, "findings")))
        fail_msg("%s: %s %s with %zu findings", name, s(t, "status"), s(t, "reason"),
                 json_array_size(json_object_get(t, "findings")));
    json_decref(t);
}

static void test_public_lookup_clean(void **state)
{
    (void)state;
    expect_none("hbct_public", HB_CT_FIXTURE_DIR);
}

static void test_examples_and_baseline_clean(void **state)
{
    (void)state;
    expect_none("hbex_SHA256", NULL);
    expect_none("hbex_SHA3_256", NULL);
    expect_none("hbex_SM3", NULL);
    expect_none("hb_baseline_sm3", NULL);
    expect_none("hb_baseline_sha256", NULL);
}

static void test_unrunnable_not_analysable(void **state)
{
    (void)state;
    json_t *t = taint_of("hbct_sigill", 256, HB_CT_FIXTURE_DIR);
    assert_string_equal(s(t, "status"), "NOT_ANALYSABLE");
    assert_non_null(strstr(s(t, "reason"), "SIGILL"));
    assert_int_equal(json_array_size(json_object_get(t, "findings")), 0);
    json_decref(t);
    /* a record with such a taint part is not "none found" */
    json_t *taint = json_pack("{s:s, s:s, s:[]}", "status", "NOT_ANALYSABLE", "reason",
                              "x", "findings");
    json_t *timing = json_pack("{s:s, s:s}", "status", "MEASURED", "verdict", "NOT_DETECTED");
    assert_string_equal(ct_verdict(taint, timing), "NOT_ANALYSABLE");
    json_decref(taint);
    json_decref(timing);
}

/* A library that issues Valgrind client requests could mark its secrets
 * defined: not analysable, never clean; the preamble is found on both
 * architectures and nowhere else. */
static void test_client_request_not_analysable(void **state)
{
    (void)state;
    json_t *t = taint_of("hbct_vgreq", 256, HB_CT_FIXTURE_DIR);
    assert_string_equal(s(t, "status"), "NOT_ANALYSABLE");
    assert_non_null(strstr(s(t, "reason"), "Valgrind client request"));
    assert_int_equal(json_array_size(json_object_get(t, "findings")), 0);
    json_decref(t);
    static const unsigned char amd64[] = {0x90, 0x48, 0xC1, 0xC7, 0x03, 0x48, 0xC1, 0xC7,
                                          0x0D, 0x48, 0xC1, 0xC7, 0x3D, 0x48, 0xC1, 0xC7,
                                          0x33, 0x48, 0x87, 0xDB};
    static const unsigned char arm64[] = {0, 0, 0x8C, 0x0D, 0xCC, 0x93, 0x8C, 0x35, 0xCC,
                                          0x93, 0x8C, 0xCD, 0xCC, 0x93, 0x8C, 0xF5, 0xCC,
                                          0x93};
    assert_int_equal(hb_valgrind_request_in(amd64, sizeof amd64), 1);
    assert_int_equal(hb_valgrind_request_in(arm64, sizeof arm64), 2);
    assert_int_equal(hb_valgrind_request_in(amd64, sizeof amd64 - 3), 1);
    assert_int_equal(hb_valgrind_request_in(amd64, 16), -1); /* cut short */
    assert_int_equal(hb_valgrind_request_in(arm64 + 3, sizeof arm64 - 3), -1);
}

static void test_timing_separates_early_exit(void **state)
{
    (void)state;
    char lib[1024];
    json_t *t = NULL;
    hb_err err;
    lib_path(lib, sizeof lib, "hbct_early");
    ct_time_opts o = {counter_arch_kind(), 64, 20000, 60, NULL};
    if (ct_timing(lib, 256, &o, &t, &err) != 0)
        fail_msg("%s", err.msg);
    assert_string_equal(s(t, "status"), "MEASURED");
    assert_int_equal(json_integer_value(json_object_get(t, "measurements")), 20000);
    double tv = json_number_value(json_object_get(t, "t"));
    if (!(fabs(tv) > 10 * CT_T_THRESHOLD))
        fail_msg("early-exit fixture: |t| = %.2f, expected well over %.1f", fabs(tv),
                 CT_T_THRESHOLD);
    assert_string_equal(s(t, "verdict"), "DIFFERENCE");
    json_decref(t);
}

static void test_welch(void **state)
{
    (void)state;
    /* (10 - 8) / sqrt(4/100 + 9/100) */
    assert_true(fabs(ct_welch_t(100, 10, 4, 100, 8, 9) - 2.0 / sqrt(0.13)) < 1e-12);
    assert_true(isnan(ct_welch_t(1, 10, 4, 100, 8, 9)));
    assert_true(ct_welch_t(5, 3, 0, 5, 3, 0) == 0.0);
}

static void test_vgxml_malformed(void **state)
{
    (void)state;
    char path[] = "/tmp/hb-ct-xml-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char text[] = "<?xml version=\"1.0\"?>\n<valgrindoutput>\n<error>\n</valgrindoutput>\n";
    assert_int_equal(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    ct_vgxml x;
    hb_err err;
    assert_int_equal(ct_vgxml_parse(path, "/lib.so", 1 << 20, &x, &err), -1);
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, ":4:")); /* the line of the bad closing tag */
    unlink(path);
}

static json_t *good_record(void)
{
    json_t *tests = json_pack("[{s:[i,i], s:[f,f], s:[f,f], s:f}]", "n", 100, 100,
                              "mean_ticks", 10.0, 8.0, "var_ticks", 40.0, 90.0, "t",
                              2.0 / sqrt(1.3));
    return json_pack("{s:i, s:s, s:s, s:s, s:s, s:{s:s, s:s, s:[{s:s, s:s, s:i, s:s, "
                     "s:s, s:i}]}, s:{s:s, s:i, s:o, s:f, s:f, s:s}, s:s}",
        "schema", 1, "kind", "hashbench-ct", "candidate", "C", "instance", "I",
        "library_sha256", "00", "taint", "status", "ANALYSED", "reason", "", "findings",
        "kind", "branch", "file", "a.c", "line", 3, "function", "f", "excerpt", "if (x)",
        "count", 2, "timing", "status", "MEASURED", "measurements", 200, "tests", tests,
        "t", 2.0 / sqrt(1.3), "threshold", 4.5, "verdict", "NOT_DETECTED",
        "verdict", "FOUND");
}

static void test_record_check(void **state)
{
    (void)state;
    hb_err err;
    json_t *r = good_record();
    if (ct_record_check(r, "ct/C/I.json", &err) != 0)
        fail_msg("%s", err.msg);
    /* a t that is not Welch's t of the figures */
    json_t *tm = json_object_get(r, "timing");
    json_object_set_new(json_array_get(json_object_get(tm, "tests"), 0), "t", json_real(9));
    assert_int_equal(ct_record_check(r, "ct/C/I.json", &err), -1);
    assert_non_null(strstr(err.msg, "Welch"));
    json_decref(r);
    /* "none found" claimed while there is a finding */
    r = good_record();
    json_object_set_new(r, "verdict", json_string("NONE_FOUND"));
    assert_int_equal(ct_record_check(r, "ct/C/I.json", &err), -1);
    assert_non_null(strstr(err.msg, "FOUND"));
    json_decref(r);
    /* the same location twice */
    r = good_record();
    json_t *f = json_object_get(json_object_get(r, "taint"), "findings");
    json_array_append_new(f, json_deep_copy(json_array_get(f, 0)));
    assert_int_equal(ct_record_check(r, "ct/C/I.json", &err), -1);
    json_decref(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_welch),
        cmocka_unit_test(test_vgxml_malformed),
        cmocka_unit_test(test_record_check),
        cmocka_unit_test(test_sbox_memory_index),
        cmocka_unit_test(test_early_exit_branch),
        cmocka_unit_test(test_public_lookup_clean),
        cmocka_unit_test(test_examples_and_baseline_clean),
        cmocka_unit_test(test_unrunnable_not_analysable),
        cmocka_unit_test(test_client_request_not_analysable),
        cmocka_unit_test(test_timing_separates_early_exit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
