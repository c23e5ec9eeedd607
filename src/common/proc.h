/* Child processes for untrusted work: compiling a submission, running its
 * KATs, running a probe. Each child gets its own process group, closed
 * standard input, no core files, optional resource limits and CPU pinning;
 * the parent waits with a wall-clock timeout and, whatever happened, kills
 * the whole group so that nothing the child started outlives it. A child
 * also dies with hashbench, however hashbench ends: the parent-death
 * signal (SIGKILL), set again after the sandbox's change of uid, which
 * clears it. The kernel sends it when the thread that forked ends, so a
 * child is started only from a thread that waits for it. */
#ifndef HB_COMMON_PROC_H
#define HB_COMMON_PROC_H

#include <stddef.h>
#include "common/err.h"

struct hb_sandbox;

typedef struct hb_proc_opts {
    double timeout_s;                /* wall-clock limit; 0 = none */
    unsigned long long as_bytes;     /* RLIMIT_AS; 0 = unlimited */
    unsigned long cpu_s;             /* RLIMIT_CPU; 0 = unlimited */
    unsigned long long fsize_bytes;  /* RLIMIT_FSIZE; 0 = unlimited */
    int cpu;                         /* pin to this core; -1 = no pinning */
    const char *stdout_path;         /* stdout to this file; NULL = /dev/null */
    const char *stderr_path;         /* stderr to this file; NULL = /dev/null */
    int stderr_to_stdout;            /* stderr joins stdout (file or capture) */
    char **capture;                  /* stdout into a malloc'd NUL-ended buffer */
    size_t capture_cap;              /* at most this many bytes kept */
    const char *cwd;                 /* working folder of the child; NULL = ours
                                        (ignored in a sandbox: its scratch) */
    unsigned long nproc;             /* RLIMIT_NPROC; 0 = unlimited, except in a
                                        sandbox (then HB_PROC_SANDBOX_NPROC_HOST) */
    unsigned long nofile;            /* RLIMIT_NOFILE; 0 = as inherited, except
                                        in a sandbox (HB_PROC_SANDBOX_NOFILE) */
    const struct hb_sandbox *sandbox; /* run argv inside this sandbox (exec
                                        only; see sandbox/sandbox.h); NULL or
                                        --no-sandbox: directly */
    int fixed_layout;                /* 1: without address-space randomisation
                                        (personality ADDR_NO_RANDOMIZE), so
                                        that the program and what it loads sit
                                        at the same addresses in every run */
} hb_proc_opts;

/* The default process and descriptor limits of a sandboxed step. The
 * kernel counts RLIMIT_NPROC over every process and thread of the
 * sandbox's host uid (nobody), side-by-side steps and unrelated services
 * included, and bubblewrap's user namespace keeps the limit bubblewrap
 * started with as the ceiling of that host-wide count. A low ceiling let
 * one step that holds idle threads (the runner allows them) stop every
 * other step of the host from starting, so the ceiling is high
 * (HB_PROC_SANDBOX_NPROC_HOST: it stops a runaway, not a busy host), and
 * each step of hashbench's own lowers its limit to HB_STEP_NPROC
 * (common/steplimit.h), counted over its own namespace only, before it
 * loads a library. The runner and the probe may not fork at all (their
 * seccomp profile). */
#define HB_PROC_SANDBOX_NPROC_HOST 16384
#define HB_PROC_SANDBOX_NOFILE 256

/* Asks the kernel to spare this process when memory runs out (an
 * oom_score_adj of -1000; effective as root, ignored otherwise). Every
 * child raises its own score to 1000 before it runs anything. */
void hb_proc_protect_self(void);

/* Default options: no limits, no pinning, output discarded. */
hb_proc_opts hb_proc_defaults(void);

typedef struct hb_proc_result {
    int exited;      /* 1: normal exit with exit_code */
    int exit_code;
    int signaled;    /* 1: killed by signo */
    int signo;
    int timed_out;   /* 1: we killed it at the timeout */
    double wall_s;
    double cpu_s;    /* the child's user + system CPU time (hb_proc_reap) */
    size_t captured; /* bytes in *capture */
    int truncated;   /* capture hit capture_cap */
} hb_proc_result;

/* Runs fn(arg) in a forked child; the child's exit status is fn's return
 * value (0..255). Returns 0 when the child was run (see res), -1 when it
 * could not be started. */
int hb_proc_fork(int (*fn)(void *), void *arg, const hb_proc_opts *opts,
                 hb_proc_result *res, hb_err *err);

/* Executes argv (argv[0] a path, argv NULL-terminated) in a child. */
int hb_proc_exec(char *const argv[], const hb_proc_opts *opts,
                 hb_proc_result *res, hb_err *err);

/* An interactive child: its standard input and output are pipes. */
typedef struct hb_proc_child {
    int pid;         /* -1 when not running */
    int to_child;    /* write end of its standard input */
    int from_child;  /* read end of its standard output */
    double start_s;  /* CLOCK_MONOTONIC at the fork */
    int timed_out;   /* set by hb_proc_kill(c, 1) */
    int sandboxed;   /* runs inside the sandbox (its status is bwrap's) */
} hb_proc_child;

/* Starts argv (argv[0] a path) as an interactive child under OPTS (limits,
 * pinning, sandbox; capture and stdout_path are ignored; stderr goes to
 * stderr_path or /dev/null). Ignores SIGPIPE in the caller, so that writing
 * to a child that died gives EPIPE. Returns 0, or -1 when it could not be
 * started. */
int hb_proc_spawn(char *const argv[], const hb_proc_opts *opts, hb_proc_child *c,
                  hb_err *err);

/* Closes both pipes, waits up to GRACE_S seconds for the child to end, then
 * kills its group, and fills RES (with the CPU time from wait4). */
int hb_proc_reap(hb_proc_child *c, double grace_s, hb_proc_result *res);

/* Kills the child's group now (TIMED_OUT: it is reported as a timeout). */
void hb_proc_kill(hb_proc_child *c, int timed_out);

/* A short description of how the child ended: "exit 0", "signal 11 (SIGSEGV)",
 * "timeout after 10.0 s". Writes into buf and returns it. */
const char *hb_proc_describe(const hb_proc_result *res, char *buf, size_t bufsz);

#endif
