/* Instance header of the timing-attack fixture Borrow (see timing.c). */
#ifndef CRYPTHASH_ALGORITHMINSTANCE_H
#define CRYPTHASH_ALGORITHMINSTANCE_H
#define ALGORITHM_INSTANCE "Borrow"
#define DIGEST_BIT_LENGTH 256
int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest);
#endif
