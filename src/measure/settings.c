/* The measure stage's settings (see settings.h): their defaults, their
 * ranges, and their JSON form in campaign.json. */
#include "measure/settings.h"

#include <stdio.h>
#include <string.h>
#include "measure/planners.h"

int settings_planner_known(const char *planner)
{
    return plan_planner_find(planner) != NULL;
}

int settings_default_min_trials(const char *planner)
{
    const plan_planner *p = plan_planner_find(planner);
    return p ? p->min_trials : SETTINGS_REFERENCE_TRIALS;
}

void measure_settings_resolve(measure_settings *s)
{
    static const unsigned sizes[] = SETTINGS_DEFAULT_SIZES;
    if (!s->planner[0])
        snprintf(s->planner, sizeof s->planner, "%s", SETTINGS_DEFAULT_PLANNER);
    if (s->n_sizes <= 0) {
        for (int i = 0; i < SETTINGS_N_DEFAULT_SIZES; i++)
            s->sizes[i] = sizes[i];
        s->n_sizes = SETTINGS_N_DEFAULT_SIZES;
    }
    if (!(s->target_ci > 0))
        s->target_ci = SETTINGS_DEFAULT_TARGET_CI;
    if (s->trials <= 0)
        s->trials = settings_default_min_trials(s->planner);
}

int settings_refuse(hb_err *err, const char *origin, const char *what_to_do,
                    const char *name, const char *value, const char *accepted)
{
    return hb_fail(err, "%s%s%s '%s' is not accepted: %s%s%s",
                   origin ? origin : "", origin ? ": setting " : "", name, value,
                   accepted, what_to_do ? "; " : "", what_to_do ? what_to_do : "");
}

static int number_in(double v, double lo, double hi)
{
    return v >= lo && v <= hi;
}

int measure_settings_validate(const measure_settings *s, const char *origin,
                              const char *what_to_do, hb_err *err)
{
    char text[64], accepted[160], names[160], give[180];
    /* options are named as the command line spells them, campaign.json's
     * fields by their key */
    int json = origin != NULL;
    if (s->planner[0] && !settings_planner_known(s->planner))
        return settings_refuse(err, origin, what_to_do, json ? "planner" : "--plan",
                               s->planner,
                               (snprintf(give, sizeof give, "give %s",
                                         plan_planner_names(names, sizeof names)), give));
    if (s->n_sizes < 0 || s->n_sizes > MEASURE_MAX_SIZES) {
        snprintf(text, sizeof text, "%d sizes", s->n_sizes);
        snprintf(accepted, sizeof accepted, "give 1 to %d sizes", MEASURE_MAX_SIZES);
        return settings_refuse(err, origin, what_to_do, json ? "sizes" : "--sizes", text,
                               accepted);
    }
    for (int i = 0; i < s->n_sizes; i++)
        if (s->sizes[i] < 1 || s->sizes[i] > SETTINGS_MAX_SIZE_BYTES) {
            snprintf(text, sizeof text, "%u", s->sizes[i]);
            snprintf(accepted, sizeof accepted, "give byte counts from 1 to %u",
                     SETTINGS_MAX_SIZE_BYTES);
            return settings_refuse(err, origin, what_to_do, json ? "sizes" : "--sizes",
                                   text, accepted);
        }
    if (s->trials != 0 && (s->trials < SETTINGS_TRIALS_MIN || s->trials > SETTINGS_TRIALS_MAX)) {
        snprintf(text, sizeof text, "%d", s->trials);
        snprintf(accepted, sizeof accepted, "give a whole number from %d to %d",
                 SETTINGS_TRIALS_MIN, SETTINGS_TRIALS_MAX);
        return settings_refuse(err, origin, what_to_do, json ? "trials" : "--trials", text,
                               accepted);
    }
    if (s->target_ci != 0 &&
        !number_in(s->target_ci, SETTINGS_TARGET_CI_MIN, SETTINGS_TARGET_CI_MAX)) {
        snprintf(text, sizeof text, "%g", s->target_ci);
        snprintf(accepted, sizeof accepted, "give a percentage from %g to %g",
                 SETTINGS_TARGET_CI_MIN, SETTINGS_TARGET_CI_MAX);
        return settings_refuse(err, origin, what_to_do,
                               json ? "target_ci_percent" : "--target-ci", text, accepted);
    }
    if (s->budget_s != 0 &&
        !number_in(s->budget_s, SETTINGS_BUDGET_MIN_S, SETTINGS_BUDGET_MAX_S)) {
        snprintf(text, sizeof text, "%g", s->budget_s);
        snprintf(accepted, sizeof accepted, "give seconds from %g to %g",
                 SETTINGS_BUDGET_MIN_S, SETTINGS_BUDGET_MAX_S);
        return settings_refuse(err, origin, what_to_do, json ? "budget_s" : "--budget",
                               text, accepted);
    }
    return 0;
}

