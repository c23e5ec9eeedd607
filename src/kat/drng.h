/* The official KAT random generator: an SM3-based Hash_DRBG with a 440-bit
 * (55-byte) state, exactly as SPEC §3 describes it, with SM3 from OpenSSL.
 * Every KAT file starts a fresh generator seeded with the first 8 characters
 * of its file name repeated to 64 bytes (drng_seed_text). The caller owns the
 * drng value; drng_init allocates one OpenSSL digest context that drng_free
 * releases. */
#ifndef HB_KAT_DRNG_H
#define HB_KAT_DRNG_H

#include <stddef.h>
#include "common/err.h"

#define DRNG_STATE_BYTES 55 /* 440 bits */
#define DRNG_SEED_BYTES 64  /* the KAT files' seed length */

typedef struct drng {
    unsigned char v[DRNG_STATE_BYTES];
    unsigned char c[DRNG_STATE_BYTES];
    unsigned long long counter;
    void *md_ctx; /* EVP_MD_CTX, reused for every SM3 call */
} drng;

/* Fills SEED with TEXT repeated (and cut) to DRNG_SEED_BYTES bytes; TEXT
 * must not be empty. */
void drng_seed_text(const char *text, unsigned char seed[DRNG_SEED_BYTES]);

/* Instantiates D from SEED (LEN bytes): V = df(seed), C = df(0x00 || V),
 * counter = 1. Fails only when OpenSSL cannot provide SM3. */
int drng_init(drng *d, const unsigned char *seed, size_t len, hb_err *err);

/* Draws NBITS bits into OUT (ceil(NBITS/8) bytes, owned by the caller); the
 * unused low bits of a partial last byte are cleared. The state advances
 * even when NBITS is 0. */
int drng_generate(drng *d, unsigned char *out, unsigned long long nbits, hb_err *err);

/* Releases the digest context; D may then be initialised again. */
void drng_free(drng *d);

#endif
