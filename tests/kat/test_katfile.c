/* The KAT text format and manifests: the exact text of written records
 * (empty message with its trailing blank, partial bytes masked), the
 * canonical SHA-256 (checked against OpenSSL's SHA-256 of a canonical text
 * written out by hand), canonicalisation of CRLF / trailing blanks / blank
 * lines, comparison naming the first differing Msg_Len, and one-line
 * FILE:LINE errors for truncated KAT files and malformed manifests. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/digest.h"
#include "common/fs.h"
#include "kat/katfile.h"
#include "kat/manifest.h"
#include "kat_test_util.h"

static char *dir;

/* Two records: the empty message and the 11-bit message 10101100001 given
 * with garbage in its unused low bits (AC 2F), digest bytes 00..1F. */
static const char expected_text[] =
    "Msg_Len = 0\n" "Msg = \n" "Dst_Len = 256\n"
    "Dst = 000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F\n" "\n"
    "Msg_Len = 11\n" "Msg = AC20\n" "Dst_Len = 256\n"
    "Dst = 000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F\n" "\n";

static const char canonical_text[] =
    "Msg_Len = 0\n" "Msg =\n" "Dst_Len = 256\n"
    "Dst = 000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F\n"
    "Msg_Len = 11\n" "Msg = AC20\n" "Dst_Len = 256\n"
    "Dst = 000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F\n";

static void path_of(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", dir, name);
}

static void write_text(const char *name, const char *text)
{
    char p[4096];
    hb_err err;
    path_of(p, sizeof p, name);
    assert_int_equal(hb_write_atomic(p, text, strlen(text), &err), 0);
}

static int setup(void **state)
{
    (void)state;
    dir = kt_mkdtemp("katfile");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    kt_release(dir);
    return 0;
}

static void test_canon_line(void **state)
{
    char a[] = "Msg = \r", b[] = "a\tb \t\r", c[] = "  \t", d[] = "x\ry";
    (void)state;
    assert_int_equal(kat_canon_line(a, strlen(a)), 5);
    assert_string_equal(a, "Msg =");
    assert_int_equal(kat_canon_line(b, strlen(b)), 3);
    assert_string_equal(b, "a\tb");
    assert_int_equal(kat_canon_line(c, strlen(c)), 0);
    assert_int_equal(kat_canon_line(d, strlen(d)), 2);
    assert_string_equal(d, "xy");
}

static void test_writer_text_and_digest(void **state)
{
    unsigned char dig[32], msg11[2] = {0xAC, 0x2F};
    char p[4096], sha[HB_SHA256_HEX], oracle[HB_SHA256_HEX], again[HB_SHA256_HEX];
    kat_writer w;
    hb_err err;
    char *text = NULL;
    (void)state;
    for (int i = 0; i < 32; i++)
        dig[i] = (unsigned char)i;
    path_of(p, sizeof p, "written.txt");
    assert_int_equal(kat_writer_open(&w, p, &err), 0);
    assert_int_equal(kat_writer_record(&w, msg11, 0, dig, 256, &err), 0);
    assert_int_equal(kat_writer_record(&w, msg11, 11, dig, 256, &err), 0);
    assert_int_equal(kat_writer_close(&w, sha, &err), 0);
    assert_int_equal(hb_read_file(p, &text, NULL, &err), 0);
    assert_string_equal(text, expected_text);
    free(text);
    hb_sha256_buf_hex(canonical_text, strlen(canonical_text), oracle);
    assert_string_equal(sha, oracle);
    assert_int_equal(kat_file_sha256(p, again, &err), 0);
    assert_string_equal(again, oracle);
}

static void test_canonical_variants(void **state)
{
    char sha[HB_SHA256_HEX], oracle[HB_SHA256_HEX], p[4096];
    hb_err err;
    (void)state;
    write_text("crlf.txt",
        "\r\n\r\nMsg_Len = 0  \r\nMsg = \r\nDst_Len = 256\t\r\n"
        "Dst = 000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F\r\n"
        "   \r\n\r\nMsg_Len = 11\r\nMsg = AC20\r\nDst_Len = 256\r\n"
        "Dst = 000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F");
    path_of(p, sizeof p, "crlf.txt");
    assert_int_equal(kat_file_sha256(p, sha, &err), 0);
    hb_sha256_buf_hex(canonical_text, strlen(canonical_text), oracle);
    assert_string_equal(sha, oracle);
}

