/* Hostile test instance CtorCrash: a constructor crashes (SIGSEGV) as
 * soon as the library is loaded, before CryptHash can be looked up. */
#include "CryptHash_AlgorithmInstance.h"
#include "../toyhash.h"

__attribute__((constructor)) static void crash_at_load(void)
{
    volatile unsigned char *volatile nowhere = 0;
    *nowhere = 1;
}

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    return toy_hash(digest_len_bits, msg, msg_len_bits, digest);
}
