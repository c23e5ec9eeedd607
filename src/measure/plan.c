/* The planners: see plan.h. Calibration doubles its call count until the
 * timed loop lasts at least 10 ms (so the per-call time does not come from
 * one cold call), then the chosen rule sets calls per trial; the adaptive
 * rule sets its budget from the calibrated per-call time and recomputes the
 * statistics after each kept trial. */
#include "measure/plan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "measure/stats.h"
#include "common/clock.h"

#define CALIB_FIRST_CALLS 8
#define CALIB_MIN_NS 10e6
#define CALIB_ROUNDS 6
#define ADAPTIVE_MIN_TRIAL_NS 1e6
#define ADAPTIVE_MIN_TRIAL_TICKS 1e5
#define ADAPTIVE_LONG_CALL_NS 10e6
#define ADAPTIVE_LONG_CALL_CALLS 10

/* ceil(NS / T1_NS) calls, kept within [LO, HI]. */
static unsigned long long calls_for(double ns, double t1_ns, double lo, double hi)
{
    double c = ceil(ns / (t1_ns > 0 ? t1_ns : 1));
    c = c < lo ? lo : c;
    c = c > hi ? hi : c;
    return (unsigned long long)c;
}

unsigned long long plan_reference_calls(double t1_ns)
{
    return calls_for(1e9, t1_ns, 20, 20000);
}

unsigned long long plan_adaptive_calls(double t1_ns, double rate_hz)
{
    double ns = ADAPTIVE_MIN_TRIAL_NS;
    if (rate_hz > 0 && ADAPTIVE_MIN_TRIAL_TICKS / rate_hz * 1e9 > ns)
        ns = ADAPTIVE_MIN_TRIAL_TICKS / rate_hz * 1e9;
    double floor_calls = t1_ns >= ADAPTIVE_LONG_CALL_NS ? ADAPTIVE_LONG_CALL_CALLS : 1;
    return calls_for(ns, t1_ns, floor_calls, 1e12);
}

unsigned long long plan_warmup_calls(double t1_ns)
{
    return calls_for(5e6, t1_ns, 10, 10000);
}

unsigned long long plan_adaptive_warmup_calls(double t1_ns)
{
    return calls_for(1e6, t1_ns, 1, 10000);
}

double plan_reference_cost_s(double t1_ns, int min_trials)
{
    double calls = (double)(plan_reference_calls(t1_ns) + plan_warmup_calls(t1_ns));
    return (double)(min_trials > 0 ? min_trials : 5) * calls * t1_ns * 1e-9;
}

double plan_adaptive_budget(const plan_settings *s, double t1_ns, int min_trials)
{
    double b = s->budget_s > 0 ? s->budget_s : PLAN_DEFAULT_BUDGET_S;
    if (s->budget_explicit)
        return b;
    double f = s->budget_fraction > 0 ? s->budget_fraction : PLAN_BUDGET_FRACTION;
    double cap = f * plan_reference_cost_s(t1_ns, min_trials);
    return cap < b ? cap : b;
}

int plan_is_disturbed(double rate_hz, double host_rate_hz)
{
    if (!(host_rate_hz > 0))
        return 0;
    return fabs(rate_hz / host_rate_hz - 1.0) * 100.0 > PLAN_DISTURBED_PERCENT;
}

int plan_disturbance(const trial_result *r, double rate_hz, double host_rate_hz)
{
    int bits = plan_is_disturbed(rate_hz, host_rate_hz) ? PLAN_DISTURBED_RATE : 0;
    if (r->outside_excess)
        bits |= PLAN_DISTURBED_OUTSIDE;
    if (!r->sched_known)
        return bits;
    if (r->ivcsw > 0)
        bits |= PLAN_DISTURBED_INVOLUNTARY;
    if (r->vcsw > 0)
        bits |= PLAN_DISTURBED_VOLUNTARY;
    double wall = (double)r->ns;
    if ((double)r->cpu_ns < wall * (1.0 - PLAN_CPU_SHORT_PERCENT / 100.0) - PLAN_CPU_SHORT_SLACK_NS)
        bits |= PLAN_DISTURBED_CPU_TIME;
    return bits;
}

const char *plan_disturbed_reason_name(int bit)
{
    switch (bit) {
    case PLAN_DISTURBED_RATE: return "rate";
    case PLAN_DISTURBED_INVOLUNTARY: return "involuntary_switch";
    case PLAN_DISTURBED_VOLUNTARY: return "voluntary_switch";
    case PLAN_DISTURBED_CPU_TIME: return "cpu_time";
    case PLAN_DISTURBED_OUTSIDE: return "outside_cpu";
    default: return NULL;
    }
}

