/* The interleaved planner: see interleave.h. The shuffle and the coin come
 * from splitmix64 so that a recorded seed reproduces every round's order. */
#include "measure/interleave.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "measure/journal.h"
#include "measure/planners.h"
#include "measure/settings.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t round_state(uint64_t seed, int round, uint64_t salt)
{
    uint64_t x = seed ^ (0xd1b54a32d192ed03ULL * ((uint64_t)round + 1)) ^ salt;
    return splitmix64(&x);
}

static void shuffle(uint64_t x, size_t n, size_t *order)
{
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)(splitmix64(&x) % i);
        size_t t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
}

void ilv_order(uint64_t seed, int round, size_t n, size_t *order)
{
    shuffle(round_state(seed, round, 0), n, order);
}

void ilv_group_order(uint64_t seed, int round, size_t slot, size_t n, size_t *order)
{
    shuffle(round_state(seed, round, 0x27d4eb2fULL) + (uint64_t)slot, n, order);
}

int ilv_baseline_first(uint64_t seed, int round, size_t slot)
{
    uint64_t x = round_state(seed, round, 0x5bd1e995ULL) + (uint64_t)slot;
    return (int)(splitmix64(&x) & 1);
}

/* ---- the rule of a cell's trials in rounds (plan.h: plan_rule) ---- */

#define ILV_MAX_TRIAL_NS 3e6

/* The adaptive rule's short trials, except that the minimum trials alone
 * reach the 100-call floor where that keeps a trial within 3 ms, short
 * enough to be seldom preempted (a 64 KiB message of 1 ms gets trials of
 * 3 calls). */
static void shape_rounds(const plan_settings *s, double t1, int min_trials,
                         unsigned long long *calls, unsigned long long *warmup)
{
    unsigned long long want = 0;
    if (t1 > 0) {
        want = (PLAN_MIN_CALLS + (unsigned long long)min_trials - 1) /
               (unsigned long long)min_trials;
        unsigned long long fit = (unsigned long long)(ILV_MAX_TRIAL_NS / t1);
        if (want > fit)
            want = fit;
    }
    plan_adaptive_shape(s, t1, min_trials, want, calls, warmup);
}

/* The adaptive budget against the reference rule's own trial count (the
 * rounds' larger minimum is not the rule's); without --budget one hard
 * figure, the floors' cost when it is the larger, where a slot also pays
 * for the baseline's paired trial. */
static void budget_rounds(plan_cell *c, double t1, int floor_trials)
{
    plan_outcome *out = c->out;
    out->reference_cost_s = plan_reference_cost_s(t1, SETTINGS_REFERENCE_TRIALS);
    out->budget_s = out->floor_budget_s =
        plan_adaptive_budget(c->s, t1, SETTINGS_REFERENCE_TRIALS);
    if (!c->s->budget_explicit) {
        double floors_s = PLAN_FLOOR_MARGIN * (double)floor_trials * c->trial_s * 2.0;
        if (floors_s > out->floor_budget_s)
            out->floor_budget_s = floors_s;
        out->budget_s = out->floor_budget_s;
    }
}

/* The floors and the interval, the trial and process caps, and a hard
 * budget on the wall time charged to the cell (no minimum of trials runs
 * past it). */
static int stop_rounds(plan_cell *c, double next_s)
{
    plan_outcome *out = c->out;
    unsigned long long calls;
    size_t k = plan_cell_kept(c, &calls);
    if ((int)k >= c->min_trials && calls >= PLAN_MIN_CALLS) {
        if (plan_cell_ci(c) <= c->s->target_ci_percent)
            return PLAN_STOP_TARGET;
        if ((int)k >= (c->s->max_trials > 0 ? c->s->max_trials : PLAN_MAX_TRIALS))
            return PLAN_STOP_TRIALS;
    }
    if (c->processes >= c->cap)
        return PLAN_STOP_PROCESS_CAP;
    if (c->processes > 0 && c->spent_s + next_s > c->cap_s)
        return PLAN_STOP_TIME_CAP;
    /* the automatic budget covers the floors at the slots' observed cost:
     * calibration's estimate of a process misses what a busy host adds */
    if (!c->s->budget_explicit && c->wall_n > 0) {
        unsigned long long per = c->rq.calls ? c->rq.calls : 1;
        unsigned long long floor_trials = (PLAN_MIN_CALLS + per - 1) / per;
        if (floor_trials < (unsigned long long)c->min_trials)
            floor_trials = (unsigned long long)c->min_trials;
        double floors_s = PLAN_FLOOR_MARGIN * (double)floor_trials * next_s;
        if (floors_s > out->budget_s)
            out->budget_s = out->floor_budget_s = floors_s;
    }
    if (c->processes > 0 && c->spent_s - c->calib_s + next_s > out->budget_s)
        return PLAN_STOP_BUDGET;
    return PLAN_STOP_NONE;
}