static void test_truncated_file(void **state)
{
    char sha[HB_SHA256_HEX], p[4096];
    hb_err err;
    (void)state;
    write_text("trunc.txt", "Msg_Len = 0\nMsg = \nDst_Len = 32\n"
               "Dst = 00112233\n\nMsg_Len = 11\nMsg = AC20\n");
    path_of(p, sizeof p, "trunc.txt");
    assert_int_equal(kat_file_sha256(p, sha, &err), -1);
    assert_non_null(strstr(err.msg, "trunc.txt:7:"));
    assert_non_null(strstr(err.msg, "truncated"));
    assert_null(strchr(err.msg, '\n'));
    write_text("badmsg.txt", "Msg_Len = 16\nMsg = AC\nDst_Len = 256\nDst = 00\n");
    path_of(p, sizeof p, "badmsg.txt");
    assert_int_equal(kat_file_sha256(p, sha, &err), -1);
    assert_non_null(strstr(err.msg, "badmsg.txt:2:"));
    /* a long message's seed: 128 hex digits, or none (all-zero, all-FF) */
    static const char *const seeds[] = {"", "4B41"};
    char text[512];
    for (int i = 0; i < 2; i++) {
        snprintf(text, sizeof text, "Msg_Len = 8388608\nMsg_Seed = %s\n"
                 "Msg_Exp = 0000000000000000 .... 0000000000000000\n"
                 "Dst_Len = 32\nDst = 00112233\n", seeds[i]);
        write_text("seed.txt", text);
        path_of(p, sizeof p, "seed.txt");
        if (i == 0) {
            assert_int_equal(kat_file_sha256(p, sha, &err), 0);
        } else {
            assert_int_equal(kat_file_sha256(p, sha, &err), -1);
            assert_non_null(strstr(err.msg, "seed.txt:2:"));
            assert_non_null(strstr(err.msg, "128 hex digits"));
        }
    }
}

/* Three records; REC_B's digest is changed in the "theirs" copy. */
static void test_compare(void **state)
{
    const char *ours = "Msg_Len = 0\nMsg = \nDst_Len = 8\nDst = 01\n\n"
                       "Msg_Len = 8\nMsg = FF\nDst_Len = 8\nDst = 02\n\n"
                       "Msg_Len = 16\nMsg = FFFF\nDst_Len = 8\nDst = 03\n\n";
    const char *theirs = "Msg_Len = 0\r\nMsg =\r\nDst_Len = 8\r\nDst = 01\r\n\r\n"
                         "Msg_Len = 8\r\nMsg = FF\r\nDst_Len = 8\r\nDst = 09\r\n"
                         "Msg_Len = 16\r\nMsg = FFFF\r\nDst_Len = 8\r\nDst = 03\r\n";
    const char *shorter = "Msg_Len = 0\nMsg = \nDst_Len = 8\nDst = 01\n";
    char g[4096], e[4096];
    kat_cmp c;
    hb_err err;
    (void)state;
    write_text("ours.txt", ours);
    write_text("theirs.txt", theirs);
    write_text("same.txt", ours);
    write_text("short.txt", shorter);
    path_of(g, sizeof g, "ours.txt");
    path_of(e, sizeof e, "same.txt");
    assert_int_equal(kat_compare_files(g, e, &c, &err), 0);
    assert_true(c.equal);
    path_of(e, sizeof e, "theirs.txt");
    assert_int_equal(kat_compare_files(g, e, &c, &err), 0);
    assert_false(c.equal);
    assert_true(c.has_diff_len);
    assert_int_equal(c.first_diff_msg_len, 8);
    assert_int_equal(c.expected_line, 9);
    assert_non_null(strstr(c.detail, "Msg_Len = 8"));
    path_of(e, sizeof e, "short.txt");
    assert_int_equal(kat_compare_files(g, e, &c, &err), 0);
    assert_false(c.equal);
    assert_int_equal(c.first_diff_msg_len, 8);
}

