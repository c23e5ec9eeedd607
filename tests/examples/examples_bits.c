/* The bit-length side of the example instances, which OpenSSL cannot check
 * directly (it hashes whole bytes only):
 * - SHA-256 and SHA-512 against an independent oracle: the test lays out the
 *   FIPS 180-4 bit padding of an L-bit message itself and runs OpenSSL's
 *   compression function (SHA256_Transform / SHA512_Transform) over it; the
 *   oracle is first shown to agree with EVP on byte-aligned lengths.
 * - SHA-3 and SHAKE256 against a bit-level sponge written here from FIPS 202
 *   (a list of bits, suffix and pad10*1 appended bit by bit, round constants
 *   from the LFSR), shown to agree with OpenSSL on byte-aligned lengths, and
 *   applying the documented partial-byte convention: the k bits at the top
 *   of the last byte, shifted down, absorbed as k bits.
 * - Every instance: the invariants of the MSB-first partial-byte convention
 *   (the bits below the k used ones of the last byte do not matter, every
 *   used bit does, and appending a zero bit changes the digest), including
 *   the specification's 11-bit example AC 20.
 * - Every instance: the argument checks of the official interface. */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <openssl/evp.h>
#include <openssl/sha.h>

#include "example_load.h"

#define EX_ORACLE_MAX_BITS 2100

/* The padded message of an L-bit message for a Merkle-Damgard hash with
 * BLOCK-byte blocks and an LENFIELD-byte big-endian length; returns its
 * size. PADDED must hold L / 8 + 1 + LENFIELD + BLOCK bytes. */
static size_t ex_md_pad(const unsigned char *msg, unsigned long long len_bits,
                        size_t block, size_t lenfield, unsigned char *padded)
{
    size_t used = (size_t)(len_bits / 8), total, i;
    unsigned partial = (unsigned)(len_bits % 8);

    total = (used + 1 + lenfield + block - 1) / block * block;
    memset(padded, 0, total);
    memcpy(padded, msg, used + (partial ? 1 : 0));
    if (partial)
        padded[used] &= (unsigned char)(0xFF << (8 - partial));
    padded[used] |= (unsigned char)(0x80 >> partial);
    for (i = 0; i < 8; i++)
        padded[total - 1 - i] = (unsigned char)(len_bits >> (8 * i));
    return total;
}

/* SHA-256 (BITS = 256) or SHA-512 (BITS = 512) of an L-bit message: the
 * padding laid out here, OpenSSL's compression function over it. */
static void ex_oracle_sha2(int bits, const unsigned char *msg,
                           unsigned long long len_bits, unsigned char *out)
{
    unsigned char padded[EX_ORACLE_MAX_BITS / 8 + 256];
    size_t block = bits == 256 ? 64 : 128, i;
    size_t n = ex_md_pad(msg, len_bits, block, block / 8, padded);

    if (bits == 256) {
        SHA256_CTX c;
        SHA256_Init(&c);
        for (i = 0; i < n; i += block)
            SHA256_Transform(&c, padded + i);
        for (i = 0; i < 32; i++)
            out[i] = (unsigned char)(c.h[i / 4] >> (24 - 8 * (i % 4)));
    } else {
        SHA512_CTX c;
        SHA512_Init(&c);
        for (i = 0; i < n; i += block)
            SHA512_Transform(&c, padded + i);
        for (i = 0; i < 64; i++)
            out[i] = (unsigned char)(c.h[i / 8] >> (56 - 8 * (i % 8)));
    }
}

