/* The measure stage's settings, in one struct from the command line to the
 * planner: the planner, the message sizes, the CI target, the budget per
 * (instance, size) and the minimum trials, with their defaults, their
 * accepted ranges, their validation and their JSON form. Every default and
 * range of these settings is written here and nowhere else; the measure
 * stage (measure.h), the planner (plan.h), the instruction counts
 * (count/count.h, which take the sizes), the method page and the command
 * line read them from here. A campaign's settings (campaign/settings.h)
 * embed these and add the campaign's own (build profile, shard, instance
 * budget); campaign.json stores both in one flat object.
 *
 * To add a setting: a field of measure_settings (zero: not given), its
 * default (SETTINGS_DEFAULT_*) and range here, a line in each of
 * measure_settings_resolve, _validate, _json and _from_json (the JSON key
 * is campaign.json's: a new key is null in older run directories, so
 * older ones still resume), the option in cli/options.{h,c}, and the code
 * that reads it (plan_settings in measure.c's setup). */
#ifndef HB_MEASURE_SETTINGS_H
#define HB_MEASURE_SETTINGS_H

#include <stddef.h>
#include <jansson.h>
#include "common/err.h"

#define MEASURE_MAX_SIZES 32

/* A default as text, for help texts: SETTINGS_TEXT(SETTINGS_REFERENCE_TRIALS)
 * is "5". */
#define SETTINGS_TEXT(x) SETTINGS_TEXT_(x)
#define SETTINGS_TEXT_(...) #__VA_ARGS__

/* The defaults. */
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
#define SETTINGS_INTERLEAVED_MIN_TRIALS 32
/* The budget rule without --budget: each (instance, size) gets at most
 * SETTINGS_AUTO_BUDGET_MAX_S and at most SETTINGS_AUTO_BUDGET_FRACTION of
 * what the reference rule would spend on it (plan_adaptive_budget). */
#define SETTINGS_AUTO_BUDGET_MAX_S 10.0
#define SETTINGS_AUTO_BUDGET_FRACTION 0.1

/* The accepted ranges (inclusive). */
#define SETTINGS_MAX_SIZE_BYTES (1u << 30)
#define SETTINGS_TRIALS_MIN 2
#define SETTINGS_TRIALS_MAX 1000
#define SETTINGS_TARGET_CI_MIN 0.001
#define SETTINGS_TARGET_CI_MAX 100.0
#define SETTINGS_BUDGET_MIN_S 0.001
#define SETTINGS_BUDGET_MAX_S 86400.0

/* Zero/empty fields mean "not given": the stage fills in the defaults
 * (measure_settings_resolve), a resumed campaign keeps what campaign.json
 * holds. */
typedef struct measure_settings {
    char planner[32];    /* a name of the planner table (planners.h) */
    unsigned sizes[MEASURE_MAX_SIZES]; /* message bytes */
    int n_sizes;
    double target_ci;    /* relative CI half-width, percent */
    double budget_s;     /* seconds per (instance, size); 0: the budget rule */
    int trials;          /* reference: trials; others: minimum trials */
} measure_settings;

/* 1 for a planner's name this version knows. */
int settings_planner_known(const char *planner);

/* The minimum number of kept trials of PLANNER when none is given: its
 * row's in the planner table (planners.h), SETTINGS_REFERENCE_TRIALS for a
 * name it does not hold. */
int settings_default_min_trials(const char *planner);

/* Fills every field S does not give with its default (budget_s stays 0:
 * the budget rule; trials become the planner's minimum). */
void measure_settings_resolve(measure_settings *s);

/* Checks every field S gives against its range: the planner known, 1 to
 * MEASURE_MAX_SIZES sizes from 1 to SETTINGS_MAX_SIZE_BYTES, trials,
 * target CI and budget within the ranges above. Fails with ERR naming
 * ORIGIN (e.g. "DIR/campaign.json"; NULL: the options, which are then
 * named as the command line spells them), the setting, its value and what
 * is accepted, plus the WHAT_TO_DO sentence (may be NULL). */
int measure_settings_validate(const measure_settings *s, const char *origin,
                              const char *what_to_do, hb_err *err);

/* Adds the settings to the JSON object O as campaign.json stores them
 * ("planner", "sizes", "target_ci_percent", "budget_s", "trials", in this
 * order): null for what S does not give. */
void measure_settings_json(const measure_settings *s, json_t *o);

/* The settings back from their JSON form O (other fields ignored; null
 * ones, or a null O, not given). A field of the wrong type fails, naming
 * FILE and the field; values are not range-checked here
 * (measure_settings_validate). */
int measure_settings_from_json(const json_t *o, const char *file, measure_settings *s,
                               hb_err *err);

/* The settings layer's messages, shared with the settings that embed these
 * (campaign/settings.c), so that every setting is refused in the same
 * words. Each returns -1 with ERR.
 * settings_refuse: "ORIGIN: setting NAME 'VALUE' is not accepted:
 * ACCEPTED; WHAT_TO_DO" (without ORIGIN: "NAME 'VALUE' ...").
 * settings_wrong_type: FILE's setting KEY is not WANT, and what to do.
 * settings_text_field (0 on success): the JSON string V (not null) of
 * setting KEY into DST of capacity N; a value that is no string, or too
 * long for DST, is of the wrong type. */
int settings_refuse(hb_err *err, const char *origin, const char *what_to_do,
                    const char *name, const char *value, const char *accepted);
int settings_wrong_type(hb_err *err, const char *file, const char *key, const char *want);
int settings_text_field(const json_t *v, const char *file, const char *key, char *dst,
                        size_t n, hb_err *err);

#endif
