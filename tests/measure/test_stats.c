/* Derived statistics against independent oracles: a hand-computed small
 * case, a straightforward long-double reimplementation on pseudo-random
 * trials (with disturbed ones left out), the t table checked by numerically
 * integrating Student's t density, and the record round trip. The median of
 * pair ratios: a hand-computed case (every pair counts, disturbed ones
 * included), block lengths by hand, its bootstrap against the separate
 * Python implementation in tests/report/make_data.py, its determinism, its
 * resistance to slow trials on one side, and how records old and new are
 * recomputed. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "measure/stats.h"

#define CLOSE(a, b) assert_true(fabs((double)(a) - (double)(b)) <= 1e-9 * (fabs((double)(b)) + 1))

static void test_hand_case(void **state)
{
    (void)state;
    /* trial means 100, 120, 110; a disturbed trial that must not count */
    stats_trial t[] = {{.calls = 10, .ticks = 1000, .ns = 500, .disturbed = 0}, {.calls = 10, .ticks = 1200, .ns = 600, .disturbed = 0},
                       {.calls = 10, .ticks = 99999, .ns = 1, .disturbed = 1}, {.calls = 10, .ticks = 1100, .ns = 400, .disturbed = 0}};
    stats_derived d;
    hb_err err;
    assert_int_equal(stats_derive(t, 4, 50, STATS_CI_IID, &d, &err), 0);
    assert_int_equal(d.n, 30);
    assert_int_equal(d.calls, 30);
    assert_int_equal(d.trials, 3);
    CLOSE(d.mean_ticks_per_call, 110);
    CLOSE(d.ticks_per_byte, 2.2);
    CLOSE(d.mean_ns_per_call, 50);
    /* 50 bytes per 50 ns = 1e9 B/s = 1000 MB/s */
    CLOSE(d.mb_per_s, 1000);
    CLOSE(d.median_trial_mean, 110);
    CLOSE(d.min_trial_mean, 100);
    CLOSE(d.max_trial_mean, 120);
    CLOSE(d.q1_trial_mean, 105);
    CLOSE(d.q3_trial_mean, 115);
    CLOSE(d.cv_percent, 10.0 / 110.0 * 100.0);
    double half = 4.3027 * 10.0 / sqrt(3.0);
    CLOSE(d.ci95_low, 110 - half);
    CLOSE(d.ci95_high, 110 + half);
    CLOSE(d.ci95_rel_percent, half / 110 * 100);
}

static void test_one_trial_and_errors(void **state)
{
    (void)state;
    stats_trial t[] = {{.calls = 4, .ticks = 400, .ns = 100, .disturbed = 0}, {.calls = 4, .ticks = 1, .ns = 1, .disturbed = 1}};
    stats_derived d;
    hb_err err;
    assert_int_equal(stats_derive(t, 1, 0, STATS_CI_IID, &d, &err), 0);
    CLOSE(d.median_trial_mean, 100);
    assert_true(isnan(d.cv_percent) && isnan(d.ci95_low) && isnan(d.ticks_per_byte));
    json_t *j = stats_derived_json(&d);
    assert_true(json_is_null(json_object_get(j, "ci95_low")));
    json_decref(j);
    assert_int_equal(stats_derive(t + 1, 1, 32, STATS_CI_IID, &d, &err), -1);
    assert_non_null(strstr(err.msg, "no undisturbed trial"));
    stats_trial z = {.calls = 0, .ticks = 5, .ns = 5, .disturbed = 0};
    assert_int_equal(stats_derive(&z, 1, 32, STATS_CI_IID, &d, &err), -1);
}

static int cmp_ld(const void *a, const void *b)
{
    long double x = *(const long double *)a, y = *(const long double *)b;
    return (x > y) - (x < y);
}

/* R's type 7 quantile written with one-based positions. */
static long double quantile7(const long double *x, size_t n, double p)
{
    long double pos = 1 + (long double)(n - 1) * p;
    size_t j = (size_t)pos;
    long double g = pos - j;
    if (j >= n)
        return x[n - 1];
    return (1 - g) * x[j - 1] + g * x[j];
}

