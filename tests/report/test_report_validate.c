/* hashbench validate and export on the synthetic dataset: a clean dataset
 * passes; one trial's counter value changed by one, one pair's baseline
 * ticks in a record with the median of pair ratios, an absolute or ".."
 * path, a tampered KAT log, a RESULT line that contradicts kat.json, a
 * comparison of variants with a moved message length, a foreign library or
 * a turned verdict, and a changed page of the site each fail with a line
 * naming the file and what differs; an INCONSISTENT record without figures
 * passes and is named on the pages, while an unknown status, an
 * INCONSISTENT record with figures, and an OK record whose trial breaks the
 * outside timing rules (or is not marked for them) fail; the CSV export has
 * one RFC 4180 row per record; a file holding this host's boot_id, or the
 * run directory's absolute path, as it is or hex-encoded in either case,
 * fails naming the file; every plan figure the raw trials fix, edited,
 * fails naming the field. Every edit is made on a copy of the dataset
 * in a temporary folder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/digest.h"
#include "report/report.h"
#include "report/validate.h"
#include "report_test_util.h"

/* Runs report_validate; *out gets what it printed (caller frees). */
static int run_validate(const char *data, const char *site, char **out,
                        report_validate_stats *st)
{
    size_t len;
    hb_err err = {{0}};
    FILE *fp = open_memstream(out, &len);
    assert_non_null(fp);
    int rc = report_validate(data, site, fp, st, &err);
    fclose(fp);
    if (rc < 0)
        fail_msg("report_validate could not run: %s", err.msg);
    return rc;
}

/* Record files of the dataset, counted by walking its folders. */
static int count_records(const char *data)
{
    json_t *files = rt_list_files(data);
    size_t i;
    json_t *f;
    int n = 0;
    json_array_foreach(files, i, f)
        n += strstr(json_string_value(f), "/records/") != NULL;
    json_decref(files);
    return n;
}

static void test_clean_dataset_passes(void **state)
{
    (void)state;
    char *out = NULL;
    report_validate_stats st;
    int rc = run_validate(rt_dataset(), NULL, &out, &st);
    if (rc != 0)
        fail_msg("unexpected problems:\n%s", out);
    assert_int_equal(st.problems, 0);
    assert_int_equal(st.records, count_records(rt_dataset()));
    assert_int_equal(st.kat_logs, 11); /* 5 instances x 2 systems + 1 guide log */
    assert_string_equal(out, "");
    free(out);
}

/* Changes the ticks of trial IDX in the record REL of DATA: adds TICKS to
 * them when ADD, else sets them to TICKS. Returns 1 when that trial is
 * marked disturbed. */
static int set_trial_ticks(const char *data, const char *rel, size_t idx, json_int_t ticks,
                           int add)
{
    json_t *r = rt_load_json(data, rel);
    json_t *t = json_array_get(json_object_get(r, "trials"), idx);
    if (add)
        ticks += json_integer_value(json_object_get(t, "ticks"));
    json_object_set_new(t, "ticks", json_integer(ticks));
    int disturbed = json_is_true(json_object_get(t, "disturbed"));
    rt_save_json(data, rel, r);
    json_decref(r);
    return disturbed;
}

/* A comparison of variants whose first disagreeing message was moved to
 * another length, whose second variant names another library, and whose
 * verdict was turned: each is one problem line naming the field. */
