/* The planning settings of a campaign (see settings.h): the campaign's own
 * defaults, ranges and JSON form, around the measure stage's
 * (measure/settings.c). */
#include "campaign/settings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compile/profile.h"

void settings_resolve(campaign_settings *s)
{
    if (!s->profile[0])
        snprintf(s->profile, sizeof s->profile, "%s", SETTINGS_DEFAULT_PROFILE);
    if (!s->plain_shared)
        s->plain_shared = -1;
    measure_settings_resolve(&s->measure);
    if (s->shard.n <= 0)
        s->shard.k = s->shard.n = 1;
    if (!(s->instance_budget_s > 0))
        s->instance_budget_s = SETTINGS_DEFAULT_INSTANCE_BUDGET_S;
}

int settings_validate(const campaign_settings *s, const char *origin,
                      const char *what_to_do, hb_err *err)
{
    char text[64], accepted[160];
    /* options are named as the command line spells them, campaign.json's
     * fields by their key */
    int json = origin != NULL;
    if (measure_settings_validate(&s->measure, origin, what_to_do, err) < 0)
        return -1;
    if (s->profile[0] && !profile_is_known(s->profile))
        return settings_refuse(err, origin, what_to_do, json ? "profile" : "--profile",
                               s->profile, "give reference, performance or resource");
    if (s->instance_budget_s != 0 &&
        !(s->instance_budget_s >= SETTINGS_INSTANCE_BUDGET_MIN_S &&
          s->instance_budget_s <= SETTINGS_INSTANCE_BUDGET_MAX_S)) {
        snprintf(text, sizeof text, "%g", s->instance_budget_s);
        snprintf(accepted, sizeof accepted, "give seconds from %g to %g",
                 SETTINGS_INSTANCE_BUDGET_MIN_S, SETTINGS_INSTANCE_BUDGET_MAX_S);
        return settings_refuse(err, origin, what_to_do,
                               json ? "instance_budget_s" : "--instance-budget", text,
                               accepted);
    }
    if (s->shard.n != 0 && (s->shard.n < 1 || s->shard.k < 1 || s->shard.k > s->shard.n)) {
        snprintf(text, sizeof text, "%d/%d", s->shard.k, s->shard.n);
        return settings_refuse(err, origin, what_to_do, json ? "shard" : "--shard", text,
                               "give K/N with 1 <= K <= N");
    }
    return 0;
}

json_t *campaign_settings_json(const campaign_settings *s)
{
    /* campaign.json's order: the measure stage's keys between the profile
     * and the shard */
    json_t *o = json_object();
    json_object_set_new(o, "profile", s->profile[0] ? json_string(s->profile)
                                                    : json_null());
    json_object_set_new(o, "plain_shared", s->plain_shared
                        ? json_boolean(s->plain_shared > 0) : json_null());
    measure_settings_json(&s->measure, o);
    json_t *shard = json_null();
    if (s->shard.n > 0)
        shard = json_sprintf("%d/%d", s->shard.k, s->shard.n);
    json_object_set_new(o, "shard", shard);
    json_object_set_new(o, "instance_budget_s", s->instance_budget_s > 0
                        ? json_real(s->instance_budget_s) : json_null());
    return o;
}

int settings_from_json(const json_t *o, const char *file, campaign_settings *s,
                       hb_err *err)
{
    memset(s, 0, sizeof *s);
    if (!o || json_is_null(o))
        return 0;
    if (!json_is_object(o))
        return settings_wrong_type(err, file, "settings", "an object");
    const json_t *v;
    if ((v = json_object_get(o, "profile")) && !json_is_null(v) &&
        settings_text_field(v, file, "profile", s->profile, sizeof s->profile, err) < 0)
        return -1;
    if ((v = json_object_get(o, "plain_shared")) && !json_is_null(v)) {
        if (!json_is_boolean(v))
            return settings_wrong_type(err, file, "plain_shared", "true or false");
        s->plain_shared = json_is_true(v) ? 1 : -1;
    }
    if (measure_settings_from_json(o, file, &s->measure, err) < 0)
        return -1;
    if ((v = json_object_get(o, "instance_budget_s")) && !json_is_null(v)) {
        if (!json_is_number(v) || !(json_number_value(v) > 0))
            return settings_wrong_type(err, file, "instance_budget_s",
                                       "a positive number of seconds");
        s->instance_budget_s = json_number_value(v);
    }
    if ((v = json_object_get(o, "shard")) && !json_is_null(v)) {
        if (!json_is_string(v) || shard_parse(json_string_value(v), &s->shard, NULL) < 0)
            return settings_wrong_type(err, file, "shard", "a shard K/N");
    }
    return 0;
}

static char *value_text(const json_t *v)
{
    if (!v || json_is_null(v))
        return strdup("the stage's default");
    return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
}

int campaign_settings_reconcile(const json_t *stored, const json_t *new_settings,
                                int has_records, const char *file,
                                json_t **out, hb_err *err)
{
    json_t *merged = json_deep_copy(new_settings);
    const char *key;
    json_t *nv;
    json_object_foreach(merged, key, nv) {
        json_t *sv = stored ? json_object_get(stored, key) : NULL;
        int given = !json_is_null(nv);
        if (!given) {
            if (sv)
                json_object_set(merged, key, sv);
            continue;
        }
        int stored_null = !sv || json_is_null(sv);
        if (!stored || (!stored_null && json_equal(sv, nv)) || !has_records)
            continue;
        char *was = value_text(sv), *now = value_text(nv);
        hb_fail(err, "%s: planning setting '%s' was %s, now %s; this run "
                "directory already holds records measured under the old "
                "setting: repeat it, or start a new --run-dir", file, key,
                was, now);
        free(was);
        free(now);
        json_decref(merged);
        return -1;
    }
    *out = merged;
    return 0;
}
