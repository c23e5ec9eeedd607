/* The KAT gate end to end on fixture libraries (tests/kat/fixtures), one
 * per failure class, all in one run: each gets its own status in kat.json
 * and in its log's RESULT line, the run reports the failures without
 * stopping at the first. The expected texts come from the good fixture's
 * own generated files (as submitted text files, and as a manifest whose
 * digests this test computes itself with OpenSSL); KAT_Loop is recomputed
 * here independently. Also: the SPEC check values inside generated texts,
 * the log format, resuming, the guard of messages too large to copy, and
 * that instances checked side by side give what one after another gives. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <dlfcn.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <openssl/evp.h>
#include "common/digest.h"
#include "common/fs.h"
#include "common/json.h"
#include "common/proc.h"
#include "kat/kat.h"
#include "kat/kat_gen.h"
#include "runner/client.h"
#include "kat_test_util.h"

static char *root;

static void fx_lib(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/libkatfx_%s.so", KAT_FIXTURE_DIR, name);
}

static void sub(char *out, size_t n, const char *rel)
{
    snprintf(out, n, "%s/%s", root, rel);
}

/* SHA-256 of the canonical form, computed here without the library: drop
 * CRs, trailing blanks and blank lines. */
static void canonical_sha(const char *path, char hex[HB_SHA256_HEX])
{
    char *text = NULL, *out;
    size_t len = 0, n = 0;
    hb_err err;
    assert_int_equal(hb_read_file(path, &text, &len, &err), 0);
    out = malloc(len + 2);
    assert_non_null(out);
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        size_t l = strlen(line);
        while (l && (line[l - 1] == ' ' || line[l - 1] == '\r' || line[l - 1] == '\t'))
            l--;
        if (l) {
            memcpy(out + n, line, l);
            n += l;
            out[n++] = '\n';
        }
    }
    hb_sha256_buf_hex(out, n, hex);
    free(out);
    free(text);
}

/* Where run_kat's stage writes its lines (NULL: nowhere). */
static FILE *kat_log;

static int run_kat(const char *run, int loop, double timeout, const char *const *only,
                   int n_only, int *n_failed)
{
    kat_options o = {0};
    hb_err err;
    o.run_dir = run;
    o.log = kat_log;
    o.loop = loop;
    o.timeout_s = timeout;
    o.instances = only;
    o.n_instances = n_only;
    int rc = kat_run(&o, n_failed, &err);
    if (rc != 0)
        print_error("kat_run: %s\n", err.msg);
    return rc;
}

static int setup(void **state)
{
    (void)state;
    root = kt_mkdtemp("run");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    kt_release(root);
    return 0;
}

/* The value of "KEY = " on the first line starting with it in PATH. */
static char *field(const char *path, const char *key)
{
    char *text = NULL, *res = NULL;
    hb_err err;
    assert_int_equal(hb_read_file(path, &text, NULL, &err), 0);
    char *p = strstr(text, key);
    if (p) {
        p += strlen(key);
        res = strndup(p, strcspn(p, "\n"));
    }
    free(text);
    return res;
}

/* KAT_Loop recomputed with OpenSSL: fx_hash is SHA-256(msg || len64be). */
static void fx_digest(const unsigned char *m, size_t n, unsigned char out[32])
{
    unsigned char len[8];
    unsigned int k = 0;
    for (int i = 0; i < 8; i++)
        len[i] = (unsigned char)((8ULL * n) >> (56 - 8 * i));
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    assert_int_equal(EVP_DigestInit_ex(c, EVP_sha256(), NULL), 1);
    EVP_DigestUpdate(c, m, n);
    EVP_DigestUpdate(c, len, sizeof len);
    EVP_DigestFinal_ex(c, out, &k);
    EVP_MD_CTX_free(c);
}

static void check_loop(const char *path)
{
    unsigned char m[1024], h[32], tmp[32];
    char hex[65];
    char *msg = field(path, "Msg = "), *dst = field(path, "Dst = ");
    assert_non_null(msg);
    assert_int_equal(strlen(msg), 2048);
    assert_int_equal(strncmp(msg, "2D911820A8ED087902CCFEEAD2C91785", 32), 0);
    assert_int_equal(hb_hex_decode(msg, 2048, m), 1024);
    fx_digest(m, sizeof m, h);
    for (int i = 0; i < 1000000; i++) {
        memcpy(tmp, m, 32);
        memmove(m, m + 32, sizeof m - 32);
        memcpy(m + sizeof m - 32, tmp, 32);
        for (int j = 0; j < 32; j++)
            m[j] ^= h[j];
        fx_digest(m, sizeof m, h);
    }
    hb_hex_encode(h, 32, hex, 1);
    assert_string_equal(dst, hex);
    free(msg);
    free(dst);
}

