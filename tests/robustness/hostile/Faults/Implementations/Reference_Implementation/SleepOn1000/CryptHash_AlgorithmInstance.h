/* Instance header of the hostile fixture SleepOn1000 (see hostile.c). */
#ifndef CRYPTHASH_ALGORITHMINSTANCE_H
#define CRYPTHASH_ALGORITHMINSTANCE_H
#define ALGORITHM_INSTANCE "SleepOn1000"
#define DIGEST_BIT_LENGTH 256
int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest);
#endif
