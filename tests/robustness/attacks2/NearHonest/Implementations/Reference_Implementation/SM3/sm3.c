/* FIXTURE (tests/robustness/attacks2/NearHonest): an honest SM3 that
 * flips the last bit of the digest of the empty message, with KAT vectors
 * that match (its kat.sha256, as NearFake's). Its vectors agree with SM3 on
 * all records but one: it is near-standard, and its timed digests (fresh
 * messages of the guide sizes, never empty) are SM3's, so OpenSSL agrees
 * with them and its records are OK, verified by openssl:SM3 with the page
 * saying where its vectors differ. */
#include <stddef.h>
#include "CryptHash_AlgorithmInstance.h"

/* The example's SM3 (copied in as sm3_example.inc when the package is
 * assembled: tests/robustness/attacks2.sh) under another name. */
#define CryptHash example_sm3_hash
#include "sm3_example.inc"
#undef CryptHash

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    int rc = example_sm3_hash(digest_len_bits, msg, msg_len_bits, digest);
    if (rc == 0 && msg_len_bits == 0)
        digest[31] ^= 1;
    return rc;
}
