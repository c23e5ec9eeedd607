/* Hostile test instance Segfault: dereferences a null pointer on
 * every call (SIGSEGV). */
#include "CryptHash_AlgorithmInstance.h"
#include "../toyhash.h"

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    volatile unsigned char *volatile nowhere = 0;
    *nowhere = 1;
    return toy_hash(digest_len_bits, msg, msg_len_bits, digest);
}
