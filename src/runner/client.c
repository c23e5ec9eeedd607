/* The parent's side of the runner role: see client.h. The runner is the
 * probe (runner/start.h), started as every probe is and told its role in
 * the configure line. Every read and write on its pipes waits with poll()
 * against the session's deadline and its CPU-time limit, both enforced
 * from outside (no resource limit of its own says which role it has), so
 * a runner that hangs, stops reading or stops answering costs at most its
 * time limit; every answer is checked for size before it is used. */
#include "runner/client.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sys/random.h>

#include "common/digest.h"
#include "common/fs.h"
#include "common/untrusted.h"
#include "probe/probe_wire.h"
#include "runner/protocol.h"
#include "runner/start.h"
#include "sandbox/sandbox.h"
#include "common/clock.h"

#define RUNNER_CPU_POLL_S 0.05 /* how often its CPU time is read */

static char runner_exe[PATH_MAX];

const char *runner_path(void)
{
    if (!runner_exe[0]) {
        char near[PATH_MAX];
        hb_exe_sibling("hashbench-probe", near, sizeof near);
        /* the path every role binds, whichever way it was named */
        if (!realpath(near, runner_exe))
            snprintf(runner_exe, sizeof runner_exe, "%s", near);
    }
    return runner_exe;
}

/* 1 (the runner killed, as a time-out) when it has used more CPU time
 * than its limit. */
static int over_cpu(runner_session *s)
{
    if (s->cpu_limit_ns <= 0 || s->pid <= 0)
        return 0;
    /* read once per poll slice, not at every exchange: the Loop's million
     * calls would read /proc a few million times */
    double now = hb_mono_s();
    if (now - s->cpu_read_at < RUNNER_CPU_POLL_S)
        return 0;
    s->cpu_read_at = now;
    long long used = procview_cpu_ns(s->pid);
    if (used < s->cpu_limit_ns)
        return 0;
    hb_proc_kill(&s->child, 1);
    s->cpu_out = 1;
    return 1;
}

static int gone(runner_session *s, const char *why)
{
    s->gone = 1;
    if (why && !s->why[0] && snprintf(s->why, sizeof s->why, "%s", why) < 0)
        s->why[0] = '\0';
    return RUNNER_CALL_GONE;
}

/* Waits until FD is ready for EVENTS; 0, or -1 at the deadline (the runner
 * is then killed and reported as timed out). */
static int wait_fd(runner_session *s, int fd, short events)
{
    for (;;) {
        double left = s->deadline - hb_mono_s();
        if (left <= 0) {
            hb_proc_kill(&s->child, 1);
            return -1;
        }
        if (over_cpu(s))
            return -1;
        double slice = s->cpu_limit_ns > 0 ? RUNNER_CPU_POLL_S : 1.0;
        struct pollfd p = {fd, events, 0};
        int ms = left > slice ? (int)(slice * 1000.0) : (int)(left * 1000.0) + 1;
        int r = poll(&p, 1, ms);
        if (r > 0)
            return 0;
        if (r < 0 && errno != EINTR)
            return -1;
    }
}

