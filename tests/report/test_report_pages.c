/* The report pages generated from the synthetic dataset: every file of the
 * site exists, candidate pages have the guide's sections in order (Markdown
 * and HTML), the comparison of an instance's variants is shown with its
 * first disagreement, TSC ticks are never called cycles, the summary's ratio to the
 * baseline matches the records (the median of pair ratios where a record has
 * it, and the pages say which figure is which), strings with markup (an instance name, a KAT
 * log line) come out escaped in Markdown and HTML, a long KAT footnote is
 * given in short with a link to the whole, section 3 says which KAT files
 * were not compared and why, and two runs give
 * byte-identical sites. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <unistd.h>

#include "report/numfmt.h"
#include "report/report.h"
#include "report_test_util.h"

static void make_site(const char *data, char *site)
{
    hb_err err = {{0}};
    rt_tempdir(site);
    if (report_site(data, site, &err) != 0)
        fail_msg("report_site: %s", err.msg);
}

static void test_every_page_exists(void **state)
{
    (void)state;
    char site[4096];
    make_site(rt_dataset(), site);
    const char *systems[] = {"x86_1", "arm_1"};
    const char *stems[] = {"baseline", "SM3", "Whirl", "summary"};
    for (size_t s = 0; s < 2; s++) {
        for (size_t c = 0; c < 4; c++) {
            const char *ext[] = {"md", "html", "svg"};
            for (size_t e = 0; e < 3; e++) {
                char rel[256];
                snprintf(rel, sizeof rel, "%s/%s.%s", systems[s], stems[c], ext[e]);
                free(rt_site_file(site, rel));
            }
        }
        char rel[256];
        snprintf(rel, sizeof rel, "%s/method.md", systems[s]);
        free(rt_site_file(site, rel));
        snprintf(rel, sizeof rel, "%s/method.html", systems[s]);
        free(rt_site_file(site, rel));
    }
    char *index = rt_site_file(site, "index.html");
    assert_non_null(strstr(index, "href=\"x86_1/summary.html\""));
    assert_non_null(strstr(index, "href=\"arm_1/Whirl.html\""));
    free(index);
    rt_rmtree(site);
}

static void assert_in_order(const char *text, const char *const *parts, size_t n)
{
    const char *at = text;
    for (size_t i = 0; i < n; i++) {
        const char *p = strstr(at, parts[i]);
        if (!p)
            fail_msg("'%s' missing or out of order", parts[i]);
        at = p + strlen(parts[i]);
    }
}

static void test_sections_in_order(void **state)
{
    (void)state;
    char site[4096];
    make_site(rt_dataset(), site);
    static const char *const md[] = {
        "\n## 1. Basic information\n", "\n## 2. Assessment environment\n",
        "\n## 3. Functional testing (KAT)\n", "\n## 4. Performance\n",
        "\n## 5. Resource consumption\n", "\n## 7. Raw evidence index\n"};
    static const char *const html[] = {
        "<h2>1. Basic information</h2>", "<h2>2. Assessment environment</h2>",
        "<h2>3. Functional testing (KAT)</h2>", "<h2>4. Performance</h2>",
        "<h2>5. Resource consumption</h2>", "<h2>7. Raw evidence index</h2>"};
    char *m = rt_site_file(site, "x86_1/Whirl.md");
    char *h = rt_site_file(site, "x86_1/Whirl.html");
    assert_in_order(m, md, 6);
    assert_in_order(h, html, 6);
    /* The chart is inlined at the top, before section 1 (the first screen);
     * tables are real. */
    static const char *const chart[] = {"<main>", "<svg ", "</svg>",
                                        "<h2>1. Basic information</h2>",
                                        "<h2>4. Performance</h2>", "<table>",
                                        "<h2>5. Resource consumption</h2>"};
    assert_in_order(h, chart, 7);
    /* The MISMATCH instance's short cell says it was timed only on request;
     * its footnote says what was checked, the cause and the fallback. */
    assert_non_null(strstr(m, "| Whirl_512 | harness-default | MISMATCH \\[1\\] (timed "
                              "with --time-failed) |"));
    assert_non_null(strstr(m, "\\[1\\] **Whirl_512**: MISMATCH (2_12, 2_23, Loop; harness-default flags; "
                              "timed with --time-failed): "));
    /* and its figures carry it */
    assert_non_null(strstr(m, "| Whirl_512 (KAT MISMATCH, timed with --time-failed) | "));
    assert_non_null(strstr(m, "build flags: harness-default"));
    /* Instances without figures are named with the reason. */
    assert_non_null(strstr(m, "**Whirl_1024**: BUILDFAIL"));
    /* A build failure is footnoted in section 3 with the build's own reason. */
    assert_non_null(strstr(m, "**Whirl_1024**: not KAT-tested (build status BUILDFAIL: "
                              "whirl1024.c:12: error: unknown type name u128)."));
    /* sizes in the candidate page's one notation, "65536 B" as its tables */
    assert_non_null(strstr(m, "**Whirl_512**: FAILED record at 65536 B"));
    assert_null(strstr(m, "record at 64 KiB"));
    free(m);
    free(h);
    rt_rmtree(site);
}