const char *plan_stop_name(int stopped)
{
    switch (stopped) {
    case PLAN_STOP_TARGET: return "target";
    case PLAN_STOP_TRIALS: return "trials";
    case PLAN_STOP_BUDGET: return "budget";
    case PLAN_STOP_PROCESS_CAP: return "process_cap";
    case PLAN_STOP_TIME_CAP: return "time_cap";
    case PLAN_STOP_FAILURE: return "failure";
    default: return NULL;
    }
}

/* The running cell: its settings, its clock and its hard cap. */
typedef struct cell {
    const plan_settings *s;
    plan_outcome *out;
    double start;      /* CLOCK_MONOTONIC at plan_execute */
    double cap_s;      /* max_cell_s */
} cell;

/* One trial through the settings' runner (the probe by default), its
 * timeout cut to what is left of the cell's time cap. Returns 0 when it ran
 * (the outcome's failure is set when it failed: 1), -1 on an error. */
static int run_trial(cell *c, const trial_request *rq, trial_result *r, hb_err *err)
{
    trial_request cut = *rq;
    double left = c->cap_s - (hb_mono_s() - c->start);
    if (cut.timeout_s > left)
        cut.timeout_s = left > 0.01 ? left : 0.01;
    c->out->processes++;
    int rc = c->s->run ? c->s->run(&cut, r, c->s->run_ctx, err) : trial_run(&cut, r, err);
    if (rc != 0)
        return -1;
    if (!r->ok) {
        c->out->ok = 0;
        c->out->inconsistent = r->inconsistent;
        c->out->stopped = PLAN_STOP_FAILURE;
    }
    return 0;
}

static double timeout_for(unsigned long long calls, double ns_per_call)
{
    double t = 10.0 * (double)calls * ns_per_call * 1e-9 + 10.0;
    return t > 600 ? 600 : t;
}

static int calibrate(cell *c, const trial_request *tmpl, hb_err *err)
{
    plan_outcome *out = c->out;
    trial_request rq = *tmpl;
    rq.calibrate = 1;
    rq.memory = 0;
    rq.warmup = 2;
    rq.calls = CALIB_FIRST_CALLS;
    rq.timeout_s = 120;
    for (int round = 0; round < CALIB_ROUNDS; round++) {
        trial_result r;
        if (run_trial(c, &rq, &r, err) != 0)
            return -1;
        if (!r.ok) {
            snprintf(out->failure, sizeof out->failure, "calibration: %.400s", r.failure);
            return 0;
        }
        out->calib_calls = r.calls;
        out->calib_ns_per_call = (double)r.ns / (double)(r.calls ? r.calls : 1);
        /* the process's wall time beyond its calls: start-up, loading, checks */
        double work_s = (double)(r.calls + rq.warmup) * out->calib_ns_per_call * 1e-9;
        double rest_s = (double)r.outside.process_wall_ns * 1e-9 - work_s;
        out->process_s = rest_s > 0 ? rest_s : 0;
        if ((double)r.ns >= CALIB_MIN_NS || round == CALIB_ROUNDS - 1)
            break;
        double grow = ceil(CALIB_MIN_NS / ((double)r.ns + 1));
        rq.calls *= (unsigned long long)(grow < 2 ? 2 : grow > 64 ? 64 : grow);
        rq.timeout_s = timeout_for(rq.calls, out->calib_ns_per_call);
    }
    out->ok = 1;
    return 0;
}

static int push_trial(plan_outcome *out, const trial_result *r, double host_rate,
                      int adaptive)
{
    plan_trial *t = realloc(out->trials, (out->n_trials + 1) * sizeof *t);
    if (!t)
        return -1;
    out->trials = t;
    t = &out->trials[out->n_trials++];
    t->r = *r;
    t->rate_hz = r->ns ? (double)r->ticks * 1e9 / (double)r->ns : 0;
    t->disturbed = plan_disturbance(r, t->rate_hz, host_rate);
    /* the reference rule's long trials (up to 1 s) are preempted on any busy
     * host, so for it only the rate and outside rules reject; the figures
     * stay recorded */
    if (!adaptive)
        t->disturbed &= PLAN_DISTURBED_RATE | PLAN_DISTURBED_OUTSIDE;
    return t->disturbed;
}

/* One timed trial. Returns 1 when it was added (*DISTURBED its bits), 0 on
 * a probe failure (out->ok = 0), -1 on an error. */
