/* hashbench-runner: the sandboxed process that runs one submitted library
 * for everything except timing. It loads the library named by --lib, then
 * answers requests (protocol.h) from hashbench: hash one message under the
 * guards of the KAT stage's guard.h, run the KAT_Loop iterations, or recompute a probe
 * trial's digest fold (probe/trial_msg.h). It never sees expected values
 * and never decides a verdict: hashbench compares what it answers. The
 * library's own output goes to /dev/null, so that it cannot be mixed into
 * the answers by accident (a library that writes into them on purpose only
 * spoils its own results). Links libc and libdl only. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fdio.h"
#include "common/steplimit.h"
#include "kat/guard.h"
#include "probe/trial_msg.h"
#include "runner/protocol.h"

static int answer_fd = -1;

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
    int rc = hb_fd_read_all(0, kat_guarded_msg(&g, n), n);
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
    if (!m0 || hb_fd_read_all(0, m0, n) != 0) {
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

int main(int argc, char **argv)
{
    const char *lib = NULL;
    int bits = 0;
    hb_step_limit_processes(); /* its threads, before the library is loaded */
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--lib"))
            lib = argv[i + 1];
        else if (!strcmp(argv[i], "--digest-bits"))
            bits = atoi(argv[i + 1]);
    }
    /* The answers keep the original standard output; the library's prints
     * go to /dev/null. */
    answer_fd = dup(1);
    int null = open("/dev/null", O_WRONLY);
    if (answer_fd < 0 || null < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0)
        return 3;
    close(null);
    if (!lib || bits <= 0 || bits % 8 || bits > 8 * KAT_MAX_DIGEST_BYTES) {
        answer_text(RUNNER_BAD, 0, "usage: hashbench-runner --lib PATH --digest-bits B "
                    "(a multiple of 8 up to 8192)");
        return 2;
    }
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        signal(sigs[i], SIG_DFL);
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
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
        if (hb_fd_read_all(0, &rq, sizeof rq) != 0)
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
