/* SHA-256 and hex helpers: see digest.h. OpenSSL does the hashing. */
#include "common/digest.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <openssl/evp.h>
#include "common/fs.h"

struct hb_sha256 {
    EVP_MD_CTX *ctx;
};

hb_sha256 *hb_sha256_new(void)
{
    hb_sha256 *c = malloc(sizeof *c);
    if (!c)
        return NULL;
    c->ctx = EVP_MD_CTX_new();
    if (!c->ctx || EVP_DigestInit_ex(c->ctx, EVP_sha256(), NULL) != 1) {
        EVP_MD_CTX_free(c->ctx);
        free(c);
        return NULL;
    }
    return c;
}

void hb_sha256_update(hb_sha256 *c, const void *data, size_t len)
{
    if (len)
        EVP_DigestUpdate(c->ctx, data, len);
}

void hb_sha256_final_hex(hb_sha256 *c, char hex[HB_SHA256_HEX])
{
    unsigned char md[32];
    unsigned int n = 0;
    EVP_DigestFinal_ex(c->ctx, md, &n);
    hb_hex_encode(md, 32, hex, 0);
    EVP_MD_CTX_free(c->ctx);
    free(c);
}

void hb_sha256_buf_hex(const void *data, size_t len, char hex[HB_SHA256_HEX])
{
    unsigned char md[32];
    unsigned int n = 0;
    EVP_Digest(data, len, md, &n, EVP_sha256(), NULL);
    hb_hex_encode(md, 32, hex, 0);
}

int hb_sha256_file_hex(const char *path, char hex[HB_SHA256_HEX], hb_err *err)
{
    return hb_sha256_file_limited(path, HB_NO_LIMIT, "the file", hex, err);
}

void hb_hex_encode(const unsigned char *in, size_t len, char *out, int upper)
{
    const char *d = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    for (size_t i = 0; i < len; i++) {
        out[2 * i] = d[in[i] >> 4];
        out[2 * i + 1] = d[in[i] & 15];
    }
    out[2 * len] = '\0';
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

long hb_hex_decode(const char *hex, size_t len, unsigned char *out)
{
    if (len % 2)
        return -1;
    for (size_t i = 0; i < len; i += 2) {
        int hi = hexval(hex[i]), lo = hexval(hex[i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        out[i / 2] = (unsigned char)(hi << 4 | lo);
    }
    return (long)(len / 2);
}

int hb_sha256_file_limited(const char *path, unsigned long long limit,
                           const char *what, char *hex, hb_err *err)
{
    FILE *fp = hb_open_limited(path, limit, what, err);
    if (!fp)
        return -1;
    hb_sha256 *c = hb_sha256_new();
    if (!c) {
        fclose(fp);
        return hb_fail(err, "%s: cannot start SHA-256", path);
    }
    unsigned char buf[65536];
    size_t r;
    while ((r = fread(buf, 1, sizeof buf, fp)) > 0)
        hb_sha256_update(c, buf, r);
    int bad = ferror(fp), e = errno;
    fclose(fp);
    hb_sha256_final_hex(c, hex);
    errno = e;
    return bad ? hb_read_limited_failed(path, limit, what, err) : 0;
}
