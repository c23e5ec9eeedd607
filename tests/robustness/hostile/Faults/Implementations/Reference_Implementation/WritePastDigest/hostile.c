/* Hostile fixture WritePastDigest: computes the right digest and then
 * writes 16 bytes past its end. */
#define _GNU_SOURCE
#include "hostile_common.h"

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    int i, rc = hostile_sm3(digest_len_bits, msg, msg_len_bits, digest);
    for (i = 0; i < 16; i++)
        digest[256 / 8 + i] = (unsigned char)(0xA5 ^ i);
    return rc;
}
