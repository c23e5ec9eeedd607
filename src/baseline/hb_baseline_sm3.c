/* The baseline instance: OpenSSL's SM3 (libcrypto) behind the official
 * CryptHash interface, so the national standard hash is measured in the
 * same campaign, by the same probe, as every candidate. OpenSSL takes whole
 * bytes only: a message whose length is not a multiple of 8 bits is refused
 * with a non-zero return, and the baseline is not put through the KAT gate
 * (it is the oracle the examples are checked against). */
#include "evp_crypthash.h"

#define ALGORITHM_INSTANCE "OpenSSL_SM3"
#define DIGEST_BIT_LENGTH 256

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest);

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    return hb_evp_crypthash("SM3", DIGEST_BIT_LENGTH, digest_len_bits, msg, msg_len_bits,
                            digest);
}