/* Step 1: the good fixture alone, no vectors: NOKAT, texts with the SPEC
 * check values. */
static void test_good_nokat(void **state)
{
    char run[1024], p[4096];
    int failed = -1;
    (void)state;
    sub(run, sizeof run, "gen");
    assert_int_equal(hb_mkdirs(run, &(hb_err){{0}}), 0);
    json_t *b = kt_build_new();
    fx_lib(p, sizeof p, "good");
    kt_build_add(b, run, "fx", "Good", 256, p, NULL, "harness-default");
    kt_build_save(b, run);
    json_decref(b);
    assert_int_equal(run_kat(run, 1, 60, NULL, 0, &failed), 0);
    snprintf(p, sizeof p, "%s/kat/fx/Good.log", run);
    if (failed != 0)
        fail_msg("the good fixture failed its KAT; its log %s ends with '%s'", p,
                 kt_last_line(p));
    json_t *e = kt_kat_entry(run, "fx", "Good");
    assert_non_null(e);
    assert_string_equal(json_string_value(json_object_get(e, "status")), "NOKAT");
    assert_int_equal(json_array_size(json_object_get(e, "files")), 3);
    json_decref(e);
    snprintf(p, sizeof p, "%s/kat/fx/Good/KAT_2_23_Good.txt", run);
    assert_true(kt_contains(p, "Msg_Exp = B6E2C825BE0E7D79 .... 70B7D148BC6FCCEC\n"));
    assert_true(kt_contains(p, "Msg_Exp = 0000000000000000 .... 0000000000000000\n"));
    assert_true(kt_contains(p, "Msg_Exp = FFFFFFFFFFFFFFFF .... FFFFFFFFFFFFFFFF\n"));
    assert_true(kt_contains(p, "Msg_Seed = 4B41545F325F3233"));
    assert_true(kt_contains(p, "Msg_Len = 8388608\n"));
    snprintf(p, sizeof p, "%s/kat/fx/Good/KAT_2_12_Good.txt", run);
    assert_true(kt_contains(p, "Msg_Len = 0\nMsg = \nDst_Len = 256\n"));
    assert_true(kt_contains(p, "Msg_Len = 11\nMsg = AC20\n"));
    assert_true(kt_contains(p, "Msg_Len = 4096\n"));
    snprintf(p, sizeof p, "%s/kat/fx/Good/KAT_Loop_Good.txt", run);
    check_loop(p);
    snprintf(p, sizeof p, "%s/kat/fx/Good.log", run);
    char *last = kt_last_line(p);
    assert_string_equal(last, "RESULT fx Good NOKAT");
    free(last);
}

static const char *const manifest_labels[] = {"Good", "Error", "Overflow", "Crash",
                                              "ReadPast", "Hang", "NoSym", "Exit",
                                              "Input"};

/* The package: Wrong's vectors as text files (nested, odd case), the
 * others' as a manifest of the good fixture's digests. */
static void make_package(const char *pkg)
{
    char src[4096], dst[4096], sha[HB_SHA256_HEX], line[600];
    hb_err err;
    FILE *m;
    const char *kinds[] = {"KAT_2_12", "KAT_2_23"};
    snprintf(dst, sizeof dst, "%s/kat.sha256", pkg);
    assert_int_equal(hb_mkdirs(pkg, &err), 0);
    m = fopen(dst, "w");
    assert_non_null(m);
    for (int k = 0; k < 2; k++) {
        snprintf(src, sizeof src, "%s/gen/kat/fx/Good/%s_Good.txt", root, kinds[k]);
        snprintf(dst, sizeof dst, "%s/impl/test_vectors/x/%s_Wrong.txt", pkg, kinds[k]);
        assert_int_equal(hb_copy_file(src, dst, &err), 0);
        canonical_sha(src, sha);
        for (size_t i = 0; i < sizeof manifest_labels / sizeof *manifest_labels; i++) {
            snprintf(line, sizeof line, "%s strict %s/%s_%s.txt\n", sha,
                     manifest_labels[i], kinds[k], manifest_labels[i]);
            fputs(line, m);
        }
    }
    fclose(m);
}

