/* SHA-3 and SHAKE (FIPS 202) behind the official CryptHash interface: the
 * Keccak-f[1600] permutation and a one-shot sponge, configured at compile
 * time by DIGEST_BIT_LENGTH and KECCAK_SHAKE (see the instance header).
 *
 * Bit order. The official interface stores a partial last byte in its most
 * significant bits (the 11-bit message 10101100001 is AC 20), while Keccak
 * reads the bits of each byte from the least significant one up. Whole bytes
 * are absorbed exactly as FIPS 202 does, so byte-aligned messages hash as in
 * every FIPS 202 implementation. For a last byte holding k < 8 bits we follow
 * the Keccak team's SHA-3 competition interface: the k bits are shifted down
 * to the bottom of the byte (byte >> (8 - k)) and absorbed as k bits, and the
 * domain suffix and the pad10*1 padding follow them directly. The bits below
 * the k used ones are ignored. No heap, no global mutable state; the message
 * is read up to byte ceil(len / 8) only. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "CryptHash_AlgorithmInstance.h"

#if KECCAK_SHAKE
#define KECCAK_CAPACITY_BITS (2 * (KECCAK_SHAKE))
/* domain bits 1111, then the first padding bit, read from bit 0 up */
#define KECCAK_SUFFIX 0x1Fu
#else
#define KECCAK_CAPACITY_BITS (2 * (DIGEST_BIT_LENGTH))
/* domain bits 01, then the first padding bit */
#define KECCAK_SUFFIX 0x06u
#endif
#define KECCAK_RATE ((1600 - KECCAK_CAPACITY_BITS) / 8)

static const uint64_t keccak_round_constants[24] = {
    0x0000000000000001ull, 0x0000000000008082ull, 0x800000000000808Aull,
    0x8000000080008000ull, 0x000000000000808Bull, 0x0000000080000001ull,
    0x8000000080008081ull, 0x8000000000008009ull, 0x000000000000008Aull,
    0x0000000000000088ull, 0x0000000080008009ull, 0x000000008000000Aull,
    0x000000008000808Bull, 0x800000000000008Bull, 0x8000000000008089ull,
    0x8000000000008003ull, 0x8000000000008002ull, 0x8000000000000080ull,
    0x000000000000800Aull, 0x800000008000000Aull, 0x8000000080008081ull,
    0x8000000000008080ull, 0x0000000080000001ull, 0x8000000080008008ull
};

static uint64_t rotl64(uint64_t x, unsigned n)
{
    n &= 63;
    return n ? (x << n) | (x >> (64 - n)) : x;
}

/* Keccak-f[1600] on 25 lanes, lane (x, y) at index x + 5 y. */
static void keccak_f1600(uint64_t a[25])
{
    int round, x, y, t;

    for (round = 0; round < 24; round++) {
        uint64_t c[5], d, cur, row[5];
        /* theta */
        for (x = 0; x < 5; x++)
            c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
        for (x = 0; x < 5; x++) {
            d = c[(x + 4) % 5] ^ rotl64(c[(x + 1) % 5], 1);
            for (y = 0; y < 25; y += 5)
                a[x + y] ^= d;
        }
        /* rho and pi: walk the 24 lanes (x, y) -> (y, 2x + 3y) from (1, 0) */
        x = 1;
        y = 0;
        cur = a[1];
        for (t = 0; t < 24; t++) {
            int nx = y, ny = (2 * x + 3 * y) % 5;
            uint64_t next = a[nx + 5 * ny];
            a[nx + 5 * ny] = rotl64(cur, (unsigned)((t + 1) * (t + 2) / 2));
            cur = next;
            x = nx;
            y = ny;
        }
        /* chi */
        for (y = 0; y < 25; y += 5) {
            memcpy(row, a + y, sizeof row);
            for (x = 0; x < 5; x++)
                a[y + x] = row[x] ^ (~row[(x + 1) % 5] & row[(x + 2) % 5]);
        }
        /* iota */
        a[0] ^= keccak_round_constants[round];
    }
}

static void keccak_xor_byte(uint64_t a[25], unsigned pos, unsigned byte)
{
    a[pos / 8] ^= (uint64_t)(byte & 0xffu) << (8 * (pos % 8));
}

static unsigned char keccak_get_byte(const uint64_t a[25], unsigned pos)
{
    return (unsigned char)(a[pos / 8] >> (8 * (pos % 8)));
}

/* Absorbs one byte at *POS, permuting when the rate is full. */
static void keccak_absorb_byte(uint64_t a[25], unsigned *pos, unsigned byte)
{
    keccak_xor_byte(a, *pos, byte);
    if (++*pos == KECCAK_RATE) {
        keccak_f1600(a);
        *pos = 0;
    }
}

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    uint64_t a[25];
    unsigned long long whole = msg_len_bits / 8, i;
    unsigned partial = (unsigned)(msg_len_bits % 8), pos = 0, last;

    if (digest_len_bits != DIGEST_BIT_LENGTH || digest == NULL ||
        (msg == NULL && msg_len_bits != 0))
        return 1;
    memset(a, 0, sizeof a);
    for (i = 0; i < whole; i++)
        keccak_absorb_byte(a, &pos, msg[i]);

    /* the k message bits of a partial byte, moved to the bottom, followed by
     * the suffix; up to 7 + 5 bits, so possibly one whole byte more */
    last = KECCAK_SUFFIX;
    if (partial)
        last = (unsigned)(msg[whole] >> (8 - partial)) | (KECCAK_SUFFIX << partial);
    if (last > 0xffu) {
        keccak_absorb_byte(a, &pos, last);
        last >>= 8;
    }
    /* pad10*1: the top set bit of LAST is the first 1 bit; when it is the
     * very last bit of the block, the final 1 bit ends a further block */
    keccak_xor_byte(a, pos, last);
    if ((last & 0x80u) && pos == KECCAK_RATE - 1)
        keccak_f1600(a);
    keccak_xor_byte(a, KECCAK_RATE - 1, 0x80u);
    keccak_f1600(a);

    for (pos = 0, i = 0; i < DIGEST_BIT_LENGTH / 8; i++, pos++) {
        if (pos == KECCAK_RATE) {
            keccak_f1600(a);
            pos = 0;
        }
        digest[i] = keccak_get_byte(a, pos);
    }
    return 0;
}
