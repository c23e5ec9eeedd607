/* The baseline instance: OpenSSL's SM3 (libcrypto) behind the official
 * CryptHash interface, so the national standard hash is measured in the
 * same campaign, by the same probe, as every candidate. OpenSSL takes whole
 * bytes only: a message whose length is not a multiple of 8 bits is refused
 * with a non-zero return, and the baseline is not put through the KAT gate
 * (it is the oracle the examples are checked against). */
#include <openssl/evp.h>

#define ALGORITHM_INSTANCE "OpenSSL_SM3"
#define DIGEST_BIT_LENGTH 256

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest);

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    unsigned int n = 0;
    if (digest_len_bits != DIGEST_BIT_LENGTH || msg_len_bits % 8 != 0)
        return 1;
    if (EVP_Digest(msg, (size_t)(msg_len_bits / 8), digest, &n, EVP_sm3(), NULL) != 1)
        return 2;
    return n == DIGEST_BIT_LENGTH / 8 ? 0 : 3;
}
