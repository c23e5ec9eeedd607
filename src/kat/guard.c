/* Guarded CryptHash calls for the runner: see guard.h. No system call is
 * made per call for the small messages, so KAT_Loop's million calls stay as
 * cheap as the hash itself. */
#include "kat/guard.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define GUARD_BYTES 64
#define GUARD_FILL 0xA5
/* Messages up to this size are checked against a copy after each call. */
#define KAT_COPY_MAX (16UL << 20)
/* Inaccessible bytes after every message: a read even far past its end
 * faults (address space only, no memory). */
#define KAT_GUARD_SPAN (1UL << 20)

int kat_guarded_alloc(kat_guarded *g, size_t bytes, hb_err *err)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    memset(g, 0, sizeof *g);
    g->body = (bytes + page - 1) / page * page;
    if (g->body == 0)
        g->body = page;
    g->map_len = g->body + (KAT_GUARD_SPAN + page - 1) / page * page;
    g->base = mmap(NULL, g->map_len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (g->base == MAP_FAILED)
        return hb_fail_errno(err, "cannot map %zu bytes for a message", g->map_len);
    if (mprotect(g->base + g->body, g->map_len - g->body, PROT_NONE) != 0) {
        munmap(g->base, g->map_len);
        return hb_fail_errno(err, "cannot protect the guard pages");
    }
    if (bytes <= KAT_COPY_MAX) {
        g->copy_cap = bytes ? bytes : 1;
        if (!(g->copy = malloc(g->copy_cap))) {
            munmap(g->base, g->map_len);
            return hb_fail(err, "out of memory for a copy of a message");
        }
    }
    return 0;
}

void kat_guarded_free(kat_guarded *g)
{
    if (g->base)
        munmap(g->base, g->map_len);
    free(g->copy);
    memset(g, 0, sizeof *g);
}

unsigned char *kat_guarded_msg(kat_guarded *g, size_t n)
{
    return g->base + g->body - n;
}

static int fault(kat_fault *f, int kind, unsigned long long len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fault(kat_fault *f, int kind, unsigned long long len, const char *fmt, ...)
{
    va_list ap;
    f->kind = kind;
    f->msg_len = len;
    va_start(ap, fmt);
    vsnprintf(f->detail, sizeof f->detail, fmt, ap);
    va_end(ap);
    return 1;
}

int kat_guarded_call(kat_hash_fn fn, int digest_bits, kat_guarded *g,
                     unsigned long long bits, unsigned char *out, kat_fault *f,
                     hb_err *err)
{
    return kat_guarded_call_fill(fn, digest_bits, g, bits, out, GUARD_FILL, f, err);
}

static int guarded(kat_hash_fn fn, int digest_bits, kat_guarded *g, unsigned long long bits,
                   unsigned char *out, int fill, unsigned char *dig, kat_fault *f,
                   hb_err *err);

int kat_guarded_call_fill(kat_hash_fn fn, int digest_bits, kat_guarded *g,
                          unsigned long long bits, unsigned char *out, int fill,
                          kat_fault *f, hb_err *err)
{
    unsigned char local[GUARD_BYTES + KAT_MAX_DIGEST_BYTES + GUARD_BYTES];
    size_t d = (size_t)digest_bits / 8;
    if (d <= KAT_MAX_DIGEST_BYTES)
        return guarded(fn, digest_bits, g, bits, out, fill, local, f, err);
    unsigned char *dig = malloc(2 * GUARD_BYTES + d);
    if (!dig)
        return hb_fail(err, "out of memory for a %zu-byte digest", d);
    int rc = guarded(fn, digest_bits, g, bits, out, fill, dig, f, err);
    free(dig);
    return rc;
}

/* The guarded call with DIG (2 x GUARD_BYTES + digest bytes) around the
 * digest, the digest's own bytes set to FILL before the call. */
static int guarded(kat_hash_fn fn, int digest_bits, kat_guarded *g, unsigned long long bits,
                   unsigned char *out, int fill, unsigned char *dig, kat_fault *f,
                   hb_err *err)
{
    size_t d = (size_t)digest_bits / 8;
    size_t n = (size_t)((bits + 7) / 8);
    unsigned char *m = kat_guarded_msg(g, n);
    int use_copy = g->copy && n <= g->copy_cap;
    memset(dig, GUARD_FILL, GUARD_BYTES);
    memset(dig + GUARD_BYTES, fill, d);
    memset(dig + GUARD_BYTES + d, GUARD_FILL, GUARD_BYTES);
    if (use_copy)
        memcpy(g->copy, m, n);
    else if (mprotect(g->base, g->body, PROT_READ) != 0)
        return hb_fail_errno(err, "cannot make the message read-only");
    int rc = fn(digest_bits, m, bits, dig + GUARD_BYTES);
    if (!use_copy && mprotect(g->base, g->body, PROT_READ | PROT_WRITE) != 0)
        return hb_fail_errno(err, "cannot make the message writable");
    if (use_copy && memcmp(m, g->copy, n) != 0) {
        size_t at = 0;
        while (m[at] == g->copy[at])
            at++;
        return fault(f, KAT_FAULT_INPUT, bits, "CryptHash changed its input message "
                     "(byte %zu of %zu)", at, n);
    }
    if (rc != 0)
        return fault(f, KAT_FAULT_ERROR, bits, "CryptHash returned %d", rc);
    unsigned long before = 0, after = 0;
    for (size_t i = 0; i < GUARD_BYTES; i++) {
        before += dig[i] != GUARD_FILL;
        after += dig[GUARD_BYTES + d + i] != GUARD_FILL;
    }
    if (before || after)
        return fault(f, KAT_FAULT_OVERFLOW, bits, "CryptHash wrote outside its "
                     "digest: %lu guard byte(s) before it and %lu after it changed",
                     before, after);
    memcpy(out, dig + GUARD_BYTES, d);
    return 0;
}

int kat_guarded_loop(kat_hash_fn fn, int digest_bits, const unsigned char *m0,
                     size_t len, long rounds, unsigned char *out, kat_fault *f,
                     hb_err *err)
{
    unsigned char h[KAT_MAX_DIGEST_BYTES], head[KAT_MAX_DIGEST_BYTES];
    size_t d = (size_t)digest_bits / 8;
    kat_guarded g;
    if (d > len)
        return hb_fail(err, "KAT_Loop needs a digest of at most %zu bits", 8 * len);
    if (kat_guarded_alloc(&g, len, err) != 0)
        return -1;
    unsigned char *m = kat_guarded_msg(&g, len);
    memcpy(m, m0, len);
    int rc = kat_guarded_call(fn, digest_bits, &g, 8ULL * len, h, f, err);
    for (long i = 0; i < rounds && rc == 0; i++) {
        memcpy(head, m, d);
        memmove(m, m + d, len - d);
        memcpy(m + len - d, head, d);
        for (size_t k = 0; k < d; k++)
            m[k] ^= h[k];
        rc = kat_guarded_call(fn, digest_bits, &g, 8ULL * len, h, f, err);
    }
    if (rc == 0)
        memcpy(out, h, d);
    kat_guarded_free(&g);
    return rc;
}
