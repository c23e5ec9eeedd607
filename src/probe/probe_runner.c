/* The probe's runner role: the requests of runner/protocol.h (hash one
 * message under the guards of kat/guard.h, run the KAT_Loop iterations,
 * recompute a trial's digest fold) answered for hashbench's KAT stage,
 * vector checks, variant check and the recomputation of sampled timed
 * digests. The process is the one every role has (probe_main.c: the same
 * start, the same descriptors, the stop before the load, the filter after
 * it); only the requests differ. It never sees expected values and never
 * decides a verdict: hashbench compares what it answers. */
#include "probe.h"

#include <dlfcn.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fdio.h"
#include "kat/guard.h"
#include "probe/trial_msg.h"
#include "runner/protocol.h"

static int req_fd = -1, answer_fd = -1;

static int answer(uint32_t status, uint32_t kind, const void *payload, size_t len)
{
    runner_answer a = {status, kind, len};
    if (hb_fd_write_all(answer_fd, &a, sizeof a) != 0)
        return -1;
    return len ? hb_fd_write_all(answer_fd, payload, len) : 0;
}

static int answer_text(uint32_t status, uint32_t kind, const char *text)
{
    return answer(status, kind, text, strlen(text));
}

/* The answer to a call that ended with RC (guard.h returns). */
static int answer_call(int rc, const unsigned char *digest, size_t d, const kat_fault *f,
                       const hb_err *err)
{
    if (rc == 0)
        return answer(RUNNER_OK, 0, digest, d);
    if (rc == 1)
        return answer_text(RUNNER_FAULT, (uint32_t)f->kind, f->detail);
    return answer_text(RUNNER_BAD, 0, err->msg);
}

static int do_hash(kat_hash_fn fn, int bits, const runner_request *rq)
{
    unsigned char dig[KAT_MAX_DIGEST_BYTES];
    kat_guarded g;
    kat_fault f;
    hb_err err;
    size_t n = (size_t)((rq->a + 7) / 8);
    memset(&f, 0, sizeof f);
    if ((rq->a + 7) / 8 > RUNNER_MAX_MESSAGE || kat_guarded_alloc(&g, n, &err) != 0)
        return -1; /* the parent never asks this; ending is the answer */
    int rc = hb_fd_read_all(req_fd, kat_guarded_msg(&g, n), n);
    if (rc == 0) {
        rc = kat_guarded_call(fn, bits, &g, rq->a, dig, &f, &err);
        rc = answer_call(rc, dig, (size_t)bits / 8, &f, &err);
    }
    kat_guarded_free(&g);
    return rc;
}

static int do_loop(kat_hash_fn fn, int bits, const runner_request *rq)
{
    unsigned char dig[KAT_MAX_DIGEST_BYTES];
    kat_fault f;
    hb_err err;
    size_t n = (size_t)rq->b;
    memset(&f, 0, sizeof f);
    if (n == 0 || n > (1u << 20))
        return -1;
    unsigned char *m0 = malloc(n);
    if (!m0 || hb_fd_read_all(req_fd, m0, n) != 0) {
        free(m0);
        return -1;
    }
    int rc = kat_guarded_loop(fn, bits, m0, n, (long)rq->a, dig, &f, &err);
    free(m0);
    return answer_call(rc, dig, (size_t)bits / 8, &f, &err);
}

/* A probe trial again: the same messages, every digest folded in order. */
static int do_fold(kat_hash_fn fn, int bits, const runner_request *rq)
{
    unsigned char dig[KAT_MAX_DIGEST_BYTES];
    char hex[TM_FOLD_HEX];
    kat_guarded g;
    kat_fault f;
    hb_err err;
    size_t n = (size_t)rq->b, d = (size_t)bits / 8;
    tm_fold fold;
    memset(&f, 0, sizeof f);
    if (n > (64u << 20) || kat_guarded_alloc(&g, n, &err) != 0)
        return -1;
    unsigned char *m = kat_guarded_msg(&g, n);
    tm_base(m, n, rq->a);
    tm_fold_init(&fold);
    uint64_t w = 0;
    int rc = 0;
    for (uint64_t i = 0; i < rq->c && rc == 0; i++) {
        uint64_t next = tm_word(rq->a, i);
        tm_apply(m, n, w ^ next);
        w = next;
        rc = kat_guarded_call(fn, bits, &g, 8ULL * n, dig, &f, &err);
        if (rc == 0)
            tm_fold_add(&fold, dig, d);
    }
    kat_guarded_free(&g);
    if (rc != 0)
        return answer_call(rc, dig, d, &f, &err);
    tm_fold_hex(&fold, hex);
    return answer(RUNNER_OK, 0, hex, 32);
}

int probe_runner(const char *lib, int bits, int in, int out)
{
    req_fd = in;
    answer_fd = out;
    if (bits <= 0 || bits % 8 || bits > 8 * KAT_MAX_DIGEST_BYTES) {
        answer_text(RUNNER_BAD, 0, "the digest length must be a multiple of 8 up to 8192");
        return 2;
    }
    /* the stop every role makes before its load (probe_main.c) */
    probe_stop_self();
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (h)
        probe_no_new_code(); /* as every role; hashbench counts the filters */
    void *sym = h ? dlsym(h, "CryptHash") : NULL;
    if (!sym) {
        const char *e = dlerror();
        answer_text(RUNNER_LOADFAIL, 0, e ? e : "CryptHash not found");
        return 0;
    }
    kat_hash_fn fn;
    *(void **)&fn = sym; /* POSIX: object and function pointers convert */
    if (answer(RUNNER_OK, 0, NULL, 0) != 0)
        return 3;
    for (;;) {
        runner_request rq;
        if (hb_fd_read_all(req_fd, &rq, sizeof rq) != 0)
            return 0; /* hashbench closed the pipe */
        int rc;
        switch (rq.op) {
        case RUNNER_OP_HASH: rc = do_hash(fn, bits, &rq); break;
        case RUNNER_OP_LOOP: rc = do_loop(fn, bits, &rq); break;
        case RUNNER_OP_FOLD: rc = do_fold(fn, bits, &rq); break;
        case RUNNER_OP_END: return 0;
        default: rc = answer_text(RUNNER_BAD, 0, "unknown request"); break;
        }
        if (rc != 0)
            return 3;
    }
}
