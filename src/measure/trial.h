/* One run of the probe executable (src/probe) as a child process: the
 * command line, pinning, timeout and resource limits, and the parsing of the
 * probe's one result line into a trial_result. The probe runs with the run
 * directory as its working folder so the library path and the recorded
 * command are relative to it. A probe that crashes, times out, exits with a
 * failure code or prints no result gives ok = 0 and a one-line failure;
 * trial_run itself fails only when no child could be started. */
#ifndef HB_MEASURE_TRIAL_H
#define HB_MEASURE_TRIAL_H

#include <jansson.h>

#include "common/err.h"
#include "probe/counter_read.h"

typedef struct trial_request {
    const char *probe_path;   /* absolute path of hashbench-probe */
    const char *run_dir;      /* the probe's working folder */
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
} trial_request;

#define TRIAL_DIGEST_HEX (2 * 8192 + 1)

typedef struct trial_result {
    int ok;                   /* 1: the probe printed status=ok */
    char failure[512];        /* one line when ok = 0 */
    unsigned long long calls;
    unsigned long long ticks;
    unsigned long long ns;
    long pid;
    int cpu;
    long rss_baseline_kb, rss_peak_kb;
    long long stack_peak_bytes, heap_peak_bytes, heap_allocs; /* -1 unknown */
    int sched_known;          /* 1: the probe reported the three below */
    unsigned long long cpu_ns; /* thread CPU time across the timed loop */
    long long vcsw, ivcsw;    /* voluntary / involuntary context switches in it */
    char digest[TRIAL_DIGEST_HEX];
} trial_result;

/* The probe's argument list for RQ, argv[0] being the basename of the probe
 * (as recorded); a JSON array of strings, new reference. */
json_t *trial_command_json(const trial_request *rq);

/* Runs the probe for RQ and fills RES. */
int trial_run(const trial_request *rq, trial_result *res, hb_err *err);

/* Parses one probe output LINE into RES (exposed for tests). Returns 0 when
 * it is a status=ok line with the timing fields, else -1 with RES->failure
 * set from the line. */
int trial_parse_line(const char *line, trial_result *res);

#endif
