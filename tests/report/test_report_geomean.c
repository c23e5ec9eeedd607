/* The one figure per instance (src/report/geomean.c): the geometric mean of
 * per-size figures, leaving out missing ones, and its interval as the
 * geometric means of the per-size bounds (the interval of a mean of logs
 * whose errors may be fully correlated), which is dropped as soon as one
 * used figure has no interval; and the summary's rule of which figure it
 * ranks by. Expected values are worked out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <math.h>
#include <stddef.h>
#include <cmocka.h>

#include "report/geomean.h"
#include "report/pages.h"

static void test_mean_and_interval(void **state)
{
    (void)state;
    /* 2 and 8: geometric mean 4; bounds 1 and 4 -> 2, 4 and 16 -> 8 */
    double v[] = {2, 8}, lo[] = {1, 4}, hi[] = {4, 16};
    geomean_figure g;
    geomean_of(v, lo, hi, 2, &g);
    assert_int_equal(g.n, 2);
    assert_true(fabs(g.value - 4) < 1e-12);
    assert_true(fabs(g.lo - 2) < 1e-12);
    assert_true(fabs(g.hi - 8) < 1e-12);
}

static void test_conservative(void **state)
{
    (void)state;
    /* eight sizes, each ratio 1.2 with +-10 % in log space: the combined
     * half-width stays 10 % (not 10 % / sqrt 8) */
    double v[8], lo[8], hi[8];
    for (int i = 0; i < 8; i++) {
        v[i] = 1.2;
        lo[i] = 1.2 * exp(-0.1);
        hi[i] = 1.2 * exp(0.1);
    }
    geomean_figure g;
    geomean_of(v, lo, hi, 8, &g);
    assert_int_equal(g.n, 8);
    assert_true(fabs(log(g.hi / g.value) - 0.1) < 1e-12);
    assert_true(fabs(log(g.value / g.lo) - 0.1) < 1e-12);
    /* asymmetric bounds keep their asymmetry */
    double v2[] = {1, 1}, lo2[] = {0.5, 1}, hi2[] = {1, 4};
    geomean_of(v2, lo2, hi2, 2, &g);
    assert_true(fabs(g.lo - sqrt(0.5)) < 1e-12);
    assert_true(fabs(g.hi - 2) < 1e-12);
}

static void test_missing(void **state)
{
    (void)state;
    geomean_figure g;
    /* a NaN or non-positive figure is left out, with its bounds */
    double v[] = {NAN, 9, 0, 1}, lo[] = {1, 3, 1, 1}, hi[] = {1, 27, 1, 1};
    geomean_of(v, lo, hi, 4, &g);
    assert_int_equal(g.n, 2);
    assert_true(fabs(g.value - 3) < 1e-12);
    assert_true(fabs(g.lo - sqrt(3)) < 1e-12);
    assert_true(fabs(g.hi - sqrt(27)) < 1e-12);
    /* one used figure without an interval: no interval */
    double lo3[] = {1, NAN, 1, 1};
    geomean_of(v, lo3, hi, 4, &g);
    assert_true(fabs(g.value - 3) < 1e-12);
    assert_true(isnan(g.lo) && isnan(g.hi));
    /* an interval that does not hold its figure is no interval */
    double lo4[] = {1, 10, 1, 1};
    geomean_of(v, lo4, hi, 4, &g);
    assert_true(isnan(g.lo) && isnan(g.hi));
    /* no bounds given, no figure at all */
    geomean_of(v, NULL, NULL, 4, &g);
    assert_true(fabs(g.value - 3) < 1e-12 && isnan(g.lo));
    double none[] = {NAN, -1};
    geomean_of(none, NULL, NULL, 2, &g);
    assert_int_equal(g.n, 0);
    assert_true(isnan(g.value));
}

/* The summary ranks by the ratio, by instructions where the host's ratio
 * drift is above the limit (or nothing is timed), never by instructions
 * where nothing is counted. */
static void test_rank_rule(void **state)
{
    (void)state;
    assert_int_equal(pages_rank_rule(1.5, 5, 5), 0);
    assert_int_equal(pages_rank_rule(RANK_DRIFT_LIMIT_PERCENT, 5, 5), 0);
    assert_int_equal(pages_rank_rule(RANK_DRIFT_LIMIT_PERCENT + 0.1, 5, 5), 1);
    assert_int_equal(pages_rank_rule(NAN, 5, 5), 0);
    assert_int_equal(pages_rank_rule(NAN, 0, 5), 1);
    assert_int_equal(pages_rank_rule(20, 5, 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mean_and_interval),
        cmocka_unit_test(test_conservative),
        cmocka_unit_test(test_missing),
        cmocka_unit_test(test_rank_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
