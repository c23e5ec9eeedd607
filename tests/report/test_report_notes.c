/* The evaluator's notes (src/report/notes.c, docs/FORMATS.md "notes.txt"):
 * every mistake in the file named by file and line with what to do; a
 * caveat shown on the summary and under the candidate page's opening, a KAT
 * explanation as the instance's footnote in section 3; validate listing a
 * notes file that does not parse, names an instance the system does not
 * have, or explains KATs that pass; report refusing such a file (its own or
 * --notes); a signed dataset whose notes were changed afterwards caught by
 * validate --key; publish copying the run directory's notes, or refusing
 * them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/pem.h>

#include "dataset/publish.h"
#include "dataset/notes.h"
#include "report/report.h"
#include "dataset/sign.h"
#include "report/validate.h"
#include "report_test_util.h"

#define CAVEAT "table-based S-box: not constant-time"
#define KAT_WHY "the submitted KAT_2_12 file was made before the padding fix; the " \
    "guide build reproduces the submitter's newer vectors, so the instance is timed " \
    "only with --time-failed"

static void parse_fails(const char *text, const char *want)
{
    json_t *n = NULL;
    hb_err err = {{0}};
    if (notes_parse(text, strlen(text), "run/notes.txt", &n, &err) == 0)
        fail_msg("parsed, expected '%s':\n%s", want, text);
    assert_null(n);
    if (!strstr(err.msg, want))
        fail_msg("error '%s' lacks '%s'", err.msg, want);
}

static void test_parse(void **state)
{
    (void)state;
    json_t *n = NULL;
    hb_err err = {{0}};
    const char *good = "\xef\xbb\xbf# notes\r\n\r\n[Whirl/Whirl_512]\r\n"
                       "caveat = " CAVEAT "   \r\n  kat=a # not a comment\n[SM3/SM3]\nkat = x\n";
    assert_int_equal(notes_parse(good, strlen(good), "n.txt", &n, &err), 0);
    assert_string_equal(notes_caveat(n, "Whirl", "Whirl_512"), CAVEAT);
    assert_string_equal(notes_kat(n, "Whirl", "Whirl_512"), "a # not a comment");
    assert_null(notes_caveat(n, "SM3", "SM3"));
    assert_int_equal(json_integer_value(json_object_get(notes_of(n, "SM3", "SM3"), "line")),
                     6);
    assert_null(notes_of(n, "Whirl", "Whirl_256"));
    json_decref(n);
    parse_fails("caveat = x\n", "run/notes.txt:1: 'caveat' before any section");
    parse_fails("[A/B]\ncavaet = x\n", "run/notes.txt:2: unknown key 'cavaet'; the keys "
                "are caveat and kat");
    parse_fails("[A/B]\ncaveat = x\ncaveat = y\n", "run/notes.txt:3: 'caveat' given twice");
    parse_fails("[A/B]\ncaveat = x\n\n[A/B]\nkat = y\n",
                "run/notes.txt:4: [A/B] given again (first on line 1)");
    parse_fails("[A B/C]\ncaveat = x\n", "run/notes.txt:1: section [A B/C] must be "
                "[CANDIDATE/INSTANCE]");
    parse_fails("[AB]\ncaveat = x\n", "run/notes.txt:1: section [AB] must be");
    parse_fails("[A/B\ncaveat = x\n", "run/notes.txt:1: a section line is");
    parse_fails("[A/B]\ncaveat =\n", "run/notes.txt:2: 'caveat' has no text");
    parse_fails("[A/B]\nthis is prose\n", "run/notes.txt:2: 'this is prose' is neither");
    parse_fails("[A/B]\n# nothing\n[C/D]\ncaveat = x\n",
                "run/notes.txt:1: section without caveat or kat");
    parse_fails("[A/B]\ncaveat = bad \xff" " byte\n", "run/notes.txt:2: 'caveat' holds a "
                "control character or invalid UTF-8");
    char long_text[NOTES_CAVEAT_MAX + 40];
    snprintf(long_text, sizeof long_text, "[A/B]\ncaveat = %0*d\n", NOTES_CAVEAT_MAX + 1, 0);
    parse_fails(long_text, "run/notes.txt:2: 'caveat' is longer than 200 bytes");
}

static void write_notes(const char *data, const char *text)
{
    char path[4096];
    rt_join(path, data, "x86_1/" NOTES_FILE);
    rt_write(path, text);
}

static void test_notes_shown(void **state)
{
    (void)state;
    char data[4096], site[4096];
    hb_err err = {{0}};
    rt_copy_dataset(data);
    write_notes(data, "[Whirl/Whirl_512]\ncaveat = " CAVEAT "\nkat = " KAT_WHY "\n");
    rt_tempdir(site);
    if (report_site(data, site, &err) != 0)
        fail_msg("report_site: %s", err.msg);
    char *raw = rt_site_file(site, "x86_1/summary.md"), *sum = rt_plain(raw);
    free(raw);
    raw = rt_site_file(site, "x86_1/Whirl.md");
    char *page = rt_plain(raw);
    free(raw);
    /* the caveat on the summary, with the candidate's page linked */
    assert_non_null(strstr(sum, "\n## Evaluator's notes\n"));
    assert_non_null(strstr(sum, "\n- [Whirl](Whirl.md) / **Whirl_512**: " CAVEAT "\n"));
    /* and under the candidate page's opening, before section 1 */
    const char *cav = strstr(page, "\n- **Whirl_512**: " CAVEAT "\n");
    assert_non_null(cav);
    assert_true(cav < strstr(page, "\n## 1. Basic information\n"));
    /* the KAT explanation is the instance's footnote, before what hashbench
     * recorded, and the row carries its mark */
    assert_non_null(strstr(page, "| Whirl_512 | harness-default | MISMATCH [1] "));
    assert_non_null(strstr(page, "\n[1] **Whirl_512**: " KAT_WHY " *(evaluator's note)* — "
                                 "hashbench recorded: MISMATCH (2_12, 2_23, Loop; harness-default flags; timed "
                                 "with --time-failed): "));
    /* the other system has no notes */
    raw = rt_site_file(site, "arm_1/summary.md");
    assert_null(strstr(raw, "Evaluator's notes"));
    free(raw);
    char *html = rt_site_file(site, "x86_1/summary.html");
    assert_non_null(strstr(html, CAVEAT));
    free(html);
    /* the notes are part of the dataset: validate --site agrees */
    report_validate_stats st;
    FILE *out = tmpfile();
    assert_int_equal(report_validate(data, site, out, &st, &err), 0);
    fclose(out);
    free(sum);
    free(page);
    rt_rmtree(site);
    rt_rmtree(data);
}

