/* Malformed inputs (SPEC §8): every file a user or a submission hands to
 * hashbench that is cut short, mistyped or hostile must be refused with one
 * line that names the file (and the line, where lines mean something) and
 * says what to do. Each test writes its input into a fresh folder under
 * /tmp and calls the library function that reads such a file: KAT texts
 * (kat_file_sha256, kat_compare_files), the kat.sha256 manifest, the
 * override file hashbench.ini, measurement records (report_dataset_load,
 * stats_derive_record), dataset paths with ".." (report_validate lists them,
 * report_site refuses a record's), and JSON whose bad token holds a newline
 * or a terminal escape (hb_json_load, report_dataset_load). check_message
 * asserts the shape of every such message; the JSON tests also assert that
 * jansson's own text does hold the control character, so the one-line
 * check is not vacuous. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "compile/override.h"
#include "common/strlist.h"
#include "common/err.h"
#include "common/fs.h"
#include "common/json.h"
#include "kat/katfile.h"
#include "kat/manifest.h"
#include "measure/stats.h"
#include "dataset/dataset.h"
#include "report/report.h"
#include "report/validate.h"

#define DST64 "66C7F0F462EEEDD9D1F2D46BDC10E4E24167C4875CF2F7A2297DA02B8F4BA8E0"
#define MSG8 "61"
/* Two well-formed records, 9 lines counting the blank one between them. */
#define KAT_TWO_RECORDS                                                      \
    "Msg_Len = 0\nMsg = \nDst_Len = 256\nDst = " DST64 "\n\n"                \
    "Msg_Len = 8\nMsg = " MSG8 "\nDst_Len = 256\nDst = " DST64 "\n"

/* ---- helpers ---- */

static int setup_dir(void **state)
{
    char *dir = strdup("/tmp/hb-malformed-XXXXXX");
    if (!dir || !mkdtemp(dir)) {
        free(dir);
        return -1;
    }
    *state = dir;
    return 0;
}

static int teardown_dir(void **state)
{
    hb_err err;
    hb_remove_tree(*state, &err);
    free(*state);
    return 0;
}

/* Writes TEXT to DIR/REL (folders created); returns the malloc'd path. */
static char *put(const char *dir, const char *rel, const char *text)
{
    char *path = malloc(4096);
    hb_err err = {{0}};
    assert_non_null(path);
    assert_true(snprintf(path, 4096, "%s/%s", dir, rel) < 4096);
    if (hb_write_atomic(path, text, strlen(text), &err) != 0)
        fail_msg("cannot write %s: %s", path, err.msg);
    return path;
}

static void assert_has(const char *msg, const char *needle)
{
    if (!strstr(msg, needle))
        fail_msg("message lacks \"%s\": %s", needle, msg);
}

/* The shape every message for a malformed input must have: not empty,
 * naming FILE (a base name or a dataset-relative path), followed by
 * ":LINE:" when LINE > 0, with no control character (so one line), and
 * holding the instruction FIX and the other fragments (NULL-ended). */
