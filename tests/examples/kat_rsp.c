/* Unit tests of the CAVP .rsp reader (src/kat/rsp.c): small files written by
 * the test into a temporary folder cover the accepted styles (Len/Msg/MD with
 * CRLF, comments and headers; VariableOut with [Input Length]; bit lengths;
 * Len = 0) and each kind of malformed input, whose error must name the file
 * and the line. The real CAVP files of python3-cryptography-vectors are then
 * read whole: every known-answer file yields as many records as it has digest
 * lines, and every Monte-Carlo file is refused. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "kat/rsp.h"

static char rsp_dir[] = "/tmp/hb-rsp-test-XXXXXX";

static int rsp_setup(void **state)
{
    (void)state;
    return mkdtemp(rsp_dir) ? 0 : -1;
}

static int rsp_teardown(void **state)
{
    DIR *d = opendir(rsp_dir);
    struct dirent *e;
    char path[512];
    (void)state;
    while (d && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", rsp_dir, e->d_name);
        unlink(path);
    }
    if (d)
        closedir(d);
    return rmdir(rsp_dir);
}

/* Writes TEXT to a file named NAME in the temporary folder (PATH gets its
 * path) and opens it with the reader. */
static rsp_reader *rsp_open_text(const char *name, const char *text, char path[512])
{
    rsp_reader *r = NULL;
    hb_err err;
    FILE *f;

    snprintf(path, 512, "%s/%s", rsp_dir, name);
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
    if (rsp_open(path, &r, &err) != 0)
        fail_msg("%s", err.msg);
    return r;
}

/* Reads the next record and checks it against the expected fields. */
static void rsp_expect(rsp_reader *r, unsigned long long len_bits,
                       const char *msg, size_t msg_bytes, const char *md,
                       size_t md_bytes, long line)
{
    rsp_record rec;
    hb_err err;
    if (rsp_next(r, &rec, &err) != 1)
        fail_msg("expected the record of line %ld: %s", line, err.msg);
    assert_int_equal(rec.len_bits, len_bits);
    assert_int_equal(rec.msg_bytes, msg_bytes);
    assert_non_null(rec.msg);
    assert_memory_equal(rec.msg, msg, msg_bytes);
    assert_int_equal(rec.md_bytes, md_bytes);
    assert_memory_equal(rec.md, md, md_bytes);
    assert_int_equal(rec.line, line);
}

static void rsp_expect_end(rsp_reader *r)
{
    rsp_record rec;
    hb_err err;
    assert_int_equal(rsp_next(r, &rec, &err), 0);
    assert_int_equal(rsp_next(r, &rec, &err), 0);
    rsp_close(r);
}

static void test_len_msg_md(void **state)
{
    char path[512];
    rsp_reader *r = rsp_open_text("short.rsp",
              "#  CAVS 11.0\r\n# comment\r\n\r\n[L = 32]\r\n\r\n"
              "Len = 0\r\nMsg = 00\r\nMD = 0102\r\n\r\n"
              "Len = 8\r\nMsg = D3\r\nMD = aabb\r\n\r\n"
              "Len = 11\r\nMsg = ac20\r\nMD = 0c\r\n", path);
    (void)state;
    rsp_expect(r, 0, "", 0, "\x01\x02", 2, 6);
    rsp_expect(r, 8, "\xd3", 1, "\xaa\xbb", 2, 10);
    rsp_expect(r, 11, "\xac\x20", 2, "\x0c", 1, 14);
    rsp_expect_end(r);
}

static void test_variable_out(void **state)
{
    char path[512];
    rsp_reader *r = rsp_open_text("varout.rsp",
              "[Tested for Output of byte-oriented messages]\n"
              "[Input Length = 16]\n[Minimum Output Length (bits) = 16]\n\n"
              "COUNT = 0\nOutputlen = 16\nMsg = c61a\nOutput = 23ce\n\n"
              "COUNT = 1\nOutputlen = 24\nMsg = 74d7\nOutput = 77cd01\n", path);
    (void)state;
    rsp_expect(r, 16, "\xc6\x1a", 2, "\x23\xce", 2, 5);
    rsp_expect(r, 16, "\x74\xd7", 2, "\x77\xcd\x01", 3, 10);
    rsp_expect_end(r);
}

static void test_hex_only(void **state)
{
    char path[512];
    rsp_reader *r = rsp_open_text("hexonly.txt", "Msg = 6162\nMD = ff\nMsg =\nMD = 00\n",
                                  path);
    (void)state;
    rsp_expect(r, 16, "ab", 2, "\xff", 1, 1);
    rsp_expect(r, 0, "", 0, "\x00", 1, 3);
    rsp_expect_end(r);
}

/* Reads FILE_TEXT to its first error; the message must start with
 * "PATH:LINE: " and contain WHAT. */
static void rsp_expect_error(const char *text, long line, const char *what)
{
    char path[512], prefix[600];
    rsp_record rec;
    hb_err err;
    rsp_reader *r = rsp_open_text("bad.rsp", text, path);
    int rc;

    while ((rc = rsp_next(r, &rec, &err)) == 1)
        ;
    rsp_close(r);
    if (rc != -1)
        fail_msg("no error for:\n%s", text);
    snprintf(prefix, sizeof prefix, "%s:%ld: ", path, line);
    if (strncmp(err.msg, prefix, strlen(prefix)) != 0 || strstr(err.msg, what) == NULL)
        fail_msg("error '%s' should start with '%s' and say '%s'", err.msg, prefix, what);
}