/* report_validate's output on DATA (its problems as one string). */
static char *validate_output(const char *data, int want_rc)
{
    hb_err err = {{0}};
    report_validate_stats st;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    int rc = report_validate(data, NULL, out, &st, &err);
    fclose(out);
    if (rc != want_rc)
        fail_msg("validate returned %d (%s), expected %d:\n%s", rc, err.msg, want_rc,
                 text ? text : "");
    return text;
}

static void test_validate_and_report_refuse(void **state)
{
    (void)state;
    char data[4096], site[4096], path[4096], want[4200];
    hb_err err = {{0}};
    rt_copy_dataset(data);
    rt_join(path, data, "x86_1/" NOTES_FILE);
    /* an instance x86_1 does not have, and a KAT note on one that passes */
    write_notes(data, "[Whirl/Whirl_512]\ncaveat = ok\n\n[Whirl/Whirl_9]\ncaveat = gone\n\n"
                      "[SM3/SM3]\nkat = stale\n");
    char *out = validate_output(data, 1);
    snprintf(want, sizeof want, "%s:4: [Whirl/Whirl_9]: x86_1 has no such instance", path);
    assert_non_null(strstr(out, want));
    snprintf(want, sizeof want, "%s:7: [SM3/SM3]: kat explains KATs that do not pass, but "
             "the instance's status is PASS", path);
    assert_non_null(strstr(out, want));
    assert_null(strstr(out, "Whirl_512]"));
    free(out);
    rt_tempdir(site);
    assert_int_not_equal(report_site(data, site, &err), 0);
    snprintf(want, sizeof want, "%s:4: [Whirl/Whirl_9]: x86_1 has no such instance", path);
    if (!strstr(err.msg, want))
        fail_msg("report: '%s'", err.msg);
    /* a file that does not parse: validate lists it, report refuses it */
    write_notes(data, "[Whirl/Whirl_512]\nnote = x\n");
    out = validate_output(data, 1);
    snprintf(want, sizeof want, "%s:2: unknown key 'note'", path);
    assert_non_null(strstr(out, want));
    free(out);
    memset(&err, 0, sizeof err);
    assert_int_not_equal(report_site(data, site, &err), 0);
    assert_non_null(strstr(err.msg, want));
    /* --notes FILE in its place: its sections must name some system's
     * instance; a good one is used for every system */
    char other[4096];
    rt_join(other, data, "draft-notes.txt");
    rt_write(other, "[Whirl/Whirl_256]\ncaveat = draft caveat\n[Whirl/Nope]\ncaveat = x\n");
    memset(&err, 0, sizeof err);
    assert_int_not_equal(report_site_opts(data, site, &(report_options){NULL, NULL, 0, other}, &err), 0);
    snprintf(want, sizeof want, "%s:3: [Whirl/Nope]: no system of the dataset has such "
             "an instance", other);
    if (!strstr(err.msg, want))
        fail_msg("report --notes: '%s'", err.msg);
    rt_write(other, "[Whirl/Whirl_256]\ncaveat = draft caveat\n");
    memset(&err, 0, sizeof err);
    if (report_site_opts(data, site, &(report_options){NULL, NULL, 0, other}, &err) != 0)
        fail_msg("report --notes: %s", err.msg);
    char *sum = rt_site_file(site, "arm_1/summary.md");
    assert_non_null(strstr(sum, "draft caveat"));
    free(sum);
    rt_rmtree(site);
    rt_rmtree(data);
}

