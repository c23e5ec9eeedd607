/* Hostile fixture CtorCrash: a constructor crashes (SIGSEGV) as
 * soon as the library is loaded, before CryptHash can be looked up. */
#define _GNU_SOURCE
#include "hostile_common.h"

__attribute__((constructor)) static void crash_at_load(void)
{
    volatile unsigned char *volatile nowhere = 0;
    *nowhere = 1;
}

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    return hostile_sm3(digest_len_bits, msg, msg_len_bits, digest);
}