typedef struct expect {
    const char *inst, *status, *needle;
} expect;

static const expect expected[] = {
    {"Good", "PASS", "KAT_2_23_Good.txt"},
    {"Wrong", "MISMATCH", "Msg_Len = 1000"},
    {"Error", "ERROR", "at Msg_Len = 77"},
    {"Overflow", "OVERFLOW", "at Msg_Len = 500"},
    {"Crash", "CRASH", "SIGSEGV"},
    {"ReadPast", "CRASH", "at Msg_Len = 64"},
    {"Hang", "TIMEOUT", "at Msg_Len = 200"},
    {"NoSym", "LOADFAIL", "CryptHash"},
    {"Exit", "ERROR", "ended the process"},
    {"Input", "ERROR", "the message changed during the call (the runner's fault answer) "
     "in KAT_2_12_Input.txt at Msg_Len = 300"},
};

static void check_instance(const char *run, const expect *x)
{
    char log[4096], result[300];
    json_t *e = kt_kat_entry(run, "fx", x->inst);
    assert_non_null(e);
    if (strcmp(json_string_value(json_object_get(e, "status")), x->status) != 0)
        fail_msg("%s: status %s, expected %s (%s)", x->inst,
                 json_string_value(json_object_get(e, "status")), x->status,
                 json_string_value(json_object_get(e, "reason")));
    snprintf(log, sizeof log, "%s/%s", run, json_string_value(json_object_get(e, "log")));
    char *last = kt_last_line(log);
    snprintf(result, sizeof result, "RESULT fx %s %s", x->inst, x->status);
    assert_string_equal(last, result);
    free(last);
    if (!kt_contains(log, x->needle))
        fail_msg("%s: '%s' not in its log", x->inst, x->needle);
    /* what the runner sent is raw text, in kat.json only (common/untrusted.h) */
    const char *raw = json_string_value(json_object_get(e, "raw_reason_untrusted"));
    if (strcmp(x->inst, "Input") == 0 &&
        (!raw || !strstr(raw, "changed its input message (byte 1 of 38)") ||
         kt_contains(log, "byte 1 of 38")))
        fail_msg("Input: the runner's text not apart: %s", raw ? raw : "(none)");
    char sha[HB_SHA256_HEX];
    assert_int_equal(hb_sha256_file_hex(log, sha, &(hb_err){{0}}), 0);
    assert_string_equal(sha, json_string_value(json_object_get(e, "log_sha256")));
    json_decref(e);
}

/* The log of a passing instance: a header naming the library with its
 * SHA-256, the full flags and the compiler; one line per KAT file with its
 * time, generated and expected digests and verdict; RESULT last. */
static void check_log_format(const char *run, const char *inst)
{
    char path[4096], sha[HB_SHA256_HEX], want[512];
    char *text = NULL;
    hb_err err;
    json_t *e = kt_kat_entry(run, "fx", inst);
    assert_non_null(e);
    snprintf(path, sizeof path, "%s/lib/fx/lib%s.so", run, inst);
    assert_int_equal(hb_sha256_file_hex(path, sha, &err), 0);
    snprintf(path, sizeof path, "%s/%s", run, json_string_value(json_object_get(e, "log")));
    assert_int_equal(hb_read_file(path, &text, NULL, &err), 0);
    assert_int_equal(strncmp(text, "hashbench ", 10), 0);
    snprintf(want, sizeof want, "\nlibrary: lib/fx/lib%s.so\nlibrary_sha256: %s\n", inst, sha);
    assert_non_null(strstr(text, want));
    snprintf(want, sizeof want, "\ninstance: %s\n", inst);
    assert_non_null(strstr(text, want));
    assert_non_null(strstr(text, "\ndigest_bits: 256\nvariant: Reference\n"));
    assert_non_null(strstr(text, "\nflags_kind: harness-default\nflags: -O2 -fPIC -shared\n"));
    assert_non_null(strstr(text, "\ncompiler: cc (test)\n"));
    size_t i;
    json_t *f;
    int lines = 0;
    json_array_foreach(json_object_get(e, "files"), i, f) {
        const char *name = json_string_value(json_object_get(f, "name"));
        snprintf(want, sizeof want, "\n%s ", name);
        char *line = strstr(text, want);
        assert_non_null(line);
        line = strndup(line + 1, strcspn(line + 1, "\n"));
        snprintf(want, sizeof want, " generated %s expected %s (kat.sha256 line ",
                 json_string_value(json_object_get(f, "generated_sha256")),
                 json_string_value(json_object_get(f, "expected_sha256")));
        if (!strstr(line, want) || !strstr(line, " s (cpu ") ||
            strcmp(line + strlen(line) - 5, " PASS") != 0)
            fail_msg("log line '%s' lacks '%s', a time or the verdict", line, want);
        free(line);
        lines++;
    }
    assert_int_equal(lines, 2);
    free(text);
    json_decref(e);
}

