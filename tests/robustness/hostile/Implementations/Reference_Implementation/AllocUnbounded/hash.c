/* Hostile test instance AllocUnbounded: allocates and touches 64 MiB blocks
 * without freeing them until malloc fails (then it writes through the null
 * pointer). To keep a broken harness from taking the whole machine, it gives
 * up at 6 GiB and returns the right digest, which the test then reports as a
 * missing memory limit. */
#include <stdlib.h>
#include <string.h>
#include "CryptHash_AlgorithmInstance.h"
#include "../toyhash.h"

#define BLOCK (64UL << 20)
#define GIVE_UP_BLOCKS 96

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    int i;
    for (i = 0; i < GIVE_UP_BLOCKS; i++) {
        unsigned char *p = malloc(BLOCK);
        memset(p, i + 1, BLOCK);
    }
    return toy_hash(digest_len_bits, msg, msg_len_bits, digest);
}