/* The comparison of Whirl_256's variants: DISAGREE on x86_1 with the first
 * disagreeing message (from kat.json) and how to print it, AGREE on arm_1;
 * the method page counts the groups; a candidate without variants says so. */
static void test_variants_shown(void **state)
{
    (void)state;
    char site[4096], want[512];
    make_site(rt_dataset(), site);
    json_t *kat = rt_load_json(rt_dataset(), "x86_1/kat.json");
    const json_t *v = json_object_get(json_array_get(json_object_get(kat, "instances"), 2),
                                      "variants");
    const json_t *d = json_object_get(json_array_get(json_object_get(v, "members"), 1),
                                      "first_disagreement");
    assert_non_null(d);
    char *x86 = rt_site_file(site, "x86_1/Whirl.md"), *arm = rt_site_file(site, "arm_1/Whirl.md");
    static const char *const order[] = {"\n## 3. Functional testing (KAT)\n",
                                        "\n### hashbench: variants compared\n",
                                        "\n## 4. Performance\n"};
    assert_in_order(x86, order, 3);
    assert_non_null(strstr(x86, "| Whirl_256 | **Whirl_256** (Reference), "
                                "**Whirl_256-Optimized** (Optimized) | 1000, 0–16384 bits "
                                "| DISAGREE \\[1\\] | `"));
    snprintf(want, sizeof want, "first on message %lld (%lld bits) (the second line printed "
             "by `hashbench drng %s-%lld 32 %lld`)",
             (long long)json_integer_value(json_object_get(d, "index")),
             (long long)json_integer_value(json_object_get(d, "bits")),
             json_string_value(json_object_get(v, "seed")),
             (long long)json_integer_value(json_object_get(d, "index")),
             (long long)json_integer_value(json_object_get(d, "bits")));
    assert_non_null(strstr(x86, want));
    assert_non_null(strstr(arm, "(Optimized) | 1000, 0–16384 bits | AGREE | `"));
    assert_null(strstr(arm, "differs from"));
    char *sm3 = rt_site_file(site, "x86_1/SM3.md"), *method = rt_site_file(site, "x86_1/method.md");
    assert_non_null(strstr(sm3, "No instance of this candidate was compared across variants"));
    assert_non_null(strstr(method, "## Variants compared\n"));
    assert_non_null(strstr(method, "Groups compared on this system: 1 (AGREE 0, DISAGREE 1, "
                                   "INCOMPLETE 0)."));
    free(x86);
    free(arm);
    free(sm3);
    free(method);
    json_decref(kat);
    rt_rmtree(site);
}

static void test_counter_named(void **state)
{
    (void)state;
    char site[4096];
    make_site(rt_dataset(), site);
    char *x86 = rt_site_file(site, "x86_1/SM3.md");
    char *arm = rt_site_file(site, "arm_1/SM3.md");
    assert_non_null(strstr(x86, "| mean TSC ticks | TSC ticks/byte |"));
    assert_non_null(strstr(x86, "TSC ticks, not core cycles"));
    assert_null(strstr(x86, "mean cycles"));
    assert_non_null(strstr(arm, "| mean cycles | cycles/byte |"));
    assert_null(strstr(arm, "not core cycles"));
    free(x86);
    free(arm);
    rt_rmtree(site);
}

/* cycles/byte of a record, read straight from the dataset. */
static double record_cpb(const char *rel)
{
    json_t *r = rt_load_json(rt_dataset(), rel);
    double v = json_number_value(json_object_get(json_object_get(r, "derived"),
                                                 "ticks_per_byte"));
    json_decref(r);
    return v;
}

/* The paired ratio of a record, read straight from the dataset. */
static double record_ratio(const char *rel, double *lo, double *hi)
{
    json_t *r = rt_load_json(rt_dataset(), rel);
    const json_t *pr = json_object_get(json_object_get(r, "derived"), "paired_ratio");
    double v = json_number_value(json_object_get(pr, "ratio"));
    *lo = json_number_value(json_object_get(pr, "ci95_low"));
    *hi = json_number_value(json_object_get(pr, "ci95_high"));
    json_decref(r);
    return v;
}

/* The summary's one figure per instance: SM3's geometric mean over the
 * sizes it has of its paired ratio, with the geometric means of the
 * records' interval bounds, worked out here from the records; instances
 * ranked by it (SM3 before Whirl_256), and the page says by which figure. */
