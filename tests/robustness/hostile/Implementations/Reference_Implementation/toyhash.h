/* The deterministic 256-bit "toy hash" every instance of the hostile test
 * package computes when it is not misbehaving. It is not a cryptographic
 * hash: it only has to be a pure, fast function of (message bits, length)
 * so that the healthy instance passes its own KAT manifest and each hostile
 * instance differs from it by exactly one fault. Each instance source
 * includes this file by relative path; nothing here is exported. */
#ifndef HOSTILE_TOYHASH_H
#define HOSTILE_TOYHASH_H

#define TOY_DIGEST_BITS 256

static unsigned long long toy_mix(unsigned long long x)
{
    x ^= x >> 31;
    x *= 0x7fb5d329728ea185ULL;
    x ^= x >> 27;
    x *= 0x81dadef4bc2dd44dULL;
    x ^= x >> 33;
    return x;
}

/* Hashes MSG_BITS bits of MSG (a partial last byte from its top bit down)
 * into the 32 bytes at DIGEST. Returns 0, or 1 when DIGEST_BITS is not 256. */
static int toy_hash(int digest_bits, const unsigned char *msg,
                    unsigned long long msg_bits, unsigned char *digest)
{
    unsigned long long lane[4] = {0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL,
                                  0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL};
    unsigned long long whole = msg_bits / 8, i;
    unsigned int j;
    if (digest_bits != TOY_DIGEST_BITS)
        return 1;
    for (i = 0; i < whole; i++)
        lane[i & 3] = (lane[i & 3] ^ msg[i]) * 0x100000001b3ULL + i;
    if (msg_bits % 8) {
        unsigned char keep = (unsigned char)(0xff00u >> (msg_bits % 8));
        lane[whole & 3] = (lane[whole & 3] ^ (msg[whole] & keep)) * 0x100000001b3ULL;
    }
    lane[0] ^= msg_bits;
    for (j = 0; j < 4; j++) {
        unsigned int k;
        unsigned long long v = toy_mix(lane[j] ^ toy_mix(lane[(j + 1) & 3] + j));
        for (k = 0; k < 8; k++)
            digest[j * 8 + k] = (unsigned char)(v >> (56 - 8 * k));
    }
    return 0;
}

#endif
