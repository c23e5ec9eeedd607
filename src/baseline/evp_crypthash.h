/* CryptHash over one OpenSSL digest, shared by the built-in baselines (each
 * a library of its own, so each has its own copy of the state below). The
 * digest is fetched from the provider once and one context is reused from
 * call to call, as `openssl speed -evp` does: EVP_Digest() with a legacy
 * EVP_sm3()/EVP_sha256() would allocate a context and look the
 * implementation up again on every call, about 220 ns that a baseline's
 * figure at 32 bytes would mostly be made of. The probe and the runner call
 * CryptHash from one thread, as the official interface assumes. Whole
 * bytes only: another length is refused with a non-zero return. */
#ifndef HB_BASELINE_EVP_CRYPTHASH_H
#define HB_BASELINE_EVP_CRYPTHASH_H

#include <openssl/evp.h>

/* DIGEST of MSG (BITS bits) with OpenSSL's digest NAME of DIGEST_BITS bits:
 * 0, or 1 (a length or width it does not take), 2 (OpenSSL failed), 3 (a
 * digest of another size). */
static int hb_evp_crypthash(const char *name, int digest_bits, int want_bits,
                            const unsigned char *msg, unsigned long long bits,
                            unsigned char *digest)
{
    static EVP_MD *md;
    static EVP_MD_CTX *ctx;
    unsigned int n = 0;
    if (want_bits != digest_bits || bits % 8 != 0)
        return 1;
    if (!md && !(md = EVP_MD_fetch(NULL, name, NULL)))
        return 2;
    if (!ctx && !(ctx = EVP_MD_CTX_new()))
        return 2;
    if (EVP_DigestInit_ex(ctx, md, NULL) != 1 ||
        EVP_DigestUpdate(ctx, msg, (size_t)(bits / 8)) != 1 ||
        EVP_DigestFinal_ex(ctx, digest, &n) != 1)
        return 2;
    return n == (unsigned int)digest_bits / 8 ? 0 : 3;
}

#endif
