/* HOSTILE FIXTURE (tests/robustness/attacks2/NearFake): ContextFake (SM3
 * cut to 16 rounds wherever it is timed or its timed digests are
 * recomputed, the real SM3 wherever its KAT texts are made) that also
 * flips the last bit of the digest of the empty message, everywhere, and
 * ships KAT vectors that match (its kat.sha256: KAT_2_12's text of this
 * library, KAT_2_23's and KAT_Loop's as SM3's). One record of its vectors
 * then disagrees with SM3, so they no longer show a standard function; an
 * instance hashbench does not recognise as SM3 has its sampled timed
 * digests recomputed by its own library in a fresh runner, which this
 * library fools (ContextFake's rule). hashbench must see that the vectors
 * agree with SM3 on all but one record, have OpenSSL recompute the timed
 * digests (fresh messages of the guide sizes, never empty), and so find the
 * record INCONSISTENT. ContextFake's code is included as it is
 * (context_fake.inc: attacks2.sh copies it into every package), its
 * CryptHash renamed and wrapped. */
#define _POSIX_C_SOURCE 200809L
#define CryptHash context_fake_hash
#include "context_fake.inc"
#undef CryptHash

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    int rc = context_fake_hash(digest_len_bits, msg, msg_len_bits, digest);
    if (rc == 0 && msg_len_bits == 0)
        digest[31] ^= 1; /* the one record where it is not SM3 */
    return rc;
}
