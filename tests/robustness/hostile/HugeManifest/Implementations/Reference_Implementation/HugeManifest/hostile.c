/* Hostile fixture HugeManifest: plain SM3. The attack is the package's
 * kat.sha256, which the test writes with a million lines (999,997 for
 * instances that do not exist, then the three real ones): a manifest
 * parser or lookup that is quadratic in its lines never finishes. The KAT
 * stage must end within seconds, with a verdict: PASS (a linear parse
 * finds the real lines) or a refusal of the oversized manifest. */
#define _GNU_SOURCE
#include "hostile_common.h"

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    return hostile_sm3(digest_len_bits, msg, msg_len_bits, digest);
}