static void expect_manifest_error(const char *text, const char *where)
{
    char p[4096];
    kat_manifest m;
    hb_err err;
    write_text("kat.sha256", text);
    path_of(p, sizeof p, "kat.sha256");
    assert_int_equal(kat_manifest_load(p, &m, &err), -1);
    if (!strstr(err.msg, where))
        fail_msg("expected '%s' in: %s", where, err.msg);
    assert_null(strchr(err.msg, '\n'));
}

#define SHA_A "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

/* A malformed line and a repeated one are skipped, counted and the first
 * named by file:line, while the good lines are kept; the strict loader
 * refuses the same file. */
static void test_manifest_lines(void **state)
{
    char p[4096];
    kat_manifest m;
    hb_err err;
    (void)state;
    write_text("kat.sha256", SHA_A " strict SM3/KAT_2_12_SM3.txt\n"
               SHA_A " strikt SM3/KAT_2_23_SM3.txt\n"
               SHA_A " strict SM3/KAT_Loop_SM3.txt\n"
               SHA_A " strict SM3/KAT_2_12_SM3.txt\n");
    path_of(p, sizeof p, "kat.sha256");
    assert_int_equal(kat_manifest_load_lines(p, &m, &err), 0);
    assert_int_equal(m.n, 2);
    assert_int_equal(m.n_bad, 2);
    if (!strstr(m.bad, "kat.sha256:2: unknown comparison 'strikt'"))
        fail_msg("first bad line not named: %s", m.bad);
    const kat_manifest_entry *e = kat_manifest_find(&m, "SM3", "KAT_2_12_SM3.txt");
    assert_non_null(e);
    assert_int_equal(e->line, 1); /* the first of the repeated lines */
    assert_non_null(kat_manifest_find(&m, "SM3", "KAT_Loop_SM3.txt"));
    assert_null(kat_manifest_find(&m, "SM3", "KAT_2_23_SM3.txt"));
    kat_manifest_free(&m);
    assert_int_equal(kat_manifest_load(p, &m, &err), -1);
    assert_non_null(strstr(err.msg, "kat.sha256:2: "));
    /* a repeat alone: skipped and named */
    write_text("kat.sha256", SHA_A " strict SM3/KAT_2_12_SM3.txt\n"
               SHA_A " strict SM3/KAT_2_12_SM3.txt\n");
    assert_int_equal(kat_manifest_load_lines(p, &m, &err), 0);
    assert_int_equal(m.n, 1);
    assert_int_equal(m.n_bad, 1);
    assert_non_null(strstr(m.bad, "kat.sha256:2: SM3/KAT_2_12_SM3.txt is already listed on line 1"));
    kat_manifest_free(&m);
}

static void test_manifest(void **state)
{
    char p[4096];
    kat_manifest m;
    hb_err err;
    (void)state;
    write_text("kat.sha256", "# comment\n\n" SHA_A " strict SM3/KAT_2_12_SM3.txt\r\n"
               "9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08 strict "
               "SHA3_256/KAT_2_23_SHA3_256.txt\n");
    path_of(p, sizeof p, "kat.sha256");
    assert_int_equal(kat_manifest_load(p, &m, &err), 0);
    assert_int_equal(m.n, 2);
    const kat_manifest_entry *e = kat_manifest_find(&m, "SHA3_256", "KAT_2_23_SHA3_256.txt");
    assert_non_null(e);
    assert_string_equal(e->sha256, SHA_A);
    assert_int_equal(e->line, 4);
    assert_null(kat_manifest_find(&m, "SM3", "KAT_2_23_SM3.txt"));
    kat_manifest_free(&m);

    expect_manifest_error(SHA_A " strict SM3/KAT_2_12_SM3.txt\nnot a line\n", "kat.sha256:2:");
    expect_manifest_error("\n" SHA_A "00 strict SM3/x.txt\n", "kat.sha256:2:");
    expect_manifest_error(SHA_A " loose SM3/x.txt\n", "kat.sha256:1: unknown comparison");
    expect_manifest_error(SHA_A " strict SM3\n", "kat.sha256:1:");
    expect_manifest_error(SHA_A " strict S M3/x.txt\n", "kat.sha256:1:");
    expect_manifest_error(SHA_A " strict bad!/x.txt\n", "kat.sha256:1:");
    expect_manifest_error(SHA_A " strict A/x.txt\n" SHA_A " strict A/x.txt\n",
                          "kat.sha256:2: A/x.txt is already listed on line 1");
}

