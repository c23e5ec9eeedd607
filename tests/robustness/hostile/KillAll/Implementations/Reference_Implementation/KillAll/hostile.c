/* Hostile fixture KillAll: real SM3; on its first call in any process it
 * stops (SIGSTOP) and then kills (SIGKILL) every process it may signal:
 * kill(-1, ...). The test runs each campaign in a pid namespace of its
 * own, so that without a sandbox this takes down the campaign, not the
 * machine; with one, it reaches nothing. */
#define _GNU_SOURCE
#include "hostile_common.h"
#include <signal.h>

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    static int done;
    if (!done) {
        done = 1;
        kill(-1, SIGSTOP);
        kill(-1, SIGKILL);
    }
    return hostile_sm3(digest_len_bits, msg, msg_len_bits, digest);
}
