/* Instance header of the SHA-3 example submission. One folder serves four
 * instances (SHA3_256, SHA3_512, SHAKE256_768, SHAKE256_1024): the package's
 * hashbench.ini passes each instance's name, digest size and Keccak mode as
 * defines, and the values below are only the defaults used when nothing is
 * given from outside (a plain SHA3-256). */
#ifndef CRYPTHASH_ALGORITHMINSTANCE_H
#define CRYPTHASH_ALGORITHMINSTANCE_H

#ifndef ALGORITHM_INSTANCE
#define ALGORITHM_INSTANCE "SHA3_256"
#endif

#ifndef DIGEST_BIT_LENGTH
#define DIGEST_BIT_LENGTH 256
#endif

/* 0: SHA3-<DIGEST_BIT_LENGTH> (capacity twice the digest size, domain bits
 * 01). 128 or 256: SHAKE128 / SHAKE256 (capacity 256 / 512, domain bits
 * 1111) producing DIGEST_BIT_LENGTH bits of output. */
#ifndef KECCAK_SHAKE
#define KECCAK_SHAKE 0
#endif

/* Hashes the first MSG_LEN_BITS bits of MSG into DIGEST (DIGEST_BIT_LENGTH / 8
 * bytes). Whole bytes are absorbed as in FIPS 202; a partial last byte of k
 * bits holds them in its top bits (see keccak.c and the package README).
 * Returns 0 on success, non-zero when DIGEST_LEN_BITS is not
 * DIGEST_BIT_LENGTH or a pointer is NULL where data is needed. */
int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest);

#endif