static int run_one(cell *c, const trial_request *rq, int *disturbed, hb_err *err)
{
    plan_outcome *out = c->out;
    trial_result r;
    if (run_trial(c, rq, &r, err) != 0)
        return -1;
    if (!r.ok) {
        snprintf(out->failure, sizeof out->failure, "%s", r.failure);
        /* a trial that broke a rule with its figures stays as evidence */
        if (r.inconsistent && r.calls > 0 && push_trial(out, &r, c->s->host_rate_hz, 1) < 0)
            return hb_fail(err, "out of memory");
        return 0;
    }
    if (out->digest[0] && strcmp(out->digest, r.digest) != 0) {
        out->ok = 0;
        out->stopped = PLAN_STOP_FAILURE;
        snprintf(out->failure, sizeof out->failure,
                 "NONDETERMINISTIC: the digest differs between probe processes");
        return 0;
    }
    snprintf(out->digest, sizeof out->digest, "%s", r.digest);
    *disturbed = push_trial(out, &r, c->s->host_rate_hz,
                            strcmp(c->s->planner, "adaptive") == 0);
    if (*disturbed < 0)
        return hb_fail(err, "out of memory");
    return 1;
}

static double current_ci(const plan_outcome *out, unsigned long long size)
{
    stats_trial *t = calloc(out->n_trials, sizeof *t);
    if (!t)
        return INFINITY;
    for (size_t i = 0; i < out->n_trials; i++) {
        t[i].calls = out->trials[i].r.calls;
        t[i].ticks = (double)out->trials[i].r.ticks;
        t[i].ns = (double)out->trials[i].r.ns;
        t[i].disturbed = out->trials[i].disturbed;
    }
    stats_derived d;
    double ci = INFINITY;
    if (stats_derive(t, out->n_trials, size, &d, NULL) == 0 && isfinite(d.ci95_rel_percent))
        ci = d.ci95_rel_percent;
    free(t);
    return ci;
}

static size_t kept(const plan_outcome *out, unsigned long long *calls)
{
    size_t k = 0;
    *calls = 0;
    for (size_t i = 0; i < out->n_trials; i++)
        if (!out->trials[i].disturbed) {
            k++;
            *calls += out->trials[i].r.calls;
        }
    return k;
}

/* Sets the calls, warm-up and budget of the timed trials from calibration. */
static void plan_trials(cell *c, trial_request *rq, int adaptive, int min_trials)
{
    const plan_settings *s = c->s;
    plan_outcome *out = c->out;
    double t1 = out->calib_ns_per_call;
    if (adaptive) {
        rq->calls = plan_adaptive_calls(t1, s->host_rate_hz);
        rq->warmup = plan_adaptive_warmup_calls(t1);
        /* An explicit budget holds for slow calls too: the min_trials
         * processes that always run fit in it, one call each at least. */
        if (s->budget_explicit && t1 > 0) {
            double fit = s->budget_s * 1e9 / ((double)min_trials * t1);
            unsigned long long n = fit >= 1.0 ? (unsigned long long)fit : 1ULL;
            if (rq->calls > n)
                rq->calls = n;
            if (rq->warmup > n)
                rq->warmup = n;
        }
    } else {
        rq->calls = plan_reference_calls(t1);
        /* the reference rule's trials alone must reach 100 calls */
        if (rq->calls * (unsigned long long)min_trials < PLAN_MIN_CALLS)
            rq->calls = (PLAN_MIN_CALLS + (unsigned long long)min_trials - 1) /
                        (unsigned long long)min_trials;
        rq->warmup = plan_warmup_calls(t1);
    }
    rq->timeout_s = timeout_for(rq->calls + rq->warmup, t1);
    out->calls_per_trial = rq->calls;
    out->warmup_calls = rq->warmup;
    out->reference_cost_s = plan_reference_cost_s(t1, min_trials);
    if (!adaptive)
        return;
    out->budget_s = out->floor_budget_s = plan_adaptive_budget(s, t1, min_trials);
    if (!s->budget_explicit) {
        unsigned long long floor_trials = (PLAN_MIN_CALLS + rq->calls - 1) / rq->calls;
        if (floor_trials < (unsigned long long)min_trials)
            floor_trials = (unsigned long long)min_trials;
        double trial_s = out->process_s + (double)(rq->calls + rq->warmup) * t1 * 1e-9;
        double floors_s = PLAN_FLOOR_MARGIN * (double)floor_trials * trial_s;
        if (floors_s > out->floor_budget_s)
            out->floor_budget_s = floors_s;
    }
}

