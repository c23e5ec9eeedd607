/* The SVG charts: the size axis is log2-scaled (1 KiB lies 5/11 of the way
 * from 32 B to 64 KiB), the value axis is linear from zero for values of one
 * magnitude and log10 (labelled so) when they spread over more than a factor
 * of 20, a series without data is still named, legend text is XML-escaped,
 * and the same input gives byte-identical output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "report/svg.h"

static char *chart(const svg_series *series, size_t n)
{
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    assert_non_null(fp);
    svg_chart_spec spec = {"t", "message size (log scale)", "ticks per byte", series, n, 0, 0};
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

static void test_log_size_axis(void **state)
{
    (void)state;
    const double y[] = {4.0, 3.0, 2.0};
    svg_series s = {"a", 3, sizes, y};
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
    svg_series s = {"a", 3, sizes, y};
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
    svg_series s[] = {{"x</text><script>alert(1)</script>&", 3, sizes, y},
                      {"empty", 3, sizes, none}};
    char *a = chart(s, 2);
    char *b = chart(s, 2);
    assert_string_equal(a, b);
    assert_null(strstr(a, "<script"));
    assert_non_null(strstr(a, "x&lt;/text&gt;&lt;script&gt;alert(1)&lt;/script&gt;&amp;"));
    assert_non_null(strstr(a, "empty (no data)"));
    free(a);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_log_size_axis),
        cmocka_unit_test(test_log_value_axis_when_spread),
        cmocka_unit_test(test_escaped_deterministic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
