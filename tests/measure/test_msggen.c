/* The keyed message generator (measure/msggen.h) against an independent
 * oracle: the ChaCha20 block function test vectors of RFC 8439 (appendix
 * A.1: nonce zero, block counters 0, 1 and 1), and, for the key 00 01 .. 1f,
 * stream bytes computed once with a separate ChaCha20 written in Python
 * (and confirmed with Python's `cryptography` package) at offsets that are
 * not multiples of 64. Also: any slice equals the same bytes of one long
 * fill, two fresh keys differ, and the hex form reads back. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/digest.h"
#include "measure/msggen.h"

static void unhex(const char *hex, unsigned char *out)
{
    size_t n = strlen(hex);
    assert_int_equal(hb_hex_decode(hex, n, out), (long)(n / 2));
}

/* Asserts that LEN bytes of KEY's stream from OFFSET are HEX. */
static void expect_stream(const msggen_key *key, unsigned long long offset, const char *hex)
{
    size_t n = strlen(hex) / 2;
    unsigned char want[256], got[256];
    hb_err err;
    assert_true(n <= sizeof want);
    unhex(hex, want);
    memset(got, 0xA5, sizeof got);
    assert_int_equal(msggen_fill(key, offset, got, n, &err), 0);
    assert_memory_equal(got, want, n);
    assert_int_equal(got[n], 0xA5); /* nothing written past LEN */
}

/* RFC 8439 A.1, test vectors 1 and 2 (all-zero key and nonce, block
 * counters 0 and 1) and 3 (key ending in 01, block counter 1). */
static void test_rfc8439_vectors(void **state)
{
    (void)state;
    msggen_key zero = {{0}}, one = {{0}};
    one.k[31] = 1;
    expect_stream(&zero, 0,
        "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7"
        "da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586");
    expect_stream(&zero, 64,
        "9f07e7be5551387a98ba977c732d080dcb0f29a048e3656912c6533e32ee7aed"
        "29b721769ce64e43d57133b074d839d531ed1f28510afb45ace10a1f4b794d6f");
    expect_stream(&one, 64,
        "3aeb5224ecf849929b9d828db1ced4dd832025e8018b8160b82284f3c949aa5a"
        "8eca00bbb4a73bdad192b5c42f73f2fd4e273644c8b36125a64addeb006c13a0");
}

/* Key 00 01 .. 1f: slices at offsets that are not multiples of 64, and the
 * SHA-256 of its first 64 KiB, from the Python oracle. */
static void test_unaligned_offsets(void **state)
{
    (void)state;
    msggen_key k;
    for (int i = 0; i < 32; i++)
        k.k[i] = (unsigned char)i;
    expect_stream(&k, 1, "fd2b7dd9c5");
    expect_stream(&k, 63, "0c18b8");
    expect_stream(&k, 100, "d1ee3c5d9d815824640e003c9ba0f65ede5d59ce0d2a4a7f31955acd42f22ddc"
                           "a74a92d56ca78aef");
    expect_stream(&k, 4095, "328ec398dbc360e8c70a68076eae6a3e27884a1f05d04af099998ecacf673c37"
                            "7768d8be7f4f16f0bb781b7ac70da0a9a632a37176d8578b9f7cb655eec6da9c"
                            "64024df46c8d");
    expect_stream(&k, 65526, "bec6e90cb61969c20c");
    unsigned char *buf = malloc(65536);
    char hex[HB_SHA256_HEX];
    hb_err err;
    assert_non_null(buf);
    assert_int_equal(msggen_fill(&k, 0, buf, 65536, &err), 0);
    hb_sha256_buf_hex(buf, 65536, hex);
    assert_string_equal(hex, "4eac79ef7b5abe25b165ec416b302bfd422946a7bd7afc84c144937d1f561ce1");
    free(buf);
}

/* Message i of a window is its own slice of one stream, wherever it is
 * asked from: every (offset, length) of a grid equals the long fill. */