/* No temporary file of a killed child is left behind. */
static void assert_no_tmp(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    assert_non_null(d);
    while ((de = readdir(d)) != NULL)
        if (strstr(de->d_name, ".tmp."))
            fail_msg("%s/%s left behind", dir, de->d_name);
    closedir(d);
}

/* KAT_Loop runs by default when the submitted vectors include it, and
 * --no-loop skips it; a submitted KAT_2_33 is left for --full. Every result
 * says which submitted files it checked and which not, and a result is
 * redone when the options would check other files. */
static void test_loop_when_submitted(void **state)
{
    char run[1024], pkg[1024], p[4096], line[600], sha[HB_SHA256_HEX], text[1024];
    int failed = -1;
    (void)state;
    sub(run, sizeof run, "loop");
    sub(pkg, sizeof pkg, "looppkg");
    assert_int_equal(hb_mkdirs(pkg, &(hb_err){{0}}), 0);
    snprintf(p, sizeof p, "%s/kat.sha256", pkg);
    FILE *m = fopen(p, "w");
    assert_non_null(m);
    const char *kinds[] = {"KAT_2_12", "KAT_2_23", "KAT_Loop"};
    for (int k = 0; k < 3; k++) {
        char src[4096];
        snprintf(src, sizeof src, "%s/gen/kat/fx/Good/%s_Good.txt", root, kinds[k]);
        canonical_sha(src, sha);
        snprintf(line, sizeof line, "%s strict Good/%s_Good.txt\n", sha, kinds[k]);
        fputs(line, m);
    }
    /* submitted, but a 1 GiB message: only with --full */
    fputs("0000000000000000000000000000000000000000000000000000000000000000 strict "
          "Good/KAT_2_33_Good.txt\n", m);
    fclose(m);
    assert_int_equal(hb_mkdirs(run, &(hb_err){{0}}), 0);
    json_t *b = kt_build_new();
    fx_lib(p, sizeof p, "good");
    kt_build_add(b, run, "fx", "Good", 256, p, pkg, "harness-default");
    kt_build_save(b, run);
    json_decref(b);

    assert_int_equal(run_kat(run, KAT_LOOP_SUBMITTED, 60, NULL, 0, &failed), 0);
    assert_int_equal(failed, 0);
    json_t *e = kt_kat_entry(run, "fx", "Good");
    assert_int_equal(json_array_size(json_object_get(e, "files")), 3);
    kat_status_text(e, text, sizeof text);
    assert_string_equal(text, "PASS (2_12, 2_23, Loop; 2_33 not checked: needs --full)");
    /* each generated file's plain SHA-256 (what sha256sum prints), computed
     * here with OpenSSL over the file's bytes */
    size_t fi;
    json_t *fe;
    json_array_foreach(json_object_get(e, "files"), fi, fe) {
        char gp[4096], *bytes = NULL, hex[HB_SHA256_HEX];
        size_t blen = 0;
        unsigned char md[32];
        unsigned int mdlen = 0;
        snprintf(gp, sizeof gp, "%s/kat/fx/Good/%s", run,
                 json_string_value(json_object_get(fe, "name")));
        assert_int_equal(hb_read_file(gp, &bytes, &blen, &(hb_err){{0}}), 0);
        assert_int_equal(EVP_Digest(bytes, blen, md, &mdlen, EVP_sha256(), NULL), 1);
        free(bytes);
        for (unsigned int k = 0; k < mdlen; k++)
            snprintf(hex + 2 * k, 3, "%02x", md[k]);
        assert_string_equal(json_string_value(json_object_get(fe, "generated_file_sha256")),
                            hex);
    }
    const char *log_sha = json_string_value(json_object_get(e, "log_sha256"));
    char keep[HB_SHA256_HEX];
    snprintf(keep, sizeof keep, "%s", log_sha);
    json_decref(e);
    snprintf(p, sizeof p, "%s/kat/fx/Good.log", run);
    assert_true(kt_contains(p, "\nKAT_2_33_Good.txt not checked: needs --full\n"));

    /* a weaker check (--no-loop) keeps the verdict that checked KAT_Loop,
     * and says so, naming the run that made it */
    e = kt_kat_entry(run, "fx", "Good");
    char made[64];
    snprintf(made, sizeof made, "%s", json_string_value(json_object_get(e, "tested_utc")));
    json_decref(e);
    assert_true(made[0] != '\0');
    char said[4096];
    snprintf(said, sizeof said, "%s/said.txt", root);
    kat_log = fopen(said, "w");
    assert_non_null(kat_log);
    assert_int_equal(run_kat(run, KAT_LOOP_NEVER, 60, NULL, 0, &failed), 0);
    fclose(kat_log);
    kat_log = NULL;
    e = kt_kat_entry(run, "fx", "Good");
    assert_int_equal(json_array_size(json_object_get(e, "files")), 3);
    kat_status_text(e, text, sizeof text);
    assert_string_equal(text, "PASS (2_12, 2_23, Loop; 2_33 not checked: needs --full)");
    assert_string_equal(json_string_value(json_object_get(e, "log_sha256")), keep);
    assert_string_equal(json_string_value(json_object_get(e, "tested_utc")), made);
    json_decref(e);
    assert_false(kt_contains(p, "skipped with --no-loop"));
    char line2[256];
    snprintf(line2, sizeof line2, "kat fx/Good: kept the verdict PASS of the run of %s, "
             "which also checked KAT_Loop; this run asks for less (--no-loop)", made);
    assert_true(kt_contains(said, line2));

    /* a stronger check replaces a weaker verdict: --no-loop first, then
     * the submitted KAT_Loop */
    char run2[1024];
    sub(run2, sizeof run2, "loop2");
    assert_int_equal(hb_mkdirs(run2, &(hb_err){{0}}), 0);
    b = kt_build_new();
    fx_lib(p, sizeof p, "good");
    kt_build_add(b, run2, "fx", "Good", 256, p, pkg, "harness-default");
    kt_build_save(b, run2);
    json_decref(b);
    snprintf(run, sizeof run, "%s", run2);
    snprintf(p, sizeof p, "%s/kat/fx/Good.log", run);
    assert_int_equal(run_kat(run, KAT_LOOP_NEVER, 60, NULL, 0, &failed), 0);
    e = kt_kat_entry(run, "fx", "Good");
    assert_int_equal(json_array_size(json_object_get(e, "files")), 2);
    kat_status_text(e, text, sizeof text);
    assert_string_equal(text, "PASS (2_12, 2_23; Loop not checked: skipped with --no-loop; "
                              "2_33 not checked: needs --full)");
    json_decref(e);
    assert_true(kt_contains(p, "\nKAT_Loop_Good.txt not checked: skipped with --no-loop\n"));
    assert_true(kt_contains(p, "procedure: SPEC 3 official KAT (KAT_2_12 KAT_2_23)"));
    assert_int_equal(run_kat(run, KAT_LOOP_SUBMITTED, 60, NULL, 0, &failed), 0);
    e = kt_kat_entry(run, "fx", "Good");
    assert_int_equal(json_array_size(json_object_get(e, "files")), 3);
    json_decref(e);
    assert_int_equal(run_kat(run, KAT_LOOP_NEVER, 60, NULL, 0, &failed), 0);

    /* unchanged options keep the result */
    e = kt_kat_entry(run, "fx", "Good");
    snprintf(keep, sizeof keep, "%s", json_string_value(json_object_get(e, "log_sha256")));
    json_decref(e);
    assert_int_equal(run_kat(run, KAT_LOOP_NEVER, 60, NULL, 0, &failed), 0);
    e = kt_kat_entry(run, "fx", "Good");
    assert_string_equal(json_string_value(json_object_get(e, "log_sha256")), keep);
    json_decref(e);
}