/* Every length 0..EX_ORACLE_MAX_BITS bits of one random message. */
static void ex_check_bit_oracle(int index, const EVP_MD *md)
{
    static const unsigned char spec_example[2] = { 0xAC, 0x20 };
    ex_instance in = ex_instance_table[index];
    unsigned char msg[EX_ORACLE_MAX_BITS / 8 + 1];
    unsigned char got[EX_MAX_DIGEST], want[EX_MAX_DIGEST], evp[EX_MAX_DIGEST];
    size_t dbytes = (size_t)in.digest_bits / 8;
    unsigned long long seed = 11, len;
    int checked = 0;

    ex_load(&in);
    ex_rand_fill(&seed, msg, sizeof msg);
    for (len = 0; len <= EX_ORACLE_MAX_BITS; len++, checked++) {
        unsigned char keep = msg[len / 8];
        /* the caller's side of the convention: unused low bits are zero */
        if (len % 8)
            msg[len / 8] &= (unsigned char)(0xFF << (8 - len % 8));
        ex_oracle_sha2(in.digest_bits, msg, len, want);
        if (len % 8 == 0) {
            /* the oracle itself, on lengths OpenSSL can hash */
            assert_int_equal(EVP_Digest(msg, (size_t)(len / 8), evp, NULL, md, NULL), 1);
            assert_memory_equal(want, evp, dbytes);
        }
        ex_hash(&in, msg, len, got);
        msg[len / 8] = keep;
        if (memcmp(got, want, dbytes) != 0)
            fail_msg("%s: %llu-bit message differs from the padding oracle",
                     in.name, len);
    }
    ex_oracle_sha2(in.digest_bits, spec_example, 11, want);
    ex_hash(&in, spec_example, 11, got);
    assert_memory_equal(got, want, dbytes);
    ex_unload(&in);
    printf("%s: %d bit-length messages (0..%d bits, and the 11-bit AC 20) "
           "agree with the padding oracle\n", in.name, checked, EX_ORACLE_MAX_BITS);
}

static void test_sha256_bit_oracle(void **state)
{
    (void)state;
    ex_check_bit_oracle(1, EVP_sha256());
}

static void test_sha512_bit_oracle(void **state)
{
    (void)state;
    ex_check_bit_oracle(2, EVP_sha512());
}

/* FIPS 202 rho offsets r[x][y]. */
static const unsigned ex_rho[5][5] = {
    { 0, 36, 3, 41, 18 }, { 1, 44, 10, 45, 2 }, { 62, 6, 43, 15, 61 },
    { 28, 55, 25, 21, 56 }, { 27, 20, 39, 8, 14 }
};

/* rc(t) of FIPS 202 Algorithm 5: the LFSR x^8 + x^6 + x^5 + x^4 + 1. */
static uint64_t ex_rc_bit(unsigned t)
{
    unsigned r = 1;
    for (t %= 255; t > 0; t--) {
        r <<= 1;
        if (r & 0x100)
            r ^= 0x171;
    }
    return r & 1;
}

static uint64_t ex_rotl(uint64_t v, unsigned n)
{
    return n ? (v << n) | (v >> (64 - n)) : v;
}

static void ex_keccak_p(uint64_t a[5][5])
{
    unsigned ir, x, y, j;
    for (ir = 0; ir < 24; ir++) {
        uint64_t c[5], b[5][5], rc = 0;
        for (x = 0; x < 5; x++)
            c[x] = a[x][0] ^ a[x][1] ^ a[x][2] ^ a[x][3] ^ a[x][4];
        for (x = 0; x < 5; x++)
            for (y = 0; y < 5; y++)
                a[x][y] ^= c[(x + 4) % 5] ^ ex_rotl(c[(x + 1) % 5], 1);
        for (x = 0; x < 5; x++)
            for (y = 0; y < 5; y++)
                b[y][(2 * x + 3 * y) % 5] = ex_rotl(a[x][y], ex_rho[x][y]);
        for (x = 0; x < 5; x++)
            for (y = 0; y < 5; y++)
                a[x][y] = b[x][y] ^ (~b[(x + 1) % 5][y] & b[(x + 2) % 5][y]);
        for (j = 0; j <= 6; j++)
            rc |= ex_rc_bit(j + 7 * ir) << ((1u << j) - 1);
        a[0][0] ^= rc;
    }
}

#define EX_SPONGE_MAX_BITS 4096

/* SPONGE[c](BITS || SUFFIX || pad10*1) truncated to OUT_BITS; BITS is a list
 * of N bits, one per byte, in Keccak order. */
