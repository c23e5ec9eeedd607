/* Hostile fixture StackOverflow: recurses without end, each frame
 * holding a 4 KiB buffer, until the stack runs out. */
#define _GNU_SOURCE
#include "hostile_common.h"

static unsigned long long deeper(unsigned long long depth, const unsigned char *msg)
{
    volatile unsigned char frame[4096];
    if (depth > (1ULL << 40)) /* never reached: the stack ends long before */
        return 0;
    frame[depth % sizeof frame] = msg[0];
    return deeper(depth + 1, msg) + frame[(depth * 7) % sizeof frame];
}

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    int rc = hostile_sm3(digest_len_bits, msg, msg_len_bits, digest);
    digest[0] ^= (unsigned char)deeper(0, msg);
    return rc;
}