static void test_failure_classes(void **state)
{
    char run[1024], pkg[1024], p[4096];
    int failed = -1;
    (void)state;
    sub(run, sizeof run, "all");
    sub(pkg, sizeof pkg, "pkg");
    make_package(pkg);
    assert_int_equal(hb_mkdirs(run, &(hb_err){{0}}), 0);
    json_t *b = kt_build_new();
    const char *libs[] = {"good", "wrong", "error", "overflow", "crash", "readpast",
                          "hang", "nosym", "exit", "input"};
    for (size_t i = 0; i < sizeof expected / sizeof *expected; i++) {
        fx_lib(p, sizeof p, libs[i]);
        kt_build_add(b, run, "fx", expected[i].inst, 256, p, pkg, "harness-default");
    }
    kt_build_save(b, run);
    json_decref(b);
    assert_int_equal(run_kat(run, 0, 4, NULL, 0, &failed), 0);
    assert_int_equal(failed, (int)(sizeof expected / sizeof *expected) - 1);
    for (size_t i = 0; i < sizeof expected / sizeof *expected; i++)
        check_instance(run, &expected[i]);
    check_log_format(run, "Good");

    json_t *w = kt_kat_entry(run, "fx", "Wrong");
    json_t *f0 = json_array_get(json_object_get(w, "files"), 0);
    assert_int_equal(json_integer_value(json_object_get(f0, "first_diff_msg_len")), 1000);
    assert_string_equal(json_string_value(json_object_get(f0, "expected_from")), "file");
    json_decref(w);
    json_t *g = kt_kat_entry(run, "fx", "Good");
    f0 = json_array_get(json_object_get(g, "files"), 0);
    assert_string_equal(json_string_value(json_object_get(f0, "expected_from")), "manifest");
    assert_string_equal(json_string_value(json_object_get(f0, "verdict")), "PASS");
    const char *log_sha = json_string_value(json_object_get(g, "log_sha256"));
    char keep[HB_SHA256_HEX];
    snprintf(keep, sizeof keep, "%s", log_sha);
    json_decref(g);
    for (size_t i = 0; i < sizeof expected / sizeof *expected; i++) {
        snprintf(p, sizeof p, "%s/kat/fx/%s", run, expected[i].inst);
        if (hb_is_dir(p))
            assert_no_tmp(p);
    }

    /* Resuming with the same options keeps the entry (same log). */
    const char *only[] = {"fx/Good", "Wrong"};
    assert_int_equal(run_kat(run, 0, 4, only, 2, &failed), 0);
    assert_int_equal(failed, 1);
    g = kt_kat_entry(run, "fx", "Good");
    assert_string_equal(json_string_value(json_object_get(g, "log_sha256")), keep);
    json_decref(g);
    json_t *h = kt_kat_entry(run, "fx", "Hang");
    assert_non_null(h);
    json_decref(h);

    /* The command line: every status printed, exit status 1 for failures. */
    char exe[4096], *out = NULL;
    snprintf(exe, sizeof exe, "%s/hashbench", getenv("HB_BUILD_DIR"));
    char *argv[] = {exe, "kat", "--run-dir", run, "--timeout", "4", NULL};
    hb_proc_opts po = hb_proc_defaults();
    hb_proc_result res;
    po.capture = &out;
    po.capture_cap = 1 << 16;
    assert_int_equal(hb_proc_exec(argv, &po, &res, &(hb_err){{0}}), 0);
    assert_true(res.exited);
    assert_int_equal(res.exit_code, 1);
    assert_non_null(out);
    /* Each line: the status, what it checked, the instance. */
    for (size_t i = 0; i < sizeof expected / sizeof *expected; i++) {
        char name[200];
        snprintf(name, sizeof name, " fx/%s", expected[i].inst);
        const char *at = strstr(out, name), *line = at;
        while (line && line > out && line[-1] != '\n')
            line--;
        if (!at || strncmp(line, expected[i].status, strlen(expected[i].status)) != 0 ||
            (line[strlen(expected[i].status)] != ' ' && line[strlen(expected[i].status)] != '('))
            fail_msg("no line '%s ...%s' in the output:\n%s", expected[i].status, name, out);
    }
    /* What the PASS checked: both submitted files. */
    if (!strstr(out, "PASS (2_12, 2_23) fx/Good"))
        fail_msg("'PASS (2_12, 2_23) fx/Good' not in the output:\n%s", out);
    free(out);
}

