/* The measurement planners for one (instance, size): calibration from
 * several timed calls after warm-up, then the interleaved planner's short
 * trials, taken a round at a time across all cells (interleave.h drives the
 * rounds through plan_cell_*; its budget is one hard figure, below), or the
 * reference campaign's rule ("reference": a fixed number of trials, calls per trial
 * min(20000, max(ceil(1 s / t1), 20)) with t1 the calibrated per-call time)
 * or the adaptive rule ("adaptive": short trials of about 1 ms, so that most
 * run without being preempted, added until the 95% CI half-width of the mean
 * per-call cost is within target_ci_percent of the mean, with at least
 * min_trials kept trials and 100 kept calls, within a time budget that by
 * default is a fraction of what the reference rule would spend on the same
 * size). Every trial is a fresh probe process (trial.h). A trial is
 * disturbed when its ticks/ns rate departs from the host's counter rate by
 * more than 5%, when its thread was switched out during the timed loop
 * (involuntary or voluntary context switch), or when its thread CPU time
 * falls short of its wall time by more than 1% + 2 us: it is kept with its
 * reasons, counted, and run again at most max_retries times.
 *
 * The limits of a cell hold whatever its trials do. Before every probe
 * process after the first min_trials timed ones, the adaptive planner stops
 * once its budget is spent (measured from the first timed trial) when no
 * trial has been kept or the floors are met; while kept trials make progress towards
 * the floors it goes on until the floors' budget instead: without an
 * explicit budget, PLAN_FLOOR_MARGIN x the floors' trial count x one
 * process's wall time as calibration saw it (start-up included), so that an
 * ordinary slow cell still reaches 100 calls; with one, the budget itself.
 * Either planner stops at its process cap (adaptive: max_trials timed
 * processes, kept or disturbed; reference: min_trials x (1 + max_retries))
 * and at max_cell_s of wall time for the whole cell, calibration included,
 * to which every trial's own timeout is also cut. The outcome says which
 * limit ended the trials (plan_stop_name). A trial whose
 * result cannot be trusted (trial.h: inconsistent) ends the cell at once;
 * a cell ends INCONSISTENT too when more than half of its timed
 * trials (at least 3) were disturbed by the outside rule (outside.h). */
#ifndef HB_MEASURE_PLAN_H
#define HB_MEASURE_PLAN_H

#include <stdint.h>
#include <jansson.h>

#include "common/err.h"
#include "measure/trial.h"

#define PLAN_MIN_CALLS 100
#define PLAN_DISTURBED_PERCENT 5.0
#define PLAN_CPU_SHORT_PERCENT 1.0
#define PLAN_CPU_SHORT_SLACK_NS 2000.0
#define PLAN_MAX_CELL_S 300.0
#define PLAN_FLOOR_MARGIN 1.5

/* What ended a cell's timed trials. */
enum {
    PLAN_STOP_NONE = 0,     /* not run (calibration failed) */
    PLAN_STOP_TARGET,       /* adaptive: the CI target, floors met */
    PLAN_STOP_TRIALS,       /* the trial count: reference rule, adaptive max_trials kept */
    PLAN_STOP_BUDGET,       /* adaptive: the time budget */
    PLAN_STOP_PROCESS_CAP,  /* the cap on probe processes */
    PLAN_STOP_TIME_CAP,     /* max_cell_s */
    PLAN_STOP_FAILURE       /* a probe failed or its result was inconsistent */
};

/* Why a trial is disturbed: a bit set, 0 for an undisturbed trial. */
enum {
    PLAN_DISTURBED_RATE = 1,        /* counter rate departs from the host's */
    PLAN_DISTURBED_INVOLUNTARY = 2, /* preempted during the timed loop */
    PLAN_DISTURBED_VOLUNTARY = 4,   /* slept during the timed loop */
    PLAN_DISTURBED_CPU_TIME = 8,    /* thread CPU time short of wall time */
    PLAN_DISTURBED_OUTSIDE = 16,    /* the CPU time seen from outside beyond the
                                       loop's or the window's (outside.h, rules
                                       2 and 3, within their 12 ms) */
    PLAN_DISTURBED_N_REASONS = 5
};

/* Runs one trial (calibration or timed) for RQ into RES; trial_run's
 * contract. The planner calls it once per trial, so each trial is a fresh
 * probe process. */
typedef int (*plan_trial_fn)(const trial_request *rq, trial_result *res,
                             void *ctx, hb_err *err);

/* The adaptive planner's cap on timed processes per cell, unless set. */
#define PLAN_MAX_TRIALS 200