static void ex_sponge_bits(const unsigned char *bits, size_t n, const char *suffix,
                           unsigned rate, unsigned out_bits, unsigned char *out)
{
    unsigned char s[EX_SPONGE_MAX_BITS];
    uint64_t a[5][5];
    size_t len = n, i, j;

    assert_true(n + 8 + 2 * rate < sizeof s);
    memcpy(s, bits, n);
    for (; *suffix; suffix++)
        s[len++] = (unsigned char)(*suffix == '1');
    s[len++] = 1;
    while ((len + 1) % rate != 0)
        s[len++] = 0;
    s[len++] = 1;
    memset(a, 0, sizeof a);
    for (i = 0; i < len; i += rate) {
        for (j = 0; j < rate; j++)
            a[(j / 64) % 5][(j / 64) / 5] ^= (uint64_t)s[i + j] << (j % 64);
        ex_keccak_p(a);
    }
    memset(out, 0, out_bits / 8);
    for (i = 0; i < out_bits; i++) {
        j = i % rate;
        if (i > 0 && j == 0)
            ex_keccak_p(a);
        out[i / 8] |= (unsigned char)(((a[(j / 64) % 5][(j / 64) / 5] >> (j % 64)) & 1) << (i % 8));
    }
}

/* The documented bit order: whole bytes LSB first, then the top K bits of
 * the partial byte shifted down, LSB first. Returns the bit count. */
static size_t ex_message_bits(const unsigned char *msg, unsigned long long len,
                              unsigned char *bits)
{
    size_t n = 0, i;
    unsigned j, k = (unsigned)(len % 8);
    for (i = 0; i < len / 8; i++)
        for (j = 0; j < 8; j++)
            bits[n++] = (msg[i] >> j) & 1;
    for (j = 0; j < k; j++)
        bits[n++] = (unsigned char)((msg[len / 8] >> (8 - k)) >> j) & 1;
    return n;
}

static void test_sha3_bit_oracle(void **state)
{
    static const unsigned whole[] = { 0, 1, 70, 71, 72, 134, 135, 136, 137, 200 };
    unsigned char msg[256], bits[EX_SPONGE_MAX_BITS];
    unsigned char got[EX_MAX_DIGEST], want[EX_MAX_DIGEST];
    unsigned long long seed = 3;
    int i;
    (void)state;

    for (i = 3; i < EX_INSTANCES; i++) {
        ex_instance in = ex_instance_table[i];
        int shake = strncmp(in.name, "SHAKE256", 8) == 0, checked = 0;
        unsigned rate = 1600 - (shake ? 512 : 2 * (unsigned)in.digest_bits);
        const EVP_MD *md = shake ? EVP_shake256()
                         : in.digest_bits == 256 ? EVP_sha3_256() : EVP_sha3_512();
        unsigned dbytes = (unsigned)in.digest_bits / 8, w, k;

        ex_load(&in);
        for (w = 0; w < sizeof whole / sizeof whole[0]; w++) {
            for (k = 0; k < 8; k++, checked++) {
                unsigned long long len = 8ull * whole[w] + k;
                size_t n;
                ex_rand_fill(&seed, msg, sizeof msg);
                if (k)
                    msg[whole[w]] &= (unsigned char)(0xFF << (8 - k));
                n = ex_message_bits(msg, len, bits);
                ex_sponge_bits(bits, n, shake ? "1111" : "01", rate, 8 * dbytes, want);
                if (k == 0) {
                    /* the oracle itself, on lengths OpenSSL can hash */
                    unsigned char evp[EX_MAX_DIGEST];
                    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
                    assert_int_equal(EVP_DigestInit_ex(ctx, md, NULL), 1);
                    assert_int_equal(EVP_DigestUpdate(ctx, msg, whole[w]), 1);
                    if (shake)
                        assert_int_equal(EVP_DigestFinalXOF(ctx, evp, dbytes), 1);
                    else
                        assert_int_equal(EVP_DigestFinal_ex(ctx, evp, NULL), 1);
                    EVP_MD_CTX_free(ctx);
                    assert_memory_equal(want, evp, dbytes);
                }
                ex_hash(&in, msg, len, got);
                if (memcmp(got, want, dbytes) != 0)
                    fail_msg("%s: %llu-bit message differs from the bit-level "
                             "sponge", in.name, len);
            }
        }
        ex_unload(&in);
        printf("%s: %d bit-length messages agree with the bit-level sponge\n",
               in.name, checked);
    }
}

/* The invariants of one L-bit message with a partial last byte; returns the
 * number of digests compared. */
