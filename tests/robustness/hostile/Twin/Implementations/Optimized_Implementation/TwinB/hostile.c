/* Fixture Twin, folder TwinB (a plain fault): SM3 with the first digest
 * bit flipped, declaring the same ALGORITHM_INSTANCE as TwinA (see
 * TwinA/hostile.c). */
#define _GNU_SOURCE
#include "hostile_common.h"

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    int rc = hostile_sm3(digest_len_bits, msg, msg_len_bits, digest);
    if (rc == 0)
        digest[0] ^= 0x80;
    return rc;
}
