/* Hostile fixture ExitInside: calls exit(0) inside CryptHash, so a
 * runner that only looks at the exit status would think all went well. */
#define _GNU_SOURCE
#include "hostile_common.h"
#include <stdlib.h>

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    if (msg_len_bits < ~0ULL)
        exit(0);
    return hostile_sm3(digest_len_bits, msg, msg_len_bits, digest);
}
