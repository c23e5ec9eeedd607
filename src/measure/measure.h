/* The measurement stage: for every instance of DIR/build.json (with the
 * library rundir_instance_library names) and every requested message size,
 * plan and run the probe trials (plan.h), one extra probe run with --memory,
 * and write its record (rundir_record_rel) atomically in the
 * format of docs/FORMATS.md, after hashbench-probe (runner role) has recomputed the
 * trials' digests (verify.h). Resumable: a record that exists, parses and
 * was made with the same settings and library is kept unless FORCE. A probe
 * failure makes that record FAILED with a one-line reason, a result that
 * cannot be trusted (tampered result channel, outside timing rules broken,
 * digests that the runner does not reproduce) makes it INCONSISTENT; neither
 * has figures, and neither stops the run. Instances that did not build,
 * or whose build entry gives an exclude_timing reason, are skipped. */
#ifndef HB_MEASURE_MEASURE_H
#define HB_MEASURE_MEASURE_H

#include "common/err.h"
#include "common/progress.h"
#include "measure/settings.h"

typedef struct measure_options {
    const char *run_dir;
    const char *probe_path;          /* hashbench-probe */
    int cpu;                         /* -1: the last CPU this process may use */
    measure_settings settings;       /* planner, sizes, trials, target CI,
                                        budget; what it does not give takes
                                        its default (measure_settings_resolve) */
    double instance_budget_s;        /* each instance's wall budget over all
                                        its processes (rundir/ibudget.h),
                                        shared with the other stages;
                                        <= 0: none */
    const char *const *instances;    /* NULL: all; "Inst" or "Cand/Inst" */
    int n_instances;
    int force;                       /* redo existing records */
    int no_independent_check;        /* the session windows' sampled digests
                                        are recomputed by the same library in
                                        a fresh process only (xcheck.h:
                                        XCHECK_SELF), as for a candidate with
                                        one implementation */
    int time_failed;                 /* also time an instance whose KAT
                                        status is a MISMATCH (else only
                                        instances that did not fail) */
    hb_progress_fn progress;
    void *progress_ctx;
} measure_options;

/* Runs the stage. *n_failed (may be NULL) gets the number of FAILED and
 * INCONSISTENT records
 * among those selected (new or kept). Returns 0 when the stage ran (even
 * with failed records), -1 on an error that stops it (unreadable build.json,
 * no probe, unusable counter, a record that cannot be written). */
int measure_run(const measure_options *o, int *n_failed, hb_err *err);

/* The default CPU: the highest-numbered CPU in this process's affinity
 * mask (-1 when it cannot be read). */
int measure_default_cpu(void);

#endif
