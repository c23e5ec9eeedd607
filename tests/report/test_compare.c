/* hashbench compare and the self-assessment on datasets derived from the
 * synthetic one (tests/report/data): its x86_1 records split into the even
 * and the odd trials make two campaigns of the same host, which must show no
 * difference for any instance; the odd half with the SM3 candidate's trials
 * made to take twice as long must be found about 2x slower, with an
 * interval holding 2, and nothing else changed; the x86_1 and arm_1 systems
 * compare end to end (unpaired: arm_1's records have no pairs) with their
 * page, chart and HTML written; --fail-above counts slowdowns both ways. A
 * self-assessment made of the measured figures is all within, and with one
 * figure 30 % off, exactly that figure is flagged, in CSV, JSON and the
 * text of a published page. Every derived figure of a derived dataset is
 * recomputed from its trials (stats_derive_record). A comparison given to
 * the report is installed in the site, listed by its index with its verdict
 * counts and a link both ways, and the site still validates byte for byte;
 * a folder without a comparison is refused before anything is written. */
#include <setjmp.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "measure/stats.h"
#include "report/compare.h"
#include "report/csv.h"
#include "report/pages.h"
#include "report/report.h"
#include "report/selfassess.h"
#include "report/site_compare.h"
#include "report/validate.h"
#include "report_test_util.h"

/* A copy of the synthetic dataset whose x86_1 records keep the trials of
 * PARITY (0 even, 1 odd, -1 all) with the SM3 candidate's times times
 * FACTOR, each record's figures derived again; OUT gets DATA/x86_1. */
static void derived_system(char *out, int parity, double factor)
{
    char data[4096];
    rt_copy_dataset(data);
    rt_join(out, data, "x86_1");
    json_t *files = rt_list_files(out);
    size_t i;
    json_t *f;
    json_array_foreach(files, i, f) {
        const char *rel = json_string_value(f);
        if (strncmp(rel, "records/", 8) != 0)
            continue;
        json_t *rec = rt_load_json(out, rel);
        if (!json_object_get(rec, "derived")) {
            json_decref(rec);
            continue;
        }
        json_t *trials = json_object_get(rec, "trials"), *kept = json_array(), *t;
        size_t k;
        int sm3 = !strcmp(json_string_value(json_object_get(rec, "candidate")), "SM3");
        json_array_foreach(trials, k, t) {
            if (parity >= 0 && (int)(k % 2) != parity)
                continue;
            if (sm3) {
                json_object_set_new(t, "ticks", json_real(json_number_value(
                                                    json_object_get(t, "ticks")) * factor));
                json_object_set_new(t, "ns", json_real(json_number_value(
                                                 json_object_get(t, "ns")) * factor));
            }
            json_array_append(kept, t);
        }
        json_object_set_new(rec, "trials", kept);
        json_t *d = NULL;
        hb_err err = {{0}};
        if (stats_derive_record(rec, rel, &d, &err) != 0)
            fail_msg("%s", err.msg);
        json_object_set_new(rec, "derived", d);
        rt_save_json(out, rel, rec);
        json_decref(rec);
    }
    json_decref(files);
}

/* Removes the dataset of a system folder made by derived_system. */
static void rm_side(const char *sys)
{
    char data[4096];
    snprintf(data, sizeof data, "%s", sys);
    *strrchr(data, '/') = '\0';
    rt_rmtree(data);
}

static void load(const char *path, report_dataset *ds, const report_system **s)
{
    hb_err err = {{0}};
    if (compare_load_side(path, ds, s, &err) != 0)
        fail_msg("%s", err.msg);
}

static void compare(const char *a, const char *b, report_dataset *da, report_dataset *db,
                    compare_result *r)
{
    const report_system *sa, *sb;
    hb_err err = {{0}};
    load(a, da, &sa);
    load(b, db, &sb);
    if (compare_systems(sa, sb, COMPARE_MIN_CHANGE, r, &err) != 0)
        fail_msg("%s", err.msg);
}

static void print_rows(const compare_result *r)
{
    compare_print_text(stdout, r);
}