typedef struct plan_settings {
    const char *planner;       /* "interleaved", "interleaved-processes", "adaptive"
                                  or "reference" */
    int min_trials;            /* reference: the trial count; adaptive: the minimum
                                  (<= 0: settings_default_min_trials) */
    double target_ci_percent;  /* adaptive */
    double budget_s;           /* adaptive: wall-clock budget for adding trials;
                                  with budget_explicit 0 only an upper bound
                                  (<= 0: SETTINGS_AUTO_BUDGET_MAX_S) */
    int budget_explicit;       /* 1: budget_s as given, no reference cap */
    double budget_fraction;    /* cap: this share of the reference rule's
                                  cost (<= 0: SETTINGS_AUTO_BUDGET_FRACTION) */
    int max_retries;           /* re-runs of a disturbed trial */
    int max_trials;            /* adaptive: cap on timed processes (0:
                                  PLAN_MAX_TRIALS) */
    double max_cell_s;         /* hard wall-clock cap per cell; <= 0: the larger
                                  of PLAN_MAX_CELL_S and twice an explicit budget */
    double host_rate_hz;       /* the counter's measured rate on this host */
    plan_trial_fn run;         /* NULL: trial_run (the probe executable) */
    void *run_ctx;             /* passed to RUN */
    double stage_start;        /* CLOCK_MONOTONIC of the stage's start (trials'
                                  t_s); 0: the cell's own start */
    uint64_t seed;             /* interleaved: the stage's shuffle seed */
} plan_settings;

/* Baselines a cell's trial can be grouped with, at most (windows.h). */
#define PLAN_MAX_PAIRS 8

/* One baseline's window of a group (windows.h); calls 0: none. */
typedef struct plan_pair {
    unsigned long long calls, ticks, ns;
} plan_pair;

/* The kept evidence of one planned measurement. */
typedef struct plan_trial {
    trial_result r;
    double rate_hz;
    int disturbed;                    /* PLAN_DISTURBED_* bits, 0: kept */
    double t_s;                       /* start, seconds since the stage's start */
    int round;                        /* interleaved: its round (0-based); -1 */
    int slot;                         /* interleaved: its place in the round; -1 */
    int paired;                       /* 1: the baseline's trial below was taken
                                         beside it, in the same round */
    uint64_t pair_seed;
    unsigned long long pair_calls, pair_ticks, pair_ns;
    int pair_disturbed;
    plan_pair pairs[PLAN_MAX_PAIRS];  /* sessions: the window of each baseline of
                                         its group, in the order of the
                                         outcome's pairs_instance */
} plan_trial;

typedef struct plan_outcome {
    int ok;                           /* 0: failure holds the reason */
    int inconsistent;                 /* with ok = 0: a trial could not be trusted */
    char failure[512];
    int stopped;                      /* PLAN_STOP_* */
    int processes;                    /* probe processes, calibration included */
    double elapsed_s;                 /* wall time of the cell's trials */
    double process_s;                 /* one timed process's estimated wall time */
    unsigned long long calib_calls;
    double calib_ns_per_call;
    unsigned long long calls_per_trial;
    unsigned long long warmup_calls;
    int target_reached;               /* adaptive: CI target met */
    double budget_s;                  /* adaptive: the budget applied */
    double floor_budget_s;            /* adaptive: the limit while reaching the floors */
    double reference_cost_s;          /* estimated timed work of the reference rule */
    int disturbed_retries;
    char pair_instance[256];          /* interleaved: "cand/inst" of the baseline
                                         its trials are paired with, or "" */
    char pairs_instance[PLAN_MAX_PAIRS][256]; /* sessions: "cand/inst" of each
                                         baseline of its groups, primary
                                         included; "": none */
    plan_trial *trials;               /* malloc'd; plan_outcome_free */
    size_t n_trials;
    char digest[TRIAL_DIGEST_HEX];
    /* trial sessions (windows.h) */
    int session;                      /* 1: the trials are session windows */
    char figure[32];                  /* "cpu_time" or "cycles" */
    double exchange_ns;               /* subtracted from every window */
    char exchange_by[64];             /* the session it was measured on */
    double harness_ns;                /* per call, what a window holds besides
                                         the hash at its size (harness.h);
                                         NaN: not measured */
    char verified_by[320];            /* who recomputed the sampled digests */
    size_t verified_calls;            /* how many */
    int rss_known;                    /* 1: the two below were read from
                                         outside (session.h), in KiB */
    long long rss_open_kb;            /* resident once open and checked */
    long long rss_peak_kb;            /* the peak, read at its close */
    long long rss_preload_kb;         /* resident before the library was
                                         loaded, -1 unknown */
} plan_outcome;

