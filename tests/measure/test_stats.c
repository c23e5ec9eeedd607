/* Derived statistics against independent oracles: a hand-computed small
 * case, a straightforward long-double reimplementation on pseudo-random
 * trials (with disturbed ones left out), the t table checked by numerically
 * integrating Student's t density, and the record round trip. */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_case),
        cmocka_unit_test(test_one_trial_and_errors),
        cmocka_unit_test(test_against_reimplementation),
        cmocka_unit_test(test_t_table),
        cmocka_unit_test(test_record_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
