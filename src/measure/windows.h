/* The interleaved planner over trial sessions (session.h): the default
 * way the measure stage takes its figures. Every cell (instance and
 * baseline, at one size) gets one session, opened once and held open
 * while the stage passes over every size: the sessions of as many sizes
 * as their message regions allow (WINDOWS_STAGE_REGION_BYTES, or a third
 * of the host's free memory; all of them for a campaign like the demo's)
 * are opened and calibrated size by size, then the stage takes pass after
 * pass, each visiting every size still short of its groups, in an order
 * drawn afresh from the stage's seed for each pass, one round at each. So
 * a cell's groups are spread over the whole stage, and every instance
 * meets the same moments of the host rather than a few seconds of its
 * own; a size's records are written once every pass is done. At each
 * size the primary built-in baseline's session also measures the exchange
 * (what a window costs with no call in it: waking the stopped probe, the
 * go and done lines, stopping it again), which is subtracted from every
 * window of that size. Each session is calibrated with windows of growing
 * length; in a round at a size, the cells take their groups in an order
 * shuffled per round from the stage's seed: for each cell, a window of the cell and
 * one window of each of its baselines (ilv_cell.baselines; the second
 * built-in one, there for the host's ratio drift, in one group of
 * WINDOWS_DRIFT_EVERY of a round), in an order
 * shuffled from the same seed (ilv_group_order), each preceded by untimed
 * warm-up calls of the same session on the same core, so that state a
 * previous window left behind does not land on the next library's window.
 * Every window hashes its own fresh messages (msggen.h, chained by
 * probe/chain.h), handed over only when it opens; its figure is the CPU
 * time (or cycles) hashbench reads from outside, less the exchange. After
 * each window of a cell calls are drawn at random (getrandom) and kept for
 * the independent check of the cell's digests at the end of its size.
 *
 * Baselines are a list. A built-in one (ilv_cell.trusted: hashbench's own
 * OpenSSL code) takes no groups of its own: its record is its windows in
 * the groups of the others (or, with no other cell at its size, windows
 * alone). A package the evaluator named as a baseline is a cell like any
 * other (its own groups with the built-in baselines, its calibration held)
 * and also gives a window to the groups of the cells it is named in. A
 * cell's trial keeps every baseline window of its group (plan_trial.pairs)
 * and its primary baseline's (ilv_cell.baseline) as its pair. To add a
 * baseline: measure.c names it in the cells' baselines; nothing here.
 *
 * A cell takes its groups (--trials, with at least the guide's 100 calls)
 * unless its budget (its windows and its baselines' windows' wall time:
 * --budget, after 2 groups, else WINDOWS_AUTO_BUDGET_S once it has the 100
 * calls) or the hard cap on a cell ends it first; the record says which.
 *
 * No window is dropped, retried or marked disturbed: a failure in a window
 * ends its cell (CRASH, TIMEOUT, ...), and a session that gains CPU time
 * between its windows, digests the independent check does not reproduce,
 * or windows cheaper per call than calibration by more than
 * WINDOWS_CALIB_FACTOR twice (calibration is taken again once: the host's
 * speed moves), or an untimed warm-up that costs more than
 * WINDOWS_CALIB_FACTOR times its calls (work where nothing is timed) make
 * the cell INCONSISTENT; the built-in baselines,
 * hashbench's own code, are not held to calibration. A failed primary
 * baseline fails the cells it pairs; another failed baseline is left out
 * of the groups from then on. */
#ifndef HB_MEASURE_WINDOWS_H
#define HB_MEASURE_WINDOWS_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "measure/guard.h"
#include "measure/interleave.h"
#include "measure/msggen.h"
#include "measure/session.h"

#define WINDOWS_MIN_NS 3e6          /* a timed window's target length ... */
#define WINDOWS_EXCHANGE_MULT 100.0 /* ... and at least this many exchanges */
#define WINDOWS_WARMUP_NS 1e6       /* untimed calls before every window ... */
#define WINDOWS_WARMUP_SLACK_NS GUARD_WARMUP_SLACK_NS /* ... which, all of a cell's
                                       together, may cost WINDOWS_CALIB_FACTOR times
                                       their calls and this, at most (guard.h) */
#define WINDOWS_MIN_CALLS 8         /* calls in a timed window, at least */
#define WINDOWS_MAX_BYTES (32u << 20) /* messages of one window, at most */
#define WINDOWS_CALIB_FACTOR GUARD_CALIB_FACTOR /* a window's per-call cost against
                                                  calibration (guard.h) */
