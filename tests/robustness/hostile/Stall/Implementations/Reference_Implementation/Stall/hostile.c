/* Hostile fixture Stall: sleeps STALL_S seconds before its first answer in
 * every process (each KAT runner, each probe, each verifier), short of any
 * single step's time limit, so that no one step times out while the
 * instance as a whole costs a multiple of its limits. Its digests are
 * right. The instance's wall budget over all its processes must end it:
 * TIMEOUT within the budget plus a stated slack, with a reason naming the
 * budget on its page, and its neighbour must not be affected. */
#define _GNU_SOURCE
#include <time.h>
#include "hostile_common.h"

#define STALL_S 2.5

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    static int done;
    if (!done) {
        struct timespec t = {(time_t)STALL_S, (long)((STALL_S - (int)STALL_S) * 1e9)};
        done = 1;
        while (nanosleep(&t, &t) != 0)
            ;
    }
    return hostile_sm3(digest_len_bits, msg, msg_len_bits, digest);
}
