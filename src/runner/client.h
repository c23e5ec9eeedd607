/* The parent's side of the runner role of hashbench-probe (runner/start.h),
 * the sandboxed process that runs a submitted library for everything
 * except timing: the KAT procedures
 * (messages sent, digests streamed back, verdicts computed here), the CAVP
 * vector checks, the recomputation of a probe trial's digest fold, and the
 * comparison of an instance's variants. The runner only hashes; it never
 * sees expected values, writes nothing hashbench reads, and every answer it
 * gives is checked here. */
#ifndef HB_RUNNER_CLIENT_H
#define HB_RUNNER_CLIENT_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include "common/err.h"
#include "common/proc.h"
#include "kat/guard.h"
#include "probe/trial_msg.h"

typedef struct runner_target {
    const char *lib;   /* path of the library */
    int digest_bits;
    double timeout_s;  /* wall-clock limit of the whole runner process */
    unsigned long long as_bytes; /* unused: every probe has one limit
                                    (runner/start.h: PROBE_AS_BYTES) */
} runner_target;

/* Where the runner (hashbench-probe) is: beside the running executable. */
const char *runner_path(void);

/* How a call went: the answer came (OK), the library misbehaved and said
 * so under the guards (FAULT), or the runner ended, timed out or answered
 * nonsense (GONE: runner_close says how). */
enum { RUNNER_CALL_OK = 0, RUNNER_CALL_FAULT = 1, RUNNER_CALL_GONE = 2 };

typedef struct runner_session {
    hb_proc_child child;
    int digest_bits;
    double deadline;      /* CLOCK_MONOTONIC seconds */
    int gone;             /* the runner can no longer answer */
    char why[256];        /* with gone: a protocol problem, or "" */
    char lib[PATH_MAX];   /* the library's absolute path */
    long pid;             /* the runner's process on the host; -1: unknown */
    long long cpu_limit_ns; /* its CPU time limit; 0: none (wall only) */
    double cpu_read_at;   /* when its CPU time was last read (hb_mono_s) */
    int core;             /* the core it is pinned to (runner/start.h), or -1 */
    int cpu_out;          /* 1: ended for its CPU time (runner_close reports
                             it as SIGXCPU, as the kernel's limit did) */
} runner_session;

/* Starts the runner on T's library in the sandbox and waits for it to say
 * whether the library loaded. Returns 0 (loaded), 1 (the library did not
 * load, or the runner died before it could say: LOADFAIL holds why), -1 on
 * hashbench's own failure. After 0 or 1, runner_close must be called. */
int runner_open(runner_session *s, const runner_target *t, char *loadfail, size_t sz,
                hb_err *err);

/* As runner_open, with a CPU-time limit of CPU_S seconds besides its wall
 * limit (the KAT stage's limits scaled to an instance), enforced from
 * outside: exceeding it ends the runner as a time-out. */
int runner_open_cpu(runner_session *s, const runner_target *t, double cpu_s,
                    char *loadfail, size_t sz, hb_err *err);

/* One guarded call on MSG (BITS bits); the digest into DIGEST. Returns a
 * RUNNER_CALL_* value (F filled with FAULT), -1 on hashbench's own failure. */
int runner_hash(runner_session *s, const unsigned char *msg, unsigned long long bits,
                unsigned char *digest, kat_fault *f, hb_err *err);

/* KAT_Loop in the runner (kat_guarded_loop of the KAT stage's guard.h). */
int runner_loop(runner_session *s, const unsigned char *m0, size_t len, long rounds,
                unsigned char *digest, kat_fault *f, hb_err *err);

/* The fold of a probe trial's digests (trial_msg.h), as 32 hex digits. */
int runner_fold(runner_session *s, uint64_t seed, unsigned long long size,
                unsigned long long calls, char fold[TM_FOLD_HEX], kat_fault *f,
                hb_err *err);

/* Ends the runner (asks it to stop, kills it after a short grace) and says
 * how it ended in RES. */
void runner_close(runner_session *s, hb_proc_result *res);

/* The status word for a runner that stopped answering (a call returned
 * RUNNER_CALL_GONE) and ended as RES (runner_close): TIMEOUT for its
 * wall-clock or CPU-time limit, CRASH for a signal when its answers were
 * not at fault, else ERROR (the library ended the process, or the answers
 * were malformed: S->why says how). */
const char *runner_gone_status(const runner_session *s, const hb_proc_result *res);

#endif
