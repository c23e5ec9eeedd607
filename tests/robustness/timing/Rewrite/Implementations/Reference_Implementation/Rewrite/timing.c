/* Timing-attack fixture Rewrite: honest SM3 digests, and figures rewritten
 * from inside the process that reports them, by whatever a library in the
 * caller's address space can reach: its clock, its report and the
 * hardware counters attached to it (rewrite.h says how). The digests are
 * right, so only the figure can catch it. */
#define _GNU_SOURCE
#include "timing_common.h"
#include "rewrite.h"

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    return ta_rewrite_hash(digest_len_bits, msg, msg_len_bits, digest);
}
