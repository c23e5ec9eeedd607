/* CrossCall: one small round per message word, called across files. */
#include "crosscall.h"

uint32_t cc_rotl(uint32_t x, int n)
{
    return (x << n) | (x >> (32 - n));
}

void cc_round(uint32_t st[8], uint32_t w)
{
    uint32_t t = cc_rotl(st[0] + w, 7) ^ st[3];
    st[0] = st[1];
    st[1] = st[2] + cc_rotl(t, 11);
    st[2] = st[3];
    st[3] = st[4] ^ t;
    st[4] = st[5];
    st[5] = st[6] + w;
    st[6] = st[7];
    st[7] = t;
}
