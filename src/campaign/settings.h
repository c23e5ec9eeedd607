/* The planning settings of a campaign, in one struct from the command
 * line to the stages: the campaign's own (the build profile, the shard,
 * each instance's wall budget over all its processes) around the measure
 * stage's (measure/settings.h: the planner, the message sizes, the CI
 * target, the budget and its rule, the minimum trials), which they embed.
 * Every default of the campaign's own settings is written here and nowhere
 * else, those of the measure stage's in measure/settings.h; the command
 * line (cli/options.h), campaign.json (campaign.h) and the shard costs
 * (costs.h) read them from here. settings_validate checks a whole set
 * before anything is built or written, whether it came from options or
 * from a campaign.json read back. campaign.json stores both parts in one
 * flat object ("settings").
 *
 * To add a setting of the campaign's own: a field of campaign_settings,
 * its default and range here, a line in each function of settings.c, and
 * its option in cli/options.{h,c}; a setting the measure stage reads goes
 * into measure/settings.h instead. */
#ifndef HB_CAMPAIGN_SETTINGS_H
#define HB_CAMPAIGN_SETTINGS_H

#include <jansson.h>
#include "campaign/shard.h"
#include "common/err.h"
#include "measure/settings.h"

/* The defaults. */
#define SETTINGS_DEFAULT_PROFILE "reference"
/* The wall budget of one instance over all its processes (KAT, variant
 * check, measurement, constant-time steps; rundir/ibudget.h), seconds. */
#define SETTINGS_DEFAULT_INSTANCE_BUDGET_S 1800.0

/* The accepted ranges (inclusive). */
#define SETTINGS_INSTANCE_BUDGET_MIN_S 1.0
#define SETTINGS_INSTANCE_BUDGET_MAX_S 1e6

/* Zero/empty fields mean "not given": a new campaign gets the defaults
 * (settings_resolve), a resumed one keeps what campaign.json holds. */
typedef struct campaign_settings {
    char profile[32];    /* build profile (compile/profile.h) */
    int plain_shared;    /* 1: the guide's flags and -fPIC -shared only
                            (run --plain-shared, build.h); -1: with
                            hashbench's additions, the default */
    measure_settings measure; /* planner, sizes, target CI, budget, trials */
    double instance_budget_s; /* wall seconds per instance over all its
                                 processes (rundir/ibudget.h) */
    shard_spec shard;    /* n == 0: not given (unsharded) */
} campaign_settings;

/* Fills every field S does not give with its default: the measure stage's
 * (measure_settings_resolve), the profile, plain_shared -1, the shard 1/1,
 * instance_budget_s
 * SETTINGS_DEFAULT_INSTANCE_BUDGET_S. */
void settings_resolve(campaign_settings *s);

/* Checks every field S gives against its range: the measure stage's
 * (measure_settings_validate), then the profile known, the instance budget
 * within the range above, a shard K/N with 1 <= K <= N. Fails with ERR
 * naming ORIGIN (e.g. "DIR/campaign.json"; NULL: the options), the
 * setting, its value and what is accepted, plus the WHAT_TO_DO sentence
 * (may be NULL). */
int settings_validate(const campaign_settings *s, const char *origin,
                      const char *what_to_do, hb_err *err);

/* The settings as campaign.json stores them (new reference): one object,
 * null for what S does not give. */
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
