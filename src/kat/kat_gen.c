/* The official KAT procedures (SPEC §3) over guarded buffers: see kat_gen.h.
 * A message lives at the end of an mmap'ed region followed by 1 MiB of
 * PROT_NONE pages; the digest lives between two runs of guard bytes. No system call
 * is made per call for the small messages: KAT_Loop's million calls stay
 * as cheap as the hash itself. */
#include "kat/kat_gen.h"

#include <dlfcn.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "kat/drng.h"
#include "kat/katfile.h"

#define GUARD_BYTES 64
#define GUARD_FILL 0xA5
#define MAX_DIGEST_BYTES 1024
#define KAT_2_12_BUF 512
#define KAT_LOOP_BYTES 1024
#define KAT_LOOP_ROUNDS 1000000
/* Messages up to this size are checked against a copy after each call. */
#define KAT_COPY_MAX (16UL << 20)
/* Inaccessible bytes after every message: a read even far past its end
 * faults (address space only, no memory). */
#define KAT_GUARD_SPAN (1UL << 20)

static const char *const prefixes[KAT_KIND_COUNT] = {"KAT_2_12", "KAT_2_23",
                                                      "KAT_Loop", "KAT_2_33"};

const char *kat_kind_prefix(kat_kind k)
{
    return prefixes[k];
}

int kat_file_name(kat_kind k, const char *instance, char *out, size_t outsz, hb_err *err)
{
    int n = snprintf(out, outsz, "%s_%s.txt", prefixes[k], instance);
    if (n < 0 || (size_t)n >= outsz)
        return hb_fail(err, "instance name '%.80s' too long for a KAT file name",
                       instance);
    return 0;
}

int kat_child_load(const char *lib, kat_hash_fn *fn, char *msg, size_t msgsz)
{
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        signal(sigs[i], SIG_DFL);
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    void *sym = h ? dlsym(h, "CryptHash") : NULL;
    if (!sym) {
        const char *e = dlerror();
        snprintf(msg, msgsz, "%s", e ? e : "CryptHash not found");
        return -1;
    }
    *(void **)fn = sym; /* POSIX: object and function pointers convert */
    return 0;
}

/* ---- guarded buffers ---- */

typedef struct guarded {
    unsigned char *base;
    size_t body;     /* writable bytes before the guard page */
    size_t map_len;
    unsigned char *copy; /* the message as given, to detect changes; NULL
                            for messages above KAT_COPY_MAX */
    unsigned char digest[GUARD_BYTES + MAX_DIGEST_BYTES + GUARD_BYTES];
} guarded;

static int guarded_alloc(guarded *g, size_t bytes, hb_err *err)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    g->body = (bytes + page - 1) / page * page;
    if (g->body == 0)
        g->body = page;
    g->map_len = g->body + (KAT_GUARD_SPAN + page - 1) / page * page;
    g->copy = NULL;
    g->base = mmap(NULL, g->map_len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (g->base == MAP_FAILED)
        return hb_fail_errno(err, "cannot map %zu bytes for a KAT message", g->map_len);
    if (mprotect(g->base + g->body, g->map_len - g->body, PROT_NONE) != 0) {
        munmap(g->base, g->map_len);
        return hb_fail_errno(err, "cannot protect the KAT guard page");
    }
    if (bytes <= KAT_COPY_MAX && !(g->copy = malloc(bytes ? bytes : 1))) {
        munmap(g->base, g->map_len);
        return hb_fail(err, "out of memory for a copy of a KAT message");
    }
    return 0;
}

static void guarded_free(guarded *g)
{
    munmap(g->base, g->map_len);
    free(g->copy);
}

/* The last N bytes before the guard page. */
static unsigned char *guarded_msg(guarded *g, size_t n)
{
    return g->base + g->body - n;
}

