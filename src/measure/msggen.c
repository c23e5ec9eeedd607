/* The keyed generator of the timed messages: see msggen.h. ChaCha20 comes
 * from OpenSSL's EVP interface; the keystream is the encryption of zero
 * bytes, made in place in the caller's buffer, from the 64-byte block that
 * holds OFFSET, whose leading bytes are dropped. */
#include "measure/msggen.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>
#include <openssl/evp.h>
#include "common/digest.h"

/* Keystream bytes encrypted per EVP call (zeroed first, in OUT itself). */
#define MSGGEN_CHUNK (16 * 1024)

int msggen_new_key(msggen_key *key, hb_err *err)
{
    size_t got = 0;
    while (got < sizeof key->k) {
        ssize_t r = getrandom(key->k + got, sizeof key->k - got, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return hb_fail_errno(err, "getrandom cannot give a message key");
        got += (size_t)r;
    }
    return 0;
}

/* Encrypts N zero bytes in place at BUF. */
static int zero_stream(EVP_CIPHER_CTX *c, unsigned char *buf, size_t n)
{
    while (n > 0) {
        int step = n < MSGGEN_CHUNK ? (int)n : MSGGEN_CHUNK, outl = 0;
        memset(buf, 0, (size_t)step);
        if (EVP_EncryptUpdate(c, buf, &outl, buf, step) != 1 || outl != step)
            return -1;
        buf += step;
        n -= (size_t)step;
    }
    return 0;
}

int msggen_fill(const msggen_key *key, unsigned long long offset, unsigned char *out,
                size_t len, hb_err *err)
{
    if (len == 0)
        return 0;
    if (offset > MSGGEN_STREAM_BYTES || len > MSGGEN_STREAM_BYTES - offset)
        return hb_fail(err, "message bytes [%llu, %llu) lie past the %llu bytes one key "
                       "gives; use a fresh key (msggen_new_key) for more", offset,
                       offset + (unsigned long long)len, MSGGEN_STREAM_BYTES);
    unsigned long long block = offset / 64;
    unsigned char iv[16] = {0}, skip[64];
    for (int i = 0; i < 4; i++)   /* OpenSSL's IV: 32-bit counter (LE), nonce */
        iv[i] = (unsigned char)(block >> (8 * i));
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    int rc = c && EVP_EncryptInit_ex(c, EVP_chacha20(), NULL, key->k, iv) == 1 ? 0 : -1;
    size_t lead = (size_t)(offset % 64);
    if (rc == 0 && lead)
        rc = zero_stream(c, skip, lead);
    if (rc == 0)
        rc = zero_stream(c, out, len);
    EVP_CIPHER_CTX_free(c);
    if (rc != 0)
        return hb_fail(err, "OpenSSL cannot give ChaCha20 (EVP_chacha20): check the "
                       "installed libcrypto");
    return 0;
}

void msggen_key_hex(const msggen_key *key, char hex[MSGGEN_KEY_HEX])
{
    hb_hex_encode(key->k, sizeof key->k, hex, 0);
}

int msggen_key_parse(const char *hex, msggen_key *key)
{
    unsigned char k[MSGGEN_KEY_BYTES];
    if (!hex || strlen(hex) != 2 * MSGGEN_KEY_BYTES ||
        hb_hex_decode(hex, 2 * MSGGEN_KEY_BYTES, k) != MSGGEN_KEY_BYTES)
        return -1;
    memcpy(key->k, k, sizeof k);
    return 0;
}
