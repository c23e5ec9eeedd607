/* The options several commands share, spelled and range-checked once: each
 * command lists the shared entries (HB_OPTION_*) in its getopt_long table
 * beside its own, and hands their values to the parsers below, so that
 * e.g. --cpu accepts the same values in check, clock, measure and run. The
 * planning settings' options (--plan, --sizes, --trials, --target-ci,
 * --budget, --instance-budget, --profile, --shard) fill a campaign_settings
 * and take their ranges from campaign/settings.h (the campaign's own) and
 * measure/settings.h (the measure stage's). Parsers return 0, or -1 with
 * ERR naming the option, the value and what is accepted; the command
 * prints it with its usage (hb_cli_usage_error). */
#ifndef HB_CLI_OPTIONS_H
#define HB_CLI_OPTIONS_H

#include <getopt.h>
#include <stdio.h>
#include "campaign/settings.h"
#include "common/err.h"

/* getopt_long values of the shared options; a command's own long-only
 * options take values from HB_OPT_OWN on. */
enum {
    HB_OPT_RUN_DIR = 0x100,
    HB_OPT_CPU,
    HB_OPT_JOBS,
    HB_OPT_TIMEOUT,
    HB_OPT_INSTANCES,
    HB_OPT_PLAN,
    HB_OPT_PROFILE,
    HB_OPT_SIZES,
    HB_OPT_TRIALS,
    HB_OPT_TARGET_CI,
    HB_OPT_BUDGET,
    HB_OPT_INSTANCE_BUDGET,
    HB_OPT_SHARD,
    HB_OPT_OWN = 0x200
};

#define HB_OPTION_RUN_DIR {"run-dir", required_argument, NULL, HB_OPT_RUN_DIR}
#define HB_OPTION_CPU {"cpu", required_argument, NULL, HB_OPT_CPU}
#define HB_OPTION_JOBS {"jobs", required_argument, NULL, HB_OPT_JOBS}
#define HB_OPTION_TIMEOUT {"timeout", required_argument, NULL, HB_OPT_TIMEOUT}
#define HB_OPTION_INSTANCES {"instances", required_argument, NULL, HB_OPT_INSTANCES}
#define HB_OPTION_PLAN {"plan", required_argument, NULL, HB_OPT_PLAN}
#define HB_OPTION_PROFILE {"profile", required_argument, NULL, HB_OPT_PROFILE}
#define HB_OPTION_SIZES {"sizes", required_argument, NULL, HB_OPT_SIZES}
#define HB_OPTION_TRIALS {"trials", required_argument, NULL, HB_OPT_TRIALS}
#define HB_OPTION_TARGET_CI {"target-ci", required_argument, NULL, HB_OPT_TARGET_CI}
#define HB_OPTION_BUDGET {"budget", required_argument, NULL, HB_OPT_BUDGET}
#define HB_OPTION_INSTANCE_BUDGET \
    {"instance-budget", required_argument, NULL, HB_OPT_INSTANCE_BUDGET}
#define HB_OPTION_SHARD {"shard", required_argument, NULL, HB_OPT_SHARD}
#define HB_OPTIONS_END {NULL, 0, NULL, 0}

/* The ranges of the shared options that are not settings. */
#define HB_OPT_JOBS_MAX 1024
#define HB_OPT_TIMEOUT_MAX_S 1e6

/* Prepares getopt_long for a new parse of a command's ARGV (so that a
 * process may parse several), errors left to the caller: call it, then
 * loop on getopt_long(argc, argv, ":" SHORTOPTS, ...). */
void hb_opt_start(void);

/* The error of getopt_long's result CH after hb_opt_start: ':' an option
 * without its value, '?' (or any other) an unknown option. Always returns
 * -1. */
int hb_opt_getopt_error(int ch, char **argv, hb_err *err);

/* --cpu: a CPU index, a whole number from 0 to CPU_SETSIZE - 1, and one of
 * the CPUs this process may run on (its affinity mask; the message lists
 * them). */
int hb_opt_cpu(const char *text, int *cpu, hb_err *err);

/* The core check, clock, measure and run use without --cpu: the last CPU
 * this process may run on (0 when the mask cannot be read). */
int hb_opt_default_cpu(void);

/* Each of the N PACKAGES exists, and at least one is a folder (a plain
 * file a shell glob caught beside them is left to the build, which passes
 * it over); else -1 with ERR naming the first that does not, or the file.
 * Checked before anything runs. */
int hb_opt_packages(const char *const *packages, size_t n, hb_err *err);

/* The run directory DIR can be made and written by this process: DIR, or
 * the nearest existing folder above it, takes a new file (made and removed
 * at once). Else -1 with ERR naming the folder and what to do. */
int hb_opt_run_dir_writable(const char *dir, hb_err *err);

/* --jobs: a whole number from 1 to HB_OPT_JOBS_MAX. NAME is the spelling
 * used in the message ("--jobs", or "-j"). */
int hb_opt_jobs(const char *name, const char *text, int *jobs, hb_err *err);

/* The wall budget per instance (rundir/ibudget.h) of a command that runs a
 * stage on RUN_DIR by itself (kat, ct, and run's constant-time stage):
 * GIVEN when more than 0 (--instance-budget), else the one RUN_DIR's
 * campaign.json records, else SETTINGS_DEFAULT_INSTANCE_BUDGET_S. */
double hb_opt_instance_budget(const char *run_dir, double given);

/* --instances LIST split at commas, in place, into *NAMES (malloc'd; the
 * caller frees it) and *N. Returns 0, or -1 with ERR when LIST names
 * nothing (*NAMES is then NULL). */
int hb_opt_instances(char *list, const char ***names, int *n, hb_err *err);

/* For the stages that take only the instances that passed their KATs
 * (count, ct; STAGE names it): prints to FP one line per instance of
 * RUN_DIR's build.json among NAMES (N; NULL: all) that the stage skips,
 * with its build or KAT status and why, and one per name of NAMES that is
 * no instance of the run directory. Returns the number of lines. */
int hb_opt_print_skipped(FILE *fp, const char *stage, const char *run_dir,
                         const char *const *names, int n);

/* As hb_opt_print_skipped; with NOKAT 1 (count --nokat) an instance that
 * submitted no KAT vectors is not skipped: its line says it is counted,
 * marked NOKAT. */
int hb_opt_print_skipped_nokat(FILE *fp, const char *stage, const char *run_dir,
                               const char *const *names, int n, int nokat);

/* --timeout: seconds, more than 0 and at most HB_OPT_TIMEOUT_MAX_S. */
int hb_opt_timeout(const char *text, double *seconds, hb_err *err);

/* A planning setting's option (ID one of HB_OPT_PLAN .. HB_OPT_SHARD) into
 * S, checked against the range of campaign/settings.h or measure/settings.h. */
int hb_opt_setting(int id, const char *text, campaign_settings *s, hb_err *err);

/* 1 when ID is a planning setting's option. */
int hb_opt_is_setting(int id);

#endif
