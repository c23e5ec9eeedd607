/* Hostile fixture ProbeFake: real SM3 where the KATs run, a cheap fake
 * where it is timed. It recognises the probe by its executable's name
 * (/proc/self/exe) or by the timing loop's call pattern (the same buffer
 * and length 64 times in a row, which the KATs never do) and then returns
 * a deterministic non-digest computed in a few nanoseconds. A harness
 * that never checks the digests computed while timing publishes the
 * fake's speed as SM3's. */
#define _GNU_SOURCE
#include "hostile_common.h"

static const unsigned char *last_msg;
static unsigned long long last_bits;
static unsigned long same_calls;

static int timed(const unsigned char *msg, unsigned long long bits)
{
    static int probe = -1;
    if (probe < 0)
        probe = hostile_in_probe();
    if (msg == last_msg && bits == last_bits)
        same_calls++;
    else
        same_calls = 0;
    last_msg = msg;
    last_bits = bits;
    return probe || same_calls >= 64;
}

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    int i;
    if (digest_len_bits == 256 && timed(msg, msg_len_bits)) {
        for (i = 0; i < 32; i++)
            digest[i] = (unsigned char)(msg_len_bits * 31 + (unsigned)i * 7);
        return 0;
    }
    return hostile_sm3(digest_len_bits, msg, msg_len_bits, digest);
}
