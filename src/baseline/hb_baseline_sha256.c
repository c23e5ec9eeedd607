/* A second baseline instance: OpenSSL's SHA-256 behind the official
 * CryptHash interface, used by the accuracy benchmark to compare hashbench's
 * figures with `openssl speed` on the very same code. Whole bytes only, as
 * for the SM3 baseline. */
#include <openssl/evp.h>

#define ALGORITHM_INSTANCE "OpenSSL_SHA256"
#define DIGEST_BIT_LENGTH 256

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest);

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    unsigned int n = 0;
    if (digest_len_bits != DIGEST_BIT_LENGTH || msg_len_bits % 8 != 0)
        return 1;
    if (EVP_Digest(msg, (size_t)(msg_len_bits / 8), digest, &n, EVP_sha256(), NULL) != 1)
        return 2;
    return n == DIGEST_BIT_LENGTH / 8 ? 0 : 3;
}
