/* Helpers shared by the measurement tests: where ctest put the probe and
 * the fixture libraries, and the digest of the probe's message computed by
 * loading a library into the test itself (an independent route to the
 * digest the probe reports). Header-only, for the test executables. */
#ifndef HB_TESTS_MEASURE_FIXTURE_H
#define HB_TESTS_MEASURE_FIXTURE_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/digest.h"

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

#endif
