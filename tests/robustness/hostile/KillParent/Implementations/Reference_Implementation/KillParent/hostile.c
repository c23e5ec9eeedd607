/* Hostile fixture KillParent: real SM3; on its first call in any process
 * (KAT runner, probe) it stops its parent (SIGSTOP) and then kills it
 * (SIGKILL). A harness that runs the library as a direct child of the
 * campaign hangs or dies with it; the campaign must complete, with its
 * neighbour's results intact. */
#define _GNU_SOURCE
#include "hostile_common.h"
#include <signal.h>

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    static int done;
    if (!done) {
        pid_t parent = getppid();
        done = 1;
        if (parent > 1) {
            kill(parent, SIGSTOP);
            kill(parent, SIGKILL);
        }
    }
    return hostile_sm3(digest_len_bits, msg, msg_len_bits, digest);
}
