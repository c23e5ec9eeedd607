/* Hostile fixture IncludeSecret: includes a host file by its absolute path
 * (HOSTILE_SECRET, a canary the test writes outside the package, shaped
 * like a line of /etc/passwd). It is not C, so the compiler fails and
 * quotes it in its error messages: a compiler that can read the host's
 * files puts them into the compiler log, the build failure reason and the
 * published pages. The build must fail without the file's content
 * reaching any of them. */
#define _GNU_SOURCE
#include "hostile_common.h"
#include HOSTILE_SECRET

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    return hostile_sm3(digest_len_bits, msg, msg_len_bits, digest);
}