static void test_variants_tampered(void **state)
{
    (void)state;
    char data[4096];
    char *out = NULL;
    report_validate_stats st;
    rt_copy_dataset(data);
    json_t *kat = rt_load_json(data, "x86_1/kat.json");
    json_t *v = json_object_get(json_array_get(json_object_get(kat, "instances"), 2),
                                "variants");
    json_t *m = json_array_get(json_object_get(v, "members"), 1);
    json_t *d = json_object_get(m, "first_disagreement");
    json_int_t bits = json_integer_value(json_object_get(d, "bits"));
    json_object_set_new(d, "bits", json_integer(bits + 1));
    json_object_set_new(m, "library_sha256", json_string("00"));
    json_object_set_new(v, "verdict", json_string("AGREE"));
    rt_save_json(data, "x86_1/kat.json", kat);
    json_decref(kat);
    assert_int_equal(run_validate(data, NULL, &out, &st), 1);
    assert_int_equal(st.problems, 3);
    const char *at = "x86_1/kat.json: field instances[2].variants.";
    char want[256];
    snprintf(want, sizeof want, "%smembers[1].first_disagreement.bits: recorded ", at);
    assert_non_null(strstr(out, want));
    assert_non_null(strstr(out, ", recomputed "));
    snprintf(want, sizeof want, "%smembers[1].library_sha256: not the library of "
             "Whirl/Whirl_256-Optimized", at);
    assert_non_null(strstr(out, want));
    snprintf(want, sizeof want, "%sverdict: recorded AGREE, recomputed DISAGREE", at);
    assert_non_null(strstr(out, want));
    free(out);
    rt_rmtree(data);
}

static void test_one_tick_changed(void **state)
{
    (void)state;
    char data[4096], *out = NULL;
    const char *rel = "x86_1/records/SM3/SM3__hash_1024.json";
    report_validate_stats st;
    rt_copy_dataset(data);
    set_trial_ticks(data, rel, 0, 1, 1);
    assert_int_equal(run_validate(data, NULL, &out, &st), 1);
    assert_non_null(strstr(out, "x86_1/records/SM3/SM3__hash_1024.json: field "
                                "mean_ticks_per_call: recorded "));
    assert_non_null(strstr(out, ", recomputed "));
    /* Nothing else in the dataset is blamed. */
    assert_int_equal(rt_count(out, "\n"), rt_count(out, rel));
    free(out);
    rt_rmtree(data);
}

/* Sets field KEY of the plan of record REL in DATA to V (stolen). */
static void set_plan(const char *data, const char *rel, const char *key, json_t *v)
{
    json_t *r = rt_load_json(data, rel);
    json_object_set_new(json_object_get(r, "plan"), key, v);
    rt_save_json(data, rel, r);
    json_decref(r);
}

/* Every plan figure the raw trials fix, edited in a published record, is
 * found without the key, each as one line naming the file and the field:
 * the trials kept, the calls per trial, the round seed of an interleaved
 * planner (and one given to a planner without rounds); in a trial
 * session's record, the calls per trial 0 -> 1, its warm-up calls and its
 * processes. */
static void test_plan_figures_recomputed(void **state)
{
    (void)state;
    char data[4096], *out = NULL;
    const char *ilv = "x86_1/records/SM3/SM3__hash_1024.json",
               *ilv2 = "x86_1/records/SM3/SM3__hash_32.json",
               *ilv3 = "x86_1/records/SM3/SM3__hash_65536.json",
               *ses = "x86_1/records/Whirl/Whirl_512__hash_1024.json";
    report_validate_stats st;
    rt_copy_dataset(data);
    set_plan(data, ilv, "trials", json_integer(17)); /* 16 kept of 17 */
    set_plan(data, ilv, "calls_per_trial", json_integer(298));
    set_plan(data, ilv2, "planner", json_string("adaptive"));
    set_plan(data, ilv3, "round_seed", json_null());
    json_t *r = rt_load_json(data, ses);
    json_object_set_new(r, "verification", json_pack("{s:s}", "protocol", "session"));
    rt_save_json(data, ses, r);
    json_decref(r);
    set_plan(data, ses, "calls_per_trial", json_integer(1));
    set_plan(data, ses, "warmup_calls", json_integer(5));
    set_plan(data, ses, "processes", json_integer(99));
    assert_int_equal(run_validate(data, NULL, &out, &st), 1);
    const char *want[] = {
        "x86_1/records/SM3/SM3__hash_1024.json: field plan.trials: recorded 17, "
        "recomputed 16 (the trials not disturbed)",
        "x86_1/records/SM3/SM3__hash_1024.json: field plan.calls_per_trial: recorded 298, "
        "recomputed 297 (the calls each trial took)",
        "x86_1/records/SM3/SM3__hash_32.json: field plan.round_seed: recorded, but the "
        "planner 'adaptive' has no rounds",
        "x86_1/records/SM3/SM3__hash_65536.json: field plan.round_seed: missing, but the "
        "planner 'interleaved' draws a 16-hex-digit seed for its rounds",
        "x86_1/records/Whirl/Whirl_512__hash_1024.json: field plan.calls_per_trial: "
        "recorded 1, recomputed 0 (a trial session's windows differ)",
        "x86_1/records/Whirl/Whirl_512__hash_1024.json: field plan.warmup_calls: "
        "recorded 5, recomputed 0",
        "x86_1/records/Whirl/Whirl_512__hash_1024.json: field plan.processes: "
        "recorded 99, recomputed "};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!strstr(out, want[i]))
            fail_msg("no '%s' in:\n%s", want[i], out);
    assert_int_equal(rt_count(out, ": field plan."), 7);
    free(out);
    rt_rmtree(data);
}

