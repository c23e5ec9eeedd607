/* Timing-attack fixture BatchAhead: real SM3 digests, computed eight
 * messages at a time. At a call it gathers the messages it expects next
 * and hashes them together with this one in eight interleaved lanes (eight
 * independent compressions side by side, which a superscalar core or a
 * vectorizing compiler runs far faster than eight in a row), keeps their
 * digests, and answers the following calls from that cache when their
 * message is byte for byte the one it hashed. Where the next messages come
 * from:
 *  - hashbench's published trial-message rule: once a message follows it,
 *    the seed gives every later call of the trial;
 *  - the buffer it was given: the bytes right after the message, when they
 *    are still inside the same mapping, taken as the next messages of the
 *    same length (a harness that lays out a window's messages one after the
 *    other in one region hands over the future with the present).
 * A harness whose next message cannot exist before this call returns (a
 * chain) leaves it only the wasted lanes. */
#define _GNU_SOURCE
#include "timing_common.h"

#define LANES 8
#define MAX_BYTES 65536

static uint32_t rotl(uint32_t x, unsigned n)
{
    n &= 31;
    return n ? (x << n) | (x >> (32 - n)) : x;
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* One compression in each of the LANES lanes: V[l] = CF(V[l], B[l]). */
static void compress_lanes(uint32_t v[8][LANES], const unsigned char *const b[LANES])
{
    uint32_t w[68][LANES], r[8][LANES];
    int j, l;
    for (j = 0; j < 16; j++)
        for (l = 0; l < LANES; l++)
            w[j][l] = be32(b[l] + 4 * j);
    for (j = 16; j < 68; j++)
        for (l = 0; l < LANES; l++) {
            uint32_t x = w[j - 16][l] ^ w[j - 9][l] ^ rotl(w[j - 3][l], 15);
            w[j][l] = (x ^ rotl(x, 15) ^ rotl(x, 23)) ^ rotl(w[j - 13][l], 7) ^ w[j - 6][l];
        }
    memcpy(r, v, sizeof r);
    for (j = 0; j < 64; j++) {
        uint32_t t = rotl(j < 16 ? 0x79cc4519u : 0x7a879d8au, (unsigned)j);
        for (l = 0; l < LANES; l++) {
            uint32_t a12 = rotl(r[0][l], 12);
            uint32_t ss1 = rotl(a12 + r[4][l] + t, 7), ss2 = ss1 ^ a12;
            uint32_t ff = j < 16 ? r[0][l] ^ r[1][l] ^ r[2][l]
                                 : (r[0][l] & r[1][l]) | (r[0][l] & r[2][l]) | (r[1][l] & r[2][l]);
            uint32_t gg = j < 16 ? r[4][l] ^ r[5][l] ^ r[6][l]
                                 : (r[4][l] & r[5][l]) | (~r[4][l] & r[6][l]);
            uint32_t tt1 = ff + r[3][l] + ss2 + (w[j][l] ^ w[j + 4][l]);
            uint32_t tt2 = gg + r[7][l] + ss1 + w[j][l];
            r[3][l] = r[2][l];
            r[2][l] = rotl(r[1][l], 9);
            r[1][l] = r[0][l];
            r[0][l] = tt1;
            r[7][l] = r[6][l];
            r[6][l] = rotl(r[5][l], 19);
            r[5][l] = r[4][l];
            r[4][l] = tt2 ^ rotl(tt2, 9) ^ rotl(tt2, 17);
        }
    }
    for (j = 0; j < 8; j++)
        for (l = 0; l < LANES; l++)
            v[j][l] ^= r[j][l];
}

/* SM3 of LANES messages of SIZE bytes each into D[l]. */
static void sm3_lanes(const unsigned char *const m[LANES], size_t size, unsigned char d[LANES][32])
{
    static const uint32_t iv[8] = {0x7380166fu, 0x4914b2b9u, 0x172442d7u, 0xda8a0600u,
                                   0xa96f30bcu, 0x163138aau, 0xe38dee4du, 0xb0fb0e4eu};
    static unsigned char tail[LANES][128];
    uint32_t v[8][LANES];
    const unsigned char *b[LANES];
    size_t full = size / 64, rest = size % 64, tail_blocks = rest + 9 <= 64 ? 1 : 2;
    int j, l;
    for (j = 0; j < 8; j++)
        for (l = 0; l < LANES; l++)
            v[j][l] = iv[j];
    for (size_t k = 0; k < full; k++) {
        for (l = 0; l < LANES; l++)
            b[l] = m[l] + 64 * k;
        compress_lanes(v, b);
    }
    for (l = 0; l < LANES; l++) {
        uint64_t bits = 8 * (uint64_t)size;
        memset(tail[l], 0, sizeof tail[l]);
        memcpy(tail[l], m[l] + 64 * full, rest);
        tail[l][rest] = 0x80;
        for (j = 0; j < 8; j++)
            tail[l][64 * tail_blocks - 1 - j] = (unsigned char)(bits >> (8 * j));
    }
    for (size_t k = 0; k < tail_blocks; k++) {
        for (l = 0; l < LANES; l++)
            b[l] = tail[l] + 64 * k;
        compress_lanes(v, b);
    }
    for (l = 0; l < LANES; l++)
        for (j = 0; j < 8; j++) {
            d[l][4 * j] = (unsigned char)(v[j][l] >> 24);
            d[l][4 * j + 1] = (unsigned char)(v[j][l] >> 16);
            d[l][4 * j + 2] = (unsigned char)(v[j][l] >> 8);
            d[l][4 * j + 3] = (unsigned char)v[j][l];
        }
}

static unsigned char cache_msg[LANES][MAX_BYTES];
static unsigned char cache_digest[LANES][32];
static size_t cache_size;
static int cache_used[LANES];

/* The end of the mapping holding P (parsed again only when P leaves the
 * last one), or 0. */
static uintptr_t mapping_end(const void *p)
{
    static uintptr_t lo, hi;
    static char maps[1 << 17];
    uintptr_t a = (uintptr_t)p;
    if (a >= lo && a < hi)
        return hi;
    lo = hi = 0;
    if (ta_read("/proc/self/maps", maps, sizeof maps) <= 0)
        return 0;
    for (char *line = strtok(maps, "\n"); line; line = strtok(NULL, "\n")) {
        unsigned long s, e;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s", &s, &e, perms) == 3 && a >= s && a < e &&
            perms[0] == 'r') {
            lo = s;
            hi = e;
        }
    }
    return hi;
}

