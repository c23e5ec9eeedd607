/* Trial sessions: the extension point between the planner and whatever
 * runs a library's timed calls. A session is opened once for one library
 * and one message size (the probe's checks run at open), then serves
 * window after window on request, then is closed. A window is a loop of N
 * calls on N messages that hashbench hands over only when the window opens
 * (raw messages, chained inside the window by probe/chain.h), and its
 * figure is read by hashbench from outside: the session's kernel-accounted
 * CPU time over the window (every thread; preemption and steal time left
 * out), or a hardware cycle counter hashbench holds on the session where
 * the kernel offers one. Between windows the session is stopped, and any
 * CPU time it gains there is reported (gained_ns), never absorbed. Its
 * resident memory is read from outside too, at open and at close.
 *
 * To add a kind of session, write one file with a const session_class
 * (open / window / close / touch and the size of its state) and hand it to the
 * planner (windows.h). Implementations: session_probe (below: the
 * sandboxed persistent hashbench-probe) and the tests' scripted fake
 * (tests/measure/test_windows.c). */
#ifndef HB_MEASURE_SESSION_H
#define HB_MEASURE_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "probe/counter_read.h"

typedef struct session_open_rq {
    const char *probe_path;       /* absolute path of hashbench-probe */
    const char *lib;              /* absolute path of the library */
    unsigned long long size;      /* message bytes */
    int digest_bits;
    int cpu;                      /* the core, pinned from outside; -1: none */
    counter_kind counter;         /* the probe's own counter (a cross-check) */
    int cycles;                   /* 1: open a hardware cycle counter on it */
    unsigned long long max_calls; /* the longest window */
    double timeout_s;             /* for the open and for each window */
    int own_code_only;            /* 1: a native probe: the session fails
                                     INCONSISTENT when it runs code from any
                                     file but its own, the library's and
                                     those of the library's DT_NEEDED
                                     closure, and nothing may become
                                     executable after the load (not an
                                     emulated probe, whose emulator makes
                                     its own code) */
    int trusted;                  /* 1: one of hashbench's baselines, whose
                                     closure holds the system's libcrypto;
                                     a submitted library may need no
                                     library the probe does not have */
} session_open_rq;

typedef struct session_window_rq {
    unsigned long long calls;
    const unsigned char *raw;     /* CALLS x size bytes: the raw messages,
                                     written while the session is stopped;
                                     NULL: the region keeps what it holds
                                     (a warm-up window) */
} session_window_rq;

/* What went wrong, as a record's status word says it. */
enum {
    SESSION_OK = 0,
    SESSION_FAILED,        /* the library failed (CRASH, ERROR, ...: in failure) */
    SESSION_TIMEOUT,       /* no answer within timeout_s */
    SESSION_INCONSISTENT   /* something it said or did cannot be trusted */
};

typedef struct session_figure {
    int status;                   /* SESSION_* */
    char failure[512];            /* with status != SESSION_OK: one line */
    unsigned long long cpu_ns;    /* CPU time of the window, read from outside */
    int cycles_known;             /* 1: CYCLES was counted for the whole window */
    unsigned long long cycles;
    unsigned long long wall_ns;   /* hashbench's CLOCK_MONOTONIC over the window */
    unsigned long long inside_ticks, inside_ns; /* what the probe says of its loop */
    long long gained_ns;          /* CPU time since the previous window ended */
    int cpu;                      /* the core it last ran on, -1 unknown */
    long long waits;              /* its voluntary context switches in the
                                     window (it slept or waited), -1 unknown */
    long pid;                     /* its host process id */
    /* open and close: its resident memory read from outside while it is
     * stopped (/proc/PID/status VmRSS at open, VmHWM, the peak so far, at
     * close), in KiB, hashbench's message area left out; rss_known 0:
     * not read */
    int rss_known;
    long long rss_kb, rss_peak_kb;
    long long rss_preload_kb;     /* open and close: VmRSS before the library
                                     was loaded (no library can lower or raise
                                     it), -1 unknown */
    const unsigned char *digests; /* calls x digest bytes, as the library
                                     returned them; valid until the next call */
} session_figure;

typedef struct session_class {
    const char *name;
    size_t state_size;            /* bytes the caller allocates, zeroed */
    /* 0: open; 1: the library failed at open (FIG->status, failure); -1:
     * hashbench's own failure (ERR). Close must be called after 0 or 1. */
    int (*open)(void *state, const session_open_rq *rq, session_figure *fig,
                hb_err *err);
    /* One window: 0 with FIG filled (FIG->status says whether it went
     * well: after a failure the session serves no more windows), -1 on
     * hashbench's own failure. */
    int (*window)(void *state, const session_window_rq *w, session_figure *fig,
                  hb_err *err);
    /* Ends the session and frees what it holds; FIG (may be NULL) gets a
     * failure when it ended badly (a crash at exit, output after the end). */
    void (*close)(void *state, session_figure *fig);
    /* Makes resident what windows of up to CALLS calls use, so that no
     * page fault falls in them (NULL: nothing to do). A session's region
     * is only made resident as far as windows and this have used it: a
     * campaign holds a session per cell open at once. Returns as window. */
    int (*touch)(void *state, unsigned long long calls, session_figure *fig, hb_err *err);
} session_class;

/* The sandboxed persistent probe (hashbench-probe --session). */
extern const session_class session_probe;

#endif
