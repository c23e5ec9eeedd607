/* Hostile fixture IncludeSymlink: includes "passwd.h", a header of its own
 * folder that is a symbolic link to a host file (the test makes the link
 * to its canary, which is shaped like a line of /etc/passwd: a package
 * cannot ship a link to a path it does not know). The compiler fails on
 * it and quotes it; its content must reach no log, record or page. */
#define _GNU_SOURCE
#include "hostile_common.h"
#include "passwd.h"

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    return hostile_sm3(digest_len_bits, msg, msg_len_bits, digest);
}