/* An Ed25519 key pair written as PEM files into DIR. */
static void make_keys(const char *dir, char *priv, char *pub)
{
    rt_join(priv, dir, "key.pem");
    rt_join(pub, dir, "key.pub.pem");
    EVP_PKEY *k = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
    assert_non_null(k);
    FILE *f = fopen(priv, "w");
    assert_non_null(f);
    assert_int_equal(PEM_write_PrivateKey(f, k, NULL, NULL, 0, NULL, NULL), 1);
    fclose(f);
    f = fopen(pub, "w");
    assert_non_null(f);
    assert_int_equal(PEM_write_PUBKEY(f, k), 1);
    fclose(f);
    EVP_PKEY_free(k);
}

static void test_signed_notes_changed(void **state)
{
    (void)state;
    char data[4096], keys[4096], priv[4096], pub[4096];
    hb_err err = {{0}};
    rt_copy_dataset(data);
    rt_tempdir(keys);
    make_keys(keys, priv, pub);
    write_notes(data, "[Whirl/Whirl_512]\ncaveat = " CAVEAT "\n");
    assert_true(sign_dataset(data, priv, NULL, &err) > 0);
    char *text = NULL;
    size_t len = 0;
    int problems = -1;
    FILE *out = open_memstream(&text, &len);
    assert_int_equal(sign_verify(data, pub, out, &problems, NULL, &err), 0);
    fclose(out);
    assert_int_equal(problems, 0);
    free(text);
    /* a softer caveat after the signing */
    write_notes(data, "[Whirl/Whirl_512]\ncaveat = fine\n");
    text = NULL;
    out = open_memstream(&text, &len);
    assert_int_equal(sign_verify(data, pub, out, &problems, NULL, &err), 0);
    fclose(out);
    assert_int_equal(problems, 1);
    if (!strstr(text, "x86_1/" NOTES_FILE))
        fail_msg("the changed notes are not named: %s", text);
    free(text);
    rt_rmtree(keys);
    rt_rmtree(data);
}

/* publish copies the run directory's notes.txt as it is, and publishes
 * nothing when it does not parse. A published system folder has the run
 * directory's layout, so x86_1 of the synthetic dataset serves as one. */
static void test_published(void **state)
{
    (void)state;
    char data[4096], out[4096], run[4096], path[4096];
    hb_err err = {{0}};
    const char *text = "# x86 notes\n[Whirl/Whirl_512]\ncaveat = " CAVEAT "\n";
    rt_copy_dataset(data);
    rt_tempdir(out);
    rt_join(run, data, "x86_1");
    write_notes(data, text);
    if (publish_run(run, "x86_n", out, NULL, &err) != 0)
        fail_msg("publish: %s", err.msg);
    rt_join(path, out, "x86_n/" NOTES_FILE);
    char *copy = rt_read(path, NULL);
    assert_non_null(copy);
    assert_string_equal(copy, text);
    free(copy);
    write_notes(data, "[Whirl/Whirl_512]\ncaveat = " CAVEAT "\ncaveat = again\n");
    memset(&err, 0, sizeof err);
    assert_int_not_equal(publish_run(run, "x86_m", out, NULL, &err), 0);
    if (!strstr(err.msg, ":3: 'caveat' given twice") ||
        !strstr(err.msg, "nothing was published"))
        fail_msg("publish: '%s'", err.msg);
    rt_join(path, out, "x86_m");
    assert_int_not_equal(access(path, F_OK), 0);
    rt_rmtree(out);
    rt_rmtree(data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_notes_shown),
        cmocka_unit_test(test_validate_and_report_refuse),
        cmocka_unit_test(test_signed_notes_changed),
        cmocka_unit_test(test_published),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
