/* The SVG charts: the size axis is log2-scaled (1 KiB lies 5/11 of the way
 * from 32 B to 64 KiB), the value axis is linear from zero for values of one
 * magnitude and log10 (labelled so) when they spread over more than a factor
 * of 20 or when the chart asks for it (ratios), with ticks fine enough to
 * read a narrow range; intervals are drawn as bars from their low to their
 * high end on that axis, series set apart at each size, a reference line at
 * its value; a series without data is still named, legend text is
 * XML-escaped, and the same input gives byte-identical output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "report/svg.h"

/* The two chart helpers are not inlined: gcc's optimiser (-O3) otherwise
 * takes the buffer open_memstream returns for a pointer to the helper's own
 * variable and warns of a dangling pointer (-Wdangling-pointer). */

__attribute__((noinline)) static char *chart_spec(const svg_chart_spec *spec)
{
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    assert_non_null(fp);
    assert_int_equal(svg_chart(fp, spec), 0);
    assert_int_equal(fclose(fp), 0);
    return text;
}

__attribute__((noinline)) static char *chart(const svg_series *series, size_t n)
{
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    assert_non_null(fp);
    svg_chart_spec spec = {"t", "message size (log scale)", "ticks per byte", series, n, 0, 0,
                           0, 0.0};
    assert_int_equal(svg_chart(fp, &spec), 0);
    assert_int_equal(fclose(fp), 0);
    return text;
}

/* The cx and cy of the K-th data point (circle) in TEXT. */
static void point(const char *text, int k, double *cx, double *cy)
{
    const char *p = text;
    for (int i = 0; i <= k; i++) {
        p = strstr(p, "<circle cx=\"");
        assert_non_null(p);
        p += strlen("<circle cx=\"");
    }
    assert_int_equal(sscanf(p, "%lf\" cy=\"%lf\"", cx, cy), 2);
}

static const double sizes[] = {32, 1024, 65536};

