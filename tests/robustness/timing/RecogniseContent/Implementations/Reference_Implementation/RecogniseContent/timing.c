/* Timing-attack fixture RecogniseContent: a cheap wrong digest for every
 * message it takes for a timed one, decided from the message alone, so
 * that every process that hashes the same message with this library (the
 * probe, a recomputation in a fresh process, a single call on its own)
 * returns the same wrong digest. Two rules, both pure functions of the
 * message:
 *  - the message follows hashbench's published trial-message rule (the
 *    seed is recovered from bytes 8..15 and confirmed on bytes 16..23);
 *  - the message is a whole number of bytes, one of the guide's sizes and
 *    at least 4096 bytes: no official KAT message has such a length
 *    (KAT_2_12 stops at 512 bytes, KAT_2_23 is 1 MiB, KAT_Loop is 1024).
 * Everything else, every KAT message among them, gets real SM3. */
#define _GNU_SOURCE
#include "timing_common.h"

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    uint64_t seed;
    if (digest_len_bits == 256 && msg &&
        (ta_rule_seed(msg, msg_len_bits, &seed) ||
         (msg_len_bits % 8 == 0 && msg_len_bits >= 8 * 4096 &&
          ta_guide_size(msg_len_bits / 8))))
        return ta_fake_digest(msg, msg_len_bits, digest);
    return ta_sm3_example(digest_len_bits, msg, msg_len_bits, digest);
}