void measure_settings_json(const measure_settings *s, json_t *o)
{
    json_object_set_new(o, "planner", s->planner[0] ? json_string(s->planner)
                                                    : json_null());
    json_t *sizes = json_null();
    if (s->n_sizes > 0) {
        sizes = json_array();
        for (int i = 0; i < s->n_sizes; i++)
            json_array_append_new(sizes, json_integer(s->sizes[i]));
    }
    json_object_set_new(o, "sizes", sizes);
    json_object_set_new(o, "target_ci_percent", s->target_ci > 0
                        ? json_real(s->target_ci) : json_null());
    json_object_set_new(o, "budget_s", s->budget_s > 0 ? json_real(s->budget_s)
                                                       : json_null());
    json_object_set_new(o, "trials", s->trials > 0 ? json_integer(s->trials)
                                                   : json_null());
}

int settings_wrong_type(hb_err *err, const char *file, const char *key, const char *want)
{
    return hb_fail(err, "%s: setting '%s' is not %s; fix or remove it (a missing "
                   "setting takes its default), or start a new --run-dir", file, key,
                   want);
}

int settings_text_field(const json_t *v, const char *file, const char *key, char *dst,
                        size_t n, hb_err *err)
{
    if (!json_is_string(v))
        return settings_wrong_type(err, file, key, "a string");
    if (strlen(json_string_value(v)) >= n)
        return settings_wrong_type(err, file, key, "a known name");
    snprintf(dst, n, "%s", json_string_value(v));
    return 0;
}

int measure_settings_from_json(const json_t *o, const char *file, measure_settings *s,
                               hb_err *err)
{
    memset(s, 0, sizeof *s);
    if (!o || json_is_null(o))
        return 0;
    if (!json_is_object(o))
        return settings_wrong_type(err, file, "settings", "an object");
    const json_t *v;
    if ((v = json_object_get(o, "planner")) && !json_is_null(v) &&
        settings_text_field(v, file, "planner", s->planner, sizeof s->planner, err) < 0)
        return -1;
    if ((v = json_object_get(o, "sizes")) && !json_is_null(v)) {
        size_t i;
        json_t *x;
        if (!json_is_array(v) || json_array_size(v) == 0 ||
            json_array_size(v) > MEASURE_MAX_SIZES)
            return settings_wrong_type(err, file, "sizes", "a list of 1 to 32 byte counts");
        json_array_foreach(v, i, x) {
            json_int_t b = json_integer_value(x);
            if (!json_is_integer(x) || b < 1 || b > SETTINGS_MAX_SIZE_BYTES)
                return settings_wrong_type(err, file, "sizes", "a list of byte counts "
                                           "from 1 to 2^30");
            s->sizes[s->n_sizes++] = (unsigned)b;
        }
    }
    if ((v = json_object_get(o, "target_ci_percent")) && !json_is_null(v)) {
        if (!json_is_number(v) || !(json_number_value(v) > 0))
            return settings_wrong_type(err, file, "target_ci_percent", "a positive number");
        s->target_ci = json_number_value(v);
    }
    if ((v = json_object_get(o, "budget_s")) && !json_is_null(v)) {
        if (!json_is_number(v) || !(json_number_value(v) > 0))
            return settings_wrong_type(err, file, "budget_s", "a positive number of seconds");
        s->budget_s = json_number_value(v);
    }
    if ((v = json_object_get(o, "trials")) && !json_is_null(v)) {
        if (!json_is_integer(v) || json_integer_value(v) < 1 ||
            json_integer_value(v) > SETTINGS_TRIALS_MAX)
            return settings_wrong_type(err, file, "trials", "a whole number of trials");
        s->trials = (int)json_integer_value(v);
    }
    return 0;
}
