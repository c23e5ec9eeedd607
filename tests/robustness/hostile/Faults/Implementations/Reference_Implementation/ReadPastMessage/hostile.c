/* Hostile fixture ReadPastMessage: reads a byte 64 KiB past the end of
 * the message and folds it into the digest. */
#define _GNU_SOURCE
#include "hostile_common.h"

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    const volatile unsigned char *far = msg + (msg_len_bits + 7) / 8 + 65536;
    int rc = hostile_sm3(digest_len_bits, msg, msg_len_bits, digest);
    digest[0] ^= *far;
    return rc;
}