static void test_same_host_no_difference(void **state)
{
    (void)state;
    char a[4096], b[4096];
    report_dataset da, db;
    compare_result r;
    derived_system(a, 0, 1.0);
    derived_system(b, 1, 1.0);
    compare(a, b, &da, &db, &r);
    print_rows(&r);
    assert_int_equal(r.nrows, 14);
    size_t paired = 0, holds = 0;
    for (size_t i = 0; i < r.nrows; i++) {
        const compare_row *w = &r.rows[i];
        paired += w->paired;
        holds += w->lo <= 1.0 && 1.0 <= w->hi;
        if (w->verdict != CMP_SAME ||
            !((w->lo <= 1.0 && 1.0 <= w->hi) || fabs(w->ratio - 1.0) < COMPARE_MIN_CHANGE))
            fail_msg("%s/%s at %lld: %s, B / A %.4f [%.4f, %.4f] on the same host",
                     w->candidate, w->instance, w->size, compare_verdict_text(w->verdict),
                     w->ratio, w->lo, w->hi);
    }
    /* 95 % intervals: about one row in twenty may miss 1 by chance; this
     * data has one (Whirl_256 at 64 KiB, 0.9925 - 0.9993) */
    if (holds + 2 < r.nrows)
        fail_msg("only %zu of %zu intervals hold 1 on the same host", holds, r.nrows);
    assert_int_equal(paired, 11); /* all but the baseline's three */
    assert_int_equal(compare_slowdowns(&r, 0.0), 0);
    compare_free(&r);
    report_dataset_free(&da);
    report_dataset_free(&db);
    rm_side(a);
    rm_side(b);
}

static void test_twice_the_work_is_2x_slower(void **state)
{
    (void)state;
    char a[4096], b[4096];
    report_dataset da, db;
    compare_result r;
    derived_system(a, 0, 1.0);
    derived_system(b, 1, 2.0);
    compare(a, b, &da, &db, &r);
    print_rows(&r);
    size_t slower = 0;
    for (size_t i = 0; i < r.nrows; i++) {
        const compare_row *w = &r.rows[i];
        if (!strcmp(w->candidate, "SM3")) {
            slower++;
            assert_int_equal(w->paired, 1);
            assert_int_equal(w->verdict, CMP_SLOWER);
            if (!(w->lo <= 2.0 && 2.0 <= w->hi) || fabs(w->ratio - 2.0) > 0.02)
                fail_msg("SM3 at %lld: B / A %.4f [%.4f, %.4f] should hold 2", w->size,
                         w->ratio, w->lo, w->hi);
        } else {
            assert_int_equal(w->verdict, CMP_SAME);
        }
    }
    assert_int_equal(slower, 3);
    /* the CI exit status: three rows beyond 50 %, none beyond 150 % */
    assert_int_equal(compare_slowdowns(&r, 50.0), 3);
    assert_int_equal(compare_slowdowns(&r, 150.0), 0);
    compare_free(&r);
    report_dataset_free(&da);
    report_dataset_free(&db);
    /* the other way round it is 2x faster, and no slowdown */
    compare(b, a, &db, &da, &r);
    for (size_t i = 0; i < r.nrows; i++)
        if (!strcmp(r.rows[i].candidate, "SM3"))
            assert_int_equal(r.rows[i].verdict, CMP_FASTER);
    assert_int_equal(compare_slowdowns(&r, 0.0), 0);
    compare_free(&r);
    report_dataset_free(&da);
    report_dataset_free(&db);
    rm_side(a);
    rm_side(b);
}

/* SYS's campaign.json records a host drift of SPREAD percent. */
static void set_drift(const char *sys, double spread)
{
    json_t *c = rt_load_json(sys, "campaign.json");
    json_object_set_new(c, "host_drift", json_pack("{s:f}", "spread_percent", spread));
    rt_save_json(sys, "campaign.json", c);
    json_decref(c);
}

/* The hosts' drift widens every interval: a 15 % slowdown found between two
 * quiet campaigns is not a verdict beside a campaign whose host drifted by
 * 40 % (half of it on each side of the interval), and the interval is the
 * same one widened by exactly that factor. */
static void test_host_drift_widens(void **state)
{
    (void)state;
    char a[4096], b[4096];
    report_dataset da, db, da2, db2; /* (rows borrow their records' names) */
    compare_result quiet, drifting;
    derived_system(a, 0, 1.0);
    derived_system(b, 1, 1.15);
    set_drift(a, 1.0);
    compare(a, b, &da, &db, &quiet);
    assert_true(fabs(quiet.host_margin - 0.005) < 1e-12);
    set_drift(b, 40.0);
    compare(a, b, &da2, &db2, &drifting);
    print_rows(&drifting);
    assert_true(fabs(drifting.host_margin - 0.20) < 1e-12);
    assert_int_equal(quiet.nrows, drifting.nrows);
    size_t sm3 = 0;
    for (size_t i = 0; i < quiet.nrows; i++) {
        const compare_row *q = &quiet.rows[i], *w = &drifting.rows[i];
        if (strcmp(q->candidate, "SM3"))
            continue;
        sm3++;
        assert_int_equal(q->verdict, CMP_SLOWER);
        assert_int_equal(w->verdict, CMP_SAME);
        assert_true(fabs(w->ratio - q->ratio) < 1e-12);
        assert_true(fabs(w->lo * 1.20 - q->lo * 1.005) < 1e-9);
        assert_true(fabs(w->hi / 1.20 - q->hi / 1.005) < 1e-9);
    }
    assert_int_equal(sm3, 3);
    compare_free(&quiet);
    compare_free(&drifting);
    report_dataset_free(&da);
    report_dataset_free(&db);
    report_dataset_free(&da2);
    report_dataset_free(&db2);
    rm_side(a);
    rm_side(b);
}

