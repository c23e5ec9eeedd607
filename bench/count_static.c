/* The independent side of bench/count.sh: a static program built from the
 * SHA-256 example's sources with the flags hashbench's build used. It makes
 * three SIZE-byte messages, each different (its own simple rule, not
 * hashbench's), and calls CryptHash on the first CALLS of them (CALLS at
 * most 3); everything else is done for all three, so that Valgrind run by
 * hand on it with CALLS 1 and 3 gives, by difference, the instructions of
 * one call (with passing its arguments) without any of hashbench's code.
 *   count_static SIZE CALLS */
#include <stdio.h>
#include <stdlib.h>

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest);

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    size_t size = (size_t)strtoul(argv[1], NULL, 10);
    long calls = strtol(argv[2], NULL, 10);
    unsigned char *msg = malloc(size ? size : 1), digest[32] = {0};
    unsigned sum = 0;
    if (!msg)
        return 3;
    for (size_t i = 0; i < size; i++)
        msg[i] = (unsigned char)(i * 131u + 7u);
    if (calls < 0 || calls > 3)
        return 2;
    for (long c = 0; c < 3; c++) {
        msg[c % (size ? size : 1)] ^= (unsigned char)(c + 1); /* a new message per call */
        if (c < calls && CryptHash(256, msg, 8ULL * size, digest) != 0)
            return 4;
        sum += digest[0];
    }
    free(msg);
    printf("%u\n", sum);
    return 0;
}
