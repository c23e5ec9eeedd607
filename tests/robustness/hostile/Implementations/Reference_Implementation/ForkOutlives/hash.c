/* Hostile test instance ForkOutlives: on its first call in a process,
 * forks a child that sleeps for five minutes, keeping the inherited output
 * open. The child appends its pid to the file named by the environment
 * variable HB_HOSTILE_PIDFILE (when set) so a test can check it is gone.
 * The digest is right. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "CryptHash_AlgorithmInstance.h"
#include "../toyhash.h"

static int forked;

static void linger(void)
{
    const char *pidfile = getenv("HB_HOSTILE_PIDFILE");
    if (pidfile) {
        FILE *fp = fopen(pidfile, "a");
        if (fp) {
            fprintf(fp, "%ld\n", (long)getpid());
            fclose(fp);
        }
    }
    sleep(300);
    _exit(0);
}

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    if (!forked) {
        forked = 1;
        if (fork() == 0)
            linger();
    }
    return toy_hash(digest_len_bits, msg, msg_len_bits, digest);
}
