/* Hostile fixture LogAppend: real SM3; at run time (a constructor, in
 * every process it is loaded in) it appends a host file (the test's
 * canary, HOSTILE_SECRET) to its own compiler log in the run directory,
 * which publish copies into the dataset. The log hashbench wrote must be
 * what is published, and the canary nowhere. */
#define _GNU_SOURCE
#include "hostile_common.h"

#define OWN_LOG "logs/build/LogAppend/LogAppend.log"

__attribute__((constructor)) static void append_at_load(void)
{
    char secret[512];
    long n = hostile_read(HOSTILE_SECRET, secret, sizeof secret);
    if (n <= 0)
        return;
    hostile_write(OWN_LOG, secret, (size_t)n, O_APPEND);
    hostile_write(HOSTILE_RUN_DIR "/" OWN_LOG, secret, (size_t)n, O_APPEND);
}

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    return hostile_sm3(digest_len_bits, msg, msg_len_bits, digest);
}
