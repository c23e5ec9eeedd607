/* The options of one campaign (campaign_options): what `hashbench run`
 * gives the campaign, and what the campaign hands on to the stages it calls
 * (stages.h). A header of its own, so that the stage calls need not
 * include the campaign that calls them. */
#ifndef HB_CAMPAIGN_OPTS_H
#define HB_CAMPAIGN_OPTS_H

#include <stddef.h>
#include <stdio.h>
#include "campaign/settings.h"
#include "common/progress.h"

typedef struct campaign_options {
    const char *run_dir;
    const char *system_id;        /* NULL: the machine's architecture */
    int cpu;                      /* core to measure on */
    campaign_settings settings;
    int loop, full;               /* KAT: the loop test (kat.h KAT_LOOP_*), the
                                     2^33-bit file */
    int allow_unfit_host;         /* measure even when host checks fail */
    int core_nowait;              /* refuse, not wait, when another campaign
                                     of the host measures on this cpu
                                     (rundir/lock.h) */
    int time_failed;              /* also time instances that failed their
                                     KAT with a MISMATCH */
    int retry_timeout;            /* KAT: test a TIMEOUT result again (kat.h) */
    int no_independent_check;     /* timed digests recomputed by the same
                                     library only (as for a candidate with
                                     one implementation) */
    double timeout_s;             /* per KAT child; 0 = the stage's default */
    const char *const *packages;  /* submission folders */
    int extend;                   /* PACKAGES may add to the submissions the
                                     run directory holds (run --add): every
                                     phase then runs again, finished work
                                     kept; else another set is refused */
    size_t n_packages;
    const char *const *baseline_packages; /* --baseline: packages built and
                                     measured as baselines (build.h) */
    size_t n_baseline_packages;
    const char *shard_costs;      /* shared calibrated-costs file for the
                                     split (costs.h); NULL: equal costs */
    const char *cc;               /* NULL: the build stage's default */
    int jobs;                     /* parallel compilations and KAT
                                     instances; 0 = the usable cores */
    const char *probe_path;       /* hashbench-probe executable */
    const char *baseline_lib;     /* the baseline SM3 library */
    const char *host_root;        /* "/" (tests may pass captured files) */
    const char *seed_dir;         /* a run directory of the same packages,
                                     built and KAT-tested: its build and
                                     this shard's KAT results are copied
                                     in before those stages (seed.h) */
    int stop_before_measure;      /* check, build, split and KAT only; the
                                     session ends "paused before measuring"
                                     (run --cpus, cores.h) */
    FILE *log;                    /* messages (host check, phases); may be NULL */
    hb_progress_fn progress;
    void *progress_ctx;
} campaign_options;

#endif
