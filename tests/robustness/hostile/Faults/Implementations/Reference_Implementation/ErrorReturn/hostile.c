/* Hostile fixture ErrorReturn: computes the digest and returns 7,
 * an error, on every call. */
#define _GNU_SOURCE
#include "hostile_common.h"

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    return hostile_sm3(digest_len_bits, msg, msg_len_bits, digest) + 7;
}
