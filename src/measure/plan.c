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

#define CALIB_FIRST_CALLS 8
#define CALIB_MIN_NS 10e6
#define CALIB_ROUNDS 6
#define ADAPTIVE_MIN_TRIAL_NS 1e6
#define ADAPTIVE_MIN_TRIAL_TICKS 1e5
#define ADAPTIVE_LONG_CALL_NS 10e6
#define ADAPTIVE_LONG_CALL_CALLS 10

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

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
    default: return NULL;
    }
}

/* One trial through the settings' runner (the probe by default). */
static int run_trial(const plan_settings *s, const trial_request *rq,
                     trial_result *r, hb_err *err)
{
    if (s->run)
        return s->run(rq, r, s->run_ctx, err);
    return trial_run(rq, r, err);
}

static double timeout_for(unsigned long long calls, double ns_per_call)
{
    double t = 10.0 * (double)calls * ns_per_call * 1e-9 + 10.0;
    return t > 600 ? 600 : t;
}

static int calibrate(const plan_settings *s, const trial_request *tmpl,
                     plan_outcome *out, hb_err *err)
{
    trial_request rq = *tmpl;
    rq.calibrate = 1;
    rq.memory = 0;
    rq.warmup = 2;
    rq.calls = CALIB_FIRST_CALLS;
    rq.timeout_s = 120;
    for (int round = 0; round < CALIB_ROUNDS; round++) {
        trial_result r;
        if (run_trial(s, &rq, &r, err) != 0)
            return -1;
        if (!r.ok) {
            snprintf(out->failure, sizeof out->failure, "calibration: %.400s", r.failure);
            return 0;
        }
        out->calib_calls = r.calls;
        out->calib_ns_per_call = (double)r.ns / (double)(r.calls ? r.calls : 1);
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
     * host, so for it only the rate rule rejects; the figures stay recorded */
    if (!adaptive)
        t->disturbed &= PLAN_DISTURBED_RATE;
    return t->disturbed;
}

/* One trial, re-run while disturbed (at most max_retries times). Returns 1
 * when trials were added (the last one may still be disturbed), 0 on a
 * probe failure (out->ok = 0), -1 on an error. */
static int run_one(const plan_settings *s, const trial_request *rq,
                   plan_outcome *out, hb_err *err)
{
    for (int attempt = 0;; attempt++) {
        trial_result r;
        if (run_trial(s, rq, &r, err) != 0)
            return -1;
        if (!r.ok) {
            out->ok = 0;
            snprintf(out->failure, sizeof out->failure, "%s", r.failure);
            return 0;
        }
        if (out->digest[0] && strcmp(out->digest, r.digest) != 0) {
            out->ok = 0;
            snprintf(out->failure, sizeof out->failure,
                     "NONDETERMINISTIC: the digest differs between probe processes");
            return 0;
        }
        snprintf(out->digest, sizeof out->digest, "%s", r.digest);
        int dist = push_trial(out, &r, s->host_rate_hz,
                          strcmp(s->planner, "adaptive") == 0);
        if (dist < 0)
            return hb_fail(err, "out of memory");
        if (!dist)
            return 1;
        if (attempt >= s->max_retries)
            return 1; /* still disturbed: kept as such, the loop decides */
        out->disturbed_retries++;
    }
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

int plan_execute(const plan_settings *s, const trial_request *tmpl,
                 plan_outcome *out, hb_err *err)
{
    memset(out, 0, sizeof *out);
    if (calibrate(s, tmpl, out, err) != 0)
        return -1;
    if (!out->ok)
        return 0;
    int adaptive = strcmp(s->planner, "adaptive") == 0;
    int min_trials = s->min_trials > 0 ? s->min_trials : 5;
    trial_request rq = *tmpl;
    rq.calibrate = 0;
    rq.memory = 0;
    if (adaptive) {
        rq.calls = plan_adaptive_calls(out->calib_ns_per_call, s->host_rate_hz);
        rq.warmup = plan_adaptive_warmup_calls(out->calib_ns_per_call);
    } else {
        rq.calls = plan_reference_calls(out->calib_ns_per_call);
        /* the reference rule's trials alone must reach 100 calls */
        if (rq.calls * (unsigned long long)min_trials < PLAN_MIN_CALLS)
            rq.calls = (PLAN_MIN_CALLS + (unsigned long long)min_trials - 1) /
                       (unsigned long long)min_trials;
        rq.warmup = plan_warmup_calls(out->calib_ns_per_call);
    }
    rq.timeout_s = timeout_for(rq.calls + rq.warmup, out->calib_ns_per_call);
    out->calls_per_trial = rq.calls;
    out->warmup_calls = rq.warmup;
    out->reference_cost_s = plan_reference_cost_s(out->calib_ns_per_call, min_trials);
    out->budget_s = adaptive ? plan_adaptive_budget(s, out->calib_ns_per_call, min_trials)
                             : 0;
    double start = mono_s();
    int max_trials = s->max_trials > 0 ? s->max_trials : 200;
    size_t max_runs = (size_t)max_trials * (size_t)(1 + s->max_retries);
    for (;;) {
        unsigned long long calls;
        size_t k = kept(out, &calls);
        if (out->n_trials >= max_runs || (!adaptive && out->n_trials >=
                (size_t)min_trials * (size_t)(1 + s->max_retries))) {
            if (k == 0) {
                out->ok = 0;
                snprintf(out->failure, sizeof out->failure, "every trial was "
                         "disturbed (counter rate, context switches or CPU time "
                         "short of wall time)");
            }
            break;
        }
        /* the floors first: min_trials kept trials and 100 kept calls */
        if ((int)k >= min_trials && (!adaptive || calls >= PLAN_MIN_CALLS)) {
            if (!adaptive)
                break;
            if (current_ci(out, tmpl->size) <= s->target_ci_percent) {
                out->target_reached = 1;
                break;
            }
            if (mono_s() - start >= out->budget_s || (int)k >= max_trials)
                break;
        }
        int rc = run_one(s, &rq, out, err);
        if (rc <= 0)
            return rc;
    }
    return 0;
}

void plan_outcome_free(plan_outcome *o)
{
    free(o->trials);
    o->trials = NULL;
    o->n_trials = 0;
}
