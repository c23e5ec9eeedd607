/* Instance header of the hostile fixture FillScratch (see hostile.c). */
#ifndef CRYPTHASH_ALGORITHMINSTANCE_H
#define CRYPTHASH_ALGORITHMINSTANCE_H
#define ALGORITHM_INSTANCE "FillScratch"
#define DIGEST_BIT_LENGTH 256
int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest);
#endif
