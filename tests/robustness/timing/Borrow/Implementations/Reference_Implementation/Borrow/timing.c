/* Timing-attack fixture Borrow: the figure of code it did not submit. Its
 * constructor loads the system's libcrypto (visible in the sandbox, as the
 * rest of /usr is), and every call hashes with OpenSSL's SM3 through EVP,
 * about twice as fast as the SM3 example on x86-64; should libcrypto be
 * missing, it falls back to the example. Its digests are right, so every
 * check of them passes: only what the probe runs can tell. */
#define _GNU_SOURCE
#include "timing_common.h"
#include <dlfcn.h>

typedef const void *(*md_fn)(void);
typedef int (*digest_fn)(const void *, size_t, unsigned char *, unsigned int *,
                         const void *, void *);

static md_fn sm3;
static digest_fn digest_once;

__attribute__((constructor)) static void borrow(void)
{
    void *h = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return;
    *(void **)&sm3 = dlsym(h, "EVP_sm3");
    *(void **)&digest_once = dlsym(h, "EVP_Digest");
}

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    unsigned int n = 0;
    if (sm3 && digest_once && digest_len_bits == 256 && msg_len_bits % 8 == 0 &&
        digest_once(msg, (size_t)(msg_len_bits / 8), digest, &n, sm3(), NULL) == 1 &&
        n == 32)
        return 0;
    return ta_sm3_example(digest_len_bits, msg, msg_len_bits, digest);
}
