/* Hostile fixture NoCryptHash: builds into a library that exports no
 * CryptHash (the entry point is misspelt). */
#define _GNU_SOURCE
#include "hostile_common.h"

int CryptHash_Misspelt(int digest_len_bits, const unsigned char *msg,
                       unsigned long long msg_len_bits, unsigned char *digest);

int CryptHash_Misspelt(int digest_len_bits, const unsigned char *msg,
                       unsigned long long msg_len_bits, unsigned char *digest)
{
    return hostile_sm3(digest_len_bits, msg, msg_len_bits, digest);
}
