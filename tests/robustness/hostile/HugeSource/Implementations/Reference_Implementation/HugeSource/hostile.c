/* Hostile fixture HugeSource: plain SM3. The attack is the file beside it:
 * the test adds huge.c, a sparse file of 6 GiB (truncate -s; it takes no
 * disk space, and no package could ship it), which the default source list
 * includes. Reading it, hashing it or compiling it costs minutes and
 * gigabytes: hashbench must refuse the instance by the file's size,
 * without reading it. */
#define _GNU_SOURCE
#include "hostile_common.h"

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    return hostile_sm3(digest_len_bits, msg, msg_len_bits, digest);
}
