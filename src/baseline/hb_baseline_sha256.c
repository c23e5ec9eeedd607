/* A second baseline instance: OpenSSL's SHA-256 behind the official
 * CryptHash interface, used by the accuracy benchmark to compare hashbench's
 * figures with `openssl speed` on the very same code. Whole bytes only, as
 * for the SM3 baseline. */
#include "evp_crypthash.h"

#define ALGORITHM_INSTANCE "OpenSSL_SHA256"
#define DIGEST_BIT_LENGTH 256

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest);

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    return hb_evp_crypthash("SHA256", DIGEST_BIT_LENGTH, digest_len_bits, msg, msg_len_bits,
                            digest);
}
