/* Hostile test instance Healthy: the well-behaved neighbour. It computes
 * the toy hash and nothing else; its results must come out complete and the
 * same as when it is assessed alone. */
#include "CryptHash_AlgorithmInstance.h"
#include "../toyhash.h"

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    return toy_hash(digest_len_bits, msg, msg_len_bits, digest);
}
