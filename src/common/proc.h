/* Child processes for untrusted work: compiling a submission, running its
 * KATs, running a probe. Each child gets its own process group, closed
 * standard input, no core files, optional resource limits and CPU pinning;
 * the parent waits with a wall-clock timeout and, whatever happened, kills
 * the whole group so that nothing the child started outlives it. */
#ifndef HB_COMMON_PROC_H
#define HB_COMMON_PROC_H

#include <stddef.h>
#include "common/err.h"

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
    const char *cwd;                 /* working folder of the child; NULL = ours */
} hb_proc_opts;

/* Default options: no limits, no pinning, output discarded. */
hb_proc_opts hb_proc_defaults(void);

typedef struct hb_proc_result {
    int exited;      /* 1: normal exit with exit_code */
    int exit_code;
    int signaled;    /* 1: killed by signo */
    int signo;
    int timed_out;   /* 1: we killed it at the timeout */
    double wall_s;
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

/* A short description of how the child ended: "exit 0", "signal 11 (SIGSEGV)",
 * "timeout after 10.0 s". Writes into buf and returns it. */
const char *hb_proc_describe(const hb_proc_result *res, char *buf, size_t bufsz);

#endif
