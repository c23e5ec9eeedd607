/* Hostile fixture Orphan: real SM3; on its first call in any process it
 * forks, the child leaves the session and process group (setsid) and
 * forks again, and the grandchild sleeps for two minutes keeping every
 * descriptor it inherited (the harness's output pipes among them). Killing
 * the library's process group, or waiting for its output to end, does not
 * reach it: only a pid namespace (or cgroup) does. */
#define _GNU_SOURCE
#include "hostile_common.h"
#include <sys/wait.h>

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    static int done;
    if (!done) {
        pid_t child;
        done = 1;
        child = fork();
        if (child == 0) {
            setsid();
            if (fork() == 0) {
                sleep(120);
                _exit(0);
            }
            _exit(0);
        }
        if (child > 0)
            waitpid(child, NULL, 0);
    }
    return hostile_sm3(digest_len_bits, msg, msg_len_bits, digest);
}
