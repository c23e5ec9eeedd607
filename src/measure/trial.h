/* One run of the probe executable (src/probe) as a child process: the
 * command line, the sandbox (sandbox/sandbox.h, RUN profile: the probe and
 * the library read-only, a private scratch folder from the staging area
 * (sandbox/stage.h) as working folder, removed afterwards), pinning, timeout
 * and resource limits, the exchange of probe/probe_wire.h (a fresh nonce
 * and a fresh random seed per trial), the outside readings of
 * measure/outside.h, and the parsing of the probe's one result line into a
 * trial_result. With --no-sandbox the probe runs directly with the run
 * directory as working folder. A probe that crashes, times out, exits with
 * a failure code or gives no result yields ok = 0 and a one-line failure;
 * one whose channel carries anything the probe does not write, or whose
 * figures break the outside rules (not applied to the --memory run, whose
 * one call is no figure), yields ok = 0 and inconsistent = 1;
 * trial_run itself fails only when no child could be started. */
#ifndef HB_MEASURE_TRIAL_H
#define HB_MEASURE_TRIAL_H

#include <stdint.h>
#include <jansson.h>

#include "common/err.h"
#include "measure/outside.h"
#include "probe/counter_read.h"
#include "probe/trial_msg.h"
#include "rundir/ibudget.h"

typedef struct trial_request {
    const char *probe_path;   /* absolute path of hashbench-probe */
    const char *run_dir;      /* library paths are relative to it */
    const char *lib;          /* library path relative to run_dir */
    unsigned long long size;  /* message bytes */
    unsigned long long calls; /* timed calls */
    unsigned long long warmup;
    int cpu;                  /* -1: no pinning */
    counter_kind counter;
    int digest_bits;
    int memory;               /* 1: add --memory */
    int calibrate;            /* 1: pass calls as --calibrate */
    double timeout_s;
    double exchange_ns;       /* the outside rules' fixed allowance on this
                                 host (outside_exchange_of); 0: the default */
    int emulated;             /* 1: the stage's probes run under a user-mode
                                 emulator (found with the trusted library) */
    ibudget budget;           /* the instance's wall budget (rundir/ibudget.h;
                                 budget_s 0: none): trial_run starts no probe
                                 once it is spent, gives each no longer than
                                 its rest and charges its wall time */
} trial_request;

#define TRIAL_DIGEST_HEX (2 * 8192 + 1)

typedef struct trial_result {
    int ok;                   /* 1: the probe sent status=ok and every check held */
    int inconsistent;         /* 1: its result cannot be trusted (failure says why) */
    int outside_excess;       /* 1: ok, but rule 3 of outside.h broke within 2 ms */
    char failure[512];        /* one line when ok = 0 */
    uint64_t seed;            /* the trial's messages (trial_msg.h) */
    char fold[TM_FOLD_HEX];   /* the probe's fold of the timed digests */
    unsigned long long calls;
    unsigned long long ticks;
    unsigned long long ns;
    long pid;                 /* the probe's process id on the host */
    int cpu;                  /* the core it last ran on (read from outside) */
    long rss_baseline_kb, rss_peak_kb;
    long long stack_peak_bytes, heap_peak_bytes, heap_allocs; /* -1 unknown */
    int sched_known;          /* 1: the probe reported the three below */
    unsigned long long cpu_ns; /* thread CPU time across the timed loop */
    long long vcsw, ivcsw;    /* voluntary / involuntary context switches in it */
    char digest[TRIAL_DIGEST_HEX]; /* of the fixed message (probe_codes.h) */
    trial_outside outside;    /* hashbench's own figures */
    int emulator;             /* 1: the probe's process maps a qemu-user emulator */
    /* a window of a trial session (session.h, windows.h): ticks and ns
     * above are then hashbench's figure from outside, and these say how */
    int session;              /* 1: this result is a session's window */
    char key[65];             /* its messages' key (measure/msggen.h), hex */
    unsigned long long window_cpu_ns; /* the window's CPU time, read from outside */
    unsigned long long window_wall_ns;
    int cycles_known;         /* 1: ticks are cycles hashbench counted */
    unsigned long long inside_ticks, inside_ns; /* the probe's own figures */
} trial_result;

/* The probe's argument list for RQ, argv[0] being the basename of the probe
 * and the library path relative to the run directory (as recorded); a JSON
 * array of strings, new reference. */
json_t *trial_command_json(const trial_request *rq);

/* Runs the probe for RQ and fills RES: with a budget in RQ, a spent one
 * starts nothing and a probe it ends is ok = 0 with the failure "TIMEOUT:
 * wall budget of the instance spent ...". */
int trial_run(const trial_request *rq, trial_result *res, hb_err *err);

/* Parses the fields of one result LINE (without "result nonce=...") into
 * RES (exposed for tests). Returns 0 when it is a status=ok line with the
 * timing fields, else -1 with RES->failure set from the line. */
int trial_parse_line(const char *line, trial_result *res);

#endif
