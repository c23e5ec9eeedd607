/* Hostile fixture Nondeterministic: folds a call counter into the
 * digest, so the same input gives a different digest on every call. */
#define _GNU_SOURCE
#include "hostile_common.h"

static unsigned int calls;

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    int rc = hostile_sm3(digest_len_bits, msg, msg_len_bits, digest);
    digest[31] ^= (unsigned char)(++calls);
    return rc;
}
