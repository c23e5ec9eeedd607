/* The timed messages' generator: see msggen.h. */
#include "measure/msggen.h"

#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "common/digest.h"

int msggen_new_key(msggen_key *key, hb_err *err)
{
    size_t got = 0;
    while (got < sizeof key->k) {
        ssize_t r = getrandom(key->k + got, sizeof key->k - got, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return hb_fail_errno(err, "getrandom: no key for a window's messages");
        got += (size_t)r;
    }
    return 0;
}

int msggen_fill(const msggen_key *key, unsigned long long offset, unsigned char *out,
                size_t len, hb_err *err)
{
    /* the IV's first four bytes are the little-endian block counter */
    unsigned long long block = offset / 64;
    if (block + (len + 127) / 64 > 0xffffffffULL)
        return hb_fail(err, "a window's messages exceed ChaCha20's block counter");
    unsigned char iv[16] = {0}, skip[64] = {0};
    for (int i = 0; i < 4; i++)
        iv[i] = (unsigned char)(block >> (8 * i));
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    int n = 0, ok = c && EVP_EncryptInit_ex(c, EVP_chacha20(), NULL, key->k, iv) == 1;
    size_t lead = (size_t)(offset % 64);
    if (ok && lead)
        ok = EVP_EncryptUpdate(c, skip, &n, skip, (int)lead) == 1;
    memset(out, 0, len);
    for (size_t done = 0; ok && done < len;) {
        size_t part = len - done > (1u << 30) ? (1u << 30) : len - done;
        ok = EVP_EncryptUpdate(c, out + done, &n, out + done, (int)part) == 1;
        done += part;
    }
    EVP_CIPHER_CTX_free(c);
    return ok ? 0 : hb_fail(err, "OpenSSL's ChaCha20 failed to make a window's messages");
}

void msggen_key_hex(const msggen_key *key, char hex[65])
{
    hb_hex_encode(key->k, sizeof key->k, hex, 0);
}

int msggen_key_parse(const char *hex, msggen_key *key)
{
    if (strlen(hex) != 64 || strspn(hex, "0123456789abcdefABCDEF") != 64)
        return -1;
    for (int i = 0; i < 32; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1)
            return -1;
        key->k[i] = (unsigned char)v;
    }
    return 0;
}