static int fault(kat_gen_ctx *c, int kind, unsigned long long len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fault(kat_gen_ctx *c, int kind, unsigned long long len, const char *fmt, ...)
{
    va_list ap;
    c->fault.kind = kind;
    c->fault.msg_len = len;
    va_start(ap, fmt);
    vsnprintf(c->fault.detail, sizeof c->fault.detail, fmt, ap);
    va_end(ap);
    return 1;
}

/* Checks both guard runs; returns 1 (and fills the fault) when touched. */
static int check_guards(kat_gen_ctx *c, const guarded *g, unsigned long long len)
{
    size_t d = (size_t)c->digest_bits / 8;
    unsigned long before = 0, after = 0;
    for (size_t i = 0; i < GUARD_BYTES; i++) {
        before += g->digest[i] != GUARD_FILL;
        after += g->digest[GUARD_BYTES + d + i] != GUARD_FILL;
    }
    if (before || after)
        return fault(c, KAT_FAULT_OVERFLOW, len, "CryptHash wrote outside its "
                     "digest: %lu guard byte(s) before it and %lu after it changed",
                     before, after);
    return 0;
}

/* 1 (and the fault) when the N message bytes at M differ from the copy. */
static int check_input(kat_gen_ctx *c, const guarded *g, const unsigned char *m,
                       size_t n, unsigned long long len)
{
    if (memcmp(m, g->copy, n) == 0)
        return 0;
    size_t at = 0;
    while (m[at] == g->copy[at])
        at++;
    return fault(c, KAT_FAULT_INPUT, len, "CryptHash changed its input message "
                 "(byte %zu of %zu)", at, n);
}

/* One guarded CryptHash call on the last ceil(BITS/8) bytes of G; the
 * digest is copied to OUT. A message small enough is compared with its copy
 * after the call (cheap, and a change is named as such); a larger one is
 * made read-only during the call, so that a write into it ends the process
 * (two system calls, affordable for the few calls on such messages). */
static int guarded_call(kat_gen_ctx *c, guarded *g, unsigned long long bits,
                        unsigned char *out, hb_err *err)
{
    size_t d = (size_t)c->digest_bits / 8;
    size_t n = (size_t)((bits + 7) / 8);
    unsigned char *m = guarded_msg(g, n);
    memset(g->digest, GUARD_FILL, sizeof g->digest);
    if (c->cur_len)
        *c->cur_len = bits;
    if (g->copy)
        memcpy(g->copy, m, n);
    else if (mprotect(g->base, g->body, PROT_READ) != 0)
        return hb_fail_errno(err, "cannot make the KAT message read-only");
    int rc = c->hash(c->digest_bits, m, bits, g->digest + GUARD_BYTES);
    if (!g->copy && mprotect(g->base, g->body, PROT_READ | PROT_WRITE) != 0)
        return hb_fail_errno(err, "cannot make the KAT message writable");
    if (g->copy && check_input(c, g, m, n, bits))
        return 1;
    if (rc != 0)
        return fault(c, KAT_FAULT_ERROR, bits, "CryptHash returned %d", rc);
    if (check_guards(c, g, bits))
        return 1;
    memcpy(out, g->digest + GUARD_BYTES, d);
    return 0;
}

/* ---- the four procedures ---- */

static int seeded(drng *d, kat_kind k, hb_err *err)
{
    unsigned char seed[DRNG_SEED_BYTES];
    drng_seed_text(prefixes[k], seed);
    return drng_init(d, seed, sizeof seed, err);
}

static int gen_2_12(kat_gen_ctx *c, kat_writer *w, hb_err *err)
{
    unsigned char buf[KAT_2_12_BUF], dig[MAX_DIGEST_BYTES];
    guarded g;
    drng d;
    int rc = 0;
    if (guarded_alloc(&g, KAT_2_12_BUF, err) != 0)
        return -1;
    if (seeded(&d, KAT_2_12, err) != 0) {
        guarded_free(&g);
        return -1;
    }
    for (unsigned long long len = 0; len <= 8 * KAT_2_12_BUF && rc == 0; len++) {
        size_t n = (size_t)((len + 7) / 8);
        memset(buf, 0, sizeof buf);
        if (drng_generate(&d, buf, len, err) != 0) {
            rc = -1;
            break;
        }
        memcpy(guarded_msg(&g, n), buf, n);
        rc = guarded_call(c, &g, len, dig, err);
        if (rc == 0)
            rc = kat_writer_record(w, buf, len, dig, c->digest_bits, err);
    }
    drng_free(&d);
    guarded_free(&g);
    return rc;
}

static int long_record(kat_gen_ctx *c, kat_writer *w, guarded *g, unsigned long long bits,
                       const char *seed_hex, hb_err *err)
{
    unsigned char dig[MAX_DIGEST_BYTES];
    size_t n = (size_t)(bits / 8);
    const unsigned char *m = guarded_msg(g, n);
    if (guarded_call(c, g, bits, dig, err) != 0)
        return c->fault.kind ? 1 : -1;
    return kat_writer_long_record(w, bits, seed_hex, m, m + n - 8, dig,
                                  c->digest_bits, err);
}

/* KAT_2_23 / KAT_2_33: all zero, all 0xFF, then the first random draw. */
static int gen_long(kat_gen_ctx *c, kat_writer *w, kat_kind k,
                    unsigned long long bits, hb_err *err)
{
    size_t n = (size_t)(bits / 8);
    unsigned char seed[DRNG_SEED_BYTES];
    char seed_hex[2 * DRNG_SEED_BYTES + 1];
    guarded g;
    drng d;
    if (guarded_alloc(&g, n, err) != 0)
        return -1;
    memset(guarded_msg(&g, n), 0x00, n);
    int rc = long_record(c, w, &g, bits, "", err);
    if (rc == 0) {
        memset(guarded_msg(&g, n), 0xFF, n);
        rc = long_record(c, w, &g, bits, "", err);
    }
    if (rc == 0) {
        drng_seed_text(prefixes[k], seed);
        hb_hex_encode(seed, sizeof seed, seed_hex, 1);
        rc = drng_init(&d, seed, sizeof seed, err);
        if (rc == 0) {
            rc = drng_generate(&d, guarded_msg(&g, n), bits, err);
            drng_free(&d);
        }
        if (rc == 0)
            rc = long_record(c, w, &g, bits, seed_hex, err);
    }
    guarded_free(&g);
    return rc;
}

/* Rotates M (LEN bytes) left by D bytes and XORs H into its first D bytes. */
static void loop_step(unsigned char *m, size_t len, const unsigned char *h, size_t d)
{
    unsigned char head[MAX_DIGEST_BYTES];
    memcpy(head, m, d);
    memmove(m, m + d, len - d);
    memcpy(m + len - d, head, d);
    for (size_t i = 0; i < d; i++)
        m[i] ^= h[i];
}

static int gen_loop(kat_gen_ctx *c, kat_writer *w, hb_err *err)
{
    unsigned char m0[KAT_LOOP_BYTES], h[MAX_DIGEST_BYTES];
    size_t d = (size_t)c->digest_bits / 8;
    guarded g;
    drng dr;
    if (d > KAT_LOOP_BYTES)
        return hb_fail(err, "KAT_Loop needs a digest of at most %d bits",
                       8 * KAT_LOOP_BYTES);
    if (seeded(&dr, KAT_LOOP, err) != 0)
        return -1;
    int rc = drng_generate(&dr, m0, 8 * KAT_LOOP_BYTES, err);
    drng_free(&dr);
    if (rc != 0 || guarded_alloc(&g, KAT_LOOP_BYTES, err) != 0)
        return -1;
    unsigned char *m = guarded_msg(&g, KAT_LOOP_BYTES);
    memcpy(m, m0, sizeof m0);
    rc = guarded_call(c, &g, 8 * KAT_LOOP_BYTES, h, err);
    for (long i = 0; i < KAT_LOOP_ROUNDS && rc == 0; i++) {
        loop_step(m, KAT_LOOP_BYTES, h, d);
        rc = guarded_call(c, &g, 8 * KAT_LOOP_BYTES, h, err);
    }
    if (rc == 0)
        rc = kat_writer_record(w, m0, 8 * KAT_LOOP_BYTES, h, c->digest_bits, err);
    guarded_free(&g);
    return rc;
}

static int check_digest_bits(const kat_gen_ctx *ctx, hb_err *err)
{
    if (ctx->digest_bits <= 0 || ctx->digest_bits % 8 || ctx->digest_bits > 8 * MAX_DIGEST_BYTES)
        return hb_fail(err, "digest length %d bits: give a multiple of 8 up to %d",
                       ctx->digest_bits, 8 * MAX_DIGEST_BYTES);
    return 0;
}

int kat_generate(kat_gen_ctx *ctx, kat_kind kind, const char *path,
                 char sha256[HB_SHA256_HEX], hb_err *err)
{
    kat_writer w;
    int rc;
    memset(&ctx->fault, 0, sizeof ctx->fault);
    if (check_digest_bits(ctx, err) != 0)
        return -1;
    if (kat_writer_open(&w, path, err) != 0)
        return -1;
    switch (kind) {
    case KAT_2_12: rc = gen_2_12(ctx, &w, err); break;
    case KAT_2_23: rc = gen_long(ctx, &w, kind, 1ULL << 23, err); break;
    case KAT_2_33: rc = gen_long(ctx, &w, kind, 1ULL << 33, err); break;
    case KAT_LOOP: rc = gen_loop(ctx, &w, err); break;
    default: rc = hb_fail(err, "unknown KAT kind %d", (int)kind); break;
    }
    if (rc != 0) {
        kat_writer_abort(&w);
        return rc;
    }
    return kat_writer_close(&w, sha256, err);
}

int kat_hash_guarded(kat_gen_ctx *ctx, const unsigned char *msg, unsigned long long bits,
                     unsigned char *digest, hb_err *err)
{
    size_t n = (size_t)((bits + 7) / 8);
    guarded g;
    memset(&ctx->fault, 0, sizeof ctx->fault);
    if (check_digest_bits(ctx, err) != 0)
        return -1;
    if (guarded_alloc(&g, n, err) != 0)
        return -1;
    memcpy(guarded_msg(&g, n), msg, n);
    int rc = guarded_call(ctx, &g, bits, digest, err);
    guarded_free(&g);
    return rc;
}
