/* Finding Valgrind's client-request preamble in a built library: see
 * vgreq.h. The sequences are those of valgrind.h: four rotations of one
 * register by 3, 13, 61 and 51 bits (x86-64: rolq on %rdi) or by 3, 13, 51
 * and 61 bits (AArch64: ror on x12), which leave it unchanged. */
#include "common/vgreq.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fs.h"

static const unsigned char amd64[] = {
    0x48, 0xC1, 0xC7, 0x03, 0x48, 0xC1, 0xC7, 0x0D,
    0x48, 0xC1, 0xC7, 0x3D, 0x48, 0xC1, 0xC7, 0x33,
};
static const unsigned char arm64[] = {
    0x8C, 0x0D, 0xCC, 0x93, 0x8C, 0x35, 0xCC, 0x93,
    0x8C, 0xCD, 0xCC, 0x93, 0x8C, 0xF5, 0xCC, 0x93,
};

static long long find(const unsigned char *buf, size_t len, const unsigned char *pat,
                      size_t n)
{
    for (size_t i = 0; i + n <= len; i++)
        if (buf[i] == pat[0] && memcmp(buf + i, pat, n) == 0)
            return (long long)i;
    return -1;
}

long long hb_valgrind_request_in(const unsigned char *buf, size_t len)
{
    long long a = find(buf, len, amd64, sizeof amd64);
    long long b = find(buf, len, arm64, sizeof arm64);
    return a < 0 ? b : b < 0 || a < b ? a : b;
}

int hb_valgrind_request_file(const char *path, long long *offset, hb_err *err)
{
    char *buf = NULL;
    size_t len = 0;
    *offset = -1;
    if (hb_read_file(path, &buf, &len, err) != 0)
        return -1;
    *offset = hb_valgrind_request_in((const unsigned char *)buf, len);
    free(buf);
    return 0;
}

void hb_valgrind_request_reason(char *out, size_t cap, long long offset, const char *what)
{
    snprintf(out, cap, "the library holds a Valgrind client request (byte %lld of "
             "the library): it can tell that it runs under Valgrind, or change what "
             "Valgrind sees, so %s would prove nothing", offset, what);
}
