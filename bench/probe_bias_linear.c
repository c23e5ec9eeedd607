/* The linear-work instance for bench/probe_bias.sh: one multiply-add per
 * message byte in a single dependency chain (Horner's rule), so the work is
 * exactly proportional to the length and the cycles per byte must be flat
 * across sizes. */
#include <string.h>

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest);

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    unsigned long long n = msg_len_bits / 8, acc = 1;
    for (unsigned long long i = 0; i < n; i++)
        acc = acc * 1099511628211ull + msg[i];
    memset(digest, 0, (size_t)digest_len_bits / 8);
    memcpy(digest, &acc, sizeof acc < (size_t)digest_len_bits / 8
                             ? sizeof acc : (size_t)digest_len_bits / 8);
    return 0;
}