static void test_against_reimplementation(void **state)
{
    (void)state;
    unsigned long long seed = 12345;
    for (int round = 0; round < 50; round++) {
        size_t n = 2 + (size_t)(round % 37);
        stats_trial t[64];
        long double means[64], st = 0, sn = 0, sc = 0;
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            t[i].calls = 50 + (seed >> 33) % 500;
            t[i].ticks = (double)t[i].calls * (1000.0 + (double)((seed >> 20) % 100));
            t[i].ns = t[i].ticks / 2.4;
            t[i].disturbed = i > 1 && (seed >> 40) % 7 == 0;
            if (t[i].disturbed)
                continue;
            means[k++] = (long double)t[i].ticks / t[i].calls;
            st += t[i].ticks;
            sn += t[i].ns;
            sc += t[i].calls;
        }
        unsigned size = 64u << (round % 6);
        stats_derived d;
        hb_err err;
        assert_int_equal(stats_derive(t, n, size, STATS_CI_IID, &d, &err), 0);
        assert_int_equal(d.trials, k);
        long double mean = st / sc;
        CLOSE(d.mean_ticks_per_call, mean);
        CLOSE(d.ticks_per_byte, mean / size);
        CLOSE(d.mean_ns_per_call, sn / sc);
        CLOSE(d.mb_per_s, (size * sc) / (sn / 1e9L) / 1e6L);
        qsort(means, k, sizeof means[0], cmp_ld);
        CLOSE(d.min_trial_mean, means[0]);
        CLOSE(d.max_trial_mean, means[k - 1]);
        CLOSE(d.median_trial_mean, quantile7(means, k, 0.5));
        CLOSE(d.q1_trial_mean, quantile7(means, k, 0.25));
        CLOSE(d.q3_trial_mean, quantile7(means, k, 0.75));
        long double m = 0, v = 0;
        for (size_t i = 0; i < k; i++)
            m += means[i] / k;
        for (size_t i = 0; i < k; i++)
            v += (means[i] - m) * (means[i] - m) / (k - 1);
        CLOSE(d.cv_percent, sqrtl(v) / m * 100);
        long double half = stats_t95((int)k - 1) * sqrtl(v) / sqrtl(k);
        CLOSE(d.ci95_high - d.ci95_low, 2 * half);
        CLOSE(d.ci95_rel_percent, half / mean * 100);
    }
}

/* Student's t density integrated by Simpson's rule from 0 to T. */
static double t_cdf(double t, int df)
{
    double nu = df;
    double c = exp(lgamma((nu + 1) / 2) - lgamma(nu / 2)) / sqrt(nu * M_PI);
    int steps = 200000;
    double h = t / steps, s = 0;
    for (int i = 0; i <= steps; i++) {
        double x = i * h;
        double f = c * pow(1 + x * x / nu, -(nu + 1) / 2);
        s += f * (i == 0 || i == steps ? 1 : (i % 2 ? 4 : 2));
    }
    return 0.5 + s * h / 3;
}

static void test_t_table(void **state)
{
    (void)state;
    int dfs[] = {1, 2, 3, 4, 5, 7, 10, 15, 20, 25, 30, 40, 60, 120};
    for (size_t i = 0; i < sizeof dfs / sizeof dfs[0]; i++) {
        double p = t_cdf(stats_t95(dfs[i]), dfs[i]);
        assert_true(fabs(p - 0.975) < 2e-5);
    }
    /* between rows: the smaller df (wider); beyond: the normal quantile */
    assert_true(stats_t95(35) == stats_t95(30));
    assert_true(stats_t95(1000) == 1.96);
    assert_true(isnan(stats_t95(0)));
    for (int df = 1; df < 130; df++)
        assert_true(stats_t95(df + 1) <= stats_t95(df));
}

