/* The KAT stage: for every built instance of DIR/build.json, runs the
 * official KAT procedure in a child process (kat_instance.h), compares with
 * the submitted vectors, applies the flag fallback of SPEC §2 (an instance
 * that neither passes nor lacks vectors with the guide flags is rebuilt once
 * with harness-default flags and tested again; both results are kept) and
 * writes DIR/kat.json (docs/FORMATS.md). The KAT stage compiles nothing:
 * kat_rebuilds_wanted names the guide builds that need the rebuild, the
 * build stage makes and records it in build.json (build_harness_default),
 * and the next kat_run tests it; the library every later stage uses is
 * rundir_instance_library's. Resumable: an instance already in kat.json with the same library,
 * the same KAT files and the same submitted vectors is kept, and so is one
 * whose files checked more than the options ask (a KAT_Loop or KAT_2_33
 * verdict is never replaced by a weaker check; each entry's "tested_utc"
 * says when it was made). Instances are
 * tested side by side (kat_options.jobs at once, each in a forked worker
 * whose library runs in its own sandboxed runners); kat.json, the logs and
 * the verdicts are the same whatever the number of jobs. Then the variants
 * of each instance are compared (variants.h). */
#ifndef HB_KAT_KAT_H
#define HB_KAT_KAT_H

#include <stdio.h>
#include <jansson.h>
#include "common/err.h"
#include "rundir/rundir.h"
#include "common/progress.h"
#include "common/strlist.h"

#define KAT_JSON RUNDIR_KAT_JSON

/* KAT_Loop (1,000,000 chained hashes): by default whenever the submitted
 * vectors include it, always (--loop) or never (--no-loop). */
#define KAT_LOOP_SUBMITTED 0
#define KAT_LOOP_ALWAYS 1
#define KAT_LOOP_NEVER (-1)

typedef struct kat_options {
    const char *run_dir;             /* required; holds build.json */
    int loop;                        /* KAT_LOOP_SUBMITTED, _ALWAYS or _NEVER */
    int full;                        /* also KAT_2_33 (1 GiB message) */
    double timeout_s;                /* per instance run; <= 0: 600 s */
    double instance_budget_s;        /* each instance's wall budget over all
                                        its processes (rundir/ibudget.h),
                                        shared with the variant check and
                                        later stages; <= 0: none */
    int jobs;                        /* instances tested at once; <= 0:
                                        kat_default_jobs() */
    const char *const *instances;    /* "Inst" or "Cand/Inst"; NULL = all */
    int n_instances;
    int retry_timeout;               /* 1: an instance whose kat.json entry
                                        is TIMEOUT is tested again, even
                                        with a weaker check (--no-loop);
                                        the others are kept as usual */
    const char *variants_seed;       /* seed of the variant check (32 hex
                                        digits); NULL: drawn with getrandom */
    hb_progress_fn progress;         /* may be NULL */
    void *progress_ctx;
    hb_work_fn work;                 /* may be NULL: the known work of the
                                        instances tested (kat_work_units of
                                        their files), with progress_ctx */
    FILE *log;                       /* may be NULL: says when a verdict of a
                                        stronger check (KAT_Loop, KAT_2_33)
                                        is kept although these options ask
                                        for less */
} kat_options;

/* Runs the KAT stage. *n_failed gets the number of selected instances whose
 * final status is a failure (not PASS, NOKAT or BASELINE) plus the groups of
 * variants that do not agree. Returns 0 when kat.json was written (even with
 * failures), -1 on an input or harness error (missing or bad build.json,
 * unwritable run directory, a --variants-seed that is not 32 hex digits). */
int kat_run(const kat_options *opt, int *n_failed, hb_err *err);

/* The selected guide builds of DIR/build.json whose KAT result calls for
 * the harness-default rebuild of SPEC §2 (a failure other than NOKAT, not
 * yet replaced by a rebuild's result), as "cand/Inst" appended to OUT.
 * kat_run tests the rebuild once build.json records it. Returns 0, -1 when
 * build.json or kat.json cannot be read. */
int kat_rebuilds_wanted(const kat_options *opt, strlist *out, hb_err *err);

/* The status of a kat.json ENTRY with what it checked, into BUF: "PASS
 * (2_12, 2_23, Loop; 2_33 not checked: needs --full)", the files compared
 * with submitted vectors first, then each submitted file not checked and
 * why; the verdict of a harness-default rebuild ends "; "
 * KAT_REBUILT_TAG ")". A status without files (BASELINE, an old entry) is the status alone;
 * "not tested" for a NULL entry. */
#define KAT_REBUILT_TAG "harness-default flags"
void kat_status_text(const json_t *entry, char *buf, size_t bufsz);

/* 1 when the KAT stage of RUN_DIR compared nothing: kat.json holds at
 * least one tested instance (the baseline aside) and every one of them is
 * NOKAT (no submitted vectors); *N_NOKAT gets their number. 0 otherwise,
 * also when kat.json cannot be read. */
int kat_nothing_compared(const char *run_dir, int *n_nokat);

/* The number of cores this process may use (its affinity mask), at least
 * 1: the default number of KAT jobs. */
int kat_default_jobs(void);

/* 1 when OPT selects instance INST of candidate CAND. */
int kat_selected(const kat_options *opt, const char *cand, const char *inst);

/* The entry of CAND/INST in the kat.json (or build.json) array ARR, its
 * index into *IDX; NULL when there is none. */
json_t *kat_find_entry(json_t *arr, const char *cand, const char *inst, size_t *idx);

/* The instances of a run directory that later stages take (the
 * constant-time and instruction-count stages): those kat.json says passed
 * (PASS) or are baselines (BASELINE), among the selected ones, each with
 * its build.json entry, in kat.json's order. */
typedef struct kat_passed {
    json_t *kat_doc, *build_doc;  /* kat.json and build.json, owned */
    const json_t **kat, **build;  /* N entries each, borrowed from the docs */
    size_t n;
} kat_passed;

/* Loads RUN_DIR's passed instances among INSTANCES (N_INSTANCES names as
 * in kat_options; NULL: all) into OUT. Fails, naming the file and what to
 * run, without kat.json, or when a passed instance is not in build.json.
 * Release with kat_passed_free (also after a failure). */
int kat_passed_load(const char *run_dir, const char *const *instances, int n_instances,
                    kat_passed *out, hb_err *err);

/* As kat_passed_load, and with NOKAT 1 also the instances that submitted no
 * KAT vectors (status NOKAT): for a stage asked to take them, marked so. */
int kat_passed_load_nokat(const char *run_dir, const char *const *instances,
                          int n_instances, int nokat, kat_passed *out, hb_err *err);
void kat_passed_free(kat_passed *p);

#endif