/* One pair's baseline ticks changed in a record with the median of pair
 * ratios: the pair at the median's lower middle moves by 0.1 %, so the
 * median and its interval, recomputed with the recorded seed, differ from the
 * record; the instance's own figures do not. */
static void test_median_pair_changed(void **state)
{
    (void)state;
    char data[4096], *out = NULL;
    const char *rel = "x86_1/records/Whirl/Whirl_256__hash_1024.json";
    report_validate_stats st;
    rt_copy_dataset(data);
    json_t *r = rt_load_json(data, rel);
    json_t *trials = json_object_get(r, "trials");
    size_t n = json_array_size(trials), below[64] = {0}, mid = n;
    assert_true(n >= 5 && n <= 64);
    double ratio[64];
    for (size_t i = 0; i < n; i++) {
        json_t *t = json_array_get(trials, i), *p = json_object_get(t, "pair");
        ratio[i] = json_number_value(json_object_get(t, "ticks")) /
                   json_number_value(json_object_get(t, "calls")) /
                   (json_number_value(json_object_get(p, "ticks")) /
                    json_number_value(json_object_get(p, "calls")));
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            below[i] += ratio[j] < ratio[i];
    for (size_t i = 0; i < n; i++)
        if (below[i] == (n - 1) / 2)
            mid = i;
    assert_true(mid < n);
    json_t *pair = json_object_get(json_array_get(trials, mid), "pair");
    json_int_t ticks = json_integer_value(json_object_get(pair, "ticks"));
    json_object_set_new(pair, "ticks", json_integer(ticks + ticks / 1000));
    rt_save_json(data, rel, r);
    json_decref(r);
    assert_int_equal(run_validate(data, NULL, &out, &st), 1);
    char want[256];
    const char *fields[] = {"ratio", "ci95_low", "ci95_high"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(want, sizeof want, "%s: field paired_ratio.%s: recorded ", rel, fields[i]);
        assert_non_null(strstr(out, want));
    }
    assert_null(strstr(out, "mean_ticks_per_call"));
    assert_int_equal(rt_count(out, "\n"), rt_count(out, rel));
    free(out);
    rt_rmtree(data);
}

static void test_disturbed_trial_ignored(void **state)
{
    (void)state;
    char data[4096], *out = NULL;
    const char *rel = "x86_1/records/SM3/SM3__hash_1024.json";
    report_validate_stats st;
    rt_copy_dataset(data);
    assert_true(set_trial_ticks(data, rel, 2, 1, 0));
    assert_int_equal(run_validate(data, NULL, &out, &st), 0);
    free(out);
    rt_rmtree(data);
}

/* Sets the status of record REL of DATA; with INCONSISTENT, drops its
 * figures as the measurement stage does unless KEEP_DERIVED. */
static void set_status(const char *data, const char *rel, const char *status,
                       int keep_derived)
{
    json_t *r = rt_load_json(data, rel);
    json_object_set_new(r, "status", json_string(status));
    json_object_set_new(r, "failure", json_string("INCONSISTENT: trial 0: the probe's "
                                                  "digest fold differs from the runner's"));
    if (!keep_derived)
        json_object_del(r, "derived");
    rt_save_json(data, rel, r);
    json_decref(r);
}

/* Gives trial IDX of REL outside figures: a window of WINDOW ns whose CPU
 * time is CPU ns, around the trial's own loop time. */
static void set_outside(const char *data, const char *rel, size_t idx, json_int_t window,
                        json_int_t cpu)
{
    json_t *r = rt_load_json(data, rel);
    json_t *t = json_array_get(json_object_get(r, "trials"), idx);
    json_object_set_new(t, "outside", json_pack("{s:I, s:I, s:I, s:I, s:I}",
                        "window_ns", window, "window_cpu_ns", cpu,
                        "allowance_ns", (json_int_t)200000,
                        "process_wall_ns", window * 4, "process_cpu_ns", cpu * 2));
    rt_save_json(data, rel, r);
    json_decref(r);
}

static void test_record_statuses(void **state)
{
    (void)state;
    char data[4096], site[4096], path[4096], *out = NULL;
    const char *rel = "x86_1/records/SM3/SM3__hash_1024.json";
    report_validate_stats st;
    hb_err err = {{0}};
    rt_copy_dataset(data);
    set_status(data, rel, "INCONSISTENT", 0);
    assert_int_equal(run_validate(data, NULL, &out, &st), 0);
    free(out);
    rt_tempdir(site);
    if (report_site(data, site, &err) != 0)
        fail_msg("report_site: %s", err.msg);
    rt_join(path, site, "x86_1/SM3.md");
    char *page = rt_read(path, NULL);
    assert_non_null(page);
    assert_non_null(strstr(page, "**SM3**: INCONSISTENT record at 1024 B: INCONSISTENT: "));
    free(page);
    rt_join(path, site, "x86_1/method.md");
    page = rt_read(path, NULL);
    assert_non_null(strstr(page, "## Timing checks"));
    assert_non_null(strstr(page, "- 1 record is INCONSISTENT"));
    free(page);
    rt_rmtree(site);
    rt_rmtree(data);
    rt_copy_dataset(data); /* the record with its figures again */
    set_status(data, rel, "INCONSISTENT", 1);
    assert_int_equal(run_validate(data, NULL, &out, &st), 1);
    assert_non_null(strstr(out, "field derived: an INCONSISTENT record has no figures"));
    free(out);
    set_status(data, rel, "WEIRD", 1);
    assert_int_equal(run_validate(data, NULL, &out, &st), 1);
    assert_non_null(strstr(out, "field status: 'WEIRD' is none of OK, FAILED, INCONSISTENT"));
    free(out);
    rt_rmtree(data);
    /* the outside rules, on an OK record: a loop longer than its window */
    rt_copy_dataset(site);
    json_t *r = rt_load_json(site, rel);
    json_int_t ns = json_integer_value(json_object_get(json_array_get(
        json_object_get(r, "trials"), 0), "ns"));
    json_decref(r);
    set_outside(site, rel, 0, ns / 2, ns / 4);
    assert_int_equal(run_validate(site, NULL, &out, &st), 1);
    assert_non_null(strstr(out, "trials[0]: the probe reports a"));
    assert_non_null(strstr(out, "(rule 1"));
    free(out);
    /* within its window, but short of its CPU time by more than the
     * allowance: it had to be marked disturbed (outside_cpu) */
    set_outside(site, rel, 0, ns * 2, ns + 300000);
    assert_int_equal(run_validate(site, NULL, &out, &st), 1);
    assert_non_null(strstr(out, "trials[0]: disturbed_reasons lacks outside_cpu"));
    free(out);
    set_outside(site, rel, 0, ns * 2, ns);
    assert_int_equal(run_validate(site, NULL, &out, &st), 0);
    free(out);
    rt_rmtree(site);
}

static void test_bad_paths(void **state)
{
    (void)state;
    char data[4096], *out = NULL;
    report_validate_stats st;
    rt_copy_dataset(data);
    json_t *k = rt_load_json(data, "arm_1/kat.json");
    json_object_set_new(json_array_get(json_object_get(k, "instances"), 1), "library",
                        json_string("/srv/campaign/lib/SM3/libSM3.so"));
    rt_save_json(data, "arm_1/kat.json", k);
    json_decref(k);
    json_t *r = rt_load_json(data, "arm_1/records/SM3/SM3__hash_32.json");
    json_object_set_new(r, "kat_log", json_string("arm_1/../../etc/passwd"));
    rt_save_json(data, "arm_1/records/SM3/SM3__hash_32.json", r);
    json_decref(r);
    assert_int_equal(run_validate(data, NULL, &out, &st), 1);
    assert_non_null(strstr(out, "arm_1/kat.json: field instances[1].library: path "
                                "'/srv/campaign/lib/SM3/libSM3.so' must be relative"));
    assert_non_null(strstr(out, "arm_1/records/SM3/SM3__hash_32.json: field kat_log: "
                                "path 'arm_1/../../etc/passwd'"));
    free(out);
    rt_rmtree(data);
}

static void test_tampered_kat_log(void **state)
{
    (void)state;
    char data[4096], path[4096], *out = NULL;
    report_validate_stats st;
    rt_copy_dataset(data);
    rt_join(path, data, "x86_1/kat/SM3/SM3.log");
    char *text = rt_read(path, NULL);
    char *edited = malloc(strlen(text) + 32);
    sprintf(edited, "%sextra line\n", text);
    rt_write(path, edited);
    assert_int_equal(run_validate(data, NULL, &out, &st), 1);
    assert_non_null(strstr(out, "x86_1/kat/SM3/SM3.log: field log_sha256: recorded "));
    free(out);
    free(text);
    free(edited);
    rt_rmtree(data);
}

static void test_result_line_contradicts(void **state)
{
    (void)state;
    char data[4096], path[4096], hex[HB_SHA256_HEX], *out = NULL;
    report_validate_stats st;
    hb_err err = {{0}};
    rt_copy_dataset(data);
    rt_join(path, data, "arm_1/kat/Whirl/Whirl_256.log");
    char *text = rt_read(path, NULL);
    char *at = strstr(text, "RESULT Whirl Whirl_256 PASS");
    assert_non_null(at);
    memcpy(at + strlen("RESULT Whirl Whirl_256 "), "FAIL", 4);
    rt_write(path, text);
    /* The log's digest is made consistent so only the RESULT line is wrong. */
    assert_int_equal(hb_sha256_file_hex(path, hex, &err), 0);
    json_t *k = rt_load_json(data, "arm_1/kat.json");
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(k, "instances"), i, e)
        if (strcmp(json_string_value(json_object_get(e, "instance")), "Whirl_256") == 0)
            json_object_set_new(e, "log_sha256", json_string(hex));
    rt_save_json(data, "arm_1/kat.json", k);
    json_decref(k);
    assert_int_equal(run_validate(data, NULL, &out, &st), 1);
    assert_non_null(strstr(out, "arm_1/kat/Whirl/Whirl_256.log: no line "
                                "'RESULT Whirl Whirl_256 PASS'"));
    free(out);
    free(text);
    rt_rmtree(data);
}