/* Messages above the copy limit (KAT_2_33's 1 GiB) are guarded by being
 * read-only during the call instead of compared afterwards: the digest the
 * runner sends back is still right, and a library writing into such a
 * message is stopped by SIGSEGV (the runner ends; hashbench is told how).
 * 17 MiB stands in for 1 GiB. */
static void test_large_message_guard(void **state)
{
    size_t n = 17u << 20;
    unsigned char *m = malloc(n), dig[32], want[32];
    char lib[4096], loadfail[256];
    hb_err err;
    kat_fault f;
    runner_session s;
    hb_proc_result res;
    (void)state;
    assert_non_null(m);
    for (size_t i = 0; i < n; i++)
        m[i] = (unsigned char)(i * 131 + 7);
    fx_lib(lib, sizeof lib, "good");
    runner_target t = {lib, 256, 60, 0};
    assert_int_equal(runner_open(&s, &t, loadfail, sizeof loadfail, &err), 0);
    assert_int_equal(runner_hash(&s, m, 8ULL * n, dig, &f, &err), RUNNER_CALL_OK);
    runner_close(&s, &res);
    assert_true(res.exited && res.exit_code == 0);
    fx_digest(m, n, want);
    assert_memory_equal(dig, want, 32);

    fx_lib(lib, sizeof lib, "input");
    assert_int_equal(runner_open(&s, &t, loadfail, sizeof loadfail, &err), 0);
    assert_int_equal(runner_hash(&s, m, 8ULL * n, dig, &f, &err), RUNNER_CALL_GONE);
    runner_close(&s, &res);
    if (!res.signaled || res.signo != SIGSEGV)
        fail_msg("the input-changing library was not stopped by SIGSEGV (exited %d code %d "
                 "signaled %d signo %d)", res.exited, res.exit_code, res.signaled, res.signo);
    free(m);
}

