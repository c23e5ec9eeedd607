/* The planners, as one const table of classes: each row names a planner,
 * carries what the settings and the record read of it, and holds its
 * behaviour, the way a session_class holds a kind of session (session.h).
 * The measure stage (measure.c) lays out the stage's cells, groups each
 * with the baselines the row asks for, and hands them to the row's run,
 * which takes every cell's trials and hands finished cells back through
 * the stage's hooks (plan_stage, below) for their records; the shard
 * costs (campaign/costs.c) ask the row what a cell costs; the record
 * (record.c) and the settings (settings.c) read its properties. Nothing
 * in hashbench compares planner names or asks which kind a planner is.
 *
 * The planners: "interleaved" (windows.c: the pass scheduler over trial
 * sessions), "interleaved-processes" (interleave.c: rounds of one probe
 * process per trial), "adaptive" and "reference" (plan.c: one cell after
 * another, each under its trial rule).
 *
 * To add a planner: its file, with its run (and, for one probe process per
 * trial, a plan_rule of plan.h), and one row here; the option parser, the
 * settings' validation, campaign.json and the record follow the row. */
#ifndef HB_MEASURE_PLANNERS_H
#define HB_MEASURE_PLANNERS_H

#include <stddef.h>

#include "common/err.h"
#include "measure/counter.h"
#include "measure/windows.h"

/* One measure stage as the planner sees it: its cells, in the order of
 * their records (instance after instance, size after size), the baseline
 * cells the row asked for after them, and the stage's services. */
typedef struct plan_stage {
    ilv_cell *cells;
    size_t n;
    plan_settings *s;              /* a resumed stage takes its journal's seed */
    const char *probe_path;        /* absolute path of hashbench-probe */
    const char *harness_lib;       /* the null library: the harness cost at
                                      each size (harness.h); NULL: none */
    double rate_hz;                /* the host counter's rate */
    double timeout_s;              /* sessions: per open and per window */
    const char *journal;           /* the stage's journal (journal.h) */
    const char *const *keys;       /* the journal's name of each cell */
    void *ctx;                     /* for every hook below */
    /* before a cell's trials when cells are taken one after another: the
     * host's state its record starts from, and the progress line */
    int (*cell_start)(void *ctx, size_t cell, hb_err *err);
    /* the N CELLS are final: their records are written now (a cell no
     * hook handed back is written once run returns) */
    int (*cells_done)(void *ctx, const size_t *cells, size_t n, hb_err *err);
    /* after round ROUND, ACTIVE cells still taking trials: progress */
    void (*round_done)(void *ctx, int round, size_t active);
    /* the independent check and the instances' wall budgets (windows.h) */
    windows_verify_fn verify;
    int (*budget_left)(void *ctx, size_t cell, double *left, hb_err *err);
    void (*budget_reason)(void *ctx, size_t cell, char *out, size_t sz);
    int (*budget_charge)(void *ctx, size_t cell, double seconds, hb_err *err);
} plan_stage;

typedef struct plan_planner {
    const char *name;
    int min_trials;        /* the default minimum of kept trials (pairs) */
    int budgeted;          /* 1: the adaptive rule and its budget apply (the
                              record's budget fields) */
    int seeded;            /* 1: its order is drawn from the stage's seed,
                              which the record keeps */
    int pairs;             /* the baselines a cell is grouped with: 0 none,
                              1 the primary, PLAN_MAX_PAIRS every one */
    const char *summary;   /* one line for --help and the method page */
    /* one probe process per trial: the cells' trial rule (plan.h); NULL
     * for a planner that takes no plan_cell */
    const struct plan_rule *rule;
    /* takes the trials of every cell of ST into its out. Returns 0 when
     * the stage ran (cells may have failed), -1 on hashbench's own
     * failure or a hook's. */
    int (*run)(plan_stage *st, hb_err *err);
    /* the counter its figures are read with where KIND was chosen for the
     * host (NULL: KIND) */
    counter_kind (*counter)(counter_kind kind);
    /* the wall time one cell of S costs at T1_NS per call, START_S per
     * probe process start (an estimate for shard costs, campaign/costs.h) */
    double (*cell_cost_s)(const plan_settings *s, double t1_ns, double start_s);
} plan_planner;

/* The planners, the default first. */
extern const plan_planner plan_planners[];
extern const size_t plan_n_planners;

/* The planner called NAME, or NULL. */
const plan_planner *plan_planner_find(const char *name);

/* The planner of S: its row, or the adaptive one's for a name the table
 * does not hold (the settings refuse those before a stage starts). */
const plan_planner *plan_planner_of(const plan_settings *s);

/* "a, b, c or d": the names, for messages; into BUF of SZ bytes. */
const char *plan_planner_names(char *buf, size_t sz);

#endif
