/* The measurement planners for one (instance, size): calibration from
 * several timed calls after warm-up, then either the reference campaign's
 * rule ("reference": a fixed number of trials, calls per trial
 * min(20000, max(ceil(1 s / t1), 20)) with t1 the calibrated per-call time)
 * or the adaptive rule ("adaptive": short trials, each long enough for the
 * counter's resolution, added until the 95% CI half-width of the mean
 * per-call cost is within target_ci_percent of the mean, with at least
 * min_trials trials and 100 calls, within budget_s). Every trial is a fresh
 * probe process (trial.h). A trial whose ticks/ns rate departs from the
 * host's counter rate by more than 5% is disturbed: kept, counted, and run
 * again at most max_retries times. */
#ifndef HB_MEASURE_PLAN_H
#define HB_MEASURE_PLAN_H

#include <jansson.h>

#include "common/err.h"
#include "measure/trial.h"

#define PLAN_MIN_CALLS 100
#define PLAN_DISTURBED_PERCENT 5.0

/* Runs one trial (calibration or timed) for RQ into RES; trial_run's
 * contract. The planner calls it once per trial, so each trial is a fresh
 * probe process. */
typedef int (*plan_trial_fn)(const trial_request *rq, trial_result *res,
                             void *ctx, hb_err *err);

typedef struct plan_settings {
    const char *planner;       /* "reference" or "adaptive" */
    int min_trials;            /* reference: the trial count; adaptive: the minimum */
    double target_ci_percent;  /* adaptive */
    double budget_s;           /* adaptive: wall-clock budget for adding trials */
    int max_retries;           /* re-runs of a disturbed trial */
    int max_trials;            /* adaptive: hard cap */
    double host_rate_hz;       /* the counter's measured rate on this host */
    plan_trial_fn run;         /* NULL: trial_run (the probe executable) */
    void *run_ctx;             /* passed to RUN */
} plan_settings;

/* The kept evidence of one planned measurement. */
typedef struct plan_trial {
    trial_result r;
    double rate_hz;
    int disturbed;
} plan_trial;

typedef struct plan_outcome {
    int ok;                           /* 0: failure holds the reason */
    char failure[512];
    unsigned long long calib_calls;
    double calib_ns_per_call;
    unsigned long long calls_per_trial;
    unsigned long long warmup_calls;
    int target_reached;               /* adaptive: CI target met */
    int disturbed_retries;
    plan_trial *trials;               /* malloc'd; plan_outcome_free */
    size_t n_trials;
    char digest[TRIAL_DIGEST_HEX];
} plan_outcome;

/* Calls per trial of the reference rule for T1_NS nanoseconds per call. */
unsigned long long plan_reference_calls(double t1_ns);

/* Calls per trial of the adaptive rule: a trial of at least 20 ms and
 * 10^5 ticks at RATE_HZ, and at least 100 / MIN_TRIALS calls. */
unsigned long long plan_adaptive_calls(double t1_ns, double rate_hz, int min_trials);

/* Warm-up calls before timing: about 5 ms of work, between 10 and 10000. */
unsigned long long plan_warmup_calls(double t1_ns);

/* 1 when a trial's RATE_HZ departs from HOST_RATE_HZ by more than 5%. */
int plan_is_disturbed(double rate_hz, double host_rate_hz);

/* Calibrates and runs the trials of S for the request TEMPLATE (lib, size,
 * counter, cpu, ...; calls and warmup are set here). Fills OUT; a probe
 * failure gives out->ok = 0, not an error. Returns -1 only when a probe
 * process could not be started. */
int plan_execute(const plan_settings *s, const trial_request *template,
                 plan_outcome *out, hb_err *err);

void plan_outcome_free(plan_outcome *o);

#endif