static void test_one_figure(void **state)
{
    (void)state;
    char site[4096], want[200], a[NUMFMT_MAX], b[NUMFMT_MAX], c[NUMFMT_MAX];
    make_site(rt_dataset(), site);
    static const int sizes[] = {32, 1024, 65536};
    double sum = 0, slo = 0, shi = 0;
    for (int i = 0; i < 3; i++) {
        char rel[128];
        double lo, hi;
        snprintf(rel, sizeof rel, "x86_1/records/SM3/SM3__hash_%d.json", sizes[i]);
        double v = record_ratio(rel, &lo, &hi);
        assert_true(v > 0 && lo > 0 && lo <= v && v <= hi);
        sum += log(v);
        slo += log(lo);
        shi += log(hi);
    }
    char *page = rt_site_file(site, "x86_1/summary.md");
    snprintf(want, sizeof want, "| 1 | SM3 / SM3 | %s× [%s–%s] | 3 of 8 |",
             numfmt_sig3(exp(sum / 3), a, sizeof a), numfmt_sig3(exp(slo / 3), b, sizeof b),
             numfmt_sig3(exp(shi / 3), c, sizeof c));
    assert_non_null(strstr(page, "## One figure per instance"));
    assert_non_null(strstr(page, want));
    const char *w = strstr(page, "| Whirl / Whirl_256 |");
    assert_true(w && w > strstr(page, want));
    assert_non_null(strstr(page, "**Ranked by the paired ratio**"));
    char *method = rt_site_file(site, "x86_1/method.md");
    assert_non_null(strstr(method, "## One figure per instance"));
    free(method);
    free(page);
}

/* x86_1's Whirl_256 records have the median of pair ratios: the candidate
 * page's ratio column shows it with its interval and its count of pairs;
 * the other records (older ones) have the geometric mean, and the pages say
 * which is which. */
static void test_median_ratio_shown(void **state)
{
    (void)state;
    char site[4096], want[200], pm[32];
    make_site(rt_dataset(), site);
    json_t *r = rt_load_json(rt_dataset(), "x86_1/records/Whirl/Whirl_256__hash_1024.json");
    const json_t *m = json_object_get(json_object_get(r, "derived"), "paired_ratio");
    assert_string_equal(json_string_value(json_object_get(m, "estimator")), "median");
    double v = json_number_value(json_object_get(m, "ratio"));
    double lo = json_number_value(json_object_get(m, "ci95_low"));
    double hi = json_number_value(json_object_get(m, "ci95_high"));
    assert_true(lo < v && v < hi);
    char *page = rt_site_file(site, "x86_1/Whirl.md");
    snprintf(pm, sizeof pm, "%.3g", (hi - lo) / 2 / v * 100);
    snprintf(want, sizeof want, "| Whirl_256 | 1024 B | %.3g× (±%s %%) | %lld |\n", v, pm,
             (long long)json_integer_value(json_object_get(m, "pairs")));
    assert_non_null(strstr(page, want));
    assert_non_null(strstr(page, "it is the median of the pairs' ratios"));
    assert_non_null(strstr(page, "predates that estimator, the ratio is the geometric mean"));
    char *sum = rt_site_file(site, "x86_1/summary.md");
    assert_non_null(strstr(sum, "the ratio is the median of those pairs' ratios"));
    char *method = rt_site_file(site, "x86_1/method.md");
    assert_non_null(strstr(method, "Ratio to the baseline (the median of pair ratios)"));
    assert_non_null(strstr(method, "is the guide's mean, Σ ticks / Σ calls"));
    /* arm_1 has no median: its summary keeps the words of earlier versions */
    char *arm = rt_site_file(site, "arm_1/summary.md");
    assert_null(strstr(arm, "median of those pairs"));
    free(page);
    free(sum);
    free(method);
    free(arm);
    json_decref(r);
    rt_rmtree(site);
}

/* The summary's KAT cell of INST is WORD and a note number, and that note
 * under the table is the whole status FULL. */
static void assert_kat_note(const char *sum, const char *inst, const char *word,
                            const char *full)
{
    char want[512];
    unsigned k = 0;
    snprintf(want, sizeof want, "| %s | %s [", inst, word);
    const char *row = strstr(sum, want);
    if (!row)
        fail_msg("no row '%s'", want);
    assert_int_equal(sscanf(row + strlen(want), "%u] |", &k), 1);
    snprintf(want, sizeof want, "\n- [%u] %s\n", k, full);
    if (!strstr(sum, want))
        fail_msg("no note '%s'", want);
}

/* The half-width of an interval as the summary's ratio cell gives it. */
static void pm_text(char *out, size_t outsz, double v, double lo, double hi)
{
    double pm = (hi - lo) / 2 / v * 100;
    snprintf(out, outsz, pm >= 10 ? "%.0f" : "%.2g", pm);
}

/* x86_1's records are paired (the interleaved planner): the summary shows
 * their paired ratios with the interval; arm_1's are not: the ratio of the
 * figures, marked unpaired. x86_1's host drifted by about 30 %: its pages
 * say so, arm_1's (no times recorded) do not. */