static void check_message(const hb_err *err, const char *file, long line,
                          const char *fix, ...)
{
    const char *msg = err->msg;
    char where[512];
    print_message("  message: %s\n", msg);
    assert_true(msg[0] != '\0');
    for (const char *p = msg; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            fail_msg("control character 0x%02x at offset %td: %s",
                     (unsigned)(unsigned char)*p, p - msg, msg);
    if (line > 0)
        snprintf(where, sizeof where, "%s:%ld: ", file, line);
    else
        snprintf(where, sizeof where, "%s", file);
    assert_has(msg, where);
    assert_has(msg, fix);
    va_list ap;
    va_start(ap, fix);
    for (const char *s = va_arg(ap, const char *); s; s = va_arg(ap, const char *))
        assert_has(msg, s);
    va_end(ap);
}

/* 1 when S holds a control character. */
static int has_control(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return 1;
    return 0;
}

/* ---- 1. truncated KAT texts ---- */

static void test_kat_cut_inside_record(void **state)
{
    const char *dir = *state;
    char *full = put(dir, "gen/KAT_2_12_Toy256.txt", KAT_TWO_RECORDS);
    /* The second record stops after its Msg line (line 7). */
    char *cut = put(dir, "sub/KAT_2_12_Toy256.txt",
                    "Msg_Len = 0\nMsg = \nDst_Len = 256\nDst = " DST64 "\n\n"
                    "Msg_Len = 8\nMsg = " MSG8 "\n");
    char sha[HB_SHA256_HEX];
    hb_err err = {{0}};
    assert_int_equal(kat_file_sha256(full, sha, &err), 0);

    assert_true(kat_file_sha256(cut, sha, &err) < 0);
    check_message(&err, "KAT_2_12_Toy256.txt", 7, "replace it with a complete copy",
                  "truncated", "Msg_Len = 8", NULL);

    kat_cmp cmp;
    hb_err_clear(&err);
    assert_true(kat_compare_files(full, cut, &cmp, &err) < 0);
    check_message(&err, "KAT_2_12_Toy256.txt", 7, "replace it with a complete copy",
                  "truncated", NULL);
    free(full);
    free(cut);
}

static void test_kat_cut_inside_dst(void **state)
{
    const char *dir = *state;
    char *full = put(dir, "gen/KAT_2_12_Toy256.txt", KAT_TWO_RECORDS);
    /* Line 9 keeps 40 of the 64 hex digits Dst_Len = 256 asks for. */
    char *cut = put(dir, "sub/KAT_2_12_Toy256.txt",
                    "Msg_Len = 0\nMsg = \nDst_Len = 256\nDst = " DST64 "\n\n"
                    "Msg_Len = 8\nMsg = " MSG8 "\nDst_Len = 256\n"
                    "Dst = 66C7F0F462EEEDD9D1F2D46BDC10E4E24167C487");
    char sha[HB_SHA256_HEX];
    hb_err err = {{0}};
    assert_true(kat_file_sha256(cut, sha, &err) < 0);
    check_message(&err, "KAT_2_12_Toy256.txt", 9, "repair or replace the file",
                  "Dst must have 64 hex digits for Dst_Len = 256", "truncated", NULL);

    kat_cmp cmp;
    hb_err_clear(&err);
    assert_true(kat_compare_files(full, cut, &cmp, &err) < 0);
    check_message(&err, "KAT_2_12_Toy256.txt", 9, "repair or replace the file",
                  "Dst must have 64 hex digits", NULL);
    free(full);
    free(cut);
}

/* ---- 2. kat.sha256 manifest with a bad digest ---- */

#define SHA64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static void test_manifest_short_digest(void **state)
{
    const char *dir = *state;
    /* Line 3 has 63 hex digits. */
    char *path = put(dir, "pkg/kat.sha256",
                     "# manifest of Toy\n"
                     SHA64 " strict Toy256/KAT_2_12_Toy256.txt\n"
                     "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde"
                     " strict Toy256/KAT_Loop_Toy256.txt\n");
    kat_manifest m;
    hb_err err = {{0}};
    assert_true(kat_manifest_load(path, &m, &err) < 0);
    check_message(&err, "kat.sha256", 3, "repair the line",
                  "is not a SHA-256 (64 hex digits)", NULL);
    assert_null(m.v);
    free(path);
}

static void test_manifest_nonhex_digest(void **state)
{
    const char *dir = *state;
    kat_manifest m;
    hb_err err = {{0}};
    /* Line 2 (after a blank line) has 64 characters, one of them 'g'. */
    char *path = put(dir, "a/kat.sha256",
                     "\n"
                     "0123456789abcdef0123456789abcdeg0123456789abcdef0123456789abcdef"
                     " strict Toy256/KAT_2_12_Toy256.txt\n");
    assert_true(kat_manifest_load(path, &m, &err) < 0);
    check_message(&err, "kat.sha256", 2, "repair the line",
                  "is not a SHA-256", "abcdeg", NULL);
    free(path);

    /* The odd character is a terminal escape: quoted, but made harmless. */
    hb_err_clear(&err);
    path = put(dir, "b/kat.sha256",
               SHA64 " strict Toy256/KAT_2_12_Toy256.txt\n"
               "0123456789abcdef0123456789abcdef\x1b[2J456789abcdef0123456789abcdef"
               " strict Toy256/KAT_Loop_Toy256.txt\n");
    assert_true(kat_manifest_load(path, &m, &err) < 0);
    check_message(&err, "kat.sha256", 2, "repair the line", "?[2J", NULL);
    free(path);
}

/* ---- 3. override file naming a missing source ---- */

static void test_override_missing_source(void **state)
{
    const char *dir = *state;
    char pkg[4096];
    snprintf(pkg, sizeof pkg, "%s/Toy", dir);
    free(put(dir, "Toy/impl/toy.c", "int toy;\n"));
    free(put(dir, "Toy/hashbench.ini",
             "[candidate]\n"
             "id = Toy\n"
             "\n"
             "[instance Toy256]\n"
             "dir = impl\n"
             "sources = toy.c, missing.c   # the second is not there\n"
             "digest_bits = 256\n"));
    override_file o;
    hb_err err = {{0}};
    if (override_load(pkg, &o, &err) != 0)
        fail_msg("override_load: %s", err.msg);
    const override_instance *in = override_find(&o, "Toy256");
    assert_non_null(in);
    char dir_rel[1024];
    strlist sources = {0}, includes = {0};
    assert_true(override_resolve(&o, in, pkg, in->dir, dir_rel, &sources, &includes,
                                 &err) < 0);
    check_message(&err, "hashbench.ini", 6, "fix the path", "'missing.c'",
                  "does not exist inside the package", NULL);
    strlist_free(&sources);
    strlist_free(&includes);
    override_free(&o);
}

/* ---- 4. measurement record without a required field ---- */

#define RECORD_HEAD                                                          \
    "{\n  \"schema\": 1,\n  \"kind\": \"hashbench-record\",\n"               \
    "  \"candidate\": \"Toy\",\n  \"instance\": \"Toy256\",\n"

#define TRIAL "{\"index\": 0, \"calls\": 100, \"ticks\": 5000, \"ns\": 2000, " \
              "\"disturbed\": false}"

static void test_record_missing_field(void **state)
{
    const char *dir = *state;
    char data[4096];
    snprintf(data, sizeof data, "%s/DATA", dir);
    /* size_bytes is missing: the dataset cannot be loaded. */
    free(put(dir, "DATA/x86_1/records/Toy/Toy256__hash_32.json",
             RECORD_HEAD "  \"trials\": [" TRIAL "],\n  \"status\": \"OK\"\n}\n"));
    report_dataset ds;
    hb_err err = {{0}};
    assert_true(report_dataset_load(data, &ds, &err) < 0);
    check_message(&err, "x86_1/records/Toy/Toy256__hash_32.json", 0,
                  "regenerate it with hashbench", "field 'size_bytes' missing", NULL);

    /* trials is missing: nothing to derive the figures from. */
    json_t *rec = NULL;
    json_t *derived = NULL;
    char *path = put(dir, "records/Toy256__hash_64.json",
                     RECORD_HEAD "  \"size_bytes\": 64,\n  \"status\": \"OK\"\n}\n");
    assert_int_equal(hb_json_load(path, &rec, &err), 0);
    hb_err_clear(&err);
    assert_true(stats_derive_record(rec, path, &derived, &err) < 0);
    assert_null(derived);
    check_message(&err, "Toy256__hash_64.json", 0, "regenerate it with hashbench",
                  "field 'trials' missing", NULL);
    json_decref(rec);
    free(path);

    /* A trial without "disturbed". */
    path = put(dir, "records/Toy256__hash_128.json",
               RECORD_HEAD "  \"size_bytes\": 128,\n  \"trials\": [" TRIAL ", "
               "{\"index\": 1, \"calls\": 100, \"ticks\": 5000, \"ns\": 2000}],\n"
               "  \"status\": \"OK\"\n}\n");
    assert_int_equal(hb_json_load(path, &rec, &err), 0);
    hb_err_clear(&err);
    assert_true(stats_derive_record(rec, path, &derived, &err) < 0);
    check_message(&err, "Toy256__hash_128.json", 0, "re-run the measurement",
                  "trials[1]: field 'disturbed' missing", NULL);
    json_decref(rec);
    free(path);
}

/* ---- 5. dataset paths with ".." ---- */

/* Runs report_validate on DATA; returns its status and the printed lines in
 * *out (malloc'd). */
static int validate_to_text(const char *data, char **out, hb_err *err)
{
    report_validate_stats st;
    FILE *fp = tmpfile();
    assert_non_null(fp);
    int rc = report_validate(data, NULL, fp, &st, err);
    long n = ftell(fp);
    assert_true(n >= 0);
    rewind(fp);
    *out = calloc((size_t)n + 1, 1);
    assert_non_null(*out);
    assert_int_equal(fread(*out, 1, (size_t)n, fp), (size_t)n);
    fclose(fp);
    return rc;
}

/* The printed line of TEXT holding NEEDLE, copied into LINE (an hb_err so
 * check_message applies); fails when there is none. */
static void line_with(const char *text, const char *needle, hb_err *line)
{
    const char *hit = strstr(text, needle);
    if (!hit)
        fail_msg("no line holds \"%s\" in:\n%s", needle, text);
    const char *start = hit;
    while (start > text && start[-1] != '\n')
        start--;
    const char *end = strchr(hit, '\n');
    size_t n = end ? (size_t)(end - start) : strlen(start);
    assert_true(n < sizeof line->msg);
    memcpy(line->msg, start, n);
    line->msg[n] = '\0';
}

static void test_dataset_dotdot_paths(void **state)
{
    const char *dir = *state;
    char data[4096], site[4096];
    snprintf(data, sizeof data, "%s/DATA", dir);
    snprintf(site, sizeof site, "%s/SITE", dir);
    free(put(dir, "DATA/x86_1/build.json",
             "{\"schema\": 1, \"instances\": [{\"candidate\": \"Toy\", "
             "\"instance\": \"Toy256\", \"status\": \"BUILT\", "
             "\"log\": \"x86_1/../../secret/build.log\"}]}\n"));
    /* The guide log's path also holds a newline (a JSON escape). */
    free(put(dir, "DATA/x86_1/kat.json",
             "{\"schema\": 1, \"instances\": [{\"candidate\": \"Toy\", "
             "\"instance\": \"Toy256\", \"status\": \"PASS\", "
             "\"log\": \"../../etc/passwd\", "
             "\"guide\": {\"status\": \"PASS\", \"log\": \"../x\\nRESULT Toy Toy256 PASS\"}}]}\n"));
    hb_err err = {{0}};
    char *out = NULL;

    /* validate lists each path as a problem (status 1) on its own line. */
    assert_int_equal(validate_to_text(data, &out, &err), 1);
    print_message("  validate printed:\n%s", out);
    hb_err line = {{0}};
    line_with(out, "instances[0].log: path 'x86_1/../", &line);
    check_message(&line, "x86_1/build.json", 0, "publish the campaign again",
                  "without '..'", NULL);
    line_with(out, "instances[0].log: path '../../etc/passwd'", &line);
    check_message(&line, "x86_1/kat.json", 0, "publish the campaign again", NULL);
    line_with(out, "instances[0].guide.log:", &line);
    check_message(&line, "x86_1/kat.json", 0, "publish the campaign again",
                  "'../x?RESULT", NULL);
    assert_int_equal(strncmp(line.msg, "x86_1/kat.json: ", 16), 0);
    free(out);

    /* A record's kat_log is linked from the pages: the site refuses it. */
    free(put(dir, "DATA/x86_1/records/Toy/Toy256__hash_32.json",
             RECORD_HEAD "  \"size_bytes\": 32,\n"
             "  \"kat_log\": \"x86_1/../../etc/passwd\",\n"
             "  \"trials\": [],\n  \"status\": \"FAILED\",\n"
             "  \"failure\": \"no trial\"\n}\n"));
    hb_err_clear(&err);
    assert_true(report_site(data, site, &err) < 0);
    check_message(&err, "x86_1/records/Toy/Toy256__hash_32.json", 0,
                  "publish the campaign again", "field kat_log",
                  "'x86_1/../../etc/passwd'", NULL);
    assert_false(hb_is_dir(site));
}

/* ---- 6. JSON whose bad token holds a control character ---- */

static void test_json_control_in_token(void **state)
{
    const char *dir = *state;
    /* An invalid \u escape cut by a raw newline: jansson quotes the newline. */
    char *path = put(dir, "run/build.json",
                     "{\n  \"schema\": 1,\n  \"tool\": \"\\u12\n\"\n}\n");
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    assert_null(j);
    assert_true(has_control(je.text)); /* the raw text would break the line */
    assert_int_equal(je.line, 4);         /* jansson counts the newline it met */

    hb_err err = {{0}};
    assert_true(hb_json_load(path, &j, &err) < 0);
    check_message(&err, "build.json", 4, "repair or remove the file",
                  "invalid JSON", NULL);
    free(path);

    /* A terminal escape as a value, in a published dataset. */
    path = put(dir, "DATA/x86_1/campaign.json",
               "{\"schema\": 1,\n \"system\": \x1b[2J\x1b[31mOK}\n");
    j = json_load_file(path, 0, &je);
    free(path);
    assert_null(j);
    assert_true(has_control(je.text));
    assert_int_equal(je.line, 2);

    char data[4096];
    snprintf(data, sizeof data, "%s/DATA", dir);
    report_dataset ds;
    hb_err_clear(&err);
    assert_true(report_dataset_load(data, &ds, &err) < 0);
    check_message(&err, "campaign.json", 2, "repair or remove the file",
                  "invalid JSON", NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_kat_cut_inside_record, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_kat_cut_inside_dst, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_manifest_short_digest, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_manifest_nonhex_digest, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_override_missing_source, setup_dir,
                                        teardown_dir),
        cmocka_unit_test_setup_teardown(test_record_missing_field, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_dataset_dotdot_paths, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_json_control_in_token, setup_dir,
                                        teardown_dir),
    };
    return cmocka_run_group_tests_name("robustness_malformed", tests, NULL, NULL);
}
