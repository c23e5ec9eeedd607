/* Hostile test instance Nondeterministic: folds a call counter into the
 * digest, so the same input gives a different digest on every call. */
#include "CryptHash_AlgorithmInstance.h"
#include "../toyhash.h"

static unsigned int calls;

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    int rc = toy_hash(digest_len_bits, msg, msg_len_bits, digest);
    digest[31] ^= (unsigned char)(++calls);
    return rc;
}
