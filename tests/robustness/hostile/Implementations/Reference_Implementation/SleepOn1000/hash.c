/* Hostile test instance SleepOn1000: sleeps 30 seconds on the 1000th call
 * in a process and is well-behaved otherwise. */
#define _POSIX_C_SOURCE 200809L
#include <unistd.h>
#include "CryptHash_AlgorithmInstance.h"
#include "../toyhash.h"

static unsigned long calls;

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    if (++calls == 1000)
        sleep(30);
    return toy_hash(digest_len_bits, msg, msg_len_bits, digest);
}
