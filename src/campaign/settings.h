/* The planning settings of a campaign and of the measure stage, in one
 * struct from the command line to the planner: the build profile, the
 * planner, the message sizes, the CI target, the budget and its rule, the
 * minimum trials, the shard, and each instance's wall budget. Every default is written here and nowhere
 * else; the command line (cli/options.h), campaign.json (campaign.h), the
 * shard costs (costs.h), the measure stage (measure.h) and the planner
 * (measure/plan.h) all read them from here. settings_validate checks a
 * whole set before anything is built or written, whether it came from
 * options or from a campaign.json read back. */
#ifndef HB_CAMPAIGN_SETTINGS_H
#define HB_CAMPAIGN_SETTINGS_H

#include <jansson.h>
#include "campaign/shard.h"
#include "common/err.h"

#define CAMPAIGN_MAX_SIZES 32

/* A default as text, for help texts: SETTINGS_TEXT(SETTINGS_REFERENCE_TRIALS)
 * is "5". */
#define SETTINGS_TEXT(x) SETTINGS_TEXT_(x)
#define SETTINGS_TEXT_(...) #__VA_ARGS__

/* The defaults. */
#define SETTINGS_DEFAULT_PROFILE "reference"
#define SETTINGS_DEFAULT_PLANNER "interleaved"
/* S1..S8 of the guide */
#define SETTINGS_DEFAULT_SIZES_LIST 32, 128, 512, 1024, 4096, 8192, 16384, 65536
#define SETTINGS_DEFAULT_SIZES {SETTINGS_DEFAULT_SIZES_LIST}
#define SETTINGS_DEFAULT_SIZES_TEXT SETTINGS_TEXT(SETTINGS_DEFAULT_SIZES_LIST)
#define SETTINGS_N_DEFAULT_SIZES 8
#define SETTINGS_DEFAULT_TARGET_CI 0.5 /* percent */
/* The reference campaign's trial count: the reference rule's trials, and
 * the adaptive planner's minimum. */
#define SETTINGS_REFERENCE_TRIALS 5
/* The interleaved planner's minimum: its interval needs at least four
 * batches (measure/stats.h) to be of use. */
#define SETTINGS_INTERLEAVED_MIN_TRIALS 16
/* The budget rule without --budget: each (instance, size) gets at most
 * SETTINGS_AUTO_BUDGET_MAX_S and at most SETTINGS_AUTO_BUDGET_FRACTION of
 * what the reference rule would spend on it (plan_adaptive_budget). */
#define SETTINGS_AUTO_BUDGET_MAX_S 10.0
#define SETTINGS_AUTO_BUDGET_FRACTION 0.1
/* The wall budget of one instance over all its processes (KAT, variant
 * check, measurement, constant-time steps; rundir/ibudget.h), seconds. */
#define SETTINGS_DEFAULT_INSTANCE_BUDGET_S 1800.0

/* The accepted ranges (inclusive). */
#define SETTINGS_MAX_SIZE_BYTES (1u << 30)
#define SETTINGS_TRIALS_MIN 2
#define SETTINGS_TRIALS_MAX 1000
#define SETTINGS_TARGET_CI_MIN 0.001
#define SETTINGS_TARGET_CI_MAX 100.0
#define SETTINGS_BUDGET_MIN_S 0.001
#define SETTINGS_BUDGET_MAX_S 86400.0
#define SETTINGS_INSTANCE_BUDGET_MIN_S 1.0
#define SETTINGS_INSTANCE_BUDGET_MAX_S 1e6

/* Zero/empty fields mean "not given": a new campaign gets the defaults
 * (settings_resolve), a resumed one keeps what campaign.json holds. */
typedef struct campaign_settings {
    char profile[32];    /* build profile (compile/profile.h) */
    char planner[32];    /* "interleaved", "adaptive" or "reference" */
    unsigned sizes[CAMPAIGN_MAX_SIZES]; /* message bytes */
    int n_sizes;
    double target_ci;    /* relative CI half-width, percent */
    double budget_s;     /* seconds per (instance, size); 0: the budget rule */
    int trials;          /* reference: trials; others: minimum trials */
    double instance_budget_s; /* wall seconds per instance over all its
                                 processes (rundir/ibudget.h) */
    shard_spec shard;    /* n == 0: not given (unsharded) */
} campaign_settings;

/* 1 for a planner's name this version knows. */
int settings_planner_known(const char *planner);

/* The minimum number of kept trials of PLANNER when none is given:
 * SETTINGS_INTERLEAVED_MIN_TRIALS for "interleaved", else
 * SETTINGS_REFERENCE_TRIALS. */
int settings_default_min_trials(const char *planner);

/* Fills every field S does not give with its default (budget_s stays 0:
 * the budget rule; the shard becomes 1/1; instance_budget_s becomes
 * SETTINGS_DEFAULT_INSTANCE_BUDGET_S). */
void settings_resolve(campaign_settings *s);

/* Checks every field S gives against its range: the planner and the
 * profile known, sizes from 1 to SETTINGS_MAX_SIZE_BYTES, trials, target
 * CI and budget within the ranges above, a shard K/N with 1 <= K <= N.
 * Fails with ERR naming ORIGIN (e.g. "DIR/campaign.json"; NULL: the
 * options), the setting, its value and what is accepted, plus the WHAT_TO_DO
 * sentence (may be NULL). */
int settings_validate(const campaign_settings *s, const char *origin,
                      const char *what_to_do, hb_err *err);

/* The settings as campaign.json stores them (new reference): null for what
 * S does not give. */
json_t *campaign_settings_json(const campaign_settings *s);

/* The settings back from their JSON form O (unknown fields ignored, null
 * ones not given). A field of the wrong type fails, naming FILE and the
 * field; values are not range-checked here (settings_validate). */
int settings_from_json(const json_t *o, const char *file, campaign_settings *s,
                       hb_err *err);

/* Merges NEW into the settings stored in campaign.json (STORED, may be NULL):
 * fields NEW does not give are taken from STORED. When a field differs and
 * HAS_RECORDS, fails naming FILE and the setting. *OUT gets the resulting
 * settings object (new reference). */
int campaign_settings_reconcile(const json_t *stored, const json_t *new_settings,
                                int has_records, const char *file,
                                json_t **out, hb_err *err);

#endif
