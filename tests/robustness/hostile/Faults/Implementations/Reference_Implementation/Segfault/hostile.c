/* Hostile fixture Segfault: dereferences a null pointer on
 * every call (SIGSEGV). */
#define _GNU_SOURCE
#include "hostile_common.h"

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    volatile unsigned char *volatile nowhere = 0;
    *nowhere = 1;
    return hostile_sm3(digest_len_bits, msg, msg_len_bits, digest);
}
