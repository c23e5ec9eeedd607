/* Hostile test instance Abort: calls abort() on every call (SIGABRT). */
#include <stdlib.h>
#include "CryptHash_AlgorithmInstance.h"
#include "../toyhash.h"

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    if (msg_len_bits < ~0ULL)
        abort();
    return toy_hash(digest_len_bits, msg, msg_len_bits, digest);
}
