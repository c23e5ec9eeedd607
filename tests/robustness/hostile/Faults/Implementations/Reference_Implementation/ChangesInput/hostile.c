/* Hostile fixture ChangesInput: computes the right digest and then
 * overwrites the first byte of its (const) message. */
#define _GNU_SOURCE
#include "hostile_common.h"

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    int rc = hostile_sm3(digest_len_bits, msg, msg_len_bits, digest);
    if (msg_len_bits >= 8)
        ((unsigned char *)(unsigned long)msg)[0] ^= 0x5A;
    return rc;
}
