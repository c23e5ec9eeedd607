/* The SM3 Hash_DRBG of the official KAT procedure: see drng.h. The 440-bit
 * values are big-endian byte arrays; additions are done byte by byte modulo
 * 2^440, the size of the state. */
#include "kat/drng.h"

#include <string.h>
#include <openssl/evp.h>

#define SM3_BYTES 32

void drng_seed_text(const char *text, unsigned char seed[DRNG_SEED_BYTES])
{
    size_t n = strlen(text);
    for (size_t i = 0; i < DRNG_SEED_BYTES; i++)
        seed[i] = n ? (unsigned char)text[i % n] : 0;
}

/* SM3 over the concatenation of up to three parts (a part may be empty). */
static int sm3_parts(drng *d, const void *a, size_t alen, const void *b,
                     size_t blen, const void *c, size_t clen,
                     unsigned char out[SM3_BYTES])
{
    EVP_MD_CTX *ctx = d->md_ctx;
    unsigned int n = 0;
    if (EVP_DigestInit_ex(ctx, EVP_sm3(), NULL) != 1)
        return -1;
    if ((alen && EVP_DigestUpdate(ctx, a, alen) != 1) ||
        (blen && EVP_DigestUpdate(ctx, b, blen) != 1) ||
        (clen && EVP_DigestUpdate(ctx, c, clen) != 1))
        return -1;
    return EVP_DigestFinal_ex(ctx, out, &n) == 1 && n == SM3_BYTES ? 0 : -1;
}

/* df(x) = SM3(01 000001B8 || x) || SM3(02 000001B8 || x), first 55 bytes;
 * x is PREFIX (0 or 1 byte) followed by X. */
static int derive(drng *d, const unsigned char *prefix, size_t plen,
                  const unsigned char *x, size_t xlen,
                  unsigned char out[DRNG_STATE_BYTES])
{
    unsigned char head[5] = {0x01, 0x00, 0x00, 0x01, 0xB8};
    unsigned char h[2 * SM3_BYTES];
    if (sm3_parts(d, head, sizeof head, prefix, plen, x, xlen, h) != 0)
        return -1;
    head[0] = 0x02;
    if (sm3_parts(d, head, sizeof head, prefix, plen, x, xlen, h + SM3_BYTES) != 0)
        return -1;
    memcpy(out, h, DRNG_STATE_BYTES);
    return 0;
}

/* acc += addend (LEN big-endian bytes, LEN <= 55), modulo 2^440. */
static void add_be(unsigned char acc[DRNG_STATE_BYTES], const unsigned char *addend,
                   size_t len)
{
    unsigned carry = 0;
    for (size_t i = 0; i < DRNG_STATE_BYTES; i++) {
        size_t ai = DRNG_STATE_BYTES - 1 - i;
        unsigned sum = acc[ai] + carry;
        if (i < len)
            sum += addend[len - 1 - i];
        acc[ai] = (unsigned char)sum;
        carry = sum >> 8;
    }
}

int drng_init(drng *d, const unsigned char *seed, size_t len, hb_err *err)
{
    static const unsigned char zero = 0x00;
    memset(d, 0, sizeof *d);
    d->md_ctx = EVP_MD_CTX_new();
    if (!d->md_ctx || derive(d, NULL, 0, seed, len, d->v) != 0 ||
        derive(d, &zero, 1, d->v, DRNG_STATE_BYTES, d->c) != 0) {
        drng_free(d);
        return hb_fail(err, "OpenSSL provides no SM3 digest; install an "
                       "OpenSSL 1.1.1 or later built with SM3");
    }
    d->counter = 1;
    return 0;
}

static int reseed_step(drng *d)
{
    static const unsigned char three = 0x03;
    unsigned char h[SM3_BYTES], ctr[8];
    if (sm3_parts(d, &three, 1, d->v, DRNG_STATE_BYTES, NULL, 0, h) != 0)
        return -1;
    for (int i = 0; i < 8; i++)
        ctr[i] = (unsigned char)(d->counter >> (56 - 8 * i));
    add_be(d->v, h, sizeof h);
    add_be(d->v, d->c, DRNG_STATE_BYTES);
    add_be(d->v, ctr, sizeof ctr);
    d->counter++;
    return 0;
}

int drng_generate(drng *d, unsigned char *out, unsigned long long nbits, hb_err *err)
{
    static const unsigned char one = 0x01;
    unsigned long long nbytes = (nbits + 7) / 8;
    unsigned char data[DRNG_STATE_BYTES], h[SM3_BYTES];
    memcpy(data, d->v, sizeof data);
    for (unsigned long long done = 0; done < nbytes; done += SM3_BYTES) {
        if (sm3_parts(d, data, sizeof data, NULL, 0, NULL, 0, h) != 0)
            return hb_fail(err, "SM3 failed inside the DRNG");
        unsigned long long take = nbytes - done < SM3_BYTES ? nbytes - done : SM3_BYTES;
        memcpy(out + done, h, (size_t)take);
        add_be(data, &one, 1);
    }
    if (nbits % 8)
        out[nbytes - 1] &= (unsigned char)(0xFF << (8 - nbits % 8));
    if (reseed_step(d) != 0)
        return hb_fail(err, "SM3 failed inside the DRNG");
    return 0;
}

void drng_free(drng *d)
{
    EVP_MD_CTX_free(d->md_ctx);
    d->md_ctx = NULL;
}
