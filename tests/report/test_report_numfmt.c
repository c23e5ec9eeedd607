/* The published number style (src/report/numfmt.c): counts from 10 000 up
 * as thousands with one decimal and millions (and above) with two, plain
 * integers below; times to three significant digits in ns/µs/ms/s without
 * trailing zeros; cycles/byte and MB/s with one decimal; message sizes in
 * bytes; rounding that carries into the next unit. Expected strings are
 * worked out by hand from the style rules and the published pages' own
 * figures ("367.3 k", "17.22 M", "22 µs", "8.9 µs", "1 ms"). */
#include <setjmp.h>
#include <stdarg.h>
#include <math.h>
#include <stddef.h>
#include <cmocka.h>

#include "report/numfmt.h"

#define CHECK(fn, v, want)                                   \
    do {                                                     \
        char buf_[NUMFMT_MAX];                               \
        assert_string_equal(fn((v), buf_, sizeof buf_), want); \
    } while (0)

static void test_counts(void **state)
{
    (void)state;
    CHECK(numfmt_count, 0.0, "0");
    CHECK(numfmt_count, 4115.2, "4115");
    CHECK(numfmt_count, 9999.4, "9999");
    CHECK(numfmt_count, 9999.6, "10.0 k");
    CHECK(numfmt_count, 10000.0, "10.0 k");
    CHECK(numfmt_count, 18640.0, "18.6 k");
    CHECK(numfmt_count, 18650.1, "18.7 k");
    CHECK(numfmt_count, 140000.0, "140.0 k");
    CHECK(numfmt_count, 367349.0, "367.3 k");
    CHECK(numfmt_count, 826000.0, "826.0 k");
    CHECK(numfmt_count, 999949.0, "999.9 k");
    CHECK(numfmt_count, 999960.0, "1.00 M");
    CHECK(numfmt_count, 1412345.0, "1.41 M");
    CHECK(numfmt_count, 2100000.0, "2.10 M");
    CHECK(numfmt_count, 17221000.0, "17.22 M");
    CHECK(numfmt_count, 999996000.0, "1.00 G");
    CHECK(numfmt_count, 2.5e9, "2.50 G");
}

static void test_times(void **state)
{
    (void)state;
    CHECK(numfmt_time_ns, 12.0, "12 ns");
    CHECK(numfmt_time_ns, 224.4, "224 ns");
    CHECK(numfmt_time_ns, 999.4, "999 ns");
    CHECK(numfmt_time_ns, 999.6, "1 \xc2\xb5s");
    CHECK(numfmt_time_ns, 1700.1, "1.7 \xc2\xb5s");
    CHECK(numfmt_time_ns, 4870.0, "4.87 \xc2\xb5s");
    CHECK(numfmt_time_ns, 8900.2, "8.9 \xc2\xb5s");
    CHECK(numfmt_time_ns, 8912.0, "8.91 \xc2\xb5s");
    CHECK(numfmt_time_ns, 22004.0, "22 \xc2\xb5s");
    CHECK(numfmt_time_ns, 308000.0, "308 \xc2\xb5s");
    CHECK(numfmt_time_ns, 1.0e6, "1 ms");
    CHECK(numfmt_time_ns, 5.1e6, "5.1 ms");
    CHECK(numfmt_time_ns, 2.68e6, "2.68 ms");
    CHECK(numfmt_time_ns, 2.5e9, "2.5 s");
    CHECK(numfmt_time_ns, 0.5, "0.5 ns");
}

static void test_sig3(void **state)
{
    (void)state;
    CHECK(numfmt_sig3, 1.00471, "1.00");
    CHECK(numfmt_sig3, 0.8123, "0.812");
    CHECK(numfmt_sig3, 9.996, "10.0");
    CHECK(numfmt_sig3, 99.96, "100");
    CHECK(numfmt_sig3, 2409.3, "2410");
    CHECK(numfmt_sig3, 0.012345, "0.0123");
    CHECK(numfmt_sig3, 0.0, "0");
}

static void test_bytes_and_sizes(void **state)
{
    (void)state;
    CHECK(numfmt_bytes, 720.0, "720 B");
    CHECK(numfmt_bytes, 1024.0, "1.00 KiB");
    CHECK(numfmt_bytes, 16032.0, "15.7 KiB");
    CHECK(numfmt_bytes, 1536000.0, "1.46 MiB");
    CHECK(numfmt_msg_size, 32, "32 B");
    CHECK(numfmt_msg_size, 1000, "1000 B");
    CHECK(numfmt_msg_size, 1024, "1 KiB");
    CHECK(numfmt_msg_size, 65536, "64 KiB");
    CHECK(numfmt_msg_size, 1048576, "1 MiB");
    CHECK(numfmt_msg_bytes, 32, "32 B");
    CHECK(numfmt_msg_bytes, 65536, "65536 B");
}

static void test_fixed1(void **state)
{
    (void)state;
    CHECK(numfmt_fixed1, 582.63, "582.6");
    CHECK(numfmt_fixed1, 5948.26, "5948.3");
    CHECK(numfmt_fixed1, 3.04, "3.0");
    CHECK(numfmt_fixed1, 0.44, "0.4");
    CHECK(numfmt_fixed1, -0.01, "0.0");
    CHECK(numfmt_fixed1, NAN, "n/a");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts),
        cmocka_unit_test(test_times),
        cmocka_unit_test(test_sig3),
        cmocka_unit_test(test_bytes_and_sizes),
        cmocka_unit_test(test_fixed1),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