/* A large manifest: 200 000 lines load (in well under a second since the
 * duplicate check sorts instead of comparing every pair), a repeated line
 * at the end is named with the line it repeats, and more than the
 * 1 000 000-line cap is refused naming it. */
static void test_manifest_large(void **state)
{
    char p[4096], line[200];
    kat_manifest m;
    hb_err err;
    (void)state;
    path_of(p, sizeof p, "big.sha256");
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    for (int i = 0; i < 200000; i++)
        fprintf(f, SHA_A " strict I%d/KAT_2_12_I%d.txt\n", i % 997, i);
    fclose(f);
    assert_int_equal(kat_manifest_load(p, &m, &err), 0);
    assert_int_equal(m.n, 200000);
    const kat_manifest_entry *e = kat_manifest_find(&m, "I599", "KAT_2_12_I199999.txt");
    assert_non_null(e);
    assert_int_equal(e->line, 200000);
    kat_manifest_free(&m);
    f = fopen(p, "ab");
    fprintf(f, SHA_A " strict I5/KAT_2_12_I1002.txt\n" SHA_A " strict I3/KAT_2_12_I3.txt\n");
    fclose(f);
    assert_int_equal(kat_manifest_load(p, &m, &err), -1);
    snprintf(line, sizeof line, "big.sha256:200001: I5/KAT_2_12_I1002.txt is already "
             "listed on line 1003");
    if (!strstr(err.msg, line))
        fail_msg("expected '%s' in: %s", line, err.msg);
    assert_int_equal(m.n, 0);
    f = fopen(p, "wb");
    for (int i = 0; i < 1000001; i++)
        fputs("#\n", f);
    fclose(f);
    assert_int_equal(kat_manifest_load(p, &m, &err), -1);
    assert_non_null(strstr(err.msg, "big.sha256:1000001: more than 1000000 lines"));
}

static void test_label_of(void **state)
{
    char l[80];
    (void)state;
    assert_int_equal(kat_label_of("KAT_2_12_SHA3_256.txt", l, sizeof l), 0);
    assert_string_equal(l, "SHA3_256");
    assert_int_equal(kat_label_of("kat_loop_SM3.TXT", l, sizeof l), 0);
    assert_string_equal(l, "SM3");
    assert_int_equal(kat_label_of("KAT_2_12_.txt", l, sizeof l), -1);
    assert_int_equal(kat_label_of("README.txt", l, sizeof l), -1);
}

/* --write-manifest from a package: nested, differently cased vector
 * folders; a truncated file is refused with FILE:LINE. */
static void test_write_manifest_package(void **state)
{
    char pkg[4096], p[4200], oracle[HB_SHA256_HEX];
    int n = 0;
    hb_err err;
    kat_manifest m;
    (void)state;
    path_of(pkg, sizeof pkg, "pkg");
    write_text("pkg/Implementations/Reference_Implementation/X/TEST_VECTORS/deep/"
               "KAT_2_12_X.txt", expected_text);
    write_text("pkg/Test_Vector/KAT_2_23_Y.txt", expected_text);
    write_text("pkg/Test_Vector/notes.txt", "not a KAT file\n");
    write_text("pkg/Other/KAT_2_12_Z.txt", expected_text);
    assert_int_equal(kat_manifest_write_package(pkg, &n, &err), 0);
    assert_int_equal(n, 2);
    snprintf(p, sizeof p, "%s/kat.sha256", pkg);
    assert_int_equal(kat_manifest_load(p, &m, &err), 0);
    hb_sha256_buf_hex(canonical_text, strlen(canonical_text), oracle);
    assert_non_null(kat_manifest_find(&m, "X", "KAT_2_12_X.txt"));
    assert_string_equal(kat_manifest_find(&m, "Y", "KAT_2_23_Y.txt")->sha256, oracle);
    assert_null(kat_manifest_find(&m, "Z", "KAT_2_12_Z.txt"));
    kat_manifest_free(&m);
    write_text("pkg/Test_Vector/KAT_2_23_Y.txt", "Msg_Len = 0\nMsg = \nDst_Len = 8\n");
    assert_int_equal(kat_manifest_write_package(pkg, &n, &err), -1);
    assert_non_null(strstr(err.msg, "KAT_2_23_Y.txt:3:"));
}

