/* The interleaved stage's journal: see journal.h. The trials are stored in
 * the records' own trial format (record.h), so one parser reads both. */
#include "measure/journal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fs.h"
#include "common/json.h"
#include "measure/record.h"

#define JOURNAL_KIND "hashbench-measure-journal"

static json_t *settings_json(const plan_settings *s)
{
    return json_pack("{s:s, s:i, s:f, s:b, s:f, s:i, s:i}", "planner", s->planner,
                     "min_trials", s->min_trials, "target_ci_percent", s->target_ci_percent,
                     "budget_explicit", s->budget_explicit,
                     "budget_s", s->budget_explicit ? s->budget_s : 0.0,
                     "max_retries", s->max_retries, "max_trials", s->max_trials);
}

int journal_save(const char *path, const plan_settings *s, int round,
                 const char *const *keys, const ilv_cell *cells, size_t n, hb_err *err)
{
    char seed[17];
    snprintf(seed, sizeof seed, "%016llx", (unsigned long long)s->seed);
    json_t *j = json_pack("{s:s, s:s, s:o, s:i}", "kind", JOURNAL_KIND, "seed", seed,
                          "settings", settings_json(s), "round", round);
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++) {
        const plan_outcome *o = &cells[i].out;
        json_array_append_new(arr, json_pack("{s:s, s:s, s:f, s:o}", "key", keys[i],
                                             "digest", o->digest,
                                             "spent_s", cells[i].pc.spent_s,
                                             "trials", record_trials_json(o)));
    }
    json_object_set_new(j, "cells", arr);
    int rc = hb_json_save(path, j, err);
    json_decref(j);
    return rc;
}

static int restore(const json_t *cell, ilv_cell *c, const char *path, hb_err *err)
{
    const json_t *trials = json_object_get(cell, "trials");
    const char *digest = json_string_value(json_object_get(cell, "digest"));
    size_t n = json_array_size(trials);
    plan_trial *t = calloc(n ? n : 1, sizeof *t);
    if (!t)
        return hb_fail(err, "out of memory");
    for (size_t i = 0; i < n; i++)
        if (record_trial_from_json(json_array_get(trials, i), &t[i]) != 0) {
            free(t);
            return hb_fail_at(err, path, 0, "cells: trial %zu is not one this version "
                              "writes; delete the journal to take the stage's rounds "
                              "again", i);
        }
    memset(&c->out, 0, sizeof c->out);
    c->out.trials = t;
    c->out.n_trials = n;
    snprintf(c->out.digest, sizeof c->out.digest, "%s", digest ? digest : "");
    c->resumed = 1;
    c->resumed_spent_s = json_number_value(json_object_get(cell, "spent_s"));
    return 0;
}

int journal_load(const char *path, plan_settings *s, const char *const *keys,
                 ilv_cell *cells, size_t n, int *first_round, hb_err *err)
{
    *first_round = 0;
    if (!hb_is_file(path))
        return 0;
    json_t *j;
    if (hb_json_load(path, &j, err) != 0)
        return hb_fail_at(err, path, 0, "the measure stage's journal cannot be read; "
                          "delete it to take the stage's rounds again");
    const char *kind = json_string_value(json_object_get(j, "kind"));
    const char *seed = json_string_value(json_object_get(j, "seed"));
    json_t *mine = settings_json(s);
    int same = kind && !strcmp(kind, JOURNAL_KIND) && seed &&
               json_equal(mine, json_object_get(j, "settings"));
    json_decref(mine);
    const json_t *arr = json_object_get(j, "cells");
    int rc = 0;
    if (same) {
        s->seed = strtoull(seed, NULL, 16);
        *first_round = (int)json_integer_value(json_object_get(j, "round")) + 1;
        for (size_t i = 0; rc == 0 && i < json_array_size(arr); i++) {
            const json_t *cell = json_array_get(arr, i);
            const char *key = json_string_value(json_object_get(cell, "key"));
            for (size_t k = 0; rc == 0 && key && k < n; k++)
                if (!strcmp(keys[k], key) && !cells[k].resumed)
                    rc = restore(cell, &cells[k], path, err);
        }
    }
    json_decref(j);
    return rc;
}