/* A cell in rounds has used the time charged to it: its calibration, its
 * trials and its paired baseline trials. */
static double charged_s(const plan_cell *c)
{
    return c->spent_s;
}

/* A disturbed trial is not taken again: the cell gets its next round. */
const plan_rule ilv_rule = {
    shape_rounds, budget_rounds, stop_rounds, charged_s, PLAN_DISTURBED_ALL, 0,
};

/* Calibrates cell C, keeping the trials of earlier rounds it was given. */
static int begin(ilv_cell *c, const plan_settings *s, hb_err *err)
{
    plan_outcome kept = c->out;
    int rc = plan_cell_begin(&c->pc, s, &c->tmpl, &c->out, err);
    if (c->resumed) {
        c->out.trials = kept.trials;
        c->out.n_trials = kept.n_trials;
        snprintf(c->out.digest, sizeof c->out.digest, "%s", kept.digest);
        c->pc.spent_s += c->resumed_spent_s;
        c->pc.processes += kept.n_trials;
        c->out.processes += (int)kept.n_trials;
    }
    return rc;
}

static void stop(ilv_cell *c, int why)
{
    c->active = 0;
    if (c->out.stopped == PLAN_STOP_NONE)
        c->out.stopped = why;
    c->out.target_reached = why == PLAN_STOP_TARGET;
}

/* One trial of cell C in ROUND at SLOT; 1 when a trial was added, 0 when
 * the cell failed (it is stopped), -1 on an error. *SPENT gets its wall
 * time. */
static int one(ilv_cell *c, int round, size_t slot, double *spent, hb_err *err)
{
    int disturbed = 0;
    double before = c->pc.spent_s;
    int rc = plan_cell_trial(&c->pc, &disturbed, err);
    *spent = c->pc.spent_s - before;
    if (rc == 0)
        stop(c, PLAN_STOP_FAILURE);
    if (rc == 1) {
        plan_trial *t = &c->out.trials[c->out.n_trials - 1];
        t->round = round;
        t->slot = (int)slot;
    }
    return rc;
}

/* The slot of cell X in ROUND: its trial and, when its baseline B is still
 * usable, B's trial beside it. */
static int slot_of(ilv_cell *cells, size_t x, const plan_settings *s, int round,
                   size_t slot, hb_err *err)
{
    ilv_cell *c = &cells[x];
    ilv_cell *b = c->baseline >= 0 && cells[c->baseline].out.ok
                      ? &cells[c->baseline] : NULL;
    int first = b && ilv_baseline_first(s->seed, round, slot);
    double spent_b = 0, spent_c = 0;
    int rb = 0, rc;
    if (first && (rb = one(b, round, slot, &spent_b, err)) < 0)
        return -1;
    rc = one(c, round, slot, &spent_c, err);
    if (rc < 0)
        return -1;
    if (b && !first && rc == 1 && (rb = one(b, round, slot, &spent_b, err)) < 0)
        return -1;
    c->pc.spent_s += spent_b; /* the pairing is part of measuring C */
    if (rc == 1 && rb == 1) {
        plan_trial *t = &c->out.trials[c->out.n_trials - 1];
        const plan_trial *p = &b->out.trials[b->out.n_trials - 1];
        t->paired = 1;
        t->pair_seed = p->r.seed;
        t->pair_calls = p->r.calls;
        t->pair_ticks = p->r.ticks;
        t->pair_ns = p->r.ns;
        t->pair_disturbed = p->disturbed;
    }
    return 0;
}

