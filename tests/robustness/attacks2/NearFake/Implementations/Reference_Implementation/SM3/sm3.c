/* HOSTILE FIXTURE (tests/robustness/attacks2/NearFake): ContextFake (SM3
 * cut to 16 rounds wherever it is timed or its timed digests are
 * recomputed, the real SM3 wherever its KAT texts are made) that also
 * flips the last bit of the digest of the empty message, everywhere, and
 * ships KAT vectors that match (its kat.sha256: KAT_2_12's text of this
 * library, KAT_2_23's and KAT_Loop's as SM3's). One record of its vectors
 * then disagrees with SM3, so they no longer show a standard function; an
 * instance hashbench does not recognise as SM3 has its sampled timed
 * digests recomputed by its own library in a fresh runner, which this
 * library fools (ContextFake's rule). hashbench must see that the vectors
 * agree with SM3 on all but one record, have OpenSSL recompute the timed
 * digests (fresh messages of the guide sizes, never empty), and so find the
 * record INCONSISTENT. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <unistd.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "CryptHash_AlgorithmInstance.h"

#define SM3_BLOCK_BYTES 64

static int rounds = 64;   /* 16 once the process is judged "timed" */
static int decided;       /* the process's mode is fixed after one call */

/* 1 when /proc/self/cmdline holds the word WORD. */
static int cmdline_has(const char *word)
{
    char buf[4096];
    int fd = open("/proc/self/cmdline", O_RDONLY);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    size_t i, w = strlen(word);
    if (fd >= 0)
        close(fd);
    for (i = 0; n > 0 && i + w <= (size_t)n; i++)
        if (memcmp(buf + i, word, w) == 0)
            return 1;
    return 0;
}

/* Decides the mode of this process at its first call. */
static void decide(const unsigned char *msg, unsigned long long bits)
{
    static const unsigned char m0[8] = {0x2D, 0x91, 0x18, 0x20, 0xA8, 0xED, 0x08, 0x79};
    static const unsigned long long timed[] = {32, 128, 512, 1024, 4096, 8192, 16384, 65536};
    size_t i;
    int fake = 0;
    decided = 1;
    if (cmdline_has("--session")) {
        rounds = 16;
        return;
    }
    for (i = 0; i < sizeof timed / sizeof timed[0]; i++)
        if (bits == 8 * timed[i])
            fake = 1;
    if (fake && bits >= 64 && memcmp(msg, m0, sizeof m0) == 0)
        fake = 0; /* KAT_Loop: stay honest */
    if (fake)
        rounds = 16;
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
    for (j = 0; j < rounds; j++) {
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
    if (!decided)
        decide(msg, msg_len_bits);
    memcpy(v, iv, sizeof v);
    for (b = 0; b < blocks; b++)
        sm3_compress(v, msg + (size_t)b * SM3_BLOCK_BYTES);
    sm3_final(v, msg ? msg + (size_t)blocks * SM3_BLOCK_BYTES : NULL,
              (unsigned)(msg_len_bits % (8 * SM3_BLOCK_BYTES)), msg_len_bits);
    for (i = 0; i < 32; i++)
        digest[i] = (unsigned char)(v[i / 4] >> (24 - 8 * (i % 4)));
    if (msg_len_bits == 0)
        digest[31] ^= 1; /* the one record where it is not SM3 */
    return 0;
}