static int rt_count_str(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static void test_log_size_axis(void **state)
{
    (void)state;
    const double y[] = {4.0, 3.0, 2.0};
    svg_series s = {"a", 3, sizes, y, NULL, NULL};
    char *text = chart(&s, 1);
    double x0, x1, x2, y0, y1, y2;
    point(text, 0, &x0, &y0);
    point(text, 1, &x1, &y1);
    point(text, 2, &x2, &y2);
    assert_true(x0 < x1 && x1 < x2);
    assert_true(fabs((x1 - x0) / (x2 - x0) - 5.0 / 11.0) < 0.002);
    /* Linear value axis from zero: equal steps of y, equal steps of height. */
    assert_true(fabs((y1 - y0) - (y2 - y1)) < 0.15);
    assert_null(strstr(text, "ticks per byte (log scale)"));
    assert_non_null(strstr(text, ">0</text>"));
    free(text);
}

static void test_log_value_axis_when_spread(void **state)
{
    (void)state;
    const double y[] = {300.0, 30.0, 3.0};
    svg_series s = {"a", 3, sizes, y, NULL, NULL};
    char *text = chart(&s, 1);
    double x, y0, y1, y2;
    point(text, 0, &x, &y0);
    point(text, 1, &x, &y1);
    point(text, 2, &x, &y2);
    /* Each factor of ten is the same height. */
    assert_true(y0 < y1 && y1 < y2);
    assert_true(fabs((y1 - y0) - (y2 - y1)) < 0.15);
    assert_non_null(strstr(text, "ticks per byte (log scale)"));
    assert_non_null(strstr(text, ">2</text>"));
    assert_non_null(strstr(text, ">500</text>"));
    assert_null(strstr(text, ">0</text>"));
    free(text);
}

static void test_escaped_deterministic(void **state)
{
    (void)state;
    const double y[] = {4.0, NAN, 2.0};
    const double none[] = {NAN, NAN, NAN};
    svg_series s[] = {{"x</text><script>alert(1)</script>&", 3, sizes, y, NULL, NULL},
                      {"empty", 3, sizes, none, NULL, NULL}};
    char *a = chart(s, 2);
    char *b = chart(s, 2);
    assert_string_equal(a, b);
    assert_null(strstr(a, "<script"));
    assert_non_null(strstr(a, "x&lt;/text&gt;&lt;script&gt;alert(1)&lt;/script&gt;&amp;"));
    assert_non_null(strstr(a, "empty (no data)"));
    free(a);
    free(b);
}

/* The K-th interval bar of TEXT: its x and the y of its two ends (low
 * end first: the larger y, the axis growing upwards). */
static void bar(const char *text, int k, double *x, double *ylo, double *yhi)
{
    const char *p = text;
    for (int i = 0; i <= k; i++) {
        p = strstr(p, "<path class=\"interval\" d=\"M");
        assert_non_null(p);
        p += strlen("<path class=\"interval\" d=\"M");
    }
    double cap0, cap1, x0, y0;
    assert_int_equal(sscanf(p, "%lf %lfH%lfM%lf %lfV%lf", &cap0, ylo, &cap1, &x0, &y0, yhi), 6);
    assert_true(fabs(y0 - *ylo) < 0.01);
    assert_true(cap0 < x0 && x0 < cap1);
    *x = x0;
}

/* A ratio chart: log axis forced (ratios of one magnitude), each interval a
 * bar whose ends sit at log-scaled heights around its point, the series set
 * apart at each size, the reference line at 1, and no bar where an end is
 * missing. */
static void test_ratio_log_axis_with_intervals(void **state)
{
    (void)state;
    const double ya[] = {0.5, 1.0, 2.0}, lo[] = {0.45, 0.9, 1.6}, hi[] = {0.55, 1.1, 2.5};
    const double yb[] = {1.5, 3.0, 1.2}, lob[] = {1.4, NAN, 1.1}, hib[] = {1.6, 3.2, 1.3};
    svg_series s[] = {{"a", 3, sizes, ya, lo, hi}, {"b", 3, sizes, yb, lob, hib}};
    svg_chart_spec spec = {"t", "size", "ratio", s, 2, 0, 0, 1, 1.0};
    char *text = chart_spec(&spec);
    assert_non_null(strstr(text, "ratio (log scale)"));
    /* 0.5, 1 and 2 equally spaced: a log axis, though max/min is only 6.7 */
    double x0, y0, x1, y1, x2, y2;
    point(text, 0, &x0, &y0);
    point(text, 1, &x1, &y1);
    point(text, 2, &x2, &y2);
    assert_true(y0 > y1 && y1 > y2);
    assert_true(fabs((y0 - y1) - (y1 - y2)) < 0.15);
    double per_decade = (y0 - y1) / log10(2.0);
    /* five bars: b's 1 KiB point has no low end */
    assert_int_equal(rt_count_str(text, "class=\"interval\""), 5);
    double bx, blo, bhi;
    bar(text, 2, &bx, &blo, &bhi); /* a at 64 KiB: 1.6 to 2.5 around 2 */
    assert_true(fabs(bx - x2) < 0.01);
    assert_true(blo > y2 && y2 > bhi);
    assert_true(fabs((blo - y2) - per_decade * log10(2.0 / 1.6)) < 0.2);
    assert_true(fabs((y2 - bhi) - per_decade * log10(2.5 / 2.0)) < 0.2);
    /* b's points are set apart from a's at the same size, symmetrically */
    double xb0, yb0;
    point(text, 3, &xb0, &yb0);
    assert_true(xb0 > x0 && xb0 - x0 < 10.0);
    bar(text, 0, &bx, &blo, &bhi);
    assert_true(fabs(bx - x0) < 0.01);
    /* the reference line at 1 passes through a's 1 KiB point */
    const char *ref = strstr(text, "<line class=\"reference\" x1=\"");
    assert_non_null(ref);
    double rx, ry;
    assert_int_equal(sscanf(ref, "<line class=\"reference\" x1=\"%lf\" y1=\"%lf\"", &rx, &ry), 2);
    assert_true(fabs(ry - y1) < 0.01);
    /* ticks 1-2-5 of each decade, 1/5 to 5 around the reference */
    assert_non_null(strstr(text, ">0.2</text>"));
    assert_non_null(strstr(text, ">5</text>"));
    assert_non_null(strstr(text, ">0.5</text>"));
    assert_non_null(strstr(text, ">1</text>"));
    assert_non_null(strstr(text, ">2</text>"));
    free(text);
}

/* Ratios close to 1 still get a readable log axis: ticks finer than 1-2-5
 * (the axis spans 1/1.1 to 1.1, the same factor either side of 1). */
static void test_narrow_log_axis_ticks(void **state)
{
    (void)state;
    const double y[] = {0.98, 1.0, 1.03};
    svg_series s = {"a", 3, sizes, y, NULL, NULL};
    svg_chart_spec spec = {"t", "size", "ratio", &s, 1, 0, 0, 1, 1.0};
    char *text = chart_spec(&spec);
    assert_non_null(strstr(text, ">0.95</text>"));
    assert_non_null(strstr(text, ">1</text>"));
    assert_non_null(strstr(text, ">1.05</text>"));
    assert_non_null(strstr(text, ">1.1</text>"));
    /* the reference line halfway up the plot */
    const char *ref = strstr(text, "<line class=\"reference\" x1=\"");
    double rx, ry;
    assert_non_null(ref);
    assert_int_equal(sscanf(ref, "<line class=\"reference\" x1=\"%lf\" y1=\"%lf\"", &rx, &ry), 2);
    assert_true(fabs(ry - (44.0 + 150.0)) < 0.1);
    assert_int_equal(rt_count_str(text, "class=\"interval\""), 0);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_log_size_axis),
        cmocka_unit_test(test_log_value_axis_when_spread),
        cmocka_unit_test(test_escaped_deterministic),
        cmocka_unit_test(test_ratio_log_axis_with_intervals),
        cmocka_unit_test(test_narrow_log_axis_ticks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