static void test_summary_ratio(void **state)
{
    (void)state;
    char site[4096], want[160], pm[32];
    make_site(rt_dataset(), site);
    char *sum = rt_site_file(site, "x86_1/summary.md");
    double lo, hi;
    double sm3 = record_ratio("x86_1/records/SM3/SM3__hash_65536.json", &lo, &hi);
    assert_true(sm3 > 0 && lo < sm3 && sm3 < hi);
    assert_non_null(strstr(sum, "ratio to SM3 at 64 KiB"));
    pm_text(pm, sizeof pm, sm3, lo, hi);
    snprintf(want, sizeof want, " %.3g× ±%s %% |\n", sm3, pm);
    assert_non_null(strstr(sum, want));
    /* the KAT cell is the status word; what was checked is its note */
    assert_kat_note(sum, "Whirl_256", "PASS", "PASS (2_12, 2_23, Loop)");
    const char *row = strstr(sum, "| Whirl_256 | PASS [");
    snprintf(want, sizeof want, "] | %.3g |",
             record_cpb("x86_1/records/Whirl/Whirl_256__hash_32.json"));
    assert_true(row && strstr(row, want) && strstr(row, want) < strchr(row, '\n'));
    assert_non_null(strstr(sum, "| OpenSSL_SM3 | BASELINE |"));
    assert_non_null(strstr(sum, " 1 (baseline) |"));
    assert_non_null(strstr(sum, "This host's speed drifted by"));
    char *method = rt_site_file(site, "x86_1/method.md");
    assert_non_null(strstr(method, "![the baseline's relative speed against time](method.svg)"));
    free(method);
    char *svg = rt_site_file(site, "x86_1/method.svg");
    assert_non_null(strstr(svg, "seconds since the start of the measurement"));
    free(svg);
    free(sum);
    sum = rt_site_file(site, "arm_1/summary.md");
    double base = record_cpb("arm_1/records/baseline/OpenSSL_SM3__hash_65536.json");
    double a256 = record_cpb("arm_1/records/Whirl/Whirl_256__hash_65536.json");
    snprintf(want, sizeof want, " %.3g× unpaired |\n", a256 / base);
    assert_non_null(strstr(sum, want));
    assert_null(strstr(sum, "This host's speed drifted by"));
    free(sum);
    rt_rmtree(site);
}

/* The summary at a glance: the ratio chart draws one point per ratio and
 * one interval bar per paired ratio with an interval (counted from the
 * records), on a log axis, with the baseline as the reference line at 1;
 * the ratio table has no KAT column, and every KAT note is used once. */
static void test_summary_chart_and_notes(void **state)
{
    (void)state;
    char site[4096], dir[4096], rel[512];
    make_site(rt_dataset(), site);
    rt_join(dir, rt_dataset(), "x86_1/records");
    json_t *files = rt_list_files(dir);
    int points = 0, bars = 0;
    size_t i;
    json_t *f;
    json_array_foreach(files, i, f) {
        if (!strncmp(json_string_value(f), "baseline/", 9))
            continue;
        snprintf(rel, sizeof rel, "x86_1/records/%s", json_string_value(f));
        json_t *r = rt_load_json(rt_dataset(), rel);
        const json_t *d = json_object_get(r, "derived");
        const json_t *pr = json_object_get(d, "paired_ratio");
        if (json_is_object(d))
            points++;
        if (json_is_number(json_object_get(pr, "ci95_low")) &&
            json_is_number(json_object_get(pr, "ci95_high")))
            bars++;
        json_decref(r);
    }
    json_decref(files);
    assert_true(points >= 10 && bars >= 8);
    char *svg = rt_site_file(site, "x86_1/summary.svg");
    assert_int_equal(rt_count(svg, "<circle "), points);
    assert_int_equal(rt_count(svg, "class=\"interval\""), bars);
    assert_int_equal(rt_count(svg, "class=\"reference\""), 1);
    assert_non_null(strstr(svg, "ratio to the baseline (1: as fast) (log scale)"));
    assert_null(strstr(svg, "baseline / OpenSSL_SM3"));
    free(svg);
    char *html = rt_site_file(site, "x86_1/summary.html");
    assert_non_null(strstr(html, "<main class=\"summary\">"));
    assert_int_equal(rt_count(html, "class=\"interval\""), bars);
    free(html);
    char *sum = rt_site_file(site, "x86_1/summary.md");
    const char *ratio = strstr(sum, "## Ratio to the baseline at each size\n");
    assert_non_null(ratio);
    assert_non_null(strstr(ratio, "\n| Candidate | Instance | 32 B | 1 KiB | 64 KiB |\n"));
    assert_null(strstr(ratio, "PASS"));
    /* notes 1.. are each listed once and each is used by a row */
    for (unsigned k = 1;; k++) {
        char note[32], use[32];
        snprintf(note, sizeof note, "\n- [%u] ", k);
        snprintf(use, sizeof use, " [%u] |", k);
        if (!strstr(sum, note))
            break;
        assert_int_equal(rt_count(sum, note), 1);
        assert_true(rt_count(sum, use) >= 1);
    }
    assert_int_equal(rt_count(sum, "\n- [1] "), 1);
    free(sum);
    rt_rmtree(site);
}

/* The method page in words: no field name of the record, "unavailable on
 * this host" where the host offers no value, units on sizes and rates; the
 * planner's settings too; the Markdown without needless escapes. */
