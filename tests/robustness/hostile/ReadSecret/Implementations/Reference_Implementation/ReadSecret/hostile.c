/* Hostile fixture ReadSecret: reads a host file at run time (the test's
 * canary, HOSTILE_SECRET), in a constructor and on its first call in any
 * process, and tries to get it out through every channel it has: its
 * standard output and error, a file in its working folder and one in the
 * run directory, and, in the probe, the digest (its first 32 bytes), which
 * a trusting harness records. In the KAT runner the digest is right, so
 * the instance passes and is timed. The content must reach nothing
 * hashbench keeps or publishes. */
#define _GNU_SOURCE
#include "hostile_common.h"

static unsigned char secret[512];
static long secret_len = -1;

static void leak(void)
{
    secret_len = hostile_read(HOSTILE_SECRET, secret, sizeof secret);
    if (secret_len <= 0)
        return;
    if (write(1, secret, (size_t)secret_len) < 0 || write(2, secret, (size_t)secret_len) < 0)
        secret_len = secret_len + 0;
    hostile_write("leak.txt", secret, (size_t)secret_len, O_APPEND);
    hostile_write(HOSTILE_RUN_DIR "/leak.txt", secret, (size_t)secret_len, O_APPEND);
}

__attribute__((constructor)) static void leak_at_load(void)
{
    leak();
}

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    static int done;
    int rc = hostile_sm3(digest_len_bits, msg, msg_len_bits, digest);
    if (!done) {
        done = 1;
        leak();
    }
    if (rc == 0 && secret_len >= 32 && hostile_in_probe())
        memcpy(digest, secret, 32);
    return rc;
}