/* Marks the cells that stop before ROUND; returns how many are active. */
static size_t judge(ilv_cell *cells, size_t n)
{
    size_t active = 0;
    for (size_t i = 0; i < n; i++) {
        ilv_cell *c = &cells[i];
        if (!c->active || c->pair_only)
            continue;
        double next = plan_cell_next_s(&c->pc);
        if (c->baseline >= 0 && cells[c->baseline].out.ok)
            next += plan_cell_next_s(&cells[c->baseline].pc);
        int why = plan_cell_stop(&c->pc, next);
        if (why != PLAN_STOP_NONE)
            stop(c, why);
        else
            active++;
    }
    /* a baseline that pairs takes trials as long as a partner does */
    for (size_t i = 0; i < n; i++)
        if (cells[i].pair_only && cells[i].active) {
            int partner = 0;
            for (size_t j = 0; j < n && !partner; j++)
                partner = cells[j].baseline == (int)i && cells[j].active;
            if (!partner)
                stop(&cells[i], PLAN_STOP_TRIALS);
        }
    return active;
}

int ilv_run(ilv_cell *cells, size_t n, const plan_settings *s, const ilv_hooks *h,
            hb_err *err)
{
    for (size_t i = 0; i < n; i++) {
        cells[i].pair_only = 0;
        if (cells[i].baseline == (int)i)
            cells[i].baseline = -1;
    }
    for (size_t i = 0; i < n; i++)
        if (cells[i].baseline >= 0)
            cells[cells[i].baseline].pair_only = 1;
    /* calibration: the baselines first, so that their partners know what
     * a pair costs */
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < n; i++) {
            if (cells[i].pair_only != (pass == 0))
                continue;
            if (begin(&cells[i], s, err) != 0)
                return -1;
            cells[i].active = cells[i].out.ok;
        }
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    size_t *slots = malloc((n ? n : 1) * sizeof *slots);
    if (!order || !slots) {
        free(order);
        free(slots);
        return hb_fail(err, "out of memory");
    }
    int rc = 0;
    for (int round = h ? h->first_round : 0; rc == 0; round++) {
        size_t active = judge(cells, n);
        if (active == 0)
            break;
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (cells[i].active && !cells[i].pair_only)
                slots[m++] = i;
        ilv_order(s->seed, round, m, order);
        for (size_t k = 0; rc == 0 && k < m; k++)
            rc = slot_of(cells, slots[order[k]], s, round, k, err);
        if (rc == 0 && h && h->round_done)
            rc = h->round_done(h->ctx, round, cells, n, active, err);
    }
    free(order);
    free(slots);
    if (rc != 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (cells[i].out.ok || cells[i].out.n_trials)
            plan_cell_end(&cells[i].pc);
    return 0;
}

/* ilv_hooks: the stage's progress, then the journal of the rounds so far. */
static int round_saved(void *ctx, int round, const ilv_cell *cells, size_t n, size_t active,
                       hb_err *err)
{
    plan_stage *st = ctx;
    if (st->round_done)
        st->round_done(st->ctx, round, active);
    return journal_save(st->journal, st->s, round, st->keys, cells, n, err);
}

int ilv_stage_run(plan_stage *st, hb_err *err)
{
    int first_round = 0;
    if (journal_load(st->journal, st->s, st->keys, st->cells, st->n, &first_round, err) != 0)
        return -1;
    ilv_hooks h = {round_saved, st, first_round};
    if (ilv_run(st->cells, st->n, st->s, &h, err) != 0)
        return -1;
    for (size_t i = 0; i < st->n; i++)
        if (st->cells_done && st->cells_done(st->ctx, &i, 1, err) != 0)
            return -1;
    unlink(st->journal); /* every record is written: the rounds are kept there */
    return 0;
}

double ilv_cell_cost_s(const plan_settings *s, double t1_ns, double start_s)
{
    return plan_process_cost_s(s, t1_ns, start_s, 2);
}
