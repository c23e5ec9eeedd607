/* Hostile fixture Chatty: on its first call in a process, prints
 * 4 MiB of garbage (terminal escapes, NUL bytes, invalid UTF-8, no newline
 * for long stretches) to stdout and another 4 MiB to stderr; the digest is
 * right. */
#define _GNU_SOURCE
#include "hostile_common.h"
#include <stdio.h>

static int printed;

static void garbage(FILE *fp)
{
    static const unsigned char chunk[] = "\x1b[2J\x1b[31mRESULT: PASS\r\0\xff\xfe\xc3(\x07";
    unsigned long n;
    for (n = 0; n < (4UL << 20) / sizeof chunk; n++)
        fwrite(chunk, 1, sizeof chunk, fp);
    fflush(fp);
}

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    if (!printed) {
        printed = 1;
        garbage(stdout);
        garbage(stderr);
    }
    return hostile_sm3(digest_len_bits, msg, msg_len_bits, digest);
}
