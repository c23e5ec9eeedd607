/* The one way hashbench starts a process that runs submitted code
 * natively: the KAT runs, the vector checks, the variant check, the
 * recomputation of sampled timed digests, the memory run, the one-process
 * trials and the timed sessions. Each is the same executable
 * (hashbench-probe) started with the same argument vector (its path alone),
 * in the same sandbox (the session profile: binds, seccomp filter, scratch
 * and /tmp sizes), with the same resource limits (no CPU-time limit: the
 * callers enforce theirs from outside), without address-space
 * randomisation (so that a library's code sits at the same addresses in
 * every session of a campaign and of the next one: where it is loaded moved
 * a 32-byte call's cost by up to 2 %, session to session, which no number
 * of windows in one session averages out), pinned to one core, and told what
 * to do by one first line on its channel, read before the library is
 * loaded ("configure", probe/probe_wire.h). The probe stops itself once
 * before the load; probe_preload waits for that stop, reads what the caller
 * wants of the process then and continues it. So nothing of the process a
 * library can observe from its constructor on says which of these it is;
 * what differs is what hashbench then asks of it (THREAT_MODEL.md). */
#ifndef HB_RUNNER_START_H
#define HB_RUNNER_START_H

#include <stddef.h>
#include "common/err.h"
#include "common/proc.h"
#include "measure/procview.h"

/* The address-space limit of every probe process: the largest a session's
 * shared region and a KAT_2_33 message need, whatever the role. */
#define PROBE_AS_BYTES (5ULL << 30)
#define PROBE_FSIZE_BYTES (1ULL << 20)
#define PROBE_REGION_NAME "hb-session" /* every probe's shared region */

typedef struct probe_start_rq {
    const char *probe;  /* hashbench-probe (absolute) */
    const char *lib;    /* the library (absolute; a missing file is the probe's
                           to report) */
    int cpu;            /* the core to pin it to (probe_core_take); -1: the
                           least taken of ours, never given back */
    int inherit_fd;     /* a session's shared region (a memory file named
                           PROBE_REGION_NAME), or -1: a one-page one */
    int allow_perf;     /* the one-process trials' own cycle counter */
    const char *nonce;  /* hex, PROBE_WIRE_NONCE_HEX - 1 digits */
    const char *config; /* the configure fields ("role=... bits=..."), without
                           the nonce and the library */
} probe_start_rq;

/* A core for a process that has none of its own (a runner): the one of
 * hashbench's cores with the fewest processes taken on it and not yet put
 * back, so that runners side by side (--jobs) run on different cores; -1
 * when none can be had. Every process is pinned to one core, whatever its
 * role. */
int probe_core_take(void);
void probe_core_put(int core);

/* Starts the probe for RQ into C and sends its configure line. Returns 0,
 * or -1 when it could not be started. */
int probe_start(const probe_start_rq *rq, hb_proc_child *c, hb_err *err);

/* 1 when probes run under a user-mode emulator (qemu-user), whose code
 * cache needs executable memory: the sandbox then cannot refuse new code.
 * Found once, from outside hashbench's own process. */
int probe_emulated(void);

/* What is read of a probe stopped before its load (probe_preload). */
typedef struct probe_preload_figures {
    long long rss_kb;           /* VmRSS; -1: not read */
    long long filters;          /* Seccomp_filters; -1: not read */
    procview_code_list code;    /* its code mappings (free with procview_code_free) */
} probe_preload_figures;

/* Waits (until DEADLINE, CLOCK_MONOTONIC) for the probe of C to stop itself
 * before its load, or for it to speak or end first; reads OUT (may be NULL)
 * while it is stopped and continues it. Its host pid into *PID (-1 when
 * unknown). */
void probe_preload(const hb_proc_child *c, double deadline, probe_preload_figures *out,
                   long *pid);

#endif
