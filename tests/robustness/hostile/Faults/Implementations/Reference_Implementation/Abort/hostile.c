/* Hostile fixture Abort: calls abort() on every call (SIGABRT). */
#define _GNU_SOURCE
#include "hostile_common.h"
#include <stdlib.h>

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    if (msg_len_bits < ~0ULL)
        abort();
    return hostile_sm3(digest_len_bits, msg, msg_len_bits, digest);
}
