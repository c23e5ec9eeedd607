/* Hostile test instance ErrorReturn: computes the digest and returns 7,
 * an error, on every call. */
#include "CryptHash_AlgorithmInstance.h"
#include "../toyhash.h"

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    return toy_hash(digest_len_bits, msg, msg_len_bits, digest) + 7;
}
