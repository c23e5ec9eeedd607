/* Instance header of the SM3 example submission: names the instance and its
 * digest size for the harness, and declares the official hash interface. */
#ifndef CRYPTHASH_ALGORITHMINSTANCE_H
#define CRYPTHASH_ALGORITHMINSTANCE_H

#define ALGORITHM_INSTANCE "SM3"
#define DIGEST_BIT_LENGTH 256

/* Hashes the first MSG_LEN_BITS bits of MSG (a partial last byte is used from
 * its most significant bit down) into DIGEST (DIGEST_BIT_LENGTH / 8 bytes).
 * Returns 0 on success, non-zero when DIGEST_LEN_BITS is not
 * DIGEST_BIT_LENGTH or a pointer is NULL where data is needed. */
int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest);

#endif
