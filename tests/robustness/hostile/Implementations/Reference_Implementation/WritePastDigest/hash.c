/* Hostile test instance WritePastDigest: computes the right digest and then
 * writes 16 bytes past its end. */
#include "CryptHash_AlgorithmInstance.h"
#include "../toyhash.h"

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    int i, rc = toy_hash(digest_len_bits, msg, msg_len_bits, digest);
    for (i = 0; i < 16; i++)
        digest[TOY_DIGEST_BITS / 8 + i] = (unsigned char)(0xA5 ^ i);
    return rc;
}