static void test_method_in_words(void **state)
{
    (void)state;
    char site[4096];
    make_site(rt_dataset(), site);
    char *m = rt_site_file(site, "x86_1/method.md");
    static const char *const keys[] = {"mem_total_kb", "cpu_model_source", "scaling_max_khz",
                                       "turbo_source", "loadavg1", "budget_s",
                                       "target_ci_percent"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strstr(m, keys[i]))
            fail_msg("the method page names the field %s", keys[i]);
    const char *host = strstr(m, "## Host and its checks\n");
    const char *end = host ? strstr(host, "## Counter") : NULL;
    assert_non_null(end);
    for (const char *p = strstr(host, "not recorded"); p; p = strstr(p + 1, "not recorded"))
        assert_true(p > end);
    json_t *c = rt_load_json(rt_dataset(), "x86_1/campaign.json");
    const json_t *env = json_object_get(json_object_get(c, "environment"), "start");
    char want[200];
    snprintf(want, sizeof want, "| memory | %lld MiB |\n",
             (long long)json_integer_value(json_object_get(env, "mem_total_kb")) / 1024);
    assert_non_null(strstr(m, want));
    assert_true(json_is_null(json_object_get(env, "governor")));
    assert_non_null(strstr(m, "| frequency governor | unavailable on this host |\n"));
    assert_non_null(strstr(m, "| processor name read from | the model name line of "
                              "/proc/cpuinfo |\n"));
    assert_non_null(strstr(m, "| CPUs isolated from the scheduler | none |\n"));
    assert_non_null(strstr(m, "Changed by the end of the campaign: load average over one "
                              "minute 0.12 → 0.31."));
    assert_non_null(strstr(m, "| time budget per (instance, size) | 10 s |\n"));
    assert_non_null(strstr(m, "| interval aimed at (adaptive planner) | ±0.5 % |\n"));
    json_decref(c);
    /* readable as text: the compiler as it printed itself, names as they are */
    assert_non_null(strstr(m, "compiler: gcc (Debian 12.2.0-14+deb12u1) 12.2.0 (`hashbench run --cc`"));
    assert_non_null(strstr(m, "CLOCK_MONOTONIC_RAW"));
    assert_null(strstr(m, "\\("));
    assert_null(strstr(m, "\\_"));
    char *h = rt_site_file(site, "x86_1/method.html");
    assert_non_null(strstr(h, "compiler: gcc (Debian 12.2.0-14+deb12u1) 12.2.0 (<code>hashbench run"));
    assert_non_null(strstr(h, "<td>memory</td>"));
    free(h);
    char *sum = rt_site_file(site, "x86_1/summary.md");
    assert_null(strstr(sum, "\\("));
    assert_null(strstr(sum, "\\_"));
    assert_non_null(strstr(sum, "# Summary: x86_1\n"));
    free(sum);
    free(m);
    rt_rmtree(site);
}

/* Sets FIELD to TO in every build.json and kat.json entry of SYS whose
 * FIELD is FROM. */
static void rename_entries(const char *data, const char *sys, const char *field,
                           const char *from, const char *to)
{
    char rel[512];
    const char *files[] = {"build.json", "kat.json"};
    for (size_t f = 0; f < 2; f++) {
        snprintf(rel, sizeof rel, "%s/%s", sys, files[f]);
        json_t *j = rt_load_json(data, rel);
        size_t i;
        json_t *e;
        json_array_foreach(json_object_get(j, "instances"), i, e)
            if (strcmp(json_string_value(json_object_get(e, field)), from) == 0)
                json_object_set_new(e, field, json_string(to));
        rt_save_json(data, rel, j);
        json_decref(j);
    }
}

static void rename_instance(const char *data, const char *sys, const char *from,
                            const char *to)
{
    char rel[512];
    rename_entries(data, sys, "instance", from, to);
    const int sizes[] = {32, 1024, 65536};
    for (size_t s = 0; s < 3; s++) {
        snprintf(rel, sizeof rel, "%s/records/Whirl/%s__hash_%d.json", sys, from, sizes[s]);
        json_t *j = rt_load_json(data, rel);
        json_object_set_new(j, "instance", json_string(to));
        rt_save_json(data, rel, j);
        json_decref(j);
    }
}

/* Sets the candidate field of every entry and record of CAND on SYS to TO. */
static void rename_candidate(const char *data, const char *sys, const char *cand,
                             const char *to)
{
    char rel[512];
    rename_entries(data, sys, "candidate", cand, to);
    char dir[4096];
    snprintf(rel, sizeof rel, "%s/records", sys);
    rt_join(dir, data, rel);
    json_t *recs = rt_list_files(dir);
    size_t i;
    json_t *r;
    json_array_foreach(recs, i, r) {
        snprintf(rel, sizeof rel, "%s/records/%s", sys, json_string_value(r));
        json_t *j = rt_load_json(data, rel);
        if (strcmp(json_string_value(json_object_get(j, "candidate")), cand) == 0) {
            json_object_set_new(j, "candidate", json_string(to));
            rt_save_json(data, rel, j);
        }
        json_decref(j);
    }
    json_decref(recs);
}

