/* The wall budget of an instance: one total of wall-clock seconds that all
 * the processes hashbench runs for one instance share (KAT runners, the
 * variant check, probe sessions, memory runs, verifier runners, the
 * constant-time steps, the instruction count's Valgrind runs), so that a library that stalls every process costs at most its
 * budget, whatever the number of sizes, trials and steps. Each stage asks
 * how many seconds are left before it starts a process (and gives the
 * process no longer than that), charges the wall time the process took
 * when it ends, and, when the budget is spent, records the instance as
 * TIMEOUT with ibudget_reason's one line, which names the budget. What is
 * spent is kept in the run directory (budget/<cand>/<Inst>.json), so that
 * a resumed campaign goes on counting; the budget itself is a setting
 * (campaign/settings.h: instance_budget_s, --instance-budget). The file is
 * rewritten atomically under a lock (budget/.lock), so that side-by-side
 * KAT workers may charge at once. */
#ifndef HB_RUNDIR_IBUDGET_H
#define HB_RUNDIR_IBUDGET_H

#include <stddef.h>
#include "common/err.h"

#define IBUDGET_DIR "budget" /* budget/<cand>/<Inst>.json in the run directory */

/* The stages that charge a budget, as the file names them. */
#define IBUDGET_KAT "kat"
#define IBUDGET_VARIANTS "variants"
#define IBUDGET_MEASURE "measure"
#define IBUDGET_CT "ct"
#define IBUDGET_COUNT "count"

/* Whatever is left, a step is not started with less than this: a budget
 * that leaves less is spent. */
#define IBUDGET_MIN_STEP_S 0.5

/* One instance's budget. BUDGET_S <= 0 is no budget (every question says
 * "unlimited" and nothing is written). The strings are borrowed. */
typedef struct ibudget {
    const char *run_dir;
    const char *candidate;
    const char *instance;
    double budget_s;
} ibudget;

/* The seconds left of B: its budget less what the run directory records as
 * spent (may be 0 or less: spent), or HUGE_VAL without a budget. Fails
 * when the file exists and cannot be read or is malformed (naming it). */
int ibudget_left(const ibudget *b, double *left, hb_err *err);

/* 1 when B is spent (fewer than IBUDGET_MIN_STEP_S seconds left), 0 when
 * not, -1 with ERR as ibudget_left. */
int ibudget_spent(const ibudget *b, hb_err *err);

/* The wall-clock limit of a step that would take at most STEP_S seconds on
 * its own: the smaller of STEP_S and what is left of B. *LIMITED (may be
 * NULL) is 1 when the budget is the smaller, so that a step that then
 * times out is reported with ibudget_reason. Returns -1 with ERR as
 * ibudget_left. */
int ibudget_step_timeout(const ibudget *b, double step_s, double *timeout_s, int *limited,
                         hb_err *err);

/* Adds SECONDS (wall time, >= 0) to what STAGE (IBUDGET_*) spent for B,
 * atomically; nothing without a budget. Fails naming the file. */
int ibudget_charge(const ibudget *b, const char *stage, double seconds, hb_err *err);

/* The one line an instance stopped by its budget is recorded with, into
 * OUT: "wall budget of the instance spent: 60 s (--instance-budget) over
 * all its processes (kat 41 s, measure 19 s)". It starts with
 * IBUDGET_REASON_START. */
#define IBUDGET_REASON_START "wall budget of the instance spent"
void ibudget_reason(const ibudget *b, char *out, size_t sz);

/* 1 when the failure reason REASON says the budget stopped the instance
 * (a retry, such as the KAT's rebuild with other flags, would not help). */
int ibudget_stopped(const char *reason);

#endif