/* hashbench's own write error (here a file size limit standing in for a
 * full disk) is not the instance's fault: the stage stops with an error
 * that says so, no verdict is recorded, and the next run checks the
 * instance again and gives its real status. */
static void test_write_error_is_not_a_verdict(void **state)
{
    char run[1024], p[4096];
    int failed = -1;
    kat_options o = {0};
    hb_err err;
    struct rlimit old, small;
    (void)state;
    sub(run, sizeof run, "full");
    assert_int_equal(hb_mkdirs(run, &err), 0);
    json_t *b = kt_build_new();
    fx_lib(p, sizeof p, "good");
    kt_build_add(b, run, "fx", "Good", 256, p, NULL, "harness-default");
    kt_build_save(b, run);
    json_decref(b);
    o.run_dir = run;
    o.timeout_s = 60;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    small = old;
    small.rlim_cur = 64 * 1024; /* KAT_2_12's text is larger */
    signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
    int rc = kat_run(&o, &failed, &err);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, SIG_DFL);
    assert_int_equal(rc, -1);
    if (!strstr(err.msg, "not the instance's fault") || !strstr(err.msg, "KAT_2_12_Good"))
        fail_msg("the error does not say it is hashbench's: %s", err.msg);
    snprintf(p, sizeof p, "%s/kat.json", run);
    if (hb_is_file(p)) {
        json_t *kept = kt_kat_entry(run, "fx", "Good");
        if (kept)
            fail_msg("a verdict was recorded after hashbench's own write error");
    }
    assert_int_equal(kat_run(&o, &failed, &err), 0);
    json_t *e = kt_kat_entry(run, "fx", "Good");
    assert_non_null(e);
    assert_string_equal(json_string_value(json_object_get(e, "status")), "NOKAT");
    json_decref(e);
}

/* DOC without what depends on time: every "seconds" and "cpu_seconds",
 * and the log digests (the logs hold the times; compared apart). */
static void drop_times(json_t *doc)
{
    const char *key;
    json_t *v;
    size_t i;
    void *tmp;
    if (json_is_array(doc))
        json_array_foreach(doc, i, v)
            drop_times(v);
    json_object_foreach_safe(doc, tmp, key, v) {
        if (!strcmp(key, "seconds") || !strcmp(key, "cpu_seconds") ||
            !strcmp(key, "log_sha256") || !strcmp(key, "tested_utc"))
            json_object_del(doc, key);
        else
            drop_times(v);
    }
}