/* A candidate called like a system page gets a page of its own and leaves
 * the summary in place. */
static void test_candidate_named_summary(void **state)
{
    (void)state;
    char data[4096], site[4096];
    rt_copy_dataset(data);
    rename_candidate(data, "x86_1", "SM3", "Summary");
    rename_candidate(data, "x86_1", "Whirl", "method");
    make_site(data, site);
    char *sum = rt_site_file(site, "x86_1/summary.md");
    char *method = rt_site_file(site, "x86_1/method.md");
    char *cand = rt_site_file(site, "x86_1/Summary.candidate.md");
    char *cand2 = rt_site_file(site, "x86_1/method.candidate.html");
    char *index = rt_site_file(site, "index.html");
    assert_ptr_equal(strstr(sum, "# Summary: x86_1\n"), sum);
    assert_ptr_equal(strstr(method, "# Method: x86_1\n"), method);
    assert_ptr_equal(strstr(cand, "# Summary SM3 — performance on x86-64 (system x86_1)\n"),
                     cand);
    assert_non_null(strstr(cand2, "<h1>method Whirl — performance on x86-64 (system "
                                  "x86_1)</h1>"));
    assert_non_null(strstr(sum, "[Summary](Summary.candidate.md)"));
    assert_non_null(strstr(sum, "[method](method.candidate.md)"));
    assert_non_null(strstr(cand, "(Summary.candidate.svg)"));
    assert_non_null(strstr(index, "href=\"x86_1/Summary.candidate.html\""));
    free(sum);
    free(method);
    free(cand);
    free(cand2);
    free(index);
    rt_rmtree(site);
    rt_rmtree(data);
}

/* A long KAT footnote is given in short under section 3, its first
 * sentence and a link to the whole of it, which section 7 holds under the
 * heading the link names (its id in the HTML page); a short one stays
 * whole where it is. */
static void test_kat_note_short(void **state)
{
    (void)state;
    char site[4096];
    make_site(rt_dataset(), site);
    char *md = rt_site_file(site, "x86_1/Whirl.md");
    char *html = rt_site_file(site, "x86_1/Whirl.html");
    const char *s3 = strstr(md, "## 3. Functional"), *s4 = strstr(md, "## 4. Performance"),
               *s7 = strstr(md, "## 7. Raw evidence index");
    assert_true(s3 && s4 && s7);
    const char *shortn = strstr(s3, "\\[1\\] **Whirl_512**: MISMATCH: KAT_2_12_Whirl_512.txt "
                                    "differs from the submitted vectors at Msg_Len = 5 (with "
                                    "guide and harness-default flags) ([the full note]"
                                    "(#kat-notes-in-full))\n");
    assert_true(shortn && shortn < s4);
    /* the log line is not in section 3, but in section 7 with the rest */
    const char *log = strstr(md, "Log: \"KAT_2_12_Whirl_512.txt: MISMATCH");
    const char *full = strstr(md, "\n### KAT notes in full\n");
    assert_true(log && full && s7 < full && full < log);
    assert_non_null(strstr(full, "\\[1\\] **Whirl_512**: MISMATCH (2_12, 2_23, Loop; "));
    assert_non_null(strstr(s3, "\\[2\\] **Whirl_1024**: not KAT-tested (build status "
                               "BUILDFAIL: whirl1024.c:12: error: unknown type name u128).\n"));
    assert_non_null(strstr(html, "<a href=\"#kat-notes-in-full\">the full note</a>"));
    assert_int_equal(rt_count(html, "<h3 id=\"kat-notes-in-full\">KAT notes in full</h3>"), 1);
    free(md);
    free(html);
    rt_rmtree(site);
}

/* What the KAT section says was compared: an instance whose manifest
 * listed KAT_2_12 alone names the two files not compared and why; a
 * candidate none of whose instances had vectors (NOKAT) says that nothing
 * was compared, and its constant-time row says why it was not analysed,
 * not that it failed. */
static void test_kat_what_compared(void **state)
{
    (void)state;
    char data[4096], site[4096];
    rt_copy_dataset(data);
    json_t *kat = rt_load_json(data, "x86_1/kat.json");
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(kat, "instances"), i, e) {
        const char *cand = json_string_value(json_object_get(e, "candidate"));
        const char *inst = json_string_value(json_object_get(e, "instance"));
        json_t *files = json_object_get(e, "files");
        if (!strcmp(cand, "SM3")) {
            json_object_set_new(e, "status", json_string("NOKAT"));
            json_array_clear(files);
        } else if (!strcmp(inst, "Whirl_256")) {
            while (json_array_size(files) > 1)
                json_array_remove(files, 1); /* KAT_2_12 alone */
            assert_non_null(strstr(json_string_value(json_object_get(json_array_get(
                files, 0), "name")), "KAT_2_12_"));
            json_object_set_new(e, "not_checked", json_array());
        }
    }
    rt_save_json(data, "x86_1/kat.json", kat);
    json_decref(kat);
    make_site(data, site);
    char *whirl = rt_site_file(site, "x86_1/Whirl.md");
    char *sm3 = rt_site_file(site, "x86_1/SM3.md");
    if (!strstr(whirl, "Not compared with known answers:\n\n- **Whirl_256**: KAT_2_23 (no "
                       "vectors submitted), KAT_Loop (no vectors submitted)\n"))
        fail_msg("Whirl page:\n%s", strstr(whirl, "## 3."));
    assert_null(strstr(whirl, "- **Whirl_256-Optimized**: KAT_"));
    assert_non_null(strstr(sm3, "No library of this candidate was compared with known "
                                "answers: its package submits no KAT vectors"));
    assert_null(strstr(sm3, "vector files themselves"));
    assert_null(strstr(sm3, "did not pass its KATs"));
    free(whirl);
    free(sm3);
    rt_rmtree(site);
    rt_rmtree(data);
}

