/* Helpers shared by the measurement tests: where ctest put the probe and
 * the fixture libraries, and the digest of the probe's message and the fold
 * of a trial's digests computed by loading a library into the test itself
 * (an independent route to what the probe reports). Header-only, for the
 * test executables. */
#ifndef HB_TESTS_MEASURE_FIXTURE_H
#define HB_TESTS_MEASURE_FIXTURE_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/digest.h"
#include "probe/trial_msg.h"

/* Fills BUILD_DIR and PROBE from HB_BUILD_DIR; -1 when it is not set. */
static inline int fixture_env(char *build_dir, size_t bsz, char *probe, size_t psz)
{
    const char *b = getenv("HB_BUILD_DIR");
    if (!b) {
        fprintf(stderr, "HB_BUILD_DIR is not set: run through ctest\n");
        return -1;
    }
    snprintf(build_dir, bsz, "%s", b);
    snprintf(probe, psz, "%s/hashbench-probe", b);
    return 0;
}

/* The 256-bit digest of the SIZE-byte message msg[i] = (i*131 + size) mod
 * 256 by the library at PATH (lowercase hex), and the message's SHA-256.
 * Returns 0, or -1 when the library cannot be loaded or fails. */
static inline int fixture_digest(const char *path, unsigned long long size,
                          char hex[65], char msg_sha[65])
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return -1;
    int (*fn)(int, const unsigned char *, unsigned long long, unsigned char *);
    *(void **)&fn = dlsym(h, "CryptHash");
    unsigned char *m = malloc(size ? size : 1), d[32];
    for (unsigned long long i = 0; i < size; i++)
        m[i] = (unsigned char)((i * 131 + size) % 256);
    int rc = fn && m && fn(256, m, size * 8, d) == 0 ? 0 : -1;
    if (rc == 0) {
        hb_hex_encode(d, 32, hex, 0);
        hb_sha256_buf_hex(m, size, msg_sha);
    }
    free(m);
    dlclose(h);
    return rc;
}

/* The fold (trial_msg.h) of CALLS calls of the trial SEED on SIZE-byte
 * messages by the 256-bit library at PATH; 0, or -1 when it fails. */
static inline int fixture_fold(const char *path, unsigned long long size, uint64_t seed,
                               unsigned long long calls, char hex[TM_FOLD_HEX])
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return -1;
    int (*fn)(int, const unsigned char *, unsigned long long, unsigned char *);
    *(void **)&fn = dlsym(h, "CryptHash");
    unsigned char *m = malloc(size ? size : 1), d[32];
    tm_fold f;
    tm_fold_init(&f);
    int rc = fn && m ? 0 : -1;
    if (rc == 0)
        tm_base(m, size, seed);
    for (unsigned long long i = 0, w = 0; rc == 0 && i < calls; i++) {
        uint64_t next = tm_word(seed, i);
        tm_apply(m, size, w ^ next);
        w = next;
        rc = fn(256, m, size * 8, d) == 0 ? 0 : -1;
        tm_fold_add(&f, d, sizeof d);
    }
    tm_fold_hex(&f, hex);
    free(m);
    dlclose(h);
    return rc;
}

#endif