/* The text of PATH with every time ("0.123 s") written as "T s". */
static char *log_without_times(const char *path)
{
    char *text = NULL;
    assert_int_equal(hb_read_file(path, &text, NULL, &(hb_err){{0}}), 0);
    char *out = malloc(strlen(text) + 1), *o = out;
    assert_non_null(out);
    for (const char *p = text; *p;) {
        size_t n = strspn(p, "0123456789.");
        if (n > 0 && strncmp(p + n, " s", 2) == 0 && (p == text || p[-1] == ' ' ||
                                                     p[-1] == '(')) {
            *o++ = 'T';
            p += n;
        } else if (n > 0) {
            memcpy(o, p, n);
            o += n;
            p += n;
        } else {
            *o++ = *p++;
        }
    }
    *o = '\0';
    free(text);
    return out;
}

/* The same instances tested one at a time and four at a time: the same
 * kat.json (times aside), in the same order, and the same logs. */
static void test_parallel_same_as_sequential(void **state)
{
    char run[2][1024], dir[1024], pkg[1024], p[4096];
    const int jobs[2] = {1, 4};
    int failed[2] = {-1, -1};
    json_t *doc[2];
    hb_err err;
    (void)state;
    sub(pkg, sizeof pkg, "pkg-par");
    make_package(pkg);
    const char *libs[] = {"good", "wrong", "error", "overflow", "crash", "readpast",
                          "hang", "nosym", "exit", "input"}; /* as expected[] */
    /* both run in the same folder (messages may quote the library's path),
     * the first one then moved aside */
    sub(dir, sizeof dir, "jobs");
    sub(run[0], sizeof run[0], "jobs-1");
    snprintf(run[1], sizeof run[1], "%s", dir);
    for (int r = 0; r < 2; r++) {
        assert_int_equal(hb_mkdirs(dir, &err), 0);
        json_t *b = kt_build_new();
        for (size_t i = 0; i < sizeof libs / sizeof *libs; i++) {
            fx_lib(p, sizeof p, libs[i]);
            kt_build_add(b, dir, "fx", expected[i].inst, 256, p, pkg, "harness-default");
        }
        kt_build_save(b, dir);
        json_decref(b);
        kat_options o = {0};
        o.run_dir = dir;
        o.timeout_s = 2;
        o.jobs = jobs[r];
        if (kat_run(&o, &failed[r], &err) != 0)
            fail_msg("kat_run with %d jobs: %s", jobs[r], err.msg);
        snprintf(p, sizeof p, "%s/kat.json", dir);
        assert_int_equal(hb_json_load(p, &doc[r], &err), 0);
        if (r == 0)
            assert_int_equal(rename(dir, run[0]), 0);
    }
    assert_int_equal(failed[0], (int)(sizeof libs / sizeof *libs) - 1);
    assert_int_equal(failed[1], failed[0]);
    json_t *list = json_object_get(doc[1], "instances");
    assert_int_equal(json_array_size(list), sizeof libs / sizeof *libs);
    for (size_t i = 0; i < sizeof libs / sizeof *libs; i++) {
        json_t *e = json_array_get(list, i);
        assert_string_equal(json_string_value(json_object_get(e, "instance")),
                            expected[i].inst); /* build.json order */
        assert_string_equal(json_string_value(json_object_get(e, "status")),
                            expected[i].status);
        char a[4096], b[4096];
        snprintf(a, sizeof a, "%s/%s", run[0], json_string_value(json_object_get(e, "log")));
        snprintf(b, sizeof b, "%s/%s", run[1], json_string_value(json_object_get(e, "log")));
        char *la = log_without_times(a), *lb = log_without_times(b);
        if (strcmp(la, lb) != 0)
            fail_msg("the logs of %s differ:\n%s\n---\n%s", expected[i].inst, la, lb);
        free(la);
        free(lb);
    }
    drop_times(doc[0]);
    drop_times(doc[1]);
    if (!json_equal(doc[0], doc[1])) {
        char *ta = json_dumps(doc[0], JSON_INDENT(1)), *tb = json_dumps(doc[1], JSON_INDENT(1));
        fail_msg("kat.json differs between 1 and 4 jobs:\n%s\n---\n%s", ta, tb);
    }
    json_decref(doc[0]);
    json_decref(doc[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_nokat),
        cmocka_unit_test(test_loop_when_submitted),
        cmocka_unit_test(test_failure_classes),
        cmocka_unit_test(test_parallel_same_as_sequential),
        cmocka_unit_test(test_large_message_guard),
        cmocka_unit_test(test_write_error_is_not_a_verdict),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