/* Calls per trial of the reference rule for T1_NS nanoseconds per call. */
unsigned long long plan_reference_calls(double t1_ns);

/* Calls per trial of the adaptive rule: a trial of at least 1 ms and 10^5
 * ticks at RATE_HZ (short, so that few are preempted), at least 1 call, and
 * at least 10 when one call takes 10 ms or more (so that the 100-call floor
 * needs no more than 10 processes). */
unsigned long long plan_adaptive_calls(double t1_ns, double rate_hz);

/* Warm-up calls before timing: about 5 ms of work, between 10 and 10000. */
unsigned long long plan_warmup_calls(double t1_ns);

/* Adaptive warm-up: about 1 ms of work, between 1 and 10000 calls. */
unsigned long long plan_adaptive_warmup_calls(double t1_ns);

/* Seconds of timed and warm-up work the reference rule spends on MIN_TRIALS
 * trials (<= 0: the reference rule's count) at T1_NS per call (a lower
 * bound of its wall time). */
double plan_reference_cost_s(double t1_ns, int min_trials);

/* The adaptive budget in seconds for S at T1_NS per call: budget_s when
 * explicit, else the budget rule of measure/settings.h: the smaller of
 * budget_s and budget_fraction of plan_reference_cost_s (their defaults
 * there). (plan_execute raises an automatic
 * budget to the floors' cost; see above.) */
double plan_adaptive_budget(const plan_settings *s, double t1_ns, int min_trials);

/* 1 when a trial's RATE_HZ departs from HOST_RATE_HZ by more than 5%. */
int plan_is_disturbed(double rate_hz, double host_rate_hz);

/* The PLAN_DISTURBED_* bits of trial R with counter rate RATE_HZ: the rate
 * rule, the outside rule (R->outside_excess), and, when the probe reported
 * them (R->sched_known), a context switch in the timed loop or thread CPU
 * time below wall time by more than PLAN_CPU_SHORT_PERCENT % +
 * PLAN_CPU_SHORT_SLACK_NS. */
int plan_disturbance(const trial_result *r, double rate_hz, double host_rate_hz);

/* The record's name of a PLAN_STOP_* value ("target", "trials", "budget",
 * "process_cap", "time_cap", "failure"), or NULL for PLAN_STOP_NONE. */
const char *plan_stop_name(int stopped);

/* The record's name of disturbance bit BIT ("rate", "involuntary_switch",
 * "voluntary_switch", "cpu_time", "outside_cpu"), or NULL. */
const char *plan_disturbed_reason_name(int bit);

/* Calibrates and runs the trials of S for the request TEMPLATE (lib, size,
 * counter, cpu, ...; calls and warmup are set here). Fills OUT; a probe
 * failure gives out->ok = 0, not an error. Returns -1 only when a probe
 * process could not be started. */
int plan_execute(const plan_settings *s, const trial_request *template,
                 plan_outcome *out, hb_err *err);

void plan_outcome_free(plan_outcome *o);

/* The wall time one cell of S costs at T1_NS per call when every trial is
 * a probe process starting in START_S: its trials (PAIRED per slot: 2 when
 * a baseline's trial goes beside each), its memory run and calibration
 * (an estimate for shard costs, campaign/costs.h). */
double plan_process_cost_s(const plan_settings *s, double t1_ns, double start_s, int paired);

/* ---- The "adaptive" and "reference" rows of the planner table
 * (planners.h): one cell after another, each driven to its end by
 * plan_execute and handed back for its record before the next starts ---- */
struct plan_stage;
int plan_sequence_run(struct plan_stage *st, hb_err *err);
double plan_sequence_cost_s(const plan_settings *s, double t1_ns, double start_s);

/* S's minimum number of kept trials: min_trials, else the planner's
 * default (measure/settings.h). */
int plan_min_trials(const plan_settings *s);

/* The shape of the timed trials the planner of S gives a cell whose
 * calibration found T1_NS per call: *CALLS and *WARMUP per trial and, when
 * FLOOR_TRIALS is not NULL, the kept trials its floors need (the minimum
 * trials, and enough trials to reach PLAN_MIN_CALLS calls). Reads planner,
 * min_trials, budget_s, budget_explicit and host_rate_hz. The planner sets
 * every cell's trials with it; the shard costs (campaign/costs.h) estimate
 * a cell's time with it. */
void plan_trial_shape(const plan_settings *s, double t1_ns, unsigned long long *calls,
                      unsigned long long *warmup, int *floor_trials);

/* ---- How a cell's trials go when each is one probe process: a planner's
 * trial rule (planners.h: the row's rule). plan.c holds the adaptive and
 * the reference rules, interleave.c the rule of rounds. ---- */
