/* Fixture Resumed (a plain fault, not an attack): plain SM3, the second
 * clean package of the campaign that the test kills with SIGKILL and
 * resumes, so that there is more than one instance's work to lose. */
#define _GNU_SOURCE
#include "hostile_common.h"

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    return hostile_sm3(digest_len_bits, msg, msg_len_bits, digest);
}