static void test_slices_of_one_stream(void **state)
{
    (void)state;
    msggen_key k;
    hb_err err;
    size_t total = 300000;
    unsigned char *all = malloc(total), *part = malloc(total);
    assert_non_null(all);
    assert_non_null(part);
    assert_int_equal(msggen_new_key(&k, &err), 0);
    assert_int_equal(msggen_fill(&k, 0, all, total, &err), 0);
    static const size_t sizes[] = {1, 32, 63, 64, 65, 1000, 4096, 65537};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (unsigned long long off = 0; off + sizes[s] <= total; off += 9973 + sizes[s]) {
            assert_int_equal(msggen_fill(&k, off, part, sizes[s], &err), 0);
            assert_memory_equal(part, all + off, sizes[s]);
        }
    free(all);
    free(part);
}

static void test_fresh_keys_differ(void **state)
{
    (void)state;
    msggen_key a, b;
    unsigned char sa[64], sb[64];
    hb_err err;
    assert_int_equal(msggen_new_key(&a, &err), 0);
    assert_int_equal(msggen_new_key(&b, &err), 0);
    assert_memory_not_equal(a.k, b.k, sizeof a.k);
    assert_int_equal(msggen_fill(&a, 0, sa, sizeof sa, &err), 0);
    assert_int_equal(msggen_fill(&b, 0, sb, sizeof sb, &err), 0);
    assert_memory_not_equal(sa, sb, sizeof sa);
}

static void test_hex_round_trip(void **state)
{
    (void)state;
    msggen_key k, back;
    char hex[MSGGEN_KEY_HEX], upper[MSGGEN_KEY_HEX];
    hb_err err;
    assert_int_equal(msggen_new_key(&k, &err), 0);
    msggen_key_hex(&k, hex);
    assert_int_equal(strlen(hex), 64);
    assert_int_equal(msggen_key_parse(hex, &back), 0);
    assert_memory_equal(k.k, back.k, sizeof k.k);
    for (int i = 0; i < 65; i++)
        upper[i] = (char)(hex[i] >= 'a' && hex[i] <= 'f' ? hex[i] - 32 : hex[i]);
    memset(&back, 0, sizeof back);
    assert_int_equal(msggen_key_parse(upper, &back), 0);
    assert_memory_equal(k.k, back.k, sizeof k.k);
    /* Refused: too short, too long, a non-hex digit; the key is unchanged. */
    char bad[80];
    snprintf(bad, sizeof bad, "%.63s", hex);
    assert_int_equal(msggen_key_parse(bad, &back), -1);
    snprintf(bad, sizeof bad, "%s0", hex);
    assert_int_equal(msggen_key_parse(bad, &back), -1);
    snprintf(bad, sizeof bad, "%s", hex);
    bad[10] = 'g';
    assert_int_equal(msggen_key_parse(bad, &back), -1);
    assert_int_equal(msggen_key_parse(NULL, &back), -1);
    assert_memory_equal(k.k, back.k, sizeof k.k);
}

/* The end of the stream a key gives: the last byte is there, one more is
 * refused with a message that says what to do. */
static void test_stream_end(void **state)
{
    (void)state;
    msggen_key k = {{0}};
    unsigned char b[2];
    hb_err err;
    assert_int_equal(msggen_fill(&k, MSGGEN_STREAM_BYTES - 1, b, 1, &err), 0);
    assert_int_equal(msggen_fill(&k, MSGGEN_STREAM_BYTES - 1, b, 2, &err), -1);
    assert_non_null(strstr(err.msg, "fresh key"));
    assert_int_equal(msggen_fill(&k, MSGGEN_STREAM_BYTES, b, 0, &err), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfc8439_vectors),
        cmocka_unit_test(test_unaligned_offsets),
        cmocka_unit_test(test_slices_of_one_stream),
        cmocka_unit_test(test_fresh_keys_differ),
        cmocka_unit_test(test_hex_round_trip),
        cmocka_unit_test(test_stream_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