/* The reason to stop before the next timed trial, or PLAN_STOP_NONE. */
static int stop_reason(cell *c, int adaptive, int min_trials, double timed_start,
                       size_t processes, size_t cap, unsigned long long size)
{
    const plan_outcome *out = c->out;
    unsigned long long calls;
    size_t k = kept(out, &calls);
    /* the floors first: min_trials kept trials and 100 kept calls */
    if ((int)k >= min_trials && (!adaptive || calls >= PLAN_MIN_CALLS)) {
        if (!adaptive)
            return PLAN_STOP_TRIALS;
        if (current_ci(out, size) <= c->s->target_ci_percent)
            return PLAN_STOP_TARGET;
        if ((int)k >= c->s->max_trials)
            return PLAN_STOP_TRIALS;
    }
    if (processes >= cap)
        return PLAN_STOP_PROCESS_CAP;
    if (hb_mono_s() - c->start >= c->cap_s)
        return PLAN_STOP_TIME_CAP;
    if (processes < (size_t)min_trials)
        return PLAN_STOP_NONE; /* the first min_trials timed processes always run */
    double spent = hb_mono_s() - timed_start;
    /* the budget, or the floors' budget while kept trials make progress */
    if (adaptive && spent >= out->budget_s && (k == 0 || spent >= out->floor_budget_s))
        return PLAN_STOP_BUDGET;
    return PLAN_STOP_NONE;
}

int plan_execute(const plan_settings *s, const trial_request *tmpl,
                 plan_outcome *out, hb_err *err)
{
    memset(out, 0, sizeof *out);
    cell c = {s, out, hb_mono_s(), s->max_cell_s};
    if (!(c.cap_s > 0))
        c.cap_s = s->budget_explicit && 2 * s->budget_s > PLAN_MAX_CELL_S
                      ? 2 * s->budget_s : PLAN_MAX_CELL_S;
    int rc = calibrate(&c, tmpl, err);
    if (rc != 0 || !out->ok) {
        out->elapsed_s = hb_mono_s() - c.start;
        return rc;
    }
    int adaptive = strcmp(s->planner, "adaptive") == 0;
    int min_trials = s->min_trials > 0 ? s->min_trials : 5;
    int max_trials = s->max_trials > 0 ? s->max_trials : 200;
    trial_request rq = *tmpl;
    rq.calibrate = 0;
    rq.memory = 0;
    plan_trials(&c, &rq, adaptive, min_trials);
    size_t cap = adaptive ? (size_t)max_trials
                          : (size_t)min_trials * (size_t)(1 + s->max_retries);
    double timed_start = hb_mono_s();
    size_t processes = 0;
    int attempts = 0; /* tries of the current slot */
    for (;;) {
        int stop = stop_reason(&c, adaptive, min_trials, timed_start, processes, cap,
                               tmpl->size);
        if (stop != PLAN_STOP_NONE) {
            out->stopped = stop;
            out->target_reached = stop == PLAN_STOP_TARGET;
            break;
        }
        int disturbed = 0;
        rc = run_one(&c, &rq, &disturbed, err);
        processes++;
        if (rc <= 0)
            break;
        /* a disturbed trial is tried again in its slot, max_retries times */
        if (disturbed && attempts < s->max_retries) {
            attempts++;
            out->disturbed_retries++;
        } else {
            attempts = 0;
        }
    }
    out->elapsed_s = hb_mono_s() - c.start;
    if (rc < 0)
        return -1;
    size_t outside = 0;
    for (size_t i = 0; i < out->n_trials; i++)
        outside += (out->trials[i].disturbed & PLAN_DISTURBED_OUTSIDE) != 0;
    unsigned long long calls;
    if (out->ok && outside >= OUTSIDE_CELL_TRIALS &&
        (double)outside > OUTSIDE_CELL_FRACTION * (double)out->n_trials) {
        out->ok = 0;
        out->inconsistent = 1;
        snprintf(out->failure, sizeof out->failure, "INCONSISTENT: in %zu of %zu trials "
                 "the CPU time seen from outside went beyond the probe's loop time and "
                 "its allowance, or beyond the window's wall time (rules 2 and 3)",
                 outside, out->n_trials);
    } else if (out->ok && kept(out, &calls) == 0) {
        out->ok = 0;
        snprintf(out->failure, sizeof out->failure, "every trial was disturbed (counter "
                 "rate, context switches or CPU time short of wall time); stopped on "
                 "%s after %zu processes", plan_stop_name(out->stopped), processes);
    }
    return 0;
}

void plan_outcome_free(plan_outcome *o)
{
    free(o->trials);
    o->trials = NULL;
    o->n_trials = 0;
}
