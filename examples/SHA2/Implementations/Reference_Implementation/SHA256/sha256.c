/* SHA-256 (FIPS 180-4) behind the official CryptHash interface, written
 * plainly from the standard: whole 64-byte blocks are compressed straight
 * from the caller's buffer, then the remaining bits are copied into a
 * two-block tail where the bit-level padding (a 1 bit, zeros, the 64-bit
 * length) is laid out. Messages of any bit length are accepted, MSB first in
 * the last byte. No heap, no global mutable state. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "CryptHash_AlgorithmInstance.h"

static const uint32_t sha256_k[64] = {
    0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u,
    0x923f82a4u, 0xab1c5ed5u, 0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u,
    0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u, 0xc19bf174u, 0xe49b69c1u, 0xefbe4786u,
    0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu, 0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau,
    0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u, 0xc6e00bf3u, 0xd5a79147u,
    0x06ca6351u, 0x14292967u, 0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu, 0x53380d13u,
    0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u, 0xa2bfe8a1u, 0xa81a664bu,
    0xc24b8b70u, 0xc76c51a3u, 0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u,
    0x19a4c116u, 0x1e376c08u, 0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au,
    0x5b9cca4fu, 0x682e6ff3u, 0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u,
    0x90befffau, 0xa4506cebu, 0xbef9a3f7u, 0xc67178f2u
};

#define ROTR32(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void sha256_block(uint32_t h[8], const unsigned char *p)
{
    uint32_t w[64], s[8];
    int t;

    for (t = 0; t < 16; t++, p += 4)
        w[t] = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
               (uint32_t)p[2] << 8 | p[3];
    for (t = 16; t < 64; t++) {
        uint32_t a = w[t - 15], b = w[t - 2];
        uint32_t sigma0 = ROTR32(a, 7) ^ ROTR32(a, 18) ^ (a >> 3);
        uint32_t sigma1 = ROTR32(b, 17) ^ ROTR32(b, 19) ^ (b >> 10);
        w[t] = sigma1 + w[t - 7] + sigma0 + w[t - 16];
    }
    memcpy(s, h, sizeof s);
    for (t = 0; t < 64; t++) {
        uint32_t e = s[4], a = s[0];
        uint32_t t1 = s[7] + (ROTR32(e, 6) ^ ROTR32(e, 11) ^ ROTR32(e, 25)) +
                      ((e & s[5]) ^ (~e & s[6])) + sha256_k[t] + w[t];
        uint32_t t2 = (ROTR32(a, 2) ^ ROTR32(a, 13) ^ ROTR32(a, 22)) +
                      ((a & s[1]) ^ (a & s[2]) ^ (s[1] & s[2]));
        memmove(s + 1, s, 7 * sizeof s[0]);
        s[4] += t1;
        s[0] = t1 + t2;
    }
    for (t = 0; t < 8; t++)
        h[t] += s[t];
}

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    uint32_t h[8] = {
        0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au,
        0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u
    };
    unsigned char tail[128];
    size_t whole = (size_t)(msg_len_bits / 512), rest, i, tail_len;
    unsigned bits;

    if (digest_len_bits != DIGEST_BIT_LENGTH || digest == NULL ||
        (msg == NULL && msg_len_bits != 0))
        return 1;
    for (i = 0; i < whole; i++)
        sha256_block(h, msg + 64 * i);

    bits = (unsigned)(msg_len_bits % 512);
    rest = bits / 8;
    memset(tail, 0, sizeof tail);
    if (bits)
        memcpy(tail, msg + 64 * whole, (bits + 7) / 8);
    tail[rest] &= (unsigned char)(0xff00u >> (bits % 8));
    tail[rest] |= (unsigned char)(0x80u >> (bits % 8));
    tail_len = rest < 56 ? 64 : 128;
    for (i = 0; i < 8; i++)
        tail[tail_len - 1 - i] = (unsigned char)(msg_len_bits >> (8 * i));
    for (i = 0; i < tail_len; i += 64)
        sha256_block(h, tail + i);

    for (i = 0; i < DIGEST_BIT_LENGTH / 8; i++)
        digest[i] = (unsigned char)(h[i / 4] >> (24 - 8 * (i % 4)));
    return 0;
}
