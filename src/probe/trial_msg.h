/* The messages of a timed trial and the fold of its digests, shared by the
 * probe (which times them) and the runner's fold mode (which recomputes them
 * in another sandboxed process, so that the parent can check that the probe
 * really computed what it timed). A trial is named by a 64-bit seed the
 * parent draws at random: the seed gives the base message, and call I of the
 * trial hashes the base message with the first eight bytes of every 64-byte
 * block XORed with a word derived from (seed, I). Every call of a trial thus
 * hashes a different message, so caching digests gains nothing, while the
 * change between calls costs one XOR per 64 bytes. Header-only, libc only:
 * the probe links nothing else. */
#ifndef HB_PROBE_TRIAL_MSG_H
#define HB_PROBE_TRIAL_MSG_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define TM_RULE "call i: base(seed) with bytes [64j, 64j+8) XOR le64(tm_word(seed, i)) " \
                "for every j with 64j+8 <= size; base(seed) from splitmix64(seed)"
#define TM_FOLD_HEX 33 /* 32 hex digits and the NUL */

/* splitmix64: a small, well-known mixing step; not a cryptographic
 * generator, only a way to spread a seed over many bytes. */
static inline uint64_t tm_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The word XORed into every block for call I of the trial SEED. */
static inline uint64_t tm_word(uint64_t seed, uint64_t i)
{
    return tm_mix64(seed ^ tm_mix64(i + 0x9e3779b97f4a7c15ULL));
}

/* Fills MSG (SIZE bytes) with the base message of SEED. */
static inline void tm_base(unsigned char *msg, size_t size, uint64_t seed)
{
    uint64_t s = seed;
    for (size_t i = 0; i < size; i += 8) {
        s += 0x9e3779b97f4a7c15ULL;
        uint64_t w = tm_mix64(s);
        size_t n = size - i < 8 ? size - i : 8;
        for (size_t k = 0; k < n; k++)
            msg[i + k] = (unsigned char)(w >> (8 * k));
    }
}

/* XORs the little-endian word W into the first eight bytes of every
 * 64-byte block of MSG that holds them. Applying it twice undoes it, so
 * going from call I-1 to call I is tm_apply(msg, size, word(I-1) ^ word(I)). */
static inline void tm_apply(unsigned char *msg, size_t size, uint64_t w)
{
    unsigned char b[8];
    for (int k = 0; k < 8; k++)
        b[k] = (unsigned char)(w >> (8 * k));
    for (size_t j = 0; j + 8 <= size; j += 64)
        for (int k = 0; k < 8; k++)
            msg[j + k] ^= b[k];
}

/* The fold of a trial's digests, in call order: two FNV-1a lanes of 64 bits
 * over every digest byte, written as 32 lowercase hex digits. A checksum,
 * not a commitment: forging it still needs the right digests. */
typedef struct tm_fold {
    uint64_t a, b;
} tm_fold;

static inline void tm_fold_init(tm_fold *f)
{
    f->a = 0xcbf29ce484222325ULL;
    f->b = 0x84222325cbf29ce4ULL;
}

static inline void tm_fold_add(tm_fold *f, const unsigned char *d, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        f->a = (f->a ^ d[i]) * 0x100000001b3ULL;
        f->b = (f->b ^ d[i]) * 0x1000000000000b3ULL;
    }
}

static inline void tm_fold_hex(const tm_fold *f, char out[TM_FOLD_HEX])
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 16; i++) {
        out[i] = hex[(f->a >> (60 - 4 * i)) & 15];
        out[16 + i] = hex[(f->b >> (60 - 4 * i)) & 15];
    }
    out[32] = '\0';
}

#endif