static int send_all(runner_session *s, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        if (wait_fd(s, s->child.to_child, POLLOUT) != 0)
            return -1;
        size_t chunk = n > (1u << 20) ? (1u << 20) : n;
        ssize_t w = write(s->child.to_child, p, chunk);
        if (w < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int recv_all(runner_session *s, void *buf, size_t n)
{
    char *p = buf;
    while (n > 0) {
        if (wait_fd(s, s->child.from_child, POLLIN) != 0)
            return -1;
        ssize_t r = read(s->child.from_child, p, n);
        if (r < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (r <= 0)
            return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

/* Reads one answer; its payload (at most CAP bytes) into BUF. */
static int recv_answer(runner_session *s, runner_answer *a, void *buf, size_t cap,
                       size_t *len)
{
    if (recv_all(s, a, sizeof *a) != 0)
        return gone(s, NULL);
    if (a->length > cap || a->length > RUNNER_MAX_PAYLOAD)
        return gone(s, "the runner's answer was malformed (the library wrote into it?)");
    if (a->length && recv_all(s, buf, (size_t)a->length) != 0)
        return gone(s, NULL);
    *len = (size_t)a->length;
    return 0;
}

int runner_open(runner_session *s, const runner_target *t, char *loadfail, size_t sz,
                hb_err *err)
{
    return runner_open_cpu(s, t, 0, loadfail, sz, err);
}

int runner_open_cpu(runner_session *s, const runner_target *t, double cpu_s,
                    char *loadfail, size_t sz, hb_err *err)
{
    char config[64], nonce[PROBE_WIRE_NONCE_HEX];
    unsigned char raw[PROBE_WIRE_NONCE_BYTES];
    memset(s, 0, sizeof *s);
    s->child.pid = -1;
    s->child.to_child = s->child.from_child = -1;
    s->core = -1;
    s->digest_bits = t->digest_bits;
    loadfail[0] = '\0';
    const char *exe = runner_path();
    if (access(exe, X_OK) != 0)
        return hb_fail(err, "%s is missing: build hashbench again (it builds the probe "
                       "beside it)", exe);
    if (t->digest_bits <= 0 || t->digest_bits % 8 || t->digest_bits > 8 * KAT_MAX_DIGEST_BYTES)
        return hb_fail(err, "digest length %d bits: give a multiple of 8 up to %d",
                       t->digest_bits, 8 * KAT_MAX_DIGEST_BYTES);
    /* The sandbox binds and the runner loads the library by an absolute
     * path: a relative one means nothing in the sandbox's working folder. */
    if (!realpath(t->lib, s->lib)) {
        snprintf(loadfail, sz, "%s: %s", t->lib, strerror(errno));
        s->gone = 1;
        return 1;
    }
    snprintf(config, sizeof config, "role=runner bits=%d", t->digest_bits);
    while (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw && errno == EINTR)
        ;
    hb_hex_encode(raw, sizeof raw, nonce, 0);
    s->core = probe_core_take();
    probe_start_rq rq = {exe, s->lib, s->core, -1, 0, nonce, config};
    if (probe_start(&rq, &s->child, err) != 0) {
        probe_core_put(s->core);
        s->core = -1;
        return -1;
    }
    s->deadline = s->child.start_s + t->timeout_s;
    probe_preload(&s->child, s->deadline, NULL, &s->pid);
    /* the CPU-time limit, read from outside: the runner's own limits are
     * every probe's (runner/start.h) */
    s->cpu_limit_ns = cpu_s > 0 ? (long long)((cpu_s + 1) * 1e9) : 0;
    runner_answer a;
    char text[RUNNER_MAX_PAYLOAD + 1];
    size_t len = 0;
    if (recv_answer(s, &a, text, RUNNER_MAX_PAYLOAD, &len) != 0) {
        snprintf(loadfail, sz, "%s", s->why[0] ? s->why : "the runner ended before "
                 "the library was loaded");
        return 1;
    }
    text[len] = '\0';
    hb_one_line(text);
    if (a.status == RUNNER_OK && len == 0)
        return 0;
    /* the answer's text may be the library's own (its constructor runs
     * before the runner answers): raw text behind hashbench's wording */
    snprintf(loadfail, sz, "the library did not load (the runner's load answer)");
    hb_untrusted_append(loadfail, sz, text, len);
    gone(s, NULL);
    return 1;
}

/* The answer to a call: the digest, or the fault, or the runner is gone. */
static int call_answer(runner_session *s, unsigned char *out, size_t out_len, kat_fault *f)
{
    runner_answer a;
    char buf[RUNNER_MAX_PAYLOAD + 1];
    size_t len = 0;
    memset(f, 0, sizeof *f);
    if (recv_answer(s, &a, buf, RUNNER_MAX_PAYLOAD, &len) != 0)
        return RUNNER_CALL_GONE;
    if (a.status == RUNNER_OK && len == out_len) {
        memcpy(out, buf, len);
        return RUNNER_CALL_OK;
    }
    buf[len] = '\0';
    hb_one_line(buf);
    if (a.status == RUNNER_FAULT && a.kind >= KAT_FAULT_ERROR && a.kind <= KAT_FAULT_INPUT) {
        f->kind = (int)a.kind;
        snprintf(f->detail, sizeof f->detail, "%s (the runner's fault answer)",
                 a.kind == KAT_FAULT_OVERFLOW ? "a write outside the digest"
                 : a.kind == KAT_FAULT_INPUT ? "the message changed during the call"
                                             : "the call failed");
        hb_untrusted_append(f->detail, sizeof f->detail, buf, len);
        return RUNNER_CALL_FAULT;
    }
    char why[300];
    snprintf(why, sizeof why, "the runner's answer was malformed");
    hb_untrusted_append(why, sizeof why, buf, len);
    return gone(s, why);
}

static int request(runner_session *s, uint32_t op, uint64_t a, uint64_t b, uint64_t c,
                   const void *payload, size_t len)
{
    runner_request rq = {op, 0, a, b, c};
    if (s->gone)
        return RUNNER_CALL_GONE;
    if (send_all(s, &rq, sizeof rq) != 0 || (len && send_all(s, payload, len) != 0))
        return gone(s, NULL);
    return 0;
}

int runner_hash(runner_session *s, const unsigned char *msg, unsigned long long bits,
                unsigned char *digest, kat_fault *f, hb_err *err)
{
    size_t n = (size_t)((bits + 7) / 8);
    if ((bits + 7) / 8 > RUNNER_MAX_MESSAGE)
        return hb_fail(err, "a message of %llu bits is more than the runner takes", bits);
    int rc = request(s, RUNNER_OP_HASH, bits, 0, 0, msg, n);
    if (rc != 0)
        return rc;
    rc = call_answer(s, digest, (size_t)s->digest_bits / 8, f);
    if (rc == RUNNER_CALL_FAULT)
        f->msg_len = bits;
    return rc;
}

int runner_loop(runner_session *s, const unsigned char *m0, size_t len, long rounds,
                unsigned char *digest, kat_fault *f, hb_err *err)
{
    (void)err;
    int rc = request(s, RUNNER_OP_LOOP, (uint64_t)rounds, len, 0, m0, len);
    if (rc != 0)
        return rc;
    rc = call_answer(s, digest, (size_t)s->digest_bits / 8, f);
    if (rc == RUNNER_CALL_FAULT)
        f->msg_len = 8ULL * len;
    return rc;
}

int runner_fold(runner_session *s, uint64_t seed, unsigned long long size,
                unsigned long long calls, char fold[TM_FOLD_HEX], kat_fault *f,
                hb_err *err)
{
    (void)err;
    unsigned char hex[32];
    fold[0] = '\0';
    int rc = request(s, RUNNER_OP_FOLD, seed, size, calls, NULL, 0);
    if (rc != 0)
        return rc;
    rc = call_answer(s, hex, sizeof hex, f);
    if (rc == RUNNER_CALL_FAULT)
        f->msg_len = 8ULL * size;
    if (rc != RUNNER_CALL_OK)
        return rc;
    for (int i = 0; i < 32; i++)
        if (!strchr("0123456789abcdef", hex[i]) || !hex[i])
            return gone(s, "the runner's fold was not hexadecimal");
    memcpy(fold, hex, 32);
    fold[32] = '\0';
    return RUNNER_CALL_OK;
}

void runner_close(runner_session *s, hb_proc_result *res)
{
    if (!s->gone && s->child.to_child >= 0) {
        runner_request rq = {RUNNER_OP_END, 0, 0, 0, 0};
        if (write(s->child.to_child, &rq, sizeof rq) != (ssize_t)sizeof rq)
            s->gone = 1;
    }
    hb_proc_reap(&s->child, s->gone ? 0.5 : 2.0, res);
    if (s->cpu_out) { /* ended for its CPU time: said as the kernel's limit would */
        res->timed_out = res->exited = 0;
        res->signaled = 1;
        res->signo = SIGXCPU;
    }
    probe_core_put(s->core);
    s->core = -1;
}

const char *runner_gone_status(const runner_session *s, const hb_proc_result *res)
{
    if (res->timed_out || (res->signaled && res->signo == SIGXCPU))
        return "TIMEOUT";
    return res->signaled && !s->why[0] ? "CRASH" : "ERROR";
}
