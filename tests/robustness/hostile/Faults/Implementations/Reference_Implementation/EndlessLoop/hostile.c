/* Hostile fixture EndlessLoop: never returns: it spins forever
 * on the CPU without a system call. */
#define _GNU_SOURCE
#include "hostile_common.h"

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    volatile unsigned long long spin = 0;
    while (spin != ~0ULL)
        spin = (spin + 1) % 1000;
    return hostile_sm3(digest_len_bits, msg, msg_len_bits, digest);
}
