/* Hostile fixture SleepOn1000: sleeps 2 seconds on the 1000th call in a
 * process (half the test's KAT time limit) and is well-behaved
 * otherwise: one stalled call must neither fail the KATs nor spoil the
 * measurement. */
#define _GNU_SOURCE
#include "hostile_common.h"
#include <unistd.h>

static unsigned long calls;

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    if (++calls == 1000)
        sleep(2);
    return hostile_sm3(digest_len_bits, msg, msg_len_bits, digest);
}