/* Fills the cache with this message and the LANES - 1 it expects next;
 * 0 when it expects none. */
static int batch(const unsigned char *msg, size_t size)
{
    const unsigned char *m[LANES];
    uint64_t seed;
    int known = 0;
    memcpy(cache_msg[0], msg, size);
    static uint64_t last_seed, last_next;
    if (ta_rule_seed(msg, 8 * (unsigned long long)size, &seed)) {
        long long i = ta_rule_index(msg, seed, seed == last_seed ? last_next : 0, 1u << 16);
        if (i >= 0) {
            last_seed = seed;
            last_next = (uint64_t)i + LANES;
            for (int l = 1; l < LANES; l++)
                ta_rule_message(cache_msg[l], size, seed, (uint64_t)i + (uint64_t)l);
            known = 1;
        }
    }
    if (!known) {
        uintptr_t end = mapping_end(msg);
        if (!end || (uintptr_t)msg + LANES * size > end)
            return 0;
        for (int l = 1; l < LANES; l++)
            memcpy(cache_msg[l], msg + l * size, size);
    }
    for (int l = 0; l < LANES; l++) {
        m[l] = cache_msg[l];
        cache_used[l] = 0;
    }
    cache_size = size;
    sm3_lanes(m, size, cache_digest);
    return 1;
}

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    size_t size = (size_t)(msg_len_bits / 8);
    if (digest_len_bits != 256 || !msg || msg_len_bits % 8 || !ta_guide_size(size) ||
        size > MAX_BYTES)
        return ta_sm3_example(digest_len_bits, msg, msg_len_bits, digest);
    if (size == cache_size)
        for (int l = 0; l < LANES; l++)
            if (!cache_used[l] && memcmp(cache_msg[l], msg, size) == 0) {
                cache_used[l] = 1;
                memcpy(digest, cache_digest[l], 32);
                return 0;
            }
    if (batch(msg, size)) {
        cache_used[0] = 1;
        memcpy(digest, cache_digest[0], 32);
        return 0;
    }
    return ta_sm3_example(digest_len_bits, msg, msg_len_bits, digest);
}