static void test_record_round_trip(void **state)
{
    (void)state;
    json_error_t je;
    json_t *rec = json_loads(
        "{\"size_bytes\": 100, \"trials\": ["
        "{\"calls\": 10, \"ticks\": 2000, \"ns\": 800, \"disturbed\": false},"
        "{\"calls\": 10, \"ticks\": 2200, \"ns\": 900, \"disturbed\": false},"
        "{\"calls\": 10, \"ticks\": 9000, \"ns\": 100, \"disturbed\": true}]}",
        0, &je);
    assert_non_null(rec);
    json_t *d;
    hb_err err;
    assert_int_equal(stats_derive_record(rec, "r.json", &d, &err), 0);
    CLOSE(json_real_value(json_object_get(d, "mean_ticks_per_call")), 210);
    CLOSE(json_real_value(json_object_get(d, "ticks_per_byte")), 2.1);
    assert_int_equal(json_integer_value(json_object_get(d, "n")), 20);
    /* field order as in docs/FORMATS.md */
    const char *order[] = {"n", "trials", "calls", "mean_ticks_per_call",
        "ticks_per_byte", "mean_ns_per_call", "mb_per_s", "median_trial_mean",
        "min_trial_mean", "max_trial_mean", "q1_trial_mean", "q3_trial_mean",
        "cv_percent", "ci95_low", "ci95_high", "ci95_rel_percent"};
    size_t i = 0;
    const char *key;
    json_t *v;
    json_object_foreach(d, key, v) {
        assert_true(i < 16);
        assert_string_equal(key, order[i++]);
    }
    assert_int_equal(i, 16);
    json_decref(d);
    json_object_del(json_array_get(json_object_get(rec, "trials"), 1), "disturbed");
    assert_int_equal(stats_derive_record(rec, "r.json", &d, &err), -1);
    assert_non_null(strstr(err.msg, "r.json"));
    assert_non_null(strstr(err.msg, "disturbed"));
    json_decref(rec);
}

/* Pairs whose baseline trial costs 1000 ticks a call: ratio = ticks / 1000 / calls. */
static void pairs_of(stats_trial *t, const double *ticks, size_t n)
{
    for (size_t i = 0; i < n; i++)
        t[i] = (stats_trial){.calls = 1, .ticks = ticks[i], .ns = 100, .paired = 1,
                             .pair_calls = 1, .pair_ticks = 1000};
}

static void test_median_hand_case(void **state)
{
    (void)state;
    /* ratios 1.2, 1.0, 5.0 (a spike), 1.1, 0.9 (its trial marked disturbed),
     * 1.05; a pair whose baseline has no figure; a trial without a pair */
    stats_trial t[8];
    const double ticks[] = {1200, 1000, 5000, 1100, 900, 1050, 1300, 1400};
    pairs_of(t, ticks, 8);
    t[4].disturbed = 1;
    t[2].pair_disturbed = 1;
    t[6].pair_ticks = 0;
    t[7].paired = 0;
    stats_derived d;
    hb_err err = {{0}};
    assert_int_equal(stats_derive(t, 8, 64, STATS_CI_BATCH, &d, &err), 0);
    assert_int_equal(d.pairs, 4); /* the geometric mean leaves disturbed pairs out */
    assert_int_equal(stats_derive_median(t, 8, 100, 42, &d, &err), 0);
    assert_true(d.median.on);
    assert_int_equal(d.median.pairs, 6);
    /* sorted 0.9 1.0 1.05 1.1 1.2 5.0: (1.05 + 1.1) / 2 */
    CLOSE(d.median.ratio, 1.075);
    /* instance per call sorted 900 1000 1050 1100 1200 5000, h = 0.5 */
    CLOSE(d.median.p10_ticks_per_call, 950);
    CLOSE(d.median.p10_baseline_ticks_per_call, 1000);
    CLOSE(d.median.p10_ratio, 0.95);
    assert_int_equal(d.median.block, 3); /* 4^3 >= 6^2, capped at ceil(6 / 2) */
    assert_int_equal(d.median.resamples, 100);
    assert_true(d.median.ci95_low < d.median.ratio && d.median.ratio < d.median.ci95_high);
    /* no pair with figures on both sides: nothing, and no failure */
    assert_int_equal(stats_derive_median(t + 6, 2, 100, 42, &d, &err), 0);
    assert_false(d.median.on);
    /* too few pairs for an interval: the point alone */
    assert_int_equal(stats_derive_median(t, 2, 100, 42, &d, &err), 0);
    CLOSE(d.median.ratio, 1.1);
    assert_true(isnan(d.median.ci95_low) && isnan(d.median.ci95_high));
    /* resamples out of range */
    assert_int_equal(stats_derive_median(t, 6, 0, 42, &d, &err), -1);
    assert_int_equal(stats_derive_median(t, 6, STATS_MEDIAN_MAX_RESAMPLES + 1, 42, &d,
                                         &err), -1);
}

static void test_block_length(void **state)
{
    (void)state;
    /* the least L with L^3 >= p^2, at most ceil(p / 2), by hand */
    const size_t p[] = {0, 1, 2, 4, 5, 8, 9, 16, 27, 28, 64, 125, 1000};
    const size_t l[] = {0, 1, 1, 2, 3, 4, 5, 7, 9, 10, 16, 25, 100};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
        assert_int_equal(stats_block_length(p[i]), l[i]);
}