static int ex_check_partial(const ex_instance *in, unsigned char *msg,
                            unsigned long long len)
{
    unsigned char base[EX_MAX_DIGEST], other[EX_MAX_DIGEST];
    size_t dbytes = (size_t)in->digest_bits / 8, last = (size_t)(len / 8);
    unsigned k = (unsigned)(len % 8), bit;
    int compared = 0;

    msg[last] &= (unsigned char)(0xFF << (8 - k));
    ex_hash(in, msg, len, base);
    for (bit = 0; bit < 8; bit++, compared++) {
        unsigned char mask = (unsigned char)(0x80 >> bit);
        msg[last] ^= mask;
        ex_hash(in, msg, len, other);
        msg[last] ^= mask;
        if (bit < k && memcmp(base, other, dbytes) == 0)
            fail_msg("%s: %llu bits: used bit %u of the last byte is ignored",
                     in->name, len, bit);
        if (bit >= k && memcmp(base, other, dbytes) != 0)
            fail_msg("%s: %llu bits: unused bit %u of the last byte changes "
                     "the digest", in->name, len, bit);
    }
    /* the same bits plus one zero bit are another message */
    ex_hash(in, msg, len + 1, other);
    if (memcmp(base, other, dbytes) == 0)
        fail_msg("%s: %llu and %llu bits give the same digest", in->name,
                 len, len + 1);
    return compared + 1;
}

static void test_partial_byte_invariants(void **state)
{
    /* byte counts around the block sizes 64, 72, 128 and 136 */
    static const unsigned long long whole[] = { 0, 1, 55, 56, 63, 64, 71, 72,
                                                111, 112, 127, 128, 135, 136, 200 };
    unsigned char msg[256];
    unsigned long long seed = 7;
    int i;

    (void)state;
    for (i = 0; i < EX_INSTANCES; i++) {
        ex_instance in = ex_instance_table[i];
        unsigned char spec[2] = { 0xAC, 0x20 };
        size_t w;
        unsigned k;
        int compared;

        ex_load(&in);
        compared = ex_check_partial(&in, spec, 11);
        for (w = 0; w < sizeof whole / sizeof whole[0]; w++)
            for (k = 1; k < 8; k++) {
                ex_rand_fill(&seed, msg, sizeof msg);
                compared += ex_check_partial(&in, msg, 8 * whole[w] + k);
            }
        ex_unload(&in);
        printf("%s: partial-byte invariants hold (%d digests compared)\n",
               in.name, compared);
    }
}

/* Wrong sizes and NULL pointers are refused without touching the digest. */
static void test_bad_arguments(void **state)
{
    int i;
    (void)state;
    for (i = 0; i < EX_INSTANCES; i++) {
        ex_instance in = ex_instance_table[i];
        const int sizes[] = { 0, -1, in.digest_bits - 8, in.digest_bits + 8, 160 };
        unsigned char out[EX_MAX_DIGEST], empty[EX_MAX_DIGEST], fill[EX_MAX_DIGEST];
        size_t s;

        ex_load(&in);
        for (s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            assert_int_not_equal(ex_hash_bits(&in, sizes[s], NULL, 0, out), 0);
            memset(fill, EX_CANARY, sizeof fill);
            assert_memory_equal(out, fill, (size_t)in.digest_bits / 8);
        }
        memset(out, 0, sizeof out);
        assert_int_not_equal(in.hash(in.digest_bits, NULL, 8, out), 0);
        assert_int_not_equal(in.hash(in.digest_bits, (const unsigned char *)"a", 8, NULL), 0);
        assert_int_equal(in.hash(in.digest_bits, NULL, 0, out), 0);
        ex_hash(&in, (const unsigned char *)"", 0, empty);
        assert_memory_equal(out, empty, (size_t)in.digest_bits / 8);
        ex_unload(&in);
    }
    printf("argument checks hold for all %d instances\n", EX_INSTANCES);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sha256_bit_oracle),
        cmocka_unit_test(test_sha512_bit_oracle),
        cmocka_unit_test(test_sha3_bit_oracle),
        cmocka_unit_test(test_partial_byte_invariants),
        cmocka_unit_test(test_bad_arguments),
    };
    return cmocka_run_group_tests_name("examples_bits", tests, NULL, NULL);
}
