/* The planners: see plan.h. Calibration doubles its call count until the
 * timed loop lasts at least 10 ms (so the per-call time does not come from
 * one cold call), then the chosen rule sets calls per trial; the adaptive
 * rule sets its budget from the calibrated per-call time and recomputes the
 * statistics after each kept trial. The defaults (minimum trials, the
 * budget rule) come from measure/settings.h. */
#include "measure/plan.h"
#include "measure/planners.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "measure/settings.h"
#include "measure/stats.h"
#include "common/clock.h"

#define CALIB_FIRST_CALLS 8
#define CALIB_MIN_NS 10e6
#define CALIB_ROUNDS 6
#define CALIB_OUTSIDE_RETRIES 3 /* calibration trials taken again after outside_cpu */
#define ADAPTIVE_MIN_TRIAL_NS 1e6
#define ADAPTIVE_MIN_TRIAL_TICKS 1e5

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
    return calls_for(ns, t1_ns, 1, 1e12);
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
    return (double)(min_trials > 0 ? min_trials : SETTINGS_REFERENCE_TRIALS) * calls * t1_ns * 1e-9;
}

double plan_adaptive_budget(const plan_settings *s, double t1_ns, int min_trials)
{
    double b = s->budget_s > 0 ? s->budget_s : SETTINGS_AUTO_BUDGET_MAX_S;
    if (s->budget_explicit)
        return b;
    double f = s->budget_fraction > 0 ? s->budget_fraction : SETTINGS_AUTO_BUDGET_FRACTION;
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

const plan_rule *plan_rule_of(const plan_settings *s)
{
    const plan_rule *r = plan_planner_of(s)->rule;
    return r ? r : &plan_rule_adaptive;
}

/* One trial through the settings' runner (the probe by default), its
 * timeout cut to what is left of the cell's time cap. Returns 0 when it ran
 * (the outcome's failure is set when it failed: 1), -1 on an error. */
static int run_trial(plan_cell *c, const trial_request *rq, trial_result *r, hb_err *err)
{
    trial_request cut = *rq;
    double used = c->rule->used_s(c);
    double left = c->cap_s - used;
    if (cut.timeout_s > left)
        cut.timeout_s = left > 0.01 ? left : 0.01;
    c->out->processes++;
    double t0 = hb_mono_s();
    int rc = c->s->run ? c->s->run(&cut, r, c->s->run_ctx, err) : trial_run(&cut, r, err);
    c->spent_s += hb_mono_s() - t0;
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

static int calibrate(plan_cell *c, const trial_request *tmpl, hb_err *err)
{
    plan_outcome *out = c->out;
    trial_request rq = *tmpl;
    rq.calibrate = 1;
    rq.memory = 0;
    rq.warmup = 2;
    rq.calls = CALIB_FIRST_CALLS;
    rq.timeout_s = 120;
    int outside = 0;
    for (int round = 0; round < CALIB_ROUNDS; round++) {
        trial_result r;
        if (run_trial(c, &rq, &r, err) != 0)
            return -1;
        if (!r.ok) {
            snprintf(out->failure, sizeof out->failure, "calibration: %.400s", r.failure);
            return 0;
        }
        /* its loop time sets the trials' calls and budget: one the outside
         * rules do not trust (outside.h) is taken again, and a library
         * whose calibration keeps breaking them gets no figure */
        if (r.outside_excess) {
            if (++outside > CALIB_OUTSIDE_RETRIES) {
                out->inconsistent = 1;
                snprintf(out->failure, sizeof out->failure, "INCONSISTENT: calibration: "
                         "%d trials in a row broke the outside rules (%.300s)", outside,
                         r.failure[0] ? r.failure : "rules 2 and 3");
                return 0;
            }
            round--;
            continue;
        }
        outside = 0;
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

static int push_trial(plan_cell *c, const trial_result *r, double t_s)
{
    plan_outcome *out = c->out;
    plan_trial *t = realloc(out->trials, (out->n_trials + 1) * sizeof *t);
    if (!t)
        return -1;
    out->trials = t;
    t = &out->trials[out->n_trials++];
    memset(t, 0, sizeof *t);
    t->r = *r;
    t->t_s = t_s;
    t->round = t->slot = -1;
    t->rate_hz = r->ns ? (double)r->ticks * 1e9 / (double)r->ns : 0;
    t->disturbed = plan_disturbance(r, t->rate_hz, c->s->host_rate_hz);
    t->disturbed &= c->rule->rejects;
    return t->disturbed;
}

int plan_cell_trial(plan_cell *c, int *disturbed, hb_err *err)
{
    plan_outcome *out = c->out;
    trial_result r;
    double origin = c->s->stage_start > 0 ? c->s->stage_start : c->start;
    double t_s = hb_mono_s() - origin;
    c->processes++;
    double before = c->spent_s;
    int rc = run_trial(c, &c->rq, &r, err);
    c->wall_sum += c->spent_s - before;
    c->wall_n++;
    if (rc != 0)
        return -1;
    if (!r.ok) {
        snprintf(out->failure, sizeof out->failure, "%s", r.failure);
        /* a trial that broke a rule with its figures stays as evidence */
        if (r.inconsistent && r.calls > 0 && push_trial(c, &r, t_s) < 0)
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
    *disturbed = push_trial(c, &r, t_s);
    if (*disturbed < 0)
        return hb_fail(err, "out of memory");
    return 1;
}

double plan_cell_next_s(const plan_cell *c)
{
    return c->wall_n ? c->wall_sum / (double)c->wall_n : c->trial_s;
}

double plan_cell_ci(const plan_cell *c)
{
    const plan_outcome *out = c->out;
    stats_trial *t = calloc(out->n_trials ? out->n_trials : 1, sizeof *t);
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
    if (stats_derive(t, out->n_trials, c->rq.size, STATS_CI_BATCH, &d, NULL) == 0 &&
        isfinite(d.ci95_rel_percent))
        ci = d.ci95_rel_percent;
    free(t);
    return ci;
}

size_t plan_cell_kept(const plan_cell *c, unsigned long long *calls)
{
    const plan_outcome *out = c->out;
    size_t k = 0;
    *calls = 0;
    for (size_t i = 0; i < out->n_trials; i++)
        if (!out->trials[i].disturbed) {
            k++;
            *calls += out->trials[i].r.calls;
        }
    return k;
}

int plan_min_trials(const plan_settings *s)
{
    return s->min_trials > 0 ? s->min_trials : settings_default_min_trials(s->planner);
}

void plan_adaptive_shape(const plan_settings *s, double t1, int min_trials,
                         unsigned long long at_least, unsigned long long *calls,
                         unsigned long long *warmup)
{
    *calls = plan_adaptive_calls(t1, s->host_rate_hz);
    *warmup = plan_adaptive_warmup_calls(t1);
    if (*calls < at_least)
        *calls = at_least;
    /* An explicit budget holds for slow calls too: the min_trials
     * processes that always run fit in it, one call each at least. */
    if (s->budget_explicit && t1 > 0) {
        double fit = s->budget_s * 1e9 / ((double)min_trials * t1);
        unsigned long long n = fit >= 1.0 ? (unsigned long long)fit : 1ULL;
        if (*calls > n)
            *calls = n;
        if (*warmup > n)
            *warmup = n;
    }
}

static void shape_adaptive(const plan_settings *s, double t1, int min_trials,
                           unsigned long long *calls, unsigned long long *warmup)
{
    plan_adaptive_shape(s, t1, min_trials, 0, calls, warmup);
}

static void shape_reference(const plan_settings *s, double t1, int min_trials,
                            unsigned long long *calls, unsigned long long *warmup)
{
    (void)s;
    *calls = plan_reference_calls(t1);
    /* the reference rule's trials alone must reach 100 calls */
    if (*calls * (unsigned long long)min_trials < PLAN_MIN_CALLS)
        *calls = (PLAN_MIN_CALLS + (unsigned long long)min_trials - 1) /
                 (unsigned long long)min_trials;
    *warmup = plan_warmup_calls(t1);
}

void plan_trial_shape(const plan_settings *s, double t1, unsigned long long *calls,
                      unsigned long long *warmup, int *floor_trials)
{
    int min_trials = plan_min_trials(s);
    plan_rule_of(s)->shape(s, t1, min_trials, calls, warmup);
    if (floor_trials) {
        unsigned long long need = (PLAN_MIN_CALLS + *calls - 1) / *calls;
        *floor_trials = need > (unsigned long long)min_trials ? (int)need : min_trials;
    }
}

/* The reference rule's budget: none; its cost with its own trials. */
static void budget_reference(plan_cell *c, double t1, int floor_trials)
{
    (void)floor_trials;
    c->out->reference_cost_s = plan_reference_cost_s(t1, c->min_trials);
}

/* The adaptive rule's budget (plan_adaptive_budget); without --budget its
 * floors' budget covers the floors' trials at calibration's estimate. */
static void budget_adaptive(plan_cell *c, double t1, int floor_trials)
{
    plan_outcome *out = c->out;
    out->reference_cost_s = plan_reference_cost_s(t1, c->min_trials);
    out->budget_s = out->floor_budget_s = plan_adaptive_budget(c->s, t1, c->min_trials);
    if (!c->s->budget_explicit) {
        double floors_s = PLAN_FLOOR_MARGIN * (double)floor_trials * c->trial_s;
        if (floors_s > out->floor_budget_s)
            out->floor_budget_s = floors_s;
    }
}

/* Sets the calls, warm-up and budget of the timed trials from calibration. */
static void plan_trials(plan_cell *c)
{
    plan_outcome *out = c->out;
    trial_request *rq = &c->rq;
    double t1 = out->calib_ns_per_call;
    int floor_trials;
    plan_trial_shape(c->s, t1, &rq->calls, &rq->warmup, &floor_trials);
    rq->timeout_s = timeout_for(rq->calls + rq->warmup, t1);
    out->calls_per_trial = rq->calls;
    out->warmup_calls = rq->warmup;
    c->trial_s = out->process_s + (double)(rq->calls + rq->warmup) * t1 * 1e-9;
    c->rule->budget(c, t1, floor_trials);
}

int plan_cell_begin(plan_cell *c, const plan_settings *s, const trial_request *tmpl,
                    plan_outcome *out, hb_err *err)
{
    memset(out, 0, sizeof *out);
    memset(c, 0, sizeof *c);
    c->s = s;
    c->out = out;
    c->rule = plan_rule_of(s);
    c->start = hb_mono_s();
    c->cap_s = s->max_cell_s;
    if (!(c->cap_s > 0))
        c->cap_s = s->budget_explicit && 2 * s->budget_s > PLAN_MAX_CELL_S
                       ? 2 * s->budget_s : PLAN_MAX_CELL_S;
    c->adaptive = plan_planner_of(s)->budgeted;
    c->min_trials = plan_min_trials(s);
    int max_trials = s->max_trials > 0 ? s->max_trials : PLAN_MAX_TRIALS;
    c->cap = c->adaptive ? (size_t)max_trials
                         : (size_t)c->min_trials * (size_t)(1 + s->max_retries);
    int rc = calibrate(c, tmpl, err);
    if (rc != 0 || !out->ok) {
        out->elapsed_s = hb_mono_s() - c->start;
        return rc;
    }
    c->rq = *tmpl;
    c->rq.calibrate = 0;
    c->rq.memory = 0;
    plan_trials(c);
    c->timed_start = hb_mono_s();
    c->calib_s = c->spent_s;
    return 0;
}

int plan_cell_stop(plan_cell *c, double next_s)
{
    return c->rule->stop(c, next_s);
}

/* The rule of a cell taken in turn (adaptive, reference): the floors, the
 * target, the caps, the budget or the floors' budget. */
static int stop_in_turn(plan_cell *c, double next_s)
{
    (void)next_s;
    const plan_outcome *out = c->out;
    unsigned long long calls;
    size_t k = plan_cell_kept(c, &calls);
    int adaptive = c->adaptive;
    /* the floors first: min_trials kept trials and 100 kept calls */
    if ((int)k >= c->min_trials && (!adaptive || calls >= PLAN_MIN_CALLS)) {
        if (!adaptive)
            return PLAN_STOP_TRIALS;
        if (plan_cell_ci(c) <= c->s->target_ci_percent)
            return PLAN_STOP_TARGET;
        if ((int)k >= c->s->max_trials)
            return PLAN_STOP_TRIALS;
    }
    if (c->processes >= c->cap)
        return PLAN_STOP_PROCESS_CAP;
    if (hb_mono_s() - c->start >= c->cap_s)
        return PLAN_STOP_TIME_CAP;
    if (c->processes < (size_t)c->min_trials)
        return PLAN_STOP_NONE; /* the first min_trials timed processes always run */
    double spent = hb_mono_s() - c->timed_start;
    /* the budget, or the floors' budget while kept trials make progress */
    if (adaptive && spent >= out->budget_s && (k == 0 || spent >= out->floor_budget_s))
        return PLAN_STOP_BUDGET;
    return PLAN_STOP_NONE;
}

/* A cell taken in turn has used its wall time since it began. */
static double wall_used_s(const plan_cell *c)
{
    return hb_mono_s() - c->start;
}

const plan_rule plan_rule_adaptive = {
    shape_adaptive, budget_adaptive, stop_in_turn, wall_used_s, PLAN_DISTURBED_ALL, 1,
};

/* the reference rule's long trials (up to 1 s) are preempted on any busy
 * host, so for it only the rate and outside rules reject; the figures stay
 * recorded */
const plan_rule plan_rule_reference = {
    shape_reference, budget_reference, stop_in_turn, wall_used_s,
    PLAN_DISTURBED_RATE | PLAN_DISTURBED_OUTSIDE, 1,
};

void plan_cell_end(plan_cell *c)
{
    plan_outcome *out = c->out;
    out->elapsed_s = c->rule->used_s(c);
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
    } else if (out->ok && out->n_trials == 0) {
        out->ok = 0;
        snprintf(out->failure, sizeof out->failure, "no timed trial ran: stopped on %s "
                 "before the first", plan_stop_name(out->stopped));
    } else if (out->ok && plan_cell_kept(c, &calls) == 0) {
        out->ok = 0;
        snprintf(out->failure, sizeof out->failure, "every trial was disturbed (counter "
                 "rate, context switches or CPU time short of wall time); stopped on "
                 "%s after %zu processes", plan_stop_name(out->stopped), c->processes);
    }
}

int plan_execute(const plan_settings *s, const trial_request *tmpl,
                 plan_outcome *out, hb_err *err)
{
    plan_cell c;
    int rc = plan_cell_begin(&c, s, tmpl, out, err);
    if (rc != 0 || !out->ok)
        return rc;
    int attempts = 0; /* tries of the current slot */
    for (;;) {
        int stop = plan_cell_stop(&c, plan_cell_next_s(&c));
        if (stop != PLAN_STOP_NONE) {
            out->stopped = stop;
            out->target_reached = stop == PLAN_STOP_TARGET;
            break;
        }
        int disturbed = 0;
        rc = plan_cell_trial(&c, &disturbed, err);
        if (rc <= 0)
            break;
        /* a disturbed trial is tried again in its slot, max_retries times,
         * where the rule does so (rounds give the cell its next round) */
        if (c.rule->retries && disturbed && attempts < s->max_retries) {
            attempts++;
            out->disturbed_retries++;
        } else {
            attempts = 0;
        }
    }
    if (rc < 0) {
        out->elapsed_s = hb_mono_s() - c.start;
        return -1;
    }
    plan_cell_end(&c);
    return 0;
}

double plan_process_cost_s(const plan_settings *s, double t1_ns, double start_s, int paired)
{
    unsigned long long calls, warm;
    int trials;
    plan_trial_shape(s, t1_ns, &calls, &warm, &trials);
    return paired * trials * ((double)(calls + warm) * t1_ns * 1e-9 + start_s) + 3 * start_s;
}

int plan_sequence_run(plan_stage *st, hb_err *err)
{
    for (size_t i = 0; i < st->n; i++) {
        if (st->cell_start && st->cell_start(st->ctx, i, err) != 0)
            return -1;
        if (plan_execute(st->s, &st->cells[i].tmpl, &st->cells[i].out, err) != 0)
            return -1;
        if (st->cells_done && st->cells_done(st->ctx, &i, 1, err) != 0)
            return -1;
    }
    return 0;
}

double plan_sequence_cost_s(const plan_settings *s, double t1_ns, double start_s)
{
    return plan_process_cost_s(s, t1_ns, start_s, 1);
}

void plan_outcome_free(plan_outcome *o)
{
    free(o->trials);
    o->trials = NULL;
    o->n_trials = 0;
}
