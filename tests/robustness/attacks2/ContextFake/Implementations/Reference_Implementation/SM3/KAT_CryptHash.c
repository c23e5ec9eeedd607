/* A tiny driver shipped with the SM3 example, in the place of the official
 * KAT generator: it hashes "abc" and prints the digest in hex. It has its own
 * main(), so the harness must leave it out of the instance library. */
#include <stdio.h>
#include "CryptHash_AlgorithmInstance.h"

int main(void)
{
    static const unsigned char abc[3] = { 'a', 'b', 'c' };
    unsigned char digest[DIGEST_BIT_LENGTH / 8];
    size_t i;

    if (CryptHash(DIGEST_BIT_LENGTH, abc, 24, digest) != 0) {
        fprintf(stderr, "CryptHash failed\n");
        return 1;
    }
    printf("%s(\"abc\") = ", ALGORITHM_INSTANCE);
    for (i = 0; i < sizeof digest; i++)
        printf("%02X", digest[i]);
    printf("\n");
    return 0;
}