static void test_site_compared(void **state)
{
    (void)state;
    char site[4096], path[4096], *out = NULL;
    report_validate_stats st;
    hb_err err = {{0}};
    rt_tempdir(site);
    assert_int_equal(report_site(rt_dataset(), site, &err), 0);
    json_t *files = rt_list_files(site);
    assert_int_equal(run_validate(rt_dataset(), site, &out, &st), 0);
    assert_int_equal(st.pages, (int)json_array_size(files));
    free(out);
    out = NULL;
    rt_join(path, site, "x86_1/SM3.html");
    char *text = rt_read(path, NULL);
    char *num = strstr(text, "<td align=\"right\">");
    assert_non_null(num);
    num[strlen("<td align=\"right\">")] ^= 1; /* one digit of one figure */
    int line = 1;
    for (const char *c = text; c < num; c++)
        line += *c == '\n';
    char *end = strchr(num, '\n');
    *end = '\0';
    char want[256];
    snprintf(want, sizeof want, "/x86_1/SM3.html:%d: differs from the page regenerated "
                                "from the dataset: want '", line);
    char have[256];
    snprintf(have, sizeof have, "', have '%s'", num);
    *end = '\n';
    rt_write(path, text);
    rt_join(path, site, "x86_1/extra.html");
    rt_write(path, "added\n");
    assert_int_equal(run_validate(rt_dataset(), site, &out, &st), 1);
    assert_non_null(strstr(out, want));
    assert_non_null(strstr(out, have));
    assert_non_null(strstr(out, "/x86_1/extra.html: not a page of this dataset"));
    assert_int_equal(st.problems, 2);
    free(out);
    free(text);
    json_decref(files);
    rt_rmtree(site);
}

