/* A campaign: check, build, kat and measure run in order into one run
 * directory, recorded in DIR/campaign.json (system id, start/end UTC, the
 * environment at start and end, the host checks, the planning settings, the
 * shard, the hashbench version, the phases done and one entry per session).
 * Running the same campaign again resumes it: finished phases are skipped,
 * and each stage keeps its own finished work. Planning settings cannot change
 * once the run directory holds records, and the set of submissions never:
 * a run directory holds one campaign. The run directory is locked while a
 * campaign uses it, and the measuring core host-wide while it measures
 * (rundir/lock.h). */
#ifndef HB_CAMPAIGN_CAMPAIGN_H
#define HB_CAMPAIGN_CAMPAIGN_H

#include <stddef.h>
#include <stdio.h>
#include <jansson.h>
#include "campaign/opts.h"
#include "common/err.h"

typedef struct campaign_result {
    int build_failed, kat_failed, measure_failed;
    int host_problems;
    int measured;                 /* 1 when the measure phase ran to its end */
} campaign_result;

/* Runs or resumes the campaign. Returns 0 when every phase ran (instances may
 * still have failed: see RES), -1 with ERR on a refusal (a compiler that
 * cannot be run, checked first; the run directory in use by another
 * command; another set of submissions; changed planning settings, unfit host
 * without allow_unfit_host, settings out of range: given, or read back
 * from campaign.json; checked before the run directory is created or
 * written) or a stage error. */
int campaign_run(const campaign_options *o, campaign_result *res, hb_err *err);

/* The measure stage of the separate `hashbench measure` command, run
 * inside the campaign.json that `hashbench run` would have written, so
 * that `publish` works after separate build / kat / measure commands and
 * an unfit host is refused as `run` refuses it. Uses O->run_dir, cpu,
 * system_id, settings (as given; defaults filled in), allow_unfit_host,
 * host_root and log. Runs the host check (printed to O->log, recorded),
 * starts a session ("command": "measure"), records the submissions (the
 * packages of build.json) and marks the build and kat phases done when
 * their files exist and no session marked them; then refuses (-1, ERR
 * saying what to do, the refusal recorded) when the host has problems and
 * allow_unfit_host is 0, else calls MEASURE(CTX, &failed, err), marks the
 * measure phase and ends the session. RES gets host_problems,
 * measure_failed and measured. */
typedef int (*campaign_stage_fn)(void *ctx, int *failed, hb_err *err);
int campaign_measure_session(const campaign_options *o, campaign_stage_fn measure,
                             void *ctx, campaign_result *res, hb_err *err);

/* Number of record files of DIR (rundir_count_records); 0 when they cannot
 * be listed (for messages only: decisions use rundir_count_records). */
int campaign_count_records(const char *run_dir);

#endif
