/* Hostile fixture DigestCache: remembers the last digest by (message
 * pointer, length) and returns it when called again on the same buffer,
 * checking only the first and last 8 bytes so that the KATs (whose
 * messages of one length differ at the start) still pass. A probe that
 * times the same unchanged buffer over and over measures a memcpy, not
 * SM3. */
#define _GNU_SOURCE
#include "hostile_common.h"

static const unsigned char *last_msg;
static unsigned long long last_bits;
static unsigned char last_head[8], last_tail[8], last_digest[32];
static int have_last;

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    unsigned long long bytes = msg_len_bits / 8;
    int rc;
    if (have_last && msg == last_msg && msg_len_bits == last_bits && bytes >= 16 &&
        digest_len_bits == 256 && memcmp(msg, last_head, 8) == 0 &&
        memcmp(msg + bytes - 8, last_tail, 8) == 0) {
        memcpy(digest, last_digest, 32);
        return 0;
    }
    rc = hostile_sm3(digest_len_bits, msg, msg_len_bits, digest);
    if (rc == 0 && bytes >= 16 && msg_len_bits % 8 == 0) {
        last_msg = msg;
        last_bits = msg_len_bits;
        memcpy(last_head, msg, 8);
        memcpy(last_tail, msg + bytes - 8, 8);
        memcpy(last_digest, digest, 32);
        have_last = 1;
    }
    return rc;
}
