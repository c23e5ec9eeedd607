/* Hostile fixture AllocUnbounded: allocates 64 MiB blocks without
 * freeing them until malloc fails (then it writes through the null
 * pointer). It writes the first and last byte of each block, so that it
 * reaches a harness's memory limit in a fraction of a second instead of
 * spending minutes on page faults. To keep a broken harness from taking the
 * whole machine, it gives up at 5 GiB (below the test's own 6 GiB address
 * space net) and returns the right digest, which the test then reports as
 * a missing memory limit. */
#define _GNU_SOURCE
#include "hostile_common.h"
#include <stdlib.h>

#define BLOCK (64UL << 20)
#define GIVE_UP_BLOCKS 80

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    int i;
    for (i = 0; i < GIVE_UP_BLOCKS; i++) {
        volatile unsigned char *p = malloc(BLOCK);
        p[0] = (unsigned char)(i + 1);
        p[BLOCK - 1] = (unsigned char)(i + 1);
    }
    return hostile_sm3(digest_len_bits, msg, msg_len_bits, digest);
}
