/* The interleaved-processes planner (one probe process per trial; the
 * default planner's predecessor, kept for comparison). Every (instance,
 * size) cell is calibrated first (plan.h), then the trials are taken
 * round by round: in each round every cell still short of
 * its stopping rule (plan_cell_stop) gets one trial, in an order shuffled
 * per round from the stage's recorded seed (ilv_order), and where the cell
 * has a baseline cell at the same size, the baseline gets one trial right
 * beside it (before or after, by a coin from the same seed), recorded as the
 * pair of the cell's trial. A cell's trials are thus spread over the whole
 * stage, so a slow minute of the host touches a few trials of every cell
 * rather than all trials of one, and each pair of trials shares the host's
 * state of its moment, so that their ratio holds where the host's absolute
 * speed does not. A baseline cell with partners takes trials only beside
 * them and stops when they have all stopped; each cell pays for its
 * partner's trial in its own budget. After every round ROUND_DONE (if set)
 * sees the cells, so the stage can keep the finished rounds. */
#ifndef HB_MEASURE_INTERLEAVE_H
#define HB_MEASURE_INTERLEAVE_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "measure/plan.h"

typedef struct ilv_cell {
    trial_request tmpl;  /* the cell's request: library, size, counter, cpu ... */
    int baseline;        /* index of the cell to pair with, -1: none (the
                            primary baseline; sessions: one of BASELINES) */
    int baselines[PLAN_MAX_PAIRS]; /* sessions (windows.h): every baseline cell
                            of its groups, N_BASELINES of them */
    int n_baselines;
    int trusted;         /* sessions: a built-in baseline, hashbench's own
                            code (takes no groups of its own, not held to
                            calibration) */
    int resumed;         /* 1: OUT holds trials of earlier rounds: ilv_run
                            calibrates again and keeps them */
    double resumed_spent_s; /* the wall time those rounds charged the cell */
    int pair_only;       /* set by ilv_run: a baseline cell with partners;
                            sessions (windows.h): set by the caller */
    int active;          /* set by ilv_run */
    plan_cell pc;
    plan_outcome out;    /* the cell's calibration, trials and verdict */
} ilv_cell;

typedef struct ilv_hooks {
    /* after each round: ROUND (0-based) done, ACTIVE cells left. Returns 0,
     * or -1 with ERR set to stop the stage. */
    int (*round_done)(void *ctx, int round, const ilv_cell *cells, size_t n,
                      size_t active, hb_err *err);
    void *ctx;
    int first_round;     /* rounds before it were resumed */
} ilv_hooks;

/* The order of round ROUND's N slots from SEED: a permutation of 0..N-1
 * written to ORDER (a Fisher-Yates shuffle driven by splitmix64 of SEED and
 * ROUND). */
void ilv_order(uint64_t seed, int round, size_t n, size_t *order);

/* 1 when round ROUND's slot SLOT takes the baseline's trial first (from
 * the same seed). */
int ilv_baseline_first(uint64_t seed, int round, size_t slot);

/* The order of the N windows of round ROUND's slot SLOT (a cell's window
 * and those of its baselines) from SEED: a permutation of 0..N-1 written
 * to ORDER, drawn like ilv_order from a state of its own. */
void ilv_group_order(uint64_t seed, int round, size_t slot, size_t n, size_t *order);

/* Runs the N CELLS with settings S (its seed and planner "interleaved").
 * Returns 0 when every cell has ended (each outcome says how), -1 when a
 * probe could not be started or a hook failed. */
int ilv_run(ilv_cell *cells, size_t n, const plan_settings *s, const ilv_hooks *h,
            hb_err *err);

/* ---- The "interleaved-processes" row of the planner table (planners.h) ---- */
struct plan_stage;

/* Its trial rule (plan.h): the adaptive rule's short trials and the
 * reasons to stop, with a hard budget on the time charged to a cell (its
 * paired baseline trials included), and no retries in a slot. */
extern const plan_rule ilv_rule;

/* Runs the stage's cells with ilv_run, resumed from the stage's journal
 * (journal.h) where it holds their earlier rounds and saving it after
 * every round; then hands every cell back for its record and removes the
 * journal. */
int ilv_stage_run(struct plan_stage *st, hb_err *err);

/* One cell's trials at T1_NS per call, each beside its baseline's trial,
 * and its calibration (plan_process_cost_s). */
double ilv_cell_cost_s(const plan_settings *s, double t1_ns, double start_s);

#endif