/* Submitted vector files are read within limits and inside the package:
 * a sparse KAT text over 256 MiB and a sparse manifest over 64 MiB are
 * refused naming the limit, a vector file or folder that is a link leading
 * out of the package is not listed, nor is a manifest that is one read. */
static void test_vector_limits_and_links(void **state)
{
    char pkg[4096], p[4200], out[4096], sha[HB_SHA256_HEX];
    strlist files = {0};
    kat_manifest m;
    hb_err err;
    (void)state;
    path_of(pkg, sizeof pkg, "lim");
    path_of(out, sizeof out, "outside");
    write_text("outside/KAT_2_12_Out.txt", expected_text);
    write_text("outside/kat.sha256", SHA_A " strict Out/KAT_2_12_Out.txt\n");
    write_text("lim/Test_Vectors/KAT_2_12_In.txt", expected_text);
    write_text("lim/Test_Vectors/sub/KAT_2_23_In.txt", expected_text);
    snprintf(p, sizeof p, "%s/Test_Vectors/KAT_2_12_Out.txt", pkg);
    assert_int_equal(symlink("../../outside/KAT_2_12_Out.txt", p), 0);
    snprintf(p, sizeof p, "%s/Test_Vectors/away", pkg);
    assert_int_equal(symlink(out, p), 0);
    snprintf(p, sizeof p, "%s/Test_Vectors/KAT_2_23_Alias.txt", pkg);
    assert_int_equal(symlink("sub/KAT_2_23_In.txt", p), 0); /* inside: kept */
    assert_int_equal(kat_vectors_list(pkg, &files, &err), 0);
    assert_int_equal(files.n, 3);
    for (int i = 0; i < files.n; i++)
        assert_null(strstr(files.v[i], "Out"));
    strlist_free(&files);
    snprintf(p, sizeof p, "%s/kat.sha256", pkg);
    assert_int_equal(symlink("../outside/kat.sha256", p), 0);
    assert_int_equal(kat_manifest_load(p, &m, &err), -1);
    assert_non_null(strstr(err.msg, "not a file inside its package"));
    assert_int_equal(unlink(p), 0);

    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(truncate(p, 65LL << 20), 0);
    assert_int_equal(kat_manifest_load(p, &m, &err), -1);
    assert_non_null(strstr(err.msg, "64 MiB limit for a KAT manifest"));
    snprintf(p, sizeof p, "%s/Test_Vectors/KAT_2_12_In.txt", pkg);
    assert_int_equal(truncate(p, 300LL << 20), 0);
    assert_int_equal(kat_file_sha256(p, sha, &err), -1);
    assert_non_null(strstr(err.msg, "KAT_2_12_In.txt: 314572800 bytes, more than the "
                                    "256 MiB limit for a KAT text file"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_canon_line),
        cmocka_unit_test(test_writer_text_and_digest),
        cmocka_unit_test(test_canonical_variants),
        cmocka_unit_test(test_truncated_file),
        cmocka_unit_test(test_compare),
        cmocka_unit_test(test_manifest),
        cmocka_unit_test(test_manifest_large),
        cmocka_unit_test(test_label_of),
        cmocka_unit_test(test_manifest_lines),
        cmocka_unit_test(test_write_manifest_package),
        cmocka_unit_test(test_vector_limits_and_links),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
