/* The official DRNG against the check values printed in SPEC §3 (the
 * independent oracle): the 20 successive draws of the KAT_2_12 generator,
 * the ends of KAT_2_23's random 2^23-bit message and the start of
 * KAT_Loop's 8192-bit message; plus the seed expansion. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "common/digest.h"
#include "kat/drng.h"

static void seeded(drng *d, const char *text)
{
    unsigned char seed[DRNG_SEED_BYTES];
    hb_err err;
    drng_seed_text(text, seed);
    assert_int_equal(drng_init(d, seed, sizeof seed, &err), 0);
}

static void draw_hex(drng *d, unsigned long long bits, char *hex)
{
    size_t n = (size_t)((bits + 7) / 8);
    unsigned char buf[16];
    hb_err err;
    assert_true(n <= sizeof buf);
    assert_int_equal(drng_generate(d, buf, bits, &err), 0);
    hb_hex_encode(buf, n, hex, 1);
}

static void test_kat_2_12_check_values(void **state)
{
    static const char *const expect[20] = {
        "", "80", "40", "A0", "90", "C0", "A8", "50", "3D", "0E00", "0A00",
        "AC20", "58C0", "1250", "21BC", "10B2", "408D", "7A8B80", "A1D2C0", "21A780"};
    drng d;
    char hex[40];
    (void)state;
    seeded(&d, "KAT_2_12");
    for (unsigned bits = 0; bits < 20; bits++) {
        draw_hex(&d, bits, hex);
        assert_string_equal(hex, expect[bits]);
    }
    drng_free(&d);
}

static void test_long_messages(void **state)
{
    drng d;
    size_t n = (1u << 23) / 8;
    unsigned char *m = malloc(n);
    char hex[33];
    hb_err err;
    (void)state;
    assert_non_null(m);
    seeded(&d, "KAT_2_23");
    assert_int_equal(drng_generate(&d, m, 1ULL << 23, &err), 0);
    hb_hex_encode(m, 8, hex, 1);
    assert_string_equal(hex, "B6E2C825BE0E7D79");
    hb_hex_encode(m + n - 8, 8, hex, 1);
    assert_string_equal(hex, "70B7D148BC6FCCEC");
    drng_free(&d);
    seeded(&d, "KAT_Loop");
    assert_int_equal(drng_generate(&d, m, 8192, &err), 0);
    hb_hex_encode(m, 16, hex, 1);
    assert_string_equal(hex, "2D911820A8ED087902CCFEEAD2C91785");
    drng_free(&d);
    free(m);
}

static void test_seed_text(void **state)
{
    unsigned char seed[DRNG_SEED_BYTES];
    (void)state;
    drng_seed_text("abc", seed);
    assert_memory_equal(seed, "abcabcabca", 10);
    assert_int_equal(seed[63], 'a'); /* 63 % 3 == 0 */
    drng_seed_text("KAT_2_12", seed);
    for (int i = 0; i < 8; i++)
        assert_memory_equal(seed + 8 * i, "KAT_2_12", 8);
}

/* The state advances on a 0-bit call: drawing 0 then 8 bits differs from
 * drawing 8 bits first (the check values show the same, this names it). */
static void test_zero_bits_advance(void **state)
{
    drng a, b;
    char ha[3], hb[3];
    (void)state;
    seeded(&a, "KAT_2_12");
    seeded(&b, "KAT_2_12");
    draw_hex(&a, 0, ha);
    draw_hex(&a, 8, ha);
    draw_hex(&b, 8, hb);
    assert_string_not_equal(ha, hb);
    drng_free(&a);
    drng_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kat_2_12_check_values),
        cmocka_unit_test(test_long_messages),
        cmocka_unit_test(test_seed_text),
        cmocka_unit_test(test_zero_bits_advance),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
