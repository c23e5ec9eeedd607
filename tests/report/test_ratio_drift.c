/* The host's ratio drift recorded and published, on a copy of the
 * synthetic dataset (tests/report/data) whose x86_1 groups are given a
 * window of each built-in baseline (trial "pairs"), OpenSSL's SHA-256
 * taking 0.5 times SM3's time with a step of STEP from one block of groups
 * to the next (three times that at 64 KiB, whose own spread is then above
 * the pooled one). The "ratio_drift" object the campaign writes when
 * its measure stage ends (ratiodrift_of_dir) carries every size, each with
 * its spread and a margin of half the larger of its own spread and the
 * pooled one; every paired interval the candidate page publishes is the
 * record's (left as measured) widened by that margin, lo / (1 + m), hi *
 * (1 + m); both exports carry the widened interval and pass their check;
 * validate agrees with the recorded drift and names a margin made smaller
 * in campaign.json. A record's harness cost (verification.harness_ns_per_call)
 * shows beside its figure with its share of the mean time; a record
 * without one says "not measured". */
#include <setjmp.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "report/export_check.h"
#include "report/numfmt.h"
#include "report/ratiodrift.h"
#include "report/report.h"
#include "report/validate.h"
#include "report_test_util.h"

#define STEP 0.10

/* Gives every paired trial of SYS's records a window of each built-in
 * baseline: SM3 its pair's, SHA-256 0.5 times that, times 1 + k STEP for
 * the k-th block of 3 trials (k = 0 to 3; 3 STEP at 64 KiB). */
static void add_baseline_pairs(const char *sys)
{
    json_t *files = rt_list_files(sys);
    size_t i;
    json_t *f;
    json_array_foreach(files, i, f) {
        const char *rel = json_string_value(f);
        if (strncmp(rel, "records/", 8) != 0)
            continue;
        json_t *rec = rt_load_json(sys, rel), *t;
        size_t n;
        json_array_foreach(json_object_get(rec, "trials"), n, t) {
            const json_t *p = json_object_get(t, "pair");
            if (!p)
                continue;
            double calls = json_number_value(json_object_get(p, "calls"));
            double ns = json_number_value(json_object_get(p, "ns"));
            double step = json_integer_value(json_object_get(rec, "size_bytes")) == 65536
                              ? 3 * STEP : STEP;
            double sha = ns * 0.5 * (1.0 + step * (double)((n / 3) % 4));
            json_object_set_new(t, "pairs",
                                json_pack("[{s:s, s:f, s:f}, {s:s, s:f, s:f}]", "instance",
                                          "baseline/OpenSSL_SM3", "calls", calls, "ns", ns,
                                          "instance", "baseline/OpenSSL_SHA256", "calls",
                                          calls, "ns", sha));
        }
        rt_save_json(sys, rel, rec);
        json_decref(rec);
    }
    json_decref(files);
}

/* The ± half-width the candidate page gives a paired ratio of (RATIO, LO,
 * HI), as pages_ratio_cell writes it. */
static void half_text(double ratio, double lo, double hi, char *out, size_t sz)
{
    char num[NUMFMT_MAX];
    snprintf(out, sz, "× (±%s %%)", numfmt_sig3((hi - lo) / 2.0 / ratio * 100.0, num,
                                                sizeof num));
}

static int run_validate(const char *data, char **out)
{
    size_t len;
    hb_err err = {{0}};
    report_validate_stats st;
    FILE *fp = open_memstream(out, &len);
    assert_non_null(fp);
    int rc = report_validate(data, NULL, fp, &st, &err);
    fclose(fp);
    if (rc < 0)
        fail_msg("report_validate could not run: %s", err.msg);
    return rc;
}

