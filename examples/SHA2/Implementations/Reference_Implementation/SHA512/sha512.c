/* SHA-512 (FIPS 180-4) behind the official CryptHash interface. The message
 * schedule is kept in a 16-word ring, computed as the rounds need it, and
 * the eight working variables rotate through named locals. The last bits of
 * the message go through a tail buffer where the bit-level padding (a 1 bit,
 * zeros, the 128-bit length) is written; any bit length is accepted, MSB
 * first in the last byte. No heap, no global mutable state. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "CryptHash_AlgorithmInstance.h"

#define SHA512_BLOCK 128

static const uint64_t sha512_k[80] = {
    0x428a2f98d728ae22ull, 0x7137449123ef65cdull, 0xb5c0fbcfec4d3b2full,
    0xe9b5dba58189dbbcull, 0x3956c25bf348b538ull, 0x59f111f1b605d019ull,
    0x923f82a4af194f9bull, 0xab1c5ed5da6d8118ull, 0xd807aa98a3030242ull,
    0x12835b0145706fbeull, 0x243185be4ee4b28cull, 0x550c7dc3d5ffb4e2ull,
    0x72be5d74f27b896full, 0x80deb1fe3b1696b1ull, 0x9bdc06a725c71235ull,
    0xc19bf174cf692694ull, 0xe49b69c19ef14ad2ull, 0xefbe4786384f25e3ull,
    0x0fc19dc68b8cd5b5ull, 0x240ca1cc77ac9c65ull, 0x2de92c6f592b0275ull,
    0x4a7484aa6ea6e483ull, 0x5cb0a9dcbd41fbd4ull, 0x76f988da831153b5ull,
    0x983e5152ee66dfabull, 0xa831c66d2db43210ull, 0xb00327c898fb213full,
    0xbf597fc7beef0ee4ull, 0xc6e00bf33da88fc2ull, 0xd5a79147930aa725ull,
    0x06ca6351e003826full, 0x142929670a0e6e70ull, 0x27b70a8546d22ffcull,
    0x2e1b21385c26c926ull, 0x4d2c6dfc5ac42aedull, 0x53380d139d95b3dfull,
    0x650a73548baf63deull, 0x766a0abb3c77b2a8ull, 0x81c2c92e47edaee6ull,
    0x92722c851482353bull, 0xa2bfe8a14cf10364ull, 0xa81a664bbc423001ull,
    0xc24b8b70d0f89791ull, 0xc76c51a30654be30ull, 0xd192e819d6ef5218ull,
    0xd69906245565a910ull, 0xf40e35855771202aull, 0x106aa07032bbd1b8ull,
    0x19a4c116b8d2d0c8ull, 0x1e376c085141ab53ull, 0x2748774cdf8eeb99ull,
    0x34b0bcb5e19b48a8ull, 0x391c0cb3c5c95a63ull, 0x4ed8aa4ae3418acbull,
    0x5b9cca4f7763e373ull, 0x682e6ff3d6b2b8a3ull, 0x748f82ee5defb2fcull,
    0x78a5636f43172f60ull, 0x84c87814a1f0ab72ull, 0x8cc702081a6439ecull,
    0x90befffa23631e28ull, 0xa4506cebde82bde9ull, 0xbef9a3f7b2c67915ull,
    0xc67178f2e372532bull, 0xca273eceea26619cull, 0xd186b8c721c0c207ull,
    0xeada7dd6cde0eb1eull, 0xf57d4f7fee6ed178ull, 0x06f067aa72176fbaull,
    0x0a637dc5a2c898a6ull, 0x113f9804bef90daeull, 0x1b710b35131c471bull,
    0x28db77f523047d84ull, 0x32caab7b40c72493ull, 0x3c9ebe0a15c9bebcull,
    0x431d67c49c100d4cull, 0x4cc5d4becb3e42b6ull, 0x597f299cfc657e2aull,
    0x5fcb6fab3ad6faecull, 0x6c44198c4a475817ull
};

static uint64_t rotr64(uint64_t x, unsigned n)
{
    return (x >> n) | (x << (64 - n));
}

static uint64_t be64(const unsigned char *p)
{
    uint64_t v = 0;
    int i;
    for (i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return v;
}

static void sha512_compress(uint64_t state[8], const unsigned char *block)
{
    uint64_t ring[16];
    uint64_t a = state[0], b = state[1], c = state[2], d = state[3];
    uint64_t e = state[4], f = state[5], g = state[6], h = state[7];
    int t;

    for (t = 0; t < 80; t++) {
        uint64_t wt, t1, t2;
        if (t < 16) {
            wt = be64(block + 8 * t);
        } else {
            uint64_t w15 = ring[(t - 15) & 15], w2 = ring[(t - 2) & 15];
            wt = ring[t & 15] + ring[(t - 7) & 15] +
                 (rotr64(w15, 1) ^ rotr64(w15, 8) ^ (w15 >> 7)) +
                 (rotr64(w2, 19) ^ rotr64(w2, 61) ^ (w2 >> 6));
        }
        ring[t & 15] = wt;
        t1 = h + (rotr64(e, 14) ^ rotr64(e, 18) ^ rotr64(e, 41)) +
             ((e & f) ^ (~e & g)) + sha512_k[t] + wt;
        t2 = (rotr64(a, 28) ^ rotr64(a, 34) ^ rotr64(a, 39)) +
             ((a & b) ^ (a & c) ^ (b & c));
        h = g; g = f; f = e; e = d + t1;
        d = c; c = b; b = a; a = t1 + t2;
    }
    state[0] += a; state[1] += b; state[2] += c; state[3] += d;
    state[4] += e; state[5] += f; state[6] += g; state[7] += h;
}

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    uint64_t state[8] = {
        0x6a09e667f3bcc908ull, 0xbb67ae8584caa73bull, 0x3c6ef372fe94f82bull,
        0xa54ff53a5f1d36f1ull, 0x510e527fade682d1ull, 0x9b05688c2b3e6c1full,
        0x1f83d9abfb41bd6bull, 0x5be0cd19137e2179ull
    };
    unsigned char pad[2 * SHA512_BLOCK];
    size_t nblocks = (size_t)(msg_len_bits / (8 * SHA512_BLOCK));
    unsigned tail_bits = (unsigned)(msg_len_bits % (8 * SHA512_BLOCK));
    unsigned pos = tail_bits / 8, shift = tail_bits % 8, padded, k;
    const unsigned char *p = msg;

    if (digest_len_bits != DIGEST_BIT_LENGTH || digest == NULL ||
        (msg == NULL && msg_len_bits != 0))
        return 1;
    for (; nblocks > 0; nblocks--, p += SHA512_BLOCK)
        sha512_compress(state, p);

    memset(pad, 0, sizeof pad);
    if (tail_bits > 0)
        memcpy(pad, p, pos + (shift ? 1u : 0u));
    pad[pos] = (unsigned char)((pad[pos] & (0xff00u >> shift)) | (0x80u >> shift));
    /* 16 length bytes must follow the 1 bit; the upper 8 stay zero */
    padded = pos + 1 + 16 <= SHA512_BLOCK ? SHA512_BLOCK : 2 * SHA512_BLOCK;
    for (k = 0; k < 8; k++)
        pad[padded - 1 - k] = (unsigned char)(msg_len_bits >> (8 * k));
    for (k = 0; k < padded; k += SHA512_BLOCK)
        sha512_compress(state, pad + k);

    for (k = 0; k < DIGEST_BIT_LENGTH / 8; k++)
        digest[k] = (unsigned char)(state[k / 8] >> (56 - 8 * (k % 8)));
    return 0;
}
