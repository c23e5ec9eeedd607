/* Hostile test instance NoCryptHash: builds into a library that exports no
 * CryptHash (the entry point is misspelt). */
#include "CryptHash_AlgorithmInstance.h"
#include "../toyhash.h"

int CryptHash_Misspelt(int digest_len_bits, const unsigned char *msg,
                       unsigned long long msg_len_bits, unsigned char *digest);

int CryptHash_Misspelt(int digest_len_bits, const unsigned char *msg,
                       unsigned long long msg_len_bits, unsigned char *digest)
{
    return toy_hash(digest_len_bits, msg, msg_len_bits, digest);
}
