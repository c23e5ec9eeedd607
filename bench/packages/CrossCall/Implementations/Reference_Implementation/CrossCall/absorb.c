/* CrossCall: the hot loop, one call of cc_round (round.c) per word. */
#include "crosscall.h"

void cc_absorb(uint32_t st[8], const unsigned char *p, unsigned long long n)
{
    for (unsigned long long i = 0; i + 4 <= n; i += 4)
        cc_round(st, (uint32_t)p[i] | (uint32_t)p[i + 1] << 8 |
                     (uint32_t)p[i + 2] << 16 | (uint32_t)p[i + 3] << 24);
}
