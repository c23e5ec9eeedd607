/* CrossCall: CryptHash of the bench fixture (see the package README). */
#include <string.h>

#include "CryptHash_AlgorithmInstance.h"
#include "crosscall.h"

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    uint32_t st[8] = {0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au,
                      0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u};
    unsigned char tail[8] = {0};
    unsigned long long bytes = msg_len_bits / 8, whole = bytes & ~3ull;
    if (digest_len_bits != DIGEST_BIT_LENGTH)
        return 1;
    cc_absorb(st, msg, whole);
    memcpy(tail, msg + whole, (size_t)(bytes - whole + (msg_len_bits % 8 != 0)));
    cc_absorb(st, tail, 8);
    cc_round(st, (uint32_t)msg_len_bits);
    for (int i = 0; i < 8; i++) {
        cc_round(st, (uint32_t)i);
        digest[4 * i] = (unsigned char)st[7];
        digest[4 * i + 1] = (unsigned char)(st[7] >> 8);
        digest[4 * i + 2] = (unsigned char)(st[7] >> 16);
        digest[4 * i + 3] = (unsigned char)(st[7] >> 24);
    }
    return 0;
}
