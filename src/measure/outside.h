/* The timing checks made from outside the probe (SPEC §8: "timings are
 * checked from outside the probe"). The library runs inside the probe and
 * could make it report anything, so hashbench reads its own figures for each
 * trial: its CLOCK_MONOTONIC from the moment it sends the seed to the moment
 * it has read the result (the window: nothing of the trial's work can start
 * before the seed is known), the probe process's CPU time over the same
 * span (its CPU clock, all threads, read through clock_getcpuclockid), and
 * the child's wall time from fork to reap and CPU time from wait4 (which
 * covers the probe inside the sandbox through proc.c's keeper). A trial
 * whose probe-reported loop time T (ns) breaks one of these rules is
 * INCONSISTENT and the cell gets no figure:
 *
 *  1. T <= window + 0.1 % + 20 us: the timed loop lies inside the window
 *     (the 0.1 % covers CLOCK_MONOTONIC_RAW against CLOCK_MONOTONIC).
 *  2. window CPU <= window + 0.1 % + 50 us + 12 ms: the probe computed on
 *     one core during the window (a helper thread on another core shows as
 *     CPU time beyond wall time).
 *  3. T >= window CPU - allowance - 12 ms: every CPU nanosecond of the
 *     window beyond the untimed work the probe must do there (the
 *     messages, their words, the digest fold: probe_wire.h) is inside the
 *     timed loop. The allowance is twice that work as hashbench times it
 *     itself on this host plus the exchange's share (waking up, reading the
 *     seed, sending the result): three times what it costs on this host
 *     with hashbench's own OpenSSL SM3 library in the probe (measure.c,
 *     outside_set_exchange), never less than 150 us (the development VM:
 *     70 to 140 us; an emulated AArch64 probe: 1 to 2 ms).
 *  4. window CPU <= the child's CPU time from wait4 + 1 ms: the two
 *     outside readings are of the same process.
 *
 * Rules 1 and 4 hold exactly for a genuine probe. Rules 2 and 3 hold for it
 * with 12 ms to spare: 2 ms, and one scheduler tick more (10 ms, the
 * slowest kernel tick), since a genuine single-threaded probe (hashbench's
 * own baseline) was seen with 2.5 to 3.4 ms more CPU time than wall time
 * in a 3.6 ms window on a 250 Hz KVM guest: the process's CPU clock can
 * charge it a tick's worth of time the timed loop did not see. Within
 * those 12 ms a trial beyond 50 us + 0.1 % (rule 2) or beyond the
 * allowance (rule 3) is not trusted either: it is marked disturbed
 * ("outside_cpu"), kept out of the figures and run again like a preempted
 * trial, since a rare accounting step of the kernel or an interrupt
 * charged to the probe can cause it; when that happens to more than half
 * of a cell's trials (at least 3), the cell is INCONSISTENT (plan.h). So a library that makes the probe understate its loop, or
 * hashes on a second core, gains at most the allowance minus the real
 * exchange cost, or the 50 us, per trial; the planner's 5 % counter-rate
 * rule bounds the ticks against the loop time the same way. A probe run
 * by a user-mode emulator (the AArch64 build under qemu-user) breaks rule
 * 2 with the emulator's own threads, which is why rule 2 is not applied to
 * one. Every figure is recorded per trial. */
#ifndef HB_MEASURE_OUTSIDE_H
#define HB_MEASURE_OUTSIDE_H

#include <stddef.h>

#define OUTSIDE_CLOCK_PPM 1000.0        /* rules 1 and 2: 0.1 % */
#define OUTSIDE_INSIDE_SLACK_NS 20000.0 /* rule 1 */
#define OUTSIDE_CPU_SLACK_NS 50000.0    /* rule 2, before the 12 ms */
#define OUTSIDE_ALLOWANCE_FACTOR 2.0    /* rule 3 */
#define OUTSIDE_EXCHANGE_NS 150000.0    /* rule 3: the allowance's fixed part, at least */
#define OUTSIDE_EXCHANGE_FACTOR 3.0     /* ... or this times the host's, measured */
#define OUTSIDE_GROSS_NS 12e6           /* rules 2 and 3: beyond their tolerance,
                                           2 ms and a 10 ms tick */
#define OUTSIDE_PROCESS_SLACK_NS 1e6    /* rule 4 */
#define OUTSIDE_CELL_TRIALS 3           /* cells: at least this many trials ... */
#define OUTSIDE_CELL_FRACTION 0.5       /* ... and more than this share of them */

/* outside_check's verdicts. */
enum {
    OUTSIDE_OK = 0,
    OUTSIDE_INCONSISTENT = 1, /* rule 1 or 4 broken, or rule 2 or 3 by more than 12 ms */
    OUTSIDE_UNKNOWN = 2,      /* no outside figures */
    OUTSIDE_EXCESS = 3        /* rule 2 or 3 broken within 12 ms: not trusted, disturbed */
};

/* hashbench's own figures for one trial, in nanoseconds. */
typedef struct trial_outside {
    int known;                          /* 1: the window was opened and read */
    unsigned long long window_ns;
    unsigned long long window_cpu_ns;
    unsigned long long allowance_ns;    /* rule 3's allowance for this trial */
    unsigned long long process_wall_ns; /* the child, fork to reap */
    unsigned long long process_cpu_ns;  /* its CPU time, from wait4 */
    int emulated;                       /* 1: a user-mode emulator (qemu-user) ran
                                           the probes of this stage: rule 2 is
                                           not applied (outside_set_emulated) */
} trial_outside;

/* The window's untimed work for a trial of CALLS calls on SIZE-byte
 * messages with D-byte digests, timed once per process on this host by
 * running the probe's own window code (probe_wire.h), times the factor,
 * plus EXCHANGE_NS, the allowance's fixed part (the trial request's, from
 * outside_exchange_of; 0 means OUTSIDE_EXCHANGE_NS). */
unsigned long long outside_allowance_ns(unsigned long long size, unsigned long long calls,
                                        size_t d, double exchange_ns);

/* The allowance's fixed part from the untimed CPU time (window CPU time
 * minus loop time minus the modelled window work) that N trials of a
 * trusted library showed on this host: OUTSIDE_EXCHANGE_FACTOR times their
 * median, never less than OUTSIDE_EXCHANGE_NS. The measure stage computes
 * it once and hands it to every trial in its request (trial.h), with
 * whether the probes run under a user-mode emulator. */
double outside_exchange_of(const double *untimed_ns, size_t n);

/* Checks the rules for a trial whose probe reported LOOP_NS; returns an
 * OUTSIDE_* verdict. WHY (WHYSZ bytes) says which rule broke, with the
 * figures, for OUTSIDE_INCONSISTENT and OUTSIDE_EXCESS. */
int outside_check(const trial_outside *o, unsigned long long loop_ns, char *why,
                  size_t whysz);

#endif