/* The bootstrap against the Python implementation in tests/report/make_data.py
 * (median_ratio, its own ChaCha20 and sorting): for these nine pairs and 200
 * resamples it gave the figures below (printed with %.17g). */
static void test_median_against_python(void **state)
{
    (void)state;
    stats_trial t[9];
    const double ticks[] = {1210, 980, 1500, 1105, 1010, 990, 1320, 1045, 1075};
    pairs_of(t, ticks, 9);
    unsigned long long seed = stats_median_seed(t, 9);
    assert_true(seed == 0xb7ae0ac6dbc0b69fULL);
    stats_derived d;
    hb_err err = {{0}};
    assert_int_equal(stats_derive_median(t, 9, 200, seed, &d, &err), 0);
    assert_int_equal(d.median.block, 5);
    CLOSE(d.median.ratio, 1.075);
    assert_true(fabs(d.median.ci95_low - 0.75578704339664937) < 1e-12);
    assert_true(fabs(d.median.ci95_high - 1.3942129566033505) < 1e-12);
    assert_true(fabs(d.median.ci95_rel_percent - 29.694228521241921) < 1e-10);
    CLOSE(d.median.p10_ticks_per_call, 988);
}

/* The same seed gives the same interval, bit for bit; another seed another
 * interval around the same point. */
static void test_median_deterministic(void **state)
{
    (void)state;
    double r[40];
    for (int i = 0; i < 40; i++)
        r[i] = 1.5 + 0.01 * sin(i * 1.7) + 0.002 * (i % 7);
    stats_median_ratio a, b, c;
    hb_err err = {{0}};
    assert_int_equal(stats_median_ratio_of(r, 40, 500, 7, &a, &err), 0);
    assert_int_equal(stats_median_ratio_of(r, 40, 500, 7, &b, &err), 0);
    assert_int_equal(stats_median_ratio_of(r, 40, 500, 8, &c, &err), 0);
    assert_memory_equal(&a.ci95_low, &b.ci95_low, sizeof a.ci95_low);
    assert_memory_equal(&a.ci95_high, &b.ci95_high, sizeof a.ci95_high);
    assert_true(a.ratio == c.ratio);
    assert_true(a.ci95_low != c.ci95_low);
    assert_true(a.ci95_low < a.ratio && a.ratio < a.ci95_high);
    assert_true(c.ci95_low < c.ratio && c.ratio < c.ci95_high);
    /* the input is left as it was */
    assert_true(r[0] == 1.5 + 0.0 + 0.0);
    r[3] = -1;
    assert_int_equal(stats_median_ratio_of(r, 40, 500, 7, &a, &err), -1);
}

/* Slowing some of the instance's trials (fewer than half) never lowers the
 * median and raises it by at most as many order statistics, where the mean
 * of the ratios follows the spikes. */
static void test_median_spike_resistance(void **state)
{
    (void)state;
    enum { N = 21 };
    double ticks[N], sorted[N];
    stats_trial t[N];
    for (int i = 0; i < N; i++)
        ticks[i] = 1000.0 + 1.0 * ((i * 8) % N); /* ratios 1.000 .. 1.020, shuffled */
    pairs_of(t, ticks, N);
    stats_derived before, after;
    hb_err err = {{0}};
    assert_int_equal(stats_derive_median(t, N, 100, 1, &before, &err), 0);
    CLOSE(before.median.ratio, 1.010);
    double mean_before = 0, mean_after = 0;
    for (int i = 0; i < N; i++)
        mean_before += t[i].ticks / 1000.0 / N;
    for (int i = 0; i < N; i += 4) /* 6 trials three times slower */
        t[i].ticks *= 3;
    for (int i = 0; i < N; i++) {
        mean_after += t[i].ticks / 1000.0 / N;
        sorted[i] = ticks[i] / 1000.0;
    }
    assert_int_equal(stats_derive_median(t, N, 100, 1, &after, &err), 0);
    stats_median(sorted, N);
    assert_true(after.median.ratio >= before.median.ratio);
    assert_true(after.median.ratio <= sorted[N / 2 + 6]);
    assert_true(after.median.ratio - before.median.ratio < 0.01);
    assert_true(mean_after - mean_before > 0.5); /* the mean of ratios: +0.57 */
}

/* A record being written gets the median (seed by the rule); a recorded
 * one is recomputed with its own seed and resamples; an older record (no
 * median) is recomputed without it; a median this version does not know
 * fails naming the file. */
