/* Fixture AbsPathLog (a plain fault, not an attack): real SM3, whose
 * compilation prints a note naming an absolute path. The test builds it
 * with --cc /usr/bin/gcc, so the compiler log also starts with one.
 * Publishing must succeed, with the private paths left out of the
 * dataset. */
#define _GNU_SOURCE
#include "hostile_common.h"

#pragma message("tables generated in /opt/hostile-build/tables, see /home/alice/notes.txt")

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    return hostile_sm3(digest_len_bits, msg, msg_len_bits, digest);
}
