/* Hostile test instance ExitInside: calls exit(0) inside CryptHash, so a
 * runner that only looks at the exit status would think all went well. */
#include <stdlib.h>
#include "CryptHash_AlgorithmInstance.h"
#include "../toyhash.h"

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    if (msg_len_bits < ~0ULL)
        exit(0);
    return toy_hash(digest_len_bits, msg, msg_len_bits, digest);
}
