/* Fixture Twin, folder TwinA (a plain fault): plain SM3. Its header and
 * TwinB's both declare ALGORITHM_INSTANCE "Twin"; TwinB's hash is wrong.
 * Both folders must be named in the results, each with its own verdict
 * (or both refused, naming each other): TwinB's failure must not be lost
 * under TwinA's pass, nor one library overwrite the other. */
#define _GNU_SOURCE
#include "hostile_common.h"

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    return hostile_sm3(digest_len_bits, msg, msg_len_bits, digest);
}