struct plan_cell;

typedef struct plan_rule {
    /* the timed trials' calls and warm-up for T1_NS per call, MIN_TRIALS
     * the cell's minimum (plan_trial_shape adds the floors) */
    void (*shape)(const plan_settings *s, double t1_ns, int min_trials,
                  unsigned long long *calls, unsigned long long *warmup);
    /* after calibration, the trials' shape set: the outcome's
     * reference_cost_s and, under a budget, budget_s and floor_budget_s
     * (FLOOR_TRIALS: the trials the floors need) */
    void (*budget)(struct plan_cell *c, double t1_ns, int floor_trials);
    /* the reason to stop before the next timed trial (plan_cell_stop) */
    int (*stop)(struct plan_cell *c, double next_s);
    /* the time the cell has used, for its time cap and its record: its
     * wall time since it began, or the time charged to it */
    double (*used_s)(const struct plan_cell *c);
    int rejects;           /* the PLAN_DISTURBED_* bits that leave a trial out */
    int retries;           /* 1: plan_execute takes a disturbed trial again in
                              its slot, max_retries times */
} plan_rule;

#define PLAN_DISTURBED_ALL ((1 << PLAN_DISTURBED_N_REASONS) - 1)

/* The rules of "adaptive" and "reference" (one cell after another). */
extern const plan_rule plan_rule_adaptive, plan_rule_reference;

/* The trial rule of S's planner (the adaptive one for a planner without). */
const plan_rule *plan_rule_of(const plan_settings *s);

/* The adaptive rule's shape: short trials (plan_adaptive_calls), at least
 * AT_LEAST calls each, all within an explicit budget. */
void plan_adaptive_shape(const plan_settings *s, double t1_ns, int min_trials,
                         unsigned long long at_least, unsigned long long *calls,
                         unsigned long long *warmup);

/* ---- A cell run step by step (the interleaved planner, interleave.h, drives
 * many of them at once; plan_execute drives one to its end). ---- */
typedef struct plan_cell {
    const plan_settings *s;
    plan_outcome *out;
    trial_request rq;      /* the timed trials' request, after calibration */
    double start;          /* CLOCK_MONOTONIC at plan_cell_begin */
    double cap_s;          /* max_cell_s */
    double timed_start;    /* CLOCK_MONOTONIC of the first timed trial */
    double trial_s;        /* one timed trial's estimated wall time */
    double spent_s;        /* interleaved: wall time charged to the cell (its
                              calibration, its trials and its paired baseline
                              trials) */
    double calib_s;        /* the part of spent_s that calibration took */
    double wall_sum;       /* wall time of the timed trials so far ... */
    size_t wall_n;         /* ... and their number */
    const plan_rule *rule; /* its planner's trial rule */
    int adaptive, min_trials;
    size_t processes;      /* timed processes */
    size_t cap;            /* their cap */
} plan_cell;

/* Calibrates the cell of request TMPL into OUT (which it clears). Returns
 * -1 only when a probe could not be started; a failed calibration leaves
 * out->ok = 0. On success the cell is ready for plan_cell_trial. */
int plan_cell_begin(plan_cell *c, const plan_settings *s, const trial_request *tmpl,
                    plan_outcome *out, hb_err *err);

/* The wall time the cell's next timed trial is expected to take: the mean
 * of its timed trials so far, or calibration's estimate before the first. */
double plan_cell_next_s(const plan_cell *c);

/* One timed trial appended to the cell's outcome; *DISTURBED gets its bits.
 * Returns 1 when it was added, 0 when a failure ended the cell (out->ok = 0),
 * -1 on an error. */
int plan_cell_trial(plan_cell *c, int *disturbed, hb_err *err);

/* The reason to stop before the next timed trial, or PLAN_STOP_NONE. For the
 * interleaved planner NEXT_S is the wall time the next slot will cost the
 * cell (its trial and a paired baseline trial): after the first slot, which
 * always runs, a slot that would take the cell's trials past its budget is
 * not started (calibration is not counted in the budget, as with the
 * adaptive planner, but in the time cap). */
int plan_cell_stop(plan_cell *c, double next_s);

/* Ends the cell: the outcome's final verdicts (too many trials broke the
 * outside rule: INCONSISTENT; none kept: failed). */
void plan_cell_end(plan_cell *c);

/* The 95% interval's relative half-width (percent) of the cell's trials as
 * the record will state it (stats.h), +inf when it has none yet. */
double plan_cell_ci(const plan_cell *c);

/* The cell's kept (undisturbed) trials; *CALLS gets their calls. */
size_t plan_cell_kept(const plan_cell *c, unsigned long long *calls);

#endif