#define WINDOWS_EXCHANGE_WINDOWS 15 /* empty windows that measure the exchange */
#define WINDOWS_DRIFT_EVERY 3      /* the second built-in baseline joins one group
                                       in this many of a round (windows.c: group) */
#define WINDOWS_COST_BASELINES (1.0 + 1.0 / WINDOWS_DRIFT_EVERY) /* baseline windows
                                       per group, for cost estimates */
#define WINDOWS_STAGE_REGION_BYTES (4.0 * 1024 * 1024 * 1024) /* message regions
                                       of the sessions held open at once, at most */
#define WINDOWS_AUTO_BUDGET_S 10.0  /* a cell's wall time without --budget, once it
                                       has the guide's 100 calls */

/* One sampled call kept for the independent check: its window's key, its
 * index there and the digests of calls j-1 and j as the library returned
 * them (message j is rebuilt from the key and digest j-1: chain.h). */
typedef struct windows_sample {
    msggen_key key;
    unsigned long long j;
    unsigned char *prev, *digest; /* digest bytes each (prev unused for j = 0) */
} windows_sample;

/* The independent check of one cell's samples (measure.c gives one built
 * on measure/xcheck.h). Returns 0 when every sample agrees (BY names who
 * recomputed them), 1 when one does not or the check could not run (WHY
 * says which and how), -1 on hashbench's own failure. */
typedef int (*windows_verify_fn)(void *ctx, size_t cell, const windows_sample *s, size_t n,
                                 unsigned long long size, int digest_bits, char *by,
                                 size_t bysz, char *why, size_t whysz, hb_err *err);

typedef struct windows_opts {
    const session_class *cls;     /* NULL: session_probe */
    const char *probe_path;        /* absolute path of hashbench-probe */
    double rate_hz;                /* the host counter's rate: ns to ticks */
    int pairs;                     /* pairs per cell (>= 2) */
    double timeout_s;              /* per open and per window */
    windows_verify_fn verify;      /* NULL: no independent check (tests) */
    void *verify_ctx;
    /* the wall budget of a cell's instance over all its processes (NULL:
     * none): LEFT gives its seconds left (HUGE_VAL: no budget), REASON the
     * line a cell stopped by it is recorded with, CHARGE adds what the
     * cell's session took. Each returns 0, or -1 with ERR set. */
    int (*budget_left)(void *ctx, size_t cell, double *left, hb_err *err);
    void (*budget_reason)(void *ctx, size_t cell, char *out, size_t sz);
    int (*budget_charge)(void *ctx, size_t cell, double seconds, hb_err *err);
    void *budget_ctx;
    /* after each size: the cells at that size are final (their records can
     * be written). Returns 0 or -1 (ERR set) to stop the stage. */
    int (*size_done)(void *ctx, const size_t *cells, size_t n, hb_err *err);
    void *size_ctx;
    const char *harness_lib;       /* absolute path of the null library: the
                                      harness cost at each size (harness.h,
                                      plan_outcome.harness_ns); NULL: none */
} windows_opts;

/* The wall time a cell of PAIRS groups at T1_NS per call costs, its
 * built-in baselines' windows and the sessions' starts included (an estimate for
 * shard costs, campaign/costs.h). */
double windows_cell_cost_s(int pairs, double t1_ns);

/* Runs every cell of CELLS (their tmpl: library path relative to
 * tmpl.run_dir, size, digest bits, cpu, counter; baselines: the indices of
 * the baseline cells of their groups, at the same size; baseline: the
 * primary among them, or -1; trusted: a built-in baseline; pair_only: a
 * baseline whose own record is not wanted, windows in groups only) into
 * its out, with settings S (seed,
 * stage_start, min_trials) and O. Returns 0 when the stage ran (cells may
 * have failed), -1 on hashbench's own failure. */
int windows_run(ilv_cell *cells, size_t n, const plan_settings *s, const windows_opts *o,
                hb_err *err);

/* ---- The "interleaved" row of the planner table (planners.h) ---- */
struct plan_stage;

/* Runs the stage's cells with windows_run, the stage's hooks as its
 * options; then removes the stage's journal, which no session keeps. */
int windows_stage_run(struct plan_stage *st, hb_err *err);

/* The counter of the stage's figures: KIND, except that where the kernel
 * refuses hashbench a cycle counter on another process, sessions read CPU
 * time at the architecture's counter rate instead. */
counter_kind windows_counter(counter_kind kind);

/* windows_cell_cost_s of S's minimum trials, plus one process start. */
double windows_stage_cost_s(const plan_settings *s, double t1_ns, double start_s);

#endif
