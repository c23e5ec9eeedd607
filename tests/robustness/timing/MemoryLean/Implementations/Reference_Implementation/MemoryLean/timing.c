/* Timing-attack fixture MemoryLean: a small memory figure for code that
 * is timed with a large table. Honest SM3 throughout; but once a process
 * has made 64 calls of one guide size (a timed session does within its
 * first windows; the run that measures stack and heap makes one call, and
 * so do the checks that open a probe), it allocates a 24 MiB table, writes
 * every page of it and keeps it for the rest of the process, as a library
 * that trades memory for speed would, while the run that measures its
 * memory never sees it. It gains a stack and heap figure 24 MiB below what
 * the code that was timed holds. */
#define _GNU_SOURCE
#include "timing_common.h"

#define TABLE_BYTES (24u << 20)

static unsigned char *table;
static unsigned long long run_bits, run_calls;

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    run_calls = msg_len_bits == run_bits ? run_calls + 1 : 0;
    run_bits = msg_len_bits;
    if (!table && run_calls >= 64 && ta_guide_size(msg_len_bits / 8)) {
        table = malloc(TABLE_BYTES);
        if (table)
            for (size_t i = 0; i < TABLE_BYTES; i += 4096)
                table[i] = (unsigned char)i;
    }
    int rc = ta_sm3_example(digest_len_bits, msg, msg_len_bits, digest);
    if (table && rc == 0)
        digest[0] ^= (unsigned char)(table[(size_t)digest[1] << 12] ^ table[(size_t)digest[1] << 12]);
    return rc;
}
