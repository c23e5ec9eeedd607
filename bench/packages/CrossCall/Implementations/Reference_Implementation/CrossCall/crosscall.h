/* CrossCall: the helpers each file of the fixture calls in another one. */
#ifndef CROSSCALL_H
#define CROSSCALL_H

#include <stdint.h>

uint32_t cc_rotl(uint32_t x, int n);
void cc_round(uint32_t st[8], uint32_t w);
void cc_absorb(uint32_t st[8], const unsigned char *p, unsigned long long n);
int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest);

#endif