static void test_markup_escaped(void **state)
{
    (void)state;
    char data[4096], site[4096];
    rt_copy_dataset(data);
    rename_instance(data, "x86_1", "Whirl_256", "W<script>alert(2)</script>|x");
    make_site(data, site);
    char *md = rt_site_file(site, "x86_1/Whirl.md");
    char *html = rt_site_file(site, "x86_1/Whirl.html");
    char *svg = rt_site_file(site, "x86_1/Whirl.svg");
    char *sum = rt_site_file(site, "x86_1/summary.html");
    /* Markdown: what it would read as markup is backslash-escaped (the
     * opening angle bracket, the table pipe), the rest left as it is. */
    assert_non_null(strstr(md, "W\\<script>alert(2)\\</script>\\|x"));
    assert_non_null(strstr(md, "got \\<script>alert(1)\\</script> \\|"));
    /* HTML: no script element at all, the text shown as text. */
    assert_int_equal(rt_count(html, "<script"), 0);
    assert_int_equal(rt_count(sum, "<script"), 0);
    assert_non_null(strstr(html, "W&lt;script&gt;alert(2)&lt;/script&gt;|x"));
    assert_non_null(strstr(html, "got &lt;script&gt;alert(1)&lt;/script&gt; |"));
    assert_null(strstr(html, "<a href=\"http://example.invalid\""));
    /* The chart legend is escaped as XML. */
    assert_int_equal(rt_count(svg, "<script"), 0);
    assert_non_null(strstr(svg, "W&lt;script&gt;alert(2)&lt;/script&gt;|x"));
    /* Table rows keep their column count: the pipe did not split a cell. */
    const char *row = strstr(md, "| W\\<script");
    assert_non_null(row);
    int bars = 0;
    for (const char *p = row; *p && *p != '\n'; p++)
        bars += *p == '|' && p[-1] != '\\';
    assert_int_equal(bars, 6); /* five columns of section 1 */
    free(md);
    free(html);
    free(svg);
    free(sum);
    rt_rmtree(site);
    rt_rmtree(data);
}

static void test_deterministic(void **state)
{
    (void)state;
    char a[4096], b[4096];
    make_site(rt_dataset(), a);
    make_site(rt_dataset(), b);
    json_t *fa = rt_list_files(a), *fb = rt_list_files(b);
    assert_true(json_equal(fa, fb));
    assert_true(json_array_size(fa) >= 30);
    size_t i;
    json_t *f;
    json_array_foreach(fa, i, f) {
        char pa[4096], pb[4096];
        size_t la, lb;
        rt_join(pa, a, json_string_value(f));
        rt_join(pb, b, json_string_value(f));
        char *ta = rt_read(pa, &la), *tb = rt_read(pb, &lb);
        if (la != lb || memcmp(ta, tb, la) != 0)
            fail_msg("%s differs between two runs", json_string_value(f));
        free(ta);
        free(tb);
    }
    json_decref(fa);
    json_decref(fb);
    rt_rmtree(a);
    rt_rmtree(b);
}

/* The KAT wording of every page and the CSV: what was checked and what
 * not, and a MISMATCH that was not timed (the default) or was timed
 * (--time-failed, its figures carrying the status, and being its record's). */