static void test_median_in_records(void **state)
{
    (void)state;
    json_error_t je;
    json_t *rec = json_loads(
        "{\"size_bytes\": 64, \"plan\": {\"interval\": \"batch_means\"}, \"trials\": ["
        "{\"calls\": 10, \"ticks\": 12000, \"ns\": 800, \"disturbed\": false, \"pair\":"
        " {\"calls\": 10, \"ticks\": 10000, \"disturbed\": false}},"
        "{\"calls\": 10, \"ticks\": 13000, \"ns\": 800, \"disturbed\": true, \"pair\":"
        " {\"calls\": 10, \"ticks\": 10000, \"disturbed\": false}},"
        "{\"calls\": 10, \"ticks\": 11000, \"ns\": 800, \"disturbed\": false, \"pair\":"
        " {\"calls\": 10, \"ticks\": 10000, \"disturbed\": false}}]}", 0, &je);
    assert_non_null(rec);
    json_t *d;
    hb_err err = {{0}};
    assert_int_equal(stats_derive_record(rec, "r.json", &d, &err), 0);
    json_t *m = json_object_get(d, "paired_ratio");
    assert_non_null(m);
    assert_int_equal(json_integer_value(json_object_get(m, "pairs")), 3);
    CLOSE(json_real_value(json_object_get(m, "ratio")), 1.2);
    assert_string_equal(json_string_value(json_object_get(m, "estimator")), STATS_MEDIAN_NAME);
    assert_int_equal(json_integer_value(json_object_get(m, "resamples")),
                     STATS_MEDIAN_RESAMPLES);
    /* as recorded: another seed and resamples are followed */
    json_object_set(rec, "derived", d);
    json_object_set_new(m, "seed", json_string("00000000000000ff"));
    json_object_set_new(m, "resamples", json_integer(30));
    json_t *again;
    assert_int_equal(stats_derive_record(rec, "r.json", &again, &err), 0);
    json_t *m2 = json_object_get(again, "paired_ratio");
    assert_string_equal(json_string_value(json_object_get(m2, "seed")), "00000000000000ff");
    assert_int_equal(json_integer_value(json_object_get(m2, "resamples")), 30);
    json_decref(again);
    /* unknown estimator, bad seed, bad resamples */
    json_object_set_new(m, "interval", json_string("percentile"));
    assert_int_equal(stats_derive_record(rec, "r.json", &again, &err), -1);
    assert_non_null(strstr(err.msg, "r.json"));
    json_object_set_new(m, "interval", json_string(STATS_MEDIAN_INTERVAL));
    json_object_set_new(m, "seed", json_string("xyz"));
    assert_int_equal(stats_derive_record(rec, "r.json", &again, &err), -1);
    assert_non_null(strstr(err.msg, "seed"));
    json_object_set_new(m, "seed", json_string("00000000000000ff"));
    json_object_set_new(m, "resamples", json_integer(STATS_MEDIAN_MAX_RESAMPLES + 1));
    assert_int_equal(stats_derive_record(rec, "r.json", &again, &err), -1);
    assert_non_null(strstr(err.msg, "resamples"));
    /* an older record: a paired ratio without an estimator is the geometric
     * mean of the kept pairs, as it was written */
    json_object_set_new(json_object_get(rec, "derived"), "paired_ratio",
                        json_pack("{s:i}", "pairs", 2));
    assert_int_equal(stats_derive_record(rec, "r.json", &again, &err), 0);
    json_t *g = json_object_get(again, "paired_ratio");
    assert_null(json_object_get(g, "estimator"));
    assert_int_equal(json_integer_value(json_object_get(g, "pairs")), 2);
    CLOSE(json_real_value(json_object_get(g, "ratio")), sqrt(1.2 * 1.1));
    json_decref(again);
    json_decref(d);
    json_decref(rec);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_case),
        cmocka_unit_test(test_one_trial_and_errors),
        cmocka_unit_test(test_against_reimplementation),
        cmocka_unit_test(test_t_table),
        cmocka_unit_test(test_record_round_trip),
        cmocka_unit_test(test_median_hand_case),
        cmocka_unit_test(test_block_length),
        cmocka_unit_test(test_median_against_python),
        cmocka_unit_test(test_median_deterministic),
        cmocka_unit_test(test_median_spike_resistance),
        cmocka_unit_test(test_median_in_records),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