/* Splits one RFC 4180 line starting at *P into fields; returns the count and
 * moves *P past the CRLF. */
static int csv_fields(const char **p, char fields[][256], int max)
{
    int n = 0;
    const char *s = *p;
    for (;;) {
        size_t k = 0;
        if (*s == '"') {
            for (s++; *s && !(s[0] == '"' && s[1] != '"'); s++) {
                if (s[0] == '"')
                    s++;
                if (n < max && k < 255)
                    fields[n][k++] = *s;
            }
            s++;
        } else {
            for (; *s && *s != ',' && *s != '\r'; s++)
                if (n < max && k < 255)
                    fields[n][k++] = *s;
        }
        if (n < max)
            fields[n][k] = '\0';
        n++;
        if (*s == ',') {
            s++;
            continue;
        }
        assert_true(s[0] == '\r' && s[1] == '\n');
        *p = s + 2;
        return n;
    }
}

static void test_export_rows(void **state)
{
    (void)state;
    char data[4096], csv[4096], fields[40][256];
    hb_err err = {{0}};
    int rows = 0;
    rt_copy_dataset(data);
    const char *rel = "x86_1/records/Whirl/Whirl_512__hash_65536.json";
    json_t *r = rt_load_json(data, rel);
    json_object_set_new(r, "failure", json_string("crashed, \"twice\""));
    rt_save_json(data, rel, r);
    json_decref(r);
    rt_join(csv, data, "figures.csv");
    assert_int_equal(report_export_csv(data, csv, &rows, &err), 0);
    assert_int_equal(rows, count_records(data));
    char *text = rt_read(csv, NULL);
    const char *p = text;
    int cols = csv_fields(&p, fields, 40);
    assert_string_equal(fields[0], "system");
    int failure_col = -1;
    for (int i = 0; i < cols && i < 40; i++)
        if (strcmp(fields[i], "failure") == 0)
            failure_col = i;
    assert_true(failure_col > 0);
    int lines = 0, failed = 0;
    while (*p) {
        assert_int_equal(csv_fields(&p, fields, 40), cols);
        lines++;
        if (strcmp(fields[failure_col], "crashed, \"twice\"") == 0)
            failed++;
    }
    assert_int_equal(lines, rows);
    assert_int_equal(failed, 1);
    assert_non_null(strstr(text, ",\"crashed, \"\"twice\"\"\","));
    free(text);
    rt_rmtree(data);
}

