/* The chaining rule of a timed window (measurement v2): hashbench writes
 * the window's raw messages R_0 .. R_{N-1} (keystream bytes, measure/msggen.h)
 * into the session's shared memory while the probe is stopped, and call i
 * (i >= 1) hashes R_i with the first eight bytes of every 64-byte block
 * XORed with the first eight bytes of the digest call i-1 returned. So no
 * call's message exists before the previous call has returned: a library
 * cannot hash future messages in one vector pass, nor precompute the
 * leaves of a tree mode, and a verifier rebuilds message j from R_j and the
 * reported digest j-1 alone. Shared by the probe (which applies it in its
 * timed loop) and hashbench's verifier. Header-only, libc only. */
#ifndef HB_PROBE_CHAIN_H
#define HB_PROBE_CHAIN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define CHAIN_RULE "call 0: R_0; call i>0: R_i with bytes [64j, min(64j+8, size)) of every " \
                   "64-byte block j XORed with bytes [0, 8) of digest i-1 (zero past its end)"

/* The chaining word: the first eight bytes of PREV (DLEN bytes), zero
 * beyond DLEN, as a little-endian word. */
static inline uint64_t chain_word(const unsigned char *prev, size_t dlen)
{
    uint64_t w = 0;
    for (size_t k = 0; k < 8 && k < dlen; k++)
        w |= (uint64_t)prev[k] << (8 * k);
    return w;
}

/* Applies the chaining word W to MSG (SIZE bytes) in place: bytes
 * [64j, min(64j + 8, SIZE)) of every block j, byte k of a block XORed with
 * byte k of W (little-endian). A block's eight bytes are one load, XOR and
 * store, the time the timed window spends outside the hash kept small; a
 * last block shorter than eight bytes is done byte by byte. Applying it
 * twice undoes it. */
static inline void chain_apply(unsigned char *msg, size_t size, uint64_t w)
{
    unsigned char wb[8];
    for (size_t k = 0; k < 8; k++)
        wb[k] = (unsigned char)(w >> (8 * k));
    uint64_t x;
    memcpy(&x, wb, 8); /* W's bytes in memory order, whatever the host's */
    size_t off = 0;
    for (; off + 8 <= size; off += 64) {
        uint64_t v;
        memcpy(&v, msg + off, 8);
        v ^= x;
        memcpy(msg + off, &v, 8);
    }
    for (size_t k = 0; off < size && k < size - off; k++)
        msg[off + k] ^= wb[k];
}

/* Message J of a window into OUT (SIZE bytes): R_J (RAW) chained with the
 * digest of call J-1 (PREV, DLEN bytes; ignored for J = 0). */
static inline void chain_message(unsigned char *out, const unsigned char *raw, size_t size,
                                 unsigned long long j, const unsigned char *prev,
                                 size_t dlen)
{
    for (size_t k = 0; k < size; k++)
        out[k] = raw[k];
    if (j > 0)
        chain_apply(out, size, chain_word(prev, dlen));
}

#endif
