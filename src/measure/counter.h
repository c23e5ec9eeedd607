/* Choosing and characterising the timing counter. The reading code itself
 * lives in probe/counter_read.h (shared with the probe, which links only libc
 * and libdl); this module decides which counter a campaign uses and why,
 * measures its rate against CLOCK_MONOTONIC_RAW, its read overhead and its
 * steadiness. Used by `hashbench clock`, the host check and the measurement
 * planner. No global state: the caller owns every counter_state.
 *
 * To add a counter: a counter_kind and its read in probe/counter_read.h
 * (the probe's in-window figure), its name and whether it counts core
 * cycles here (counter_name, counter_from_name, counter_is_cycles), its choice in
 * counter_select; a session's figure from outside is the probe's CPU time
 * at the counter's measured rate unless the counter is opened on the probe
 * from outside (procview.h, as perf cycles are). */
#ifndef HB_MEASURE_COUNTER_H
#define HB_MEASURE_COUNTER_H

#include <jansson.h>

#include "common/err.h"
#include "probe/counter_read.h"

/* The outcome of counter_select. */
typedef struct counter_state {
    counter_kind kind;
    int perf_errno;    /* errno of the refused perf_event_open; 0 when it worked */
    char reason[256];  /* one line: why this counter, e.g.
                          "perf_event_open: not supported (ENOENT), falling
                          back to tsc" */
} counter_state;

/* The perf_event_open attempt used by counter_select: returns an open file
 * descriptor (which counter_select closes) or -1 with errno set. */
typedef int (*counter_perf_open_fn)(void *ctx);

/* The real attempt: a user-space-only hardware cycles event on this thread
 * (counter_perf_open_cycles). CTX is ignored. */
int counter_perf_open_default(void *ctx);

/* Picks the counter: perf cycles when PERF_OPEN succeeds, else the
 * architecture's counter (tsc on x86, cntvct_el0 on AArch64), else none
 * (nanoseconds). PERF_OPEN NULL means counter_perf_open_default. Fills C
 * (kind, perf_errno, reason). Returns 0; -1 only when C is NULL. */
int counter_select(counter_state *c, counter_perf_open_fn perf_open, void *ctx,
                   hb_err *err);

/* "perf_cycles", "tsc", "cntvct_el0", "none". */
const char *counter_name(counter_kind k);

/* One line for reports, e.g. "x86 time-stamp counter (rdtscp, fenced)". */
const char *counter_description(counter_kind k);

/* 1 only for COUNTER_PERF_CYCLES: the other counters tick at a fixed rate
 * and must never be called "cycles". */
int counter_is_cycles(counter_kind k);

/* Parses a name (counter_name's, or "perf"/"cntvct"); -1 when unknown, with
 * ERR saying which names are accepted. */
int counter_from_name(const char *name, counter_kind *out, hb_err *err);

/* Measures the counter's ticks per second against CLOCK_MONOTONIC_RAW over a
 * busy window of SECONDS (e.g. 0.1) on the calling thread. Returns 0 and sets
 * *rate_hz, or -1 when the counter cannot be opened. */
int counter_measure_rate(counter_kind k, double seconds, double *rate_hz,
                         hb_err *err);

/* Steadiness: WINDOWS rate measurements of WINDOW_S each; *mean_rate_hz gets
 * their median (a window in which the thread was preempted between a clock
 * read and a counter read is off by the preemption: under an emulator on a
 * loaded host, by 24 %; the median leaves such a window out) and
 * *spread_percent (max-min)/median*100. Either output may be NULL. Returns
 * 0 or -1 (counter cannot be opened, WINDOWS < 2). */
int counter_steadiness(counter_kind k, int windows, double window_s,
                       double *mean_rate_hz, double *spread_percent,
                       hb_err *err);

/* Read overhead: SAMPLES differences between back-to-back reads;
 * *min_ticks and *median_ticks get their minimum and median. */
int counter_read_overhead(counter_kind k, int samples, double *min_ticks,
                          double *median_ticks, hb_err *err);

/* The record's environment.counter object: {"name", "is_cycles",
 * "rate_hz", "description"}, plus "nominal_hz" and "nominal_source"
 * ("cntfrq_el0") for cntvct_el0 on AArch64. A new reference owned by the
 * caller. */
json_t *counter_json(counter_kind k, double rate_hz);

/* Everything `hashbench clock` and the host check show about the counter. */
typedef struct counter_report {
    counter_state state;    /* which counter and why */
    int cpu;                /* the core measured on; -1 not pinned */
    double rate_hz;         /* mean rate over the windows */
    double spread_percent;  /* steadiness: (max-min)/mean of window rates */
    int windows;
    double window_s;
    double read_min_ticks, read_median_ticks;
} counter_report;

/* Pins the calling thread to CPU (when >= 0), selects the counter with the
 * real perf_event_open, and measures rate and steadiness over about SECONDS
 * (split into windows of 0.1 s, at least 2) and the read overhead. */
int counter_characterise(int cpu, double seconds, counter_report *out,
                         hb_err *err);

#endif