/* TEXT's bytes as hex into OUT, uppercase when UPPER. */
static void hex_of(const char *text, int upper, char *out)
{
    for (size_t i = 0; text[i]; i++)
        sprintf(out + 2 * i, upper ? "%02X" : "%02x", (unsigned char)text[i]);
}

/* Puts VALUE as the "digest" of a copy's record, validates (with RUN_DIR
 * for the run directory's path), and expects one problem naming the
 * record and WHAT. */
static void expect_host_data(const char *value, const char *run_dir, const char *what)
{
    char data[4096], *out = NULL;
    const char *rel = "x86_1/records/SM3/SM3__hash_32.json";
    rt_copy_dataset(data);
    json_t *r = rt_load_json(data, rel);
    json_object_set_new(r, "digest", json_string(value));
    rt_save_json(data, rel, r);
    report_validate_stats st;
    size_t len;
    hb_err err = {{0}};
    FILE *fp = open_memstream(&out, &len);
    assert_non_null(fp);
    int rc = report_validate_ex(data, NULL, run_dir, fp, &st, &err);
    fclose(fp);
    if (rc != 1 || st.problems != 1 || !strstr(out, rel) || !strstr(out, what))
        fail_msg("'%s' in %s: want one problem naming the file and %s, got %d:\n%s",
                 value, rel, what, rc, out ? out : "");
    free(out);
    rt_rmtree(data);
}