static void test_malformed(void **state)
{
    (void)state;
    rsp_expect_error("Len = 8\nMsg = zz\nMD = 00\n", 2, "not a hex digit");
    rsp_expect_error("Len = 8\nMsg = 0\nMD = 00\n", 2, "odd number");
    rsp_expect_error("Len = 8\nMsg = 00\nMD = 001\n", 3, "odd number");
    rsp_expect_error("Len = 8\r\nMsg = 00\r\nMD = 00\r\n\r\nLen = 24\r\nMsg = 0102\r\nMD = 00\r\n",
                     6, "needs 3");
    rsp_expect_error("Len = 9\nMsg = 01\nMD = 00\n", 2, "needs 2");
    rsp_expect_error("Len = 8\nMsg = 0102\nMD = 00\n", 2, "needs 1");
    rsp_expect_error("# c\nLen = 8\nMsg = 01\n\nLen = 8\n", 2, "no MD");
    rsp_expect_error("Len = 8\nMsg = 01\n", 1, "no MD");
    rsp_expect_error("Len = 8\nMsg = 01\n[L = 32]\n", 1, "no MD");
    rsp_expect_error("Len = 8\nMsg = 01\nLen = 16\n", 3, "second Len");
    rsp_expect_error("Len = 8\nMD = 00\n", 2, "no Msg");
    rsp_expect_error("COUNT = 0\nOutput = 00\n", 2, "no Msg");
    rsp_expect_error("Len = eight\n", 1, "not a decimal");
    rsp_expect_error("Len = 8\nMsg = 01\nMD =\n", 3, "empty");
    rsp_expect_error("Outputlen = 16\nMsg = 01\nOutput = 00\n", 3, "Outputlen = 16");
    rsp_expect_error("[Outputlen = 24]\nLen = 8\nMsg = 01\nOutput = 0000\n", 4,
                     "Outputlen = 24");
    rsp_expect_error("[L = 32\n", 1, "closing");
    rsp_expect_error("Key = 1\n", 1, "unknown field 'Key'");
    rsp_expect_error("just text\n", 1, "Name = value");
    rsp_expect_error("[L = 32]\n\nSeed = 00\n\nCOUNT = 0\nMD = 00\n", 3, "Monte-Carlo");
    rsp_expect_error("Msg = 4849\n\nCOUNT = 0\nOutputlen = 16\nOutput = 0000\n", 1,
                     "Monte-Carlo");
}

static void test_open_missing(void **state)
{
    rsp_reader *r = (rsp_reader *)1;
    hb_err err;
    (void)state;
    assert_int_equal(rsp_open("/nonexistent/x.rsp", &r, &err), -1);
    assert_null(r);
    assert_non_null(strstr(err.msg, "/nonexistent/x.rsp"));
    rsp_close(NULL);
}

/* Digest lines in a file, counted without the reader. */
static int rsp_count_digest_lines(const char *path)
{
    char line[65536];
    int n = 0;
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "MD =", 4) == 0 || strncmp(line, "Output =", 8) == 0)
            n++;
    fclose(f);
    return n;
}

static void rsp_read_real(const char *path, int *files, int *records, int *monte)
{
    rsp_reader *r;
    rsp_record rec;
    hb_err err;
    int rc, n = 0;

    assert_int_equal(rsp_open(path, &r, &err), 0);
    while ((rc = rsp_next(r, &rec, &err)) == 1)
        n++;
    rsp_close(r);
    if (strstr(path, "Monte") != NULL) {
        if (rc != -1 || strstr(err.msg, "Monte-Carlo") == NULL)
            fail_msg("%s: a Monte-Carlo file was not refused (%s)", path, err.msg);
        (*monte)++;
        return;
    }
    if (rc != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(n, rsp_count_digest_lines(path));
    (*files)++;
    *records += n;
}

static void test_real_cavp_files(void **state)
{
    static const char *const dirs[] = { "SHA2", "SHA3", "SHAKE", "SM3" };
    int files = 0, records = 0, monte = 0;
    size_t i;
    (void)state;

    for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        char dir[512], path[1024];
        DIR *d;
        struct dirent *e;
        snprintf(dir, sizeof dir, "%s/%s", HB_EX_VECTORS, dirs[i]);
        d = opendir(dir);
        if (d == NULL)
            fail_msg("%s is missing: install the NIST vectors with "
                     "`apt-get install python3-cryptography-vectors`", dir);
        while ((e = readdir(d)) != NULL) {
            size_t n = strlen(e->d_name);
            if (!(n > 4 && strcmp(e->d_name + n - 4, ".rsp") == 0) &&
                strcmp(e->d_name, "oscca.txt") != 0)
                continue;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            rsp_read_real(path, &files, &records, &monte);
        }
        closedir(d);
    }
    assert_true(files >= 20);
    assert_true(monte >= 10);
    printf("rsp: %d CAVP files read (%d records), %d Monte-Carlo files refused\n",
           files, records, monte);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_len_msg_md),
        cmocka_unit_test(test_variable_out),
        cmocka_unit_test(test_hex_only),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_open_missing),
        cmocka_unit_test(test_real_cavp_files),
    };
    return cmocka_run_group_tests_name("kat_rsp", tests, rsp_setup, rsp_teardown);
}
