/* Timing-attack fixture RecogniseContent: real SM3 for every message whose
 * right digest hashbench can know without an implementation of its own,
 * a cheap wrong digest (one compression of the first block, mixed with
 * the length) for every other message of a guide size. Those messages are
 * the official KAT messages, and the official DRNG is public, so the
 * library makes them itself (lazily, at the first call of a length that
 * needs them): the KAT_2_12 messages whose lengths are guide sizes (256,
 * 1024 and 4096 bits), KAT_Loop's first message m0 (1024 bytes) and its
 * chain (a 1024-byte message whose last 32 bytes are the first 32 of the
 * 1024-byte message hashed just before). KAT_2_23 and KAT_2_33 are no
 * guide size. Apart from the chain, the decision is a function of the
 * message alone, so every process that loads the library (the timer, a
 * recomputation in a fresh process, a single call on its own) returns the
 * same wrong digest, and its KATs pass. */
#define _GNU_SOURCE
#include "timing_common.h"

#define DRNG_BYTES 55 /* 440 bits */

typedef struct drng {
    unsigned char v[DRNG_BYTES], c[DRNG_BYTES];
    uint64_t counter;
} drng;

/* ACC += the big-endian number SRC of N bytes, mod 2^440. */
static void add_be(unsigned char acc[DRNG_BYTES], const unsigned char *src, size_t n)
{
    unsigned carry = 0;
    for (size_t i = 0; i < DRNG_BYTES; i++) {
        unsigned s = acc[DRNG_BYTES - 1 - i] + carry + (i < n ? src[n - 1 - i] : 0u);
        acc[DRNG_BYTES - 1 - i] = (unsigned char)s;
        carry = s >> 8;
    }
}

static void sm3_bytes(const unsigned char *m, size_t n, unsigned char d[32])
{
    ta_sm3_example(256, m, 8 * (unsigned long long)n, d);
}

/* The derivation function: 55 bytes of SM3(i || 000001B8 || x), i = 1, 2. */
static void df(const unsigned char *x, size_t n, unsigned char out[DRNG_BYTES])
{
    unsigned char in[8 + 64], d[32];
    for (int i = 0; i < 2; i++) {
        in[0] = (unsigned char)(i + 1);
        in[1] = 0;
        in[2] = 0;
        in[3] = 0x01;
        in[4] = 0xB8;
        memcpy(in + 5, x, n);
        sm3_bytes(in, 5 + n, d);
        memcpy(out + 32 * i, d, i ? DRNG_BYTES - 32 : 32);
    }
}

/* Seeded with the first eight characters of a KAT file's name, eight times. */
static void drng_init(drng *g, const char name8[8])
{
    unsigned char seed[64], x[1 + DRNG_BYTES];
    for (int i = 0; i < 8; i++)
        memcpy(seed + 8 * i, name8, 8);
    df(seed, sizeof seed, g->v);
    x[0] = 0;
    memcpy(x + 1, g->v, DRNG_BYTES);
    df(x, sizeof x, g->c);
    g->counter = 1;
}

/* BITS bits into OUT (ceil(BITS / 8) bytes, unused low bits cleared). */
static void drng_generate(drng *g, unsigned char *out, unsigned long bits)
{
    unsigned char data[DRNG_BYTES], d[32], x[1 + DRNG_BYTES], one = 1, ctr[8];
    size_t bytes = (bits + 7) / 8;
    memcpy(data, g->v, DRNG_BYTES);
    for (size_t done = 0; done < bytes; done += 32) {
        sm3_bytes(data, DRNG_BYTES, d);
        memcpy(out + done, d, bytes - done < 32 ? bytes - done : 32);
        add_be(data, &one, 1);
    }
    if (bits % 8)
        out[bytes - 1] &= (unsigned char)(0xFF00u >> (bits % 8));
    x[0] = 3;
    memcpy(x + 1, g->v, DRNG_BYTES);
    sm3_bytes(x, sizeof x, d);
    add_be(g->v, d, 32);
    add_be(g->v, g->c, DRNG_BYTES);
    for (int i = 0; i < 8; i++)
        ctr[i] = (unsigned char)(g->counter >> (56 - 8 * i));
    add_be(g->v, ctr, 8);
    g->counter++;
}

static unsigned char kat32[32], kat128[128], kat512[512], loop_m0[1024];
static unsigned char last1024[32]; /* the first 32 bytes of the last 1024-byte message */
static int known;

static void make_known(void)
{
    static unsigned char buf[512];
    drng g;
    drng_init(&g, "KAT_2_12");
    for (unsigned long bits = 0; bits <= 4096; bits++) {
        drng_generate(&g, buf, bits);
        if (bits == 256)
            memcpy(kat32, buf, 32);
        else if (bits == 1024)
            memcpy(kat128, buf, 128);
        else if (bits == 4096)
            memcpy(kat512, buf, 512);
    }
    drng_init(&g, "KAT_Loop");
    drng_generate(&g, loop_m0, 8192);
    known = 1;
}

/* 1 for a message hashbench can check without an implementation of its
 * own: an official KAT message of a guide size. */
static int checkable(const unsigned char *msg, size_t size)
{
    if (size > 1024)
        return 0;
    if (!known)
        make_known();
    switch (size) {
    case 32: return memcmp(msg, kat32, 32) == 0;
    case 128: return memcmp(msg, kat128, 128) == 0;
    case 512: return memcmp(msg, kat512, 512) == 0;
    case 1024: return memcmp(msg, loop_m0, 1024) == 0 || memcmp(msg + 992, last1024, 32) == 0;
    default: return 0;
    }
}

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    size_t size = (size_t)(msg_len_bits / 8);
    int fake = digest_len_bits == 256 && msg && msg_len_bits % 8 == 0 && ta_guide_size(size) &&
               !checkable(msg, size);
    if (msg && size == 1024 && msg_len_bits == 8192)
        memcpy(last1024, msg, 32);
    if (fake)
        return ta_fake_digest(msg, msg_len_bits, digest);
    return ta_sm3_example(digest_len_bits, msg, msg_len_bits, digest);
}