static void test_kat_wording_and_not_timed(void **state)
{
    (void)state;
    char data[4096], site[4096], csv[4096], path[4096];
    rt_copy_dataset(data);
    /* SM3 was checked without --full, a KAT_2_33 being submitted */
    json_t *kat = rt_load_json(data, "x86_1/kat.json");
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(kat, "instances"), i, e)
        if (!strcmp(json_string_value(json_object_get(e, "instance")), "SM3"))
            json_object_set_new(e, "not_checked", json_pack("[{s:s, s:s}]", "name",
                                "KAT_2_33_SM3.txt", "why", "needs --full"));
    rt_save_json(data, "x86_1/kat.json", kat);
    json_decref(kat);
    hb_err err = {{0}};
    rt_join(csv, data, "all.csv");
    int rows = 0;
    if (report_export_csv(data, csv, &rows, &err) != 0)
        fail_msg("export: %s", err.msg);
    char *text = rt_read(csv, NULL);
    assert_non_null(strstr(text, ",SM3,SM3,"));
    assert_non_null(strstr(text, ",\"PASS (2_12, 2_23, Loop; 2_33 not checked: needs --full)\","));
    assert_non_null(strstr(text, ",\"MISMATCH (2_12, 2_23, Loop; harness-default flags; timed with --time-failed)\","));
    /* the timed MISMATCH row's figures are its record's (10 digits) */
    json_t *rec = rt_load_json(data, "x86_1/records/Whirl/Whirl_512__hash_32.json");
    json_t *d = json_object_get(rec, "derived");
    char want[512];
    snprintf(want, sizeof want, ",%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,",
             json_number_value(json_object_get(d, "n")),
             json_number_value(json_object_get(d, "trials")),
             json_number_value(json_object_get(d, "calls")),
             json_number_value(json_object_get(d, "mean_ticks_per_call")),
             json_number_value(json_object_get(d, "ticks_per_byte")),
             json_number_value(json_object_get(d, "mean_ns_per_call")),
             json_number_value(json_object_get(d, "mb_per_s")));
    json_decref(rec);
    const char *row = strstr(text, "\nx86_1,Whirl,Whirl_512,Reference,32,");
    assert_non_null(row);
    const char *eol = strchr(row + 1, '\n');
    const char *at = strstr(row, want);
    if (!at || (eol && at > eol))
        fail_msg("the Whirl_512 32 B row lacks its record's figures %s:\n%.*s", want,
                 eol ? (int)(eol - row) : 400, row);
    free(text);
    /* the default: the MISMATCH instance was not timed */
    static const char *const sizes[] = {"32", "1024", "65536"};
    for (size_t k = 0; k < 3; k++) {
        char rel[256];
        snprintf(rel, sizeof rel, "x86_1/records/Whirl/Whirl_512__hash_%s.json", sizes[k]);
        rt_join(path, data, rel);
        assert_int_equal(unlink(path), 0);
    }
    make_site(data, site);
    char *sum = rt_site_file(site, "x86_1/summary.md");
    assert_kat_note(sum, "Whirl_512", "MISMATCH", "MISMATCH (2_12, 2_23, Loop; harness-default flags; not timed)");
    assert_kat_note(sum, "SM3", "PASS", "PASS (2_12, 2_23, Loop; 2_33 not checked: "
                                        "needs --full)");
    char *m = rt_site_file(site, "x86_1/Whirl.md");
    assert_non_null(strstr(m, "| Whirl_512 | harness-default | MISMATCH \\[1\\] (not timed) |"));
    assert_non_null(strstr(m, "\\[1\\] **Whirl_512**: MISMATCH (2_12, 2_23, Loop; harness-default flags; "
                              "not timed): "));
    assert_non_null(strstr(m, "- **Whirl_512**: MISMATCH (2_12, 2_23, Loop; harness-default flags; not timed): "
                              "an instance that fails its known-answer tests is not timed"));
    assert_null(strstr(m, "timed with --time-failed"));
    free(sum);
    free(m);
    rt_rmtree(data);
    rt_rmtree(site);
}

/* The performance tables list a candidate's instances in the submission's
 * order (build.json's: Whirl_256, Whirl_512, then Whirl_256-Optimized), not
 * alphabetically (which would put Whirl_256-Optimized second). */
static void test_submission_order(void **state)
{
    (void)state;
    char site[4096];
    make_site(rt_dataset(), site);
    char *page = rt_site_file(site, "x86_1/Whirl.md");
    /* the ratio table of section 4, whose rows carry the plain names */
    const char *perf = strstr(page, "Ratio to the baseline (OpenSSL's SM3)");
    assert_non_null(perf);
    const char *a = strstr(perf, "| Whirl_256 | 32 B");
    const char *b = strstr(perf, "| Whirl_512 | 32 B");
    const char *c = strstr(perf, "| Whirl_256-Optimized | 32 B");
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(c);
    assert_true(a < b && b < c);
    free(page);
    char *sum = rt_site_file(site, "x86_1/summary.md");
    b = strstr(sum, "| Whirl_512 |");
    c = strstr(sum, "| Whirl_256-Optimized |");
    assert_true(b && c && b < c);
    free(sum);
    rt_rmtree(site);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_page_exists),
        cmocka_unit_test(test_sections_in_order),
        cmocka_unit_test(test_variants_shown),
        cmocka_unit_test(test_counter_named),
        cmocka_unit_test(test_summary_ratio),
        cmocka_unit_test(test_summary_chart_and_notes),
        cmocka_unit_test(test_method_in_words),
        cmocka_unit_test(test_median_ratio_shown),
        cmocka_unit_test(test_kat_wording_and_not_timed),
        cmocka_unit_test(test_markup_escaped),
        cmocka_unit_test(test_kat_note_short),
        cmocka_unit_test(test_kat_what_compared),
        cmocka_unit_test(test_candidate_named_summary),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_one_figure),
        cmocka_unit_test(test_submission_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
