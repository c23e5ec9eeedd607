/* HOSTILE FIXTURE (tests/robustness/attacks2/WarmupBurn): an honest SM3
 * that spends BURN_MS of CPU time at the start of every untimed warm-up
 * window of its probe session. hashbench runs a few ms of untimed calls of
 * the same session before each timed window; those windows are not timed,
 * sampled nor held to any cost, and a library can tell them (the region
 * still holds the messages of the window before: call 0 of a warm-up hashes
 * the same bytes as call 0 of the window before it). Work there is free for
 * the library's figure: it cannot reach the next window's messages (written
 * after the warm-up), but it burns the host (a shard measured on the other
 * core shares its caches and memory bandwidth) and the campaign's time,
 * bounded only by the window timeout (60 s) and the instance's wall budget.
 * Its digests are the true SM3. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "CryptHash_AlgorithmInstance.h"

#define SM3_BLOCK_BYTES 64

#define BURN_MS 20

/* The start of the session's shared region (the memfd "hb-session" in
 * /proc/self/maps), or NULL outside a session (and in the probe's checks,
 * before the region is mapped). */
static const unsigned char *region(void)
{
    static const unsigned char *base;
    char line[512];
    FILE *f;
    if (base)
        return base; /* looked for again until the region is mapped */
    f = fopen("/proc/self/maps", "r");
    while (f && fgets(line, sizeof line, f))
        if (strstr(line, "hb-session")) {
            base = (const unsigned char *)(size_t)strtoull(line, NULL, 16);
            break;
        }
    if (f)
        fclose(f);
    return base;
}

static double thread_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* At call 0 of a window (the message at the region's start): a warm-up
 * when the bytes are those of the window before, then BURN_MS of spinning. */
static void maybe_burn(const unsigned char *msg, unsigned long long bits)
{
    static unsigned char last[32];
    static int have;
    size_t n = bits / 8 < sizeof last ? (size_t)(bits / 8) : sizeof last;
    if (msg == NULL || msg != region() || n == 0)
        return;
    if (have && memcmp(last, msg, n) == 0) {
        double end = thread_ms() + BURN_MS;
        volatile unsigned long spin = 0;
        while (thread_ms() < end)
            spin++;
    }
    memcpy(last, msg, n);
    have = 1;
}

static uint32_t rotl32(uint32_t x, unsigned n)
{
    n &= 31;
    return n ? (uint32_t)((x << n) | (x >> (32 - n))) : x;
}

static uint32_t load_be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
           (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static uint32_t sm3_p0(uint32_t x) { return x ^ rotl32(x, 9) ^ rotl32(x, 17); }
static uint32_t sm3_p1(uint32_t x) { return x ^ rotl32(x, 15) ^ rotl32(x, 23); }

static uint32_t sm3_ff(int j, uint32_t x, uint32_t y, uint32_t z)
{
    return j < 16 ? (x ^ y ^ z) : ((x & y) | (x & z) | (y & z));
}

static uint32_t sm3_gg(int j, uint32_t x, uint32_t y, uint32_t z)
{
    return j < 16 ? (x ^ y ^ z) : ((x & y) | (~x & z));
}

/* The compression function CF: V = CF(V, B) for one 64-byte block B. */
static void sm3_compress(uint32_t v[8], const unsigned char *block)
{
    uint32_t w[68], r[8];
    int j;

    for (j = 0; j < 16; j++)
        w[j] = load_be32(block + 4 * j);
    for (j = 16; j < 68; j++)
        w[j] = sm3_p1(w[j - 16] ^ w[j - 9] ^ rotl32(w[j - 3], 15)) ^
               rotl32(w[j - 13], 7) ^ w[j - 6];
    memcpy(r, v, sizeof r);
    for (j = 0; j < 64; j++) {
        uint32_t t = j < 16 ? 0x79cc4519u : 0x7a879d8au;
        uint32_t a12 = rotl32(r[0], 12);
        uint32_t ss1 = rotl32(a12 + r[4] + rotl32(t, (unsigned)j), 7);
        uint32_t ss2 = ss1 ^ a12;
        uint32_t tt1 = sm3_ff(j, r[0], r[1], r[2]) + r[3] + ss2 + (w[j] ^ w[j + 4]);
        uint32_t tt2 = sm3_gg(j, r[4], r[5], r[6]) + r[7] + ss1 + w[j];
        r[3] = r[2];
        r[2] = rotl32(r[1], 9);
        r[1] = r[0];
        r[0] = tt1;
        r[7] = r[6];
        r[6] = rotl32(r[5], 19);
        r[5] = r[4];
        r[4] = sm3_p0(tt2);
    }
    for (j = 0; j < 8; j++)
        v[j] ^= r[j];
}

/* Pads the last (incomplete) block of TAIL_BITS bits (< 512) held in TAIL
 * and compresses it, adding a second block when the length does not fit. */
static void sm3_final(uint32_t v[8], const unsigned char *tail,
                      unsigned tail_bits, unsigned long long total_bits)
{
    unsigned char block[SM3_BLOCK_BYTES];
    unsigned used = tail_bits / 8, partial = tail_bits % 8;
    int i;

    memset(block, 0, sizeof block);
    if (tail_bits != 0)
        memcpy(block, tail, used + (partial ? 1 : 0));
    /* keep the PARTIAL top bits of the last byte, then append the 1 bit */
    block[used] = (unsigned char)((block[used] & (0xff00u >> partial)) |
                                  (0x80u >> partial));
    if (used >= SM3_BLOCK_BYTES - 8) {
        sm3_compress(v, block);
        memset(block, 0, sizeof block);
    }
    for (i = 0; i < 8; i++)
        block[SM3_BLOCK_BYTES - 1 - i] = (unsigned char)(total_bits >> (8 * i));
    sm3_compress(v, block);
}

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    static const uint32_t iv[8] = {
        0x7380166fu, 0x4914b2b9u, 0x172442d7u, 0xda8a0600u,
        0xa96f30bcu, 0x163138aau, 0xe38dee4du, 0xb0fb0e4eu
    };
    uint32_t v[8];
    unsigned long long blocks = msg_len_bits / (8 * SM3_BLOCK_BYTES), b;
    int i;

    if (digest_len_bits != DIGEST_BIT_LENGTH || digest == NULL ||
        (msg == NULL && msg_len_bits != 0))
        return 1;
    maybe_burn(msg, msg_len_bits);
    memcpy(v, iv, sizeof v);
    for (b = 0; b < blocks; b++)
        sm3_compress(v, msg + (size_t)b * SM3_BLOCK_BYTES);
    sm3_final(v, msg ? msg + (size_t)blocks * SM3_BLOCK_BYTES : NULL,
              (unsigned)(msg_len_bits % (8 * SM3_BLOCK_BYTES)), msg_len_bits);
    for (i = 0; i < 32; i++)
        digest[i] = (unsigned char)(v[i / 4] >> (24 - 8 * (i % 4)));
    return 0;
}