/* SYS's records get the second built-in baseline beside the first in every
 * trial ("pairs"): OpenSSL SHA-256 taking K times as long per call as the
 * trial's OpenSSL SM3 window, times 1 + STEP in the second half of each
 * record's trials (the host's state changed halfway through the stage). */
static void set_second_baseline(const char *sys, double k, double step)
{
    json_t *files = rt_list_files(sys);
    size_t i;
    json_t *f;
    json_array_foreach(files, i, f) {
        const char *rel = json_string_value(f);
        if (strncmp(rel, "records/", 8) != 0)
            continue;
        json_t *rec = rt_load_json(sys, rel), *t;
        size_t n, half = json_array_size(json_object_get(rec, "trials")) / 2;
        json_array_foreach(json_object_get(rec, "trials"), n, t) {
            const json_t *p = json_object_get(t, "pair");
            if (!p)
                continue;
            double calls = json_number_value(json_object_get(p, "calls"));
            double ns = json_number_value(json_object_get(p, "ns"));
            double sha = ns * k * (n >= half ? 1.0 + step : 1.0);
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

/* The hosts' ratio drift widens every paired interval: with the fixed pair
 * of different codes (OpenSSL SHA-256 / SM3) at the same ratio in both
 * campaigns, a 15 % slowdown is found; with that ratio 20 % apart between
 * the campaigns, the host alone moved ratios between codes by 20 %, so the
 * same slowdown is no verdict, the margin is exactly 20 %, and the
 * smallest difference told is above 20 % at every size. A spread of the
 * pair within one campaign counts by half. */
static void test_ratio_drift_widens(void **state)
{
    (void)state;
    char a[4096], b[4096];
    report_dataset da, db, da2, db2, da3, db3;
    compare_result steady, shifted, spread;
    derived_system(a, 0, 1.0);
    derived_system(b, 1, 1.15);
    set_drift(a, 0.0);
    set_drift(b, 0.0);
    set_second_baseline(a, 0.5, 0.0);
    set_second_baseline(b, 0.5, 0.0);
    compare(a, b, &da, &db, &steady);
    assert_true(fabs(steady.ratio_shift) < 1e-9);
    assert_true(steady.ratio_margin < 1e-9);
    set_second_baseline(b, 0.6, 0.0);
    compare(a, b, &da2, &db2, &shifted);
    print_rows(&shifted);
    assert_true(fabs(shifted.ratio_shift - 20.0) < 1e-6);
    assert_true(fabs(shifted.ratio_margin - 0.20) < 1e-9);
    assert_true(fabs(shifted.paired_margin - 0.20) < 1e-9);
    size_t sm3 = 0;
    for (size_t i = 0; i < steady.nrows; i++) {
        const compare_row *q = &steady.rows[i], *w = &shifted.rows[i];
        if (strcmp(q->candidate, "SM3"))
            continue;
        sm3++;
        assert_int_equal(q->verdict, CMP_SLOWER);
        assert_int_equal(w->verdict, CMP_SAME);
        assert_true(fabs(w->lo * 1.20 - q->lo) < 1e-9);
    }
    assert_int_equal(sm3, 3);
    assert_int_equal(shifted.n_detect, 3);
    for (size_t i = 0; i < shifted.n_detect; i++)
        assert_true(shifted.detect_percent[i] > 20.0);
    /* a move within each campaign (30 % halfway through), none between:
     * half of the larger */
    set_second_baseline(a, 0.5, 0.30);
    set_second_baseline(b, 0.5, 0.30);
    compare(a, b, &da3, &db3, &spread);
    /* (a size whose median falls on either value pools deviations of up
     * to the whole 30 % both ways) */
    print_message("ratio drift within A %.3f %%, B %.3f %%\n", spread.ratio_within_a,
                  spread.ratio_within_b);
    /* (a size whose median falls on either side pools moves of up to the
     * whole 30 % both ways) */
    assert_true(spread.ratio_within_a >= 20.0 && spread.ratio_within_a <= 69.1);
    assert_true(spread.ratio_within_b >= 20.0 && spread.ratio_within_b <= 69.1);
    assert_true(fabs(spread.ratio_margin * 100.0 -
                     (spread.ratio_within_a > spread.ratio_within_b ? spread.ratio_within_a
                                                                    : spread.ratio_within_b) /
                         2.0) < 1e-9);
    /* the summary page says once what a repeat campaign could tell */
    const report_system *sys;
    report_dataset dp;
    load(a, &dp, &sys);
    char *page = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&page, &len);
    hb_err err = {{0}};
    if (pages_summary_md(fp, sys, ".md", &err) != 0)
        fail_msg("%s", err.msg);
    fclose(fp);
    assert_non_null(strstr(page, "**What a repeat campaign can tell.**"));
    assert_non_null(strstr(page, "cannot be told."));
    assert_int_equal(rt_count(page, "What a repeat campaign can tell"), 1);
    free(page);
    report_dataset_free(&dp);
    compare_free(&steady);
    compare_free(&shifted);
    compare_free(&spread);
    report_dataset_free(&da);
    report_dataset_free(&db);
    report_dataset_free(&da2);
    report_dataset_free(&db2);
    report_dataset_free(&da3);
    report_dataset_free(&db3);
    rm_side(a);
    rm_side(b);
}

static void test_x86_against_arm(void **state)
{
    (void)state;
    char a[4096], b[4096], dir[4096], path[4096];
    report_dataset da, db;
    compare_result r;
    hb_err err = {{0}};
    rt_join(a, rt_dataset(), "x86_1");
    rt_join(b, rt_dataset(), "arm_1");
    compare(a, b, &da, &db, &r);
    print_rows(&r);
    assert_int_equal(r.nrows, 14);
    assert_int_equal(json_array_size(r.only_a), 1);
    assert_string_equal(json_string_value(json_array_get(r.only_a, 0)),
                        "Whirl / Whirl_512 at 64 KiB: FAILED on x86_1");
    assert_int_equal(json_array_size(r.only_b), 0);
    /* arm_1's records have no pairs: every row is the ratio of the mean
     * times, and it is the records' own ratio */
    for (size_t i = 0; i < r.nrows; i++) {
        const compare_row *w = &r.rows[i];
        assert_int_equal(w->paired, 0);
        assert_true(fabs(w->ratio / (w->b / w->a) - 1.0) < 1e-3);
        assert_true(w->lo < w->ratio && w->ratio < w->hi);
    }
    /* the dataset with two systems must be told which */
    report_dataset both;
    const report_system *s;
    assert_int_equal(compare_load_side(rt_dataset(), &both, &s, &err), -1);
    assert_non_null(strstr(err.msg, "holds 2 systems (arm_1, x86_1)"));
    /* the pages */
    rt_tempdir(dir);
    if (compare_write_pages(dir, &r, &err) != 0)
        fail_msg("%s", err.msg);
    rt_join(path, dir, "compare.html");
    char *html = rt_read(path, NULL);
    assert_non_null(html);
    assert_non_null(strstr(html, "<svg"));
    assert_int_equal(rt_count(html, "<tr>"), 15); /* header and 14 rows */
    free(html);
    /* the chart: B / A on a log axis, each row's interval a bar */
    rt_join(path, dir, "compare.svg");
    char *svg = rt_read(path, NULL);
    assert_non_null(strstr(svg, "B / A (1: no difference) (log scale)"));
    assert_int_equal(rt_count(svg, "class=\"interval\""), (int)r.nrows);
    assert_int_equal(rt_count(svg, "<circle "), (int)r.nrows);
    assert_int_equal(rt_count(svg, "class=\"reference\""), 1);
    free(svg);
    rt_join(path, dir, "compare.md");
    char *md = rt_read(path, NULL);
    assert_non_null(strstr(md, "# Comparison: arm_1 against x86_1"));
    assert_non_null(strstr(md, "Whirl / Whirl_512 at 64 KiB: FAILED on x86_1"));
    free(md);
    rt_rmtree(dir);
    compare_free(&r);
    report_dataset_free(&da);
    report_dataset_free(&db);
}

/* A comparison written with --out and given to the report: installed as
 * SITE/compare/<folder name>/, listed on the index (Markdown and HTML) with
 * its verdict counts, its page linking back to the index, and the site
 * validating byte for byte with it. */
static void test_compare_linked_from_site(void **state)
{
    (void)state;
    char a[4096], b[4096], tmp[4096], dir[4096], site[4096], path[4096];
    report_dataset da, db;
    compare_result r;
    hb_err err = {{0}};
    /* unpaired rows get a verdict only from hosts whose drift is known:
     * both recorded none here, as a perfectly quiet host would */
    char data[4096];
    rt_copy_dataset(data);
    rt_join(a, data, "x86_1");
    rt_join(b, data, "arm_1");
    set_drift(a, 0.0);
    set_drift(b, 0.0);
    compare(a, b, &da, &db, &r);
    rt_tempdir(tmp);
    rt_join(dir, tmp, "x86-vs-arm");
    if (compare_write_pages(dir, &r, &err) != 0)
        fail_msg("%s", err.msg);
    compare_free(&r);
    report_dataset_free(&da);
    report_dataset_free(&db);
    json_t *sum = rt_load_json(dir, "compare.json");
    assert_string_equal(json_string_value(json_object_get(sum, "kind")),
                        "hashbench-comparison");
    assert_int_equal(json_integer_value(json_object_get(sum, "rows")), 14);
    assert_int_equal(json_integer_value(json_object_get(sum, "slower")), 14);
    json_decref(sum);

    const char *dirs[] = {dir};
    report_options opt = {NULL, dirs, 1, NULL};
    rt_join(site, tmp, "site");
    if (report_site_opts(rt_dataset(), site, &opt, &err) != 0)
        fail_msg("report: %s", err.msg);
    rt_join(path, site, "index.md");
    char *index = rt_read(path, NULL);
    assert_non_null(strstr(index, "## Comparisons\n"));
    assert_non_null(strstr(index, "- [arm_1 against x86_1](compare/x86-vs-arm/compare.md): "
                                  "14 rows compared, 14 slower, 0 faster, 0 with no "
                                  "difference detected; 1 not compared.\n"));
    free(index);
    rt_join(path, site, "index.html");
    index = rt_read(path, NULL);
    assert_non_null(strstr(index, "<a href=\"compare/x86-vs-arm/compare.html\">arm_1 "
                                  "against x86_1</a>"));
    free(index);
    rt_join(path, site, "compare/x86-vs-arm/compare.html");
    char *page = rt_read(path, NULL);
    assert_non_null(page);
    assert_non_null(strstr(page, "<a href=\"../../index.html\">hashbench results</a> › "
                                 "<strong>comparison</strong>"));
    assert_non_null(strstr(page, "<svg"));
    free(page);
    rt_join(path, site, "compare/x86-vs-arm/compare.svg");
    char *svg = rt_read(path, NULL);
    assert_non_null(svg);
    free(svg);

    /* validate regenerates the site with the comparison it holds */
    char *out = NULL;
    size_t len;
    report_validate_stats st;
    FILE *fp = open_memstream(&out, &len);
    assert_non_null(fp);
    int rc = report_validate(rt_dataset(), site, fp, &st, &err);
    fclose(fp);
    if (rc != 0)
        fail_msg("validate --site with a comparison: %d (%s)\n%s", rc, err.msg, out);
    free(out);

    /* a folder without a comparison is refused, and nothing is written */
    char empty[4096], site2[4096];
    rt_tempdir(empty);
    const char *bad[] = {empty};
    report_options opt2 = {NULL, bad, 1, NULL};
    rt_join(site2, tmp, "site2");
    assert_int_equal(report_site_opts(rt_dataset(), site2, &opt2, &err), -1);
    assert_non_null(strstr(err.msg, "no comparison here (no compare.json); write one with "
                                    "'hashbench compare A B --out"));
    rt_join(path, site2, "index.html");
    assert_null(rt_read(path, NULL));
    /* two comparisons of one name are refused */
    const char *twice[] = {dir, dir};
    report_options opt3 = {NULL, twice, 2, NULL};
    assert_int_equal(report_site_opts(rt_dataset(), site2, &opt3, &err), -1);
    assert_non_null(strstr(err.msg, "both would be the site's comparison 'x86-vs-arm'"));
    rt_rmtree(empty);
    rt_rmtree(tmp);
    rt_rmtree(data);
}

/* ---- self-assessment ---- */

/* The CSV self-assessment of x86_1's OK records, at full precision; the
 * figure (instance OFF_INST, size OFF_SIZE, column OFF_COL) times 1.3. */
static void write_sa_csv(const char *path, const char *off_inst, long long off_size,
                         int off_col, int clock)
{
    report_dataset ds;
    const report_system *s;
    char sys[4096];
    rt_join(sys, rt_dataset(), "x86_1");
    load(sys, &ds, &s);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fprintf(fp, "candidate,instance,size_bytes,mean_cycles,cycles_per_byte,mb_per_s,"
                "static_bytes,peak_memory_kib%s\n", clock ? ",clock_hz" : "");
    for (size_t i = 0; i < s->nrecs; i++) {
        const report_record *r = &s->recs[i];
        if (!r->derived)
            continue;
        double v[5] = {report_num(r->derived, "mean_ticks_per_call"),
                       report_num(r->derived, "ticks_per_byte"),
                       report_num(r->derived, "mb_per_s"),
                       report_num(json_object_get(report_build_entry(s, r->candidate,
                                                                     r->instance),
                                                  "static_size"), "image"),
                       report_num(json_object_get(r->json, "memory"), "rss_peak_kb")};
        if (!strcmp(r->instance, off_inst) && r->size == off_size)
            v[off_col] *= 1.3;
        fprintf(fp, "%s,%s,%lld,%.17g,%.17g,%.17g,%.17g,%.17g%s\n", r->candidate,
                r->instance, r->size, v[0], v[1], v[2], v[3], v[4],
                clock ? ",2.45e9" : "");
    }
    fclose(fp);
    report_dataset_free(&ds);
}

/* Holds PATH against x86_1; returns the number flagged, and checks that a
 * flagged one (if any) is INST at SIZE, metric M. */
static size_t hold(const char *path, const char *inst, long long size, sa_metric m,
                   size_t *checks)
{
    report_dataset ds;
    const report_system *s;
    sa_file f;
    sa_result r;
    hb_err err = {{0}};
    char sys[4096];
    rt_join(sys, rt_dataset(), "x86_1");
    load(sys, &ds, &s);
    if (sa_load(path, &f, &err) != 0 || sa_hold(&f, s, &r, &err) != 0)
        fail_msg("%s", err.msg);
    sa_print_text(stdout, &r);
    for (size_t i = 0; i < r.nchecks; i++)
        if (r.checks[i].flagged && (strcmp(r.checks[i].instance, inst) ||
                                    r.checks[i].size != size || r.checks[i].metric != m))
            fail_msg("%s at %lld, %s flagged", r.checks[i].instance, r.checks[i].size,
                     sa_metric_name(r.checks[i].metric));
    size_t flagged = r.flagged;
    *checks = r.nchecks;
    sa_result_free(&r);
    sa_free(&f);
    report_dataset_free(&ds);
    return flagged;
}

static void test_self_assessment_csv_json(void **state)
{
    (void)state;
    char dir[4096], csv[4096], json[4096];
    size_t n;
    rt_tempdir(dir);
    rt_join(csv, dir, "claims.csv");
    rt_join(json, dir, "claims.json");
    /* all true: nothing flagged, in time (a stated clock) and as ratios */
    write_sa_csv(csv, "", 0, 0, 1);
    assert_int_equal(hold(csv, "", 0, 0, &n), 0);
    assert_int_equal(n, 14 * 5);
    write_sa_csv(csv, "", 0, 0, 0);
    assert_int_equal(hold(csv, "", 0, 0, &n), 0);
    /* one figure 30 % off, of each kind in turn: that one only */
    for (int m = 0; m < SA_NMETRICS; m++) {
        write_sa_csv(csv, "Whirl_256", 1024, m, m == 0);
        assert_int_equal(hold(csv, "Whirl_256", 1024, (sa_metric)m, &n), 1);
    }
    /* the same claims as JSON */
    write_sa_csv(csv, "SM3", 65536, SA_MEAN_CYCLES, 1);
    FILE *fp = fopen(json, "w");
    fputs("{\"kind\": \"hashbench-self-assessment\", \"candidate\": \"SM3\", "
          "\"clock_hz\": 2.45e9, \"figures\": [", fp);
    char *text = rt_read(csv, NULL), *line = strtok(strchr(text, '\n') + 1, "\n");
    int first = 1;
    for (; line; line = strtok(NULL, "\n")) {
        char cand[64], inst[64];
        long long size;
        double v[5];
        if (sscanf(line, "%63[^,],%63[^,],%lld,%lf,%lf,%lf,%lf,%lf", cand, inst, &size, &v[0],
                   &v[1], &v[2], &v[3], &v[4]) != 8)
            fail_msg("bad line %s", line);
        if (strcmp(cand, "SM3"))
            continue;
        fprintf(fp, "%s{\"instance\": \"%s\", \"size_bytes\": %lld, \"mean_cycles\": %.17g, "
                "\"mb_per_s\": %.17g, \"peak_memory_kib\": %.17g}", first ? "" : ", ", inst,
                size, v[0], v[2], v[4]);
        first = 0;
    }
    fputs("]}\n", fp);
    fclose(fp);
    free(text);
    assert_int_equal(hold(json, "SM3", 65536, SA_MEAN_CYCLES, &n), 1);
    assert_int_equal(n, 9);
    /* errors name the file and line */
    report_dataset ds;
    const report_system *s;
    sa_file f;
    sa_result r;
    hb_err err = {{0}};
    char sys[4096];
    rt_join(sys, rt_dataset(), "x86_1");
    load(sys, &ds, &s);
    rt_write(csv, "instance,size_bytes,mean_cycles\nSM3,32,12x\n");
    assert_int_equal(sa_load(csv, &f, &err), -1);
    assert_non_null(strstr(err.msg, "claims.csv:2: mean_cycles '12x' is not a number"));
    rt_write(csv, "instance,size,mean_cycles\n");
    assert_int_equal(sa_load(csv, &f, &err), -1);
    assert_non_null(strstr(err.msg, "claims.csv:1: unknown column 'size'"));
    rt_write(csv, "instance,size_bytes,mean_cycles\n\"SM3,32,100\n");
    assert_int_equal(sa_load(csv, &f, &err), -1);
    assert_non_null(strstr(err.msg, "claims.csv:2: a quoted field is never closed"));
    rt_write(csv, "instance,size_bytes,mean_cycles\nSM4,32,100\n");
    assert_int_equal(sa_load(csv, &f, &err), 0);
    assert_int_equal(sa_hold(&f, s, &r, &err), -1);
    assert_non_null(strstr(err.msg, "claims.csv:2: SM4 is not an instance"));
    sa_free(&f);
    report_dataset_free(&ds);
    rt_rmtree(dir);
}

/* Replaces the first FROM in TEXT (in place, same length or shorter). */
static void replace(char *text, const char *from, const char *to)
{
    char *at = strstr(text, from);
    if (!at)
        fail_msg("no '%s' in the page", from);
    size_t nf = strlen(from), nt = strlen(to);
    assert_true(nt <= nf);
    memcpy(at, to, nt);
    memmove(at + nt, at + nf, strlen(at + nf) + 1);
}

static void test_self_assessment_text(void **state)
{
    (void)state;
    char site[4096], page[4096], dir[4096], path[4096], data[4096];
    size_t n;
    hb_err err = {{0}};
    /* hashbench's own page of SM3 on x86_1, as a text layout: its figures
     * are rounded to 3 significant digits and are all within */
    rt_tempdir(site);
    if (report_site(rt_dataset(), site, &err) != 0)
        fail_msg("%s", err.msg);
    rt_join(page, site, "x86_1/SM3.md");
    assert_int_equal(hold(page, "", 0, 0, &n), 0);
    /* per size 3 performance figures, and the static size and peak memory
     * of the published resource table's row */
    assert_int_equal(n, 3 * 3 + 3 * 2);
    /* the 1 KiB mean 30 % higher (6784 -> 8819) */
    char *text = rt_read(page, NULL);
    replace(text, "| SM3 | 1024 B | 6784 |", "| SM3 | 1024 B | 8819 |");
    rt_tempdir(dir);
    rt_join(path, dir, "SM3.txt");
    rt_write(path, text);
    free(text);
    assert_int_equal(hold(path, "SM3", 1024, SA_MEAN_CYCLES, &n), 1);
    /* the published layout of the reference pages (tabs, a clock row, the
     * resource table by operation), for x86_1's instances */
    rt_write(path, "Performance measurements › x86_1 › SM3\n\n"
                   "2. Assessment environment\n\nitem\tvalue\n"
                   "clock\tmax 2.45 GHz, governor performance\n\n"
                   "4. Performance\n\n"
                   "instance\tmessage\tmean cycles\tcycles/byte\tmean time\tMB/s\tn\n"
                   "`SM3`\t32 B\t388\t12.1\t158 ns\t202\t83.2 k (16 × 5197)\n"
                   "`SM3`\t1024 B\t6784\t6.63\t2.77 µs\t370\t4752 (16 × 297)\n"
                   "`SM3`\t65536 B\t423.4 k\t6.45\t173 µs\t380\t64 (16 × 4)\n\n"
                   "5. Resource consumption\n\nSome prose.\n\n"
                   "instance\toperation\tstatic: ELF image (bytes)\tbaseline RSS\tpeak RSS\n"
                   "`SM3`\thash_32\t18080\t1500 KiB\t1600 KiB\n"
                   "`SM3`\thash_1024\t18080\t1500 KiB\t2100 KiB\n");
    assert_int_equal(hold(path, "SM3", 1024, SA_PEAK_KIB, &n), 1);
    assert_int_equal(n, 3 * 3 + 2 * 2);
    /* report --self-assessment: the SM3 page gets the section, Whirl's not */
    rt_copy_dataset(data);
    rt_rmtree(site);
    if (report_site_sa(data, site, path, &err) != 0)
        fail_msg("%s", err.msg);
    rt_join(page, site, "x86_1/SM3.md");
    text = rt_read(page, NULL);
    assert_non_null(strstr(text, "## 8 Self-assessment held against these figures"));
    assert_int_equal(rt_count(text, "| **OUTSIDE** |"), 1);
    free(text);
    rt_join(page, site, "x86_1/Whirl.md");
    text = rt_read(page, NULL);
    assert_null(strstr(text, "## 8 Self-assessment"));
    free(text);
    rt_rmtree(site);
    rt_rmtree(dir);
    rt_rmtree(data);
}

/* The CSV reader: quoted commas, quotes and line breaks, CRLF and LF, an
 * empty last field, blank lines skipped, each record's first line kept. */
static void test_csv_reader(void **state)
{
    (void)state;
    const char text[] = "a,b,c\r\n\"x, y\",\"say \"\"hi\"\"\",\n\n\"two\nlines\",2,3";
    csv_table t;
    hb_err err = {{0}};
    if (csv_table_read(text, sizeof text - 1, "t.csv", &t, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(t.n, 3);
    assert_int_equal(t.rows[1].n, 3);
    assert_string_equal(t.rows[1].field[0], "x, y");
    assert_string_equal(t.rows[1].field[1], "say \"hi\"");
    assert_string_equal(t.rows[1].field[2], "");
    assert_int_equal(t.rows[1].line, 2);
    assert_string_equal(t.rows[2].field[0], "two\nlines");
    assert_int_equal(t.rows[2].line, 4);
    assert_int_equal(csv_column(&t.rows[0], "c"), 2);
    assert_int_equal(csv_column(&t.rows[0], "d"), -1);
    csv_table_free(&t);
    const char bad[] = "a,b\nx,y\"z\n";
    assert_int_equal(csv_table_read(bad, sizeof bad - 1, "t.csv", &t, &err), -1);
    assert_non_null(strstr(err.msg, "t.csv:2: a quote inside an unquoted field"));
}

/* What the reader keeps (spaces, empty fields) and every malformed input it
 * refuses, each named by the line of the bad character or of the quote that
 * is never closed, and an empty table after a failure. */
static void test_csv_reader_errors(void **state)
{
    (void)state;
    const char ok[] = " a ,,b \n\"x\"\"\"";
    csv_table t;
    hb_err err = {{0}};
    if (csv_table_read(ok, sizeof ok - 1, "t.csv", &t, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(t.n, 2);
    assert_int_equal(t.rows[0].n, 3);
    assert_string_equal(t.rows[0].field[0], " a ");
    assert_string_equal(t.rows[0].field[1], "");
    assert_string_equal(t.rows[0].field[2], "b ");
    assert_string_equal(t.rows[1].field[0], "x\"");
    assert_int_equal(t.rows[1].line, 2);
    csv_table_free(&t);
    static const struct {
        const char *text;
        size_t len;
        const char *msg;
    } bad[] = {
#define BAD(text, msg) {text, sizeof text - 1, msg}
        BAD("a,b\n\"x\"y,z\n", "t.csv:2: 'y' after a closing quote"),
        BAD("a\n\"x\ny\"z\n", "t.csv:3: 'z' after a closing quote"),
        BAD("a,b\n\n1,\"open\nmore\n", "t.csv:3: a quoted field is never closed"),
        BAD("\"p\nq\",\"r\ns\n", "t.csv:2: a quoted field is never closed"),
        BAD("a\nb\0c\n", "t.csv:2: a NUL byte"),
        BAD("a\r\n \"b\"\r\n", "t.csv:2: a quote inside an unquoted field"),
#undef BAD
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        hb_err_clear(&err);
        assert_int_equal(csv_table_read(bad[i].text, bad[i].len, "t.csv", &t, &err), -1);
        if (!strstr(err.msg, bad[i].msg))
            fail_msg("case %zu: '%s', wanted '%s'", i, err.msg, bad[i].msg);
        assert_int_equal(t.n, 0);
        assert_null(t.rows);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_host_no_difference),
        cmocka_unit_test(test_twice_the_work_is_2x_slower),
        cmocka_unit_test(test_host_drift_widens),
        cmocka_unit_test(test_ratio_drift_widens),
        cmocka_unit_test(test_x86_against_arm),
        cmocka_unit_test(test_compare_linked_from_site),
        cmocka_unit_test(test_self_assessment_csv_json),
        cmocka_unit_test(test_self_assessment_text),
        cmocka_unit_test(test_csv_reader),
        cmocka_unit_test(test_csv_reader_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