static void test_host_data(void **state)
{
    (void)state;
    char id[64] = "", hex[256], bare[64];
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    assert_non_null(f);
    assert_non_null(fgets(id, sizeof id, f));
    fclose(f);
    id[strcspn(id, "\n")] = '\0';
    size_t k = 0;
    for (const char *p = id; *p; p++)
        if (*p != '-')
            bare[k++] = *p;
    bare[k] = '\0';
    expect_host_data(id, NULL, "this host's boot_id");
    hex_of(id, 0, hex);
    expect_host_data(hex, NULL, "boot_id, hex-encoded");
    hex_of(id, 1, hex);
    expect_host_data(hex, NULL, "boot_id, hex-encoded");
    hex_of(bare, 1, hex);
    expect_host_data(hex, NULL, "boot_id, hex-encoded");
    const char *run_dir = "/srv/campaigns/run-2026-12";
    char text[256];
    snprintf(text, sizeof text, "see %s/lib/SM3/libSM3.so", run_dir);
    expect_host_data(text, run_dir, "the run directory's absolute path");
    hex_of(run_dir, 0, hex);
    expect_host_data(hex, run_dir, "absolute path, hex-encoded");
    hex_of(run_dir, 1, hex);
    expect_host_data(hex, run_dir, "absolute path, hex-encoded");
    /* without the run directory, its path is not known */
    char data[4096], *out = NULL;
    rt_copy_dataset(data);
    json_t *r = rt_load_json(data, "x86_1/records/SM3/SM3__hash_32.json");
    json_object_set_new(r, "digest", json_string(hex));
    rt_save_json(data, "x86_1/records/SM3/SM3__hash_32.json", r);
    report_validate_stats st;
    assert_int_equal(run_validate(data, NULL, &out, &st), 0);
    free(out);
    rt_rmtree(data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean_dataset_passes),
        cmocka_unit_test(test_variants_tampered),
        cmocka_unit_test(test_one_tick_changed),
        cmocka_unit_test(test_plan_figures_recomputed),
        cmocka_unit_test(test_median_pair_changed),
        cmocka_unit_test(test_disturbed_trial_ignored),
        cmocka_unit_test(test_record_statuses),
        cmocka_unit_test(test_bad_paths),
        cmocka_unit_test(test_tampered_kat_log),
        cmocka_unit_test(test_result_line_contradicts),
        cmocka_unit_test(test_site_compared),
        cmocka_unit_test(test_export_rows),
        cmocka_unit_test(test_host_data),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