static void test_recorded_and_published(void **state)
{
    (void)state;
    char data[4096], sys[4096], site[4096], csv[4096], js[4096];
    rt_copy_dataset(data);
    rt_join(sys, data, "x86_1");
    add_baseline_pairs(sys);

    /* what the campaign records when its measure stage ends */
    json_t *rd = ratiodrift_of_dir(sys);
    assert_non_null(rd);
    json_t *camp = rt_load_json(sys, "campaign.json");
    json_object_set_new(camp, RATIODRIFT_KEY, rd);
    rt_save_json(sys, "campaign.json", camp);
    double pooled = json_number_value(json_object_get(rd, "spread_percent"));
    print_message("pooled ratio drift %.3f %%\n", pooled);
    assert_true(pooled > 5.0);
    const long long sizes[] = {32, 1024, 65536};
    double margin[3] = {NAN, NAN, NAN};
    size_t k;
    json_t *e;
    json_array_foreach(json_object_get(rd, "sizes"), k, e) {
        long long z = json_integer_value(json_object_get(e, "size_bytes"));
        double sp = json_number_value(json_object_get(e, "spread_percent"));
        double m = json_number_value(json_object_get(e, "margin_percent"));
        print_message("%lld B: ratio %.4f, spread %.3f %%, margin %.3f %%\n", z,
                      json_number_value(json_object_get(e, "median_ratio")), sp, m);
        assert_true(json_integer_value(json_object_get(e, "blocks")) >= 2);
        assert_true(fabs(m - (sp > pooled ? sp : pooled) / 2.0) < 1e-12);
        for (size_t q = 0; q < 3; q++)
            if (z == sizes[q])
                margin[q] = m;
    }
    assert_int_equal(json_array_size(json_object_get(rd, "sizes")), 3);
    for (size_t q = 0; q < 3; q++)
        assert_true(isfinite(margin[q]) && margin[q] > 0);
    /* 64 KiB moved more than the campaign as a whole: its own margin */
    assert_true(margin[2] > pooled / 2.0 && margin[0] == pooled / 2.0);
    json_decref(camp);

    /* a harness cost in one record */
    const char *hrel = "records/Whirl/Whirl_256__hash_1024.json";
    json_t *hrec = rt_load_json(sys, hrel);
    json_object_set_new(hrec, "verification",
                        json_pack("{s:f}", "harness_ns_per_call",
                                  810.0));
    double hmean = json_number_value(
        json_object_get(json_object_get(hrec, "derived"), "mean_ns_per_call"));
    rt_save_json(sys, hrel, hrec);
    json_decref(hrec);

    /* the candidate page: every paired interval widened by its size's
     * margin, the record's own interval nowhere */
    rt_tempdir(site);
    hb_err err = {{0}};
    if (report_site(data, site, &err) != 0)
        fail_msg("%s", err.msg);
    char *page = rt_site_file(site, "x86_1/Whirl.md");
    int widened = 0;
    json_t *files = rt_list_files(sys);
    json_t *f;
    json_array_foreach(files, k, f) {
        const char *rel = json_string_value(f);
        if (strncmp(rel, "records/Whirl/", 14) != 0)
            continue;
        json_t *rec = rt_load_json(sys, rel);
        const json_t *pr = json_object_get(json_object_get(rec, "derived"), "paired_ratio");
        long long z = json_integer_value(json_object_get(rec, "size_bytes"));
        double m = NAN;
        for (size_t q = 0; q < 3; q++)
            if (z == sizes[q])
                m = margin[q];
        double ratio = json_number_value(json_object_get(pr, "ratio"));
        double lo = json_number_value(json_object_get(pr, "ci95_low"));
        double hi = json_number_value(json_object_get(pr, "ci95_high"));
        if (!json_is_object(pr) || !isfinite(ratio) || !isfinite(lo) || !isfinite(hi)) {
            json_decref(rec);
            continue;
        }
        char want[64], raw[64], num[NUMFMT_MAX];
        half_text(ratio, lo / (1.0 + m / 100.0), hi * (1.0 + m / 100.0), want, sizeof want);
        half_text(ratio, lo, hi, raw, sizeof raw);
        char cell[160];
        snprintf(cell, sizeof cell, " %s%s", numfmt_sig3(ratio, num, sizeof num), want);
        print_message("%s: recorded%s, published%s\n", rel, raw, want);
        if (!strstr(page, cell))
            fail_msg("%s: no cell '%s' on the page", rel, cell);
        assert_true(strcmp(want, raw) != 0);
        widened++;
        json_decref(rec);
    }
    assert_true(widened >= 6);
    char hcell[128], hnum[NUMFMT_MAX];
    snprintf(hcell, sizeof hcell, "| 810 ns (%s %%) |\n",
             numfmt_sig3(810.0 / hmean * 100.0, hnum, sizeof hnum));
    print_message("harness cell: %s", hcell);
    char *row = strstr(page, "| Whirl_256 | 1024 B |");
    assert_non_null(row);
    char *eol = strchr(row, '\n');
    assert_non_null(eol);
    assert_true(strstr(row, hcell) == eol - strlen(hcell) + 1);
    assert_non_null(strstr(page, "| not measured |\n"));
    assert_non_null(strstr(page, "widened by the host's **ratio drift**"));
    free(page);
    char *method = rt_site_file(site, "x86_1/method.md");
    assert_non_null(strstr(method, "### The host's ratio drift"));
    assert_non_null(strstr(method, "[lo / (1 + m), hi × (1 + m)]"));
    free(method);
    json_decref(files);

    /* the exports carry it and pass their check; validate agrees */
    rt_join(csv, site, "out.csv");
    rt_join(js, site, "out.json");
    int rows = 0;
    export_check_stats st;
    if (report_export_csv(data, csv, &rows, &err) != 0 ||
        report_export_json(data, js, &rows, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(report_check_export(data, csv, stdout, &st, &err), 0);
    assert_int_equal(report_check_export(data, js, stdout, &st, &err), 0);
    char *text = rt_read(csv, NULL);
    assert_non_null(strstr(text, "paired_ratio_widened_low"));
    assert_non_null(strstr(text, ",810,"));
    free(text);
    char *out = NULL;
    int rc = run_validate(data, &out);
    if (rc != 0)
        fail_msg("validate: %s", out);
    free(out);

    /* a margin made smaller in campaign.json is named */
    camp = rt_load_json(sys, "campaign.json");
    json_t *first = json_array_get(json_object_get(json_object_get(camp, RATIODRIFT_KEY),
                                                   "sizes"), 0);
    json_object_set_new(first, "margin_percent", json_real(0.01));
    rt_save_json(sys, "campaign.json", camp);
    json_decref(camp);
    rc = run_validate(data, &out);
    print_message("%s", out);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "x86_1/campaign.json: ratio_drift.sizes[0].margin_percent "
                                "is 0.01, the records give"));
    free(out);
    rt_rmtree(site);
    rt_rmtree(data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recorded_and_published),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
