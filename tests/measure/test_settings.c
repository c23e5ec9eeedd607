/* The measure stage's settings on their own (measure/settings.h), without
 * a campaign around them: the defaults, which follow the planner table;
 * the ranges measure_settings_validate enforces, named as the options or as
 * campaign.json's keys; and the JSON form, which writes and reads only the
 * measure stage's keys of campaign.json's settings object. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "measure/plan.h"
#include "measure/planners.h"
#include "measure/settings.h"

static void test_defaults(void **state)
{
    (void)state;
    measure_settings s;
    memset(&s, 0, sizeof s);
    measure_settings_resolve(&s);
    assert_string_equal(s.planner, SETTINGS_DEFAULT_PLANNER);
    assert_string_equal(s.planner, plan_planners[0].name); /* the table's first */
    assert_int_equal(s.n_sizes, 8);
    assert_int_equal(s.sizes[0], 32);
    assert_int_equal(s.sizes[7], 65536);
    assert_true(s.target_ci == 0.5);
    assert_true(s.budget_s == 0); /* the budget rule */
    assert_int_equal(s.trials, SETTINGS_INTERLEAVED_MIN_TRIALS);
    /* every planner's minimum is its row's; an unknown name gets the
     * reference campaign's */
    for (size_t i = 0; i < plan_n_planners; i++)
        assert_int_equal(settings_default_min_trials(plan_planners[i].name),
                         plan_planners[i].min_trials);
    assert_int_equal(settings_default_min_trials("reference"), SETTINGS_REFERENCE_TRIALS);
    assert_int_equal(settings_default_min_trials("interleaved"),
                     SETTINGS_INTERLEAVED_MIN_TRIALS);
    assert_int_equal(settings_default_min_trials("fast"), SETTINGS_REFERENCE_TRIALS);
    assert_true(settings_planner_known("adaptive"));
    assert_false(settings_planner_known("fast"));
    /* given fields stay; the trials follow the planner given */
    memset(&s, 0, sizeof s);
    snprintf(s.planner, sizeof s.planner, "adaptive");
    s.sizes[0] = 100;
    s.n_sizes = 1;
    s.budget_s = 2;
    measure_settings_resolve(&s);
    assert_int_equal(s.trials, SETTINGS_REFERENCE_TRIALS);
    assert_int_equal(s.n_sizes, 1);
    assert_int_equal(s.sizes[0], 100);
    assert_true(s.budget_s == 2);
    hb_err err;
    assert_int_equal(measure_settings_validate(&s, NULL, NULL, &err), 0);
}

/* S must be refused: from campaign.json naming the file, KEY and the fix;
 * as options naming OPTION. */
static void refused(const measure_settings *s, const char *key, const char *option)
{
    hb_err err;
    assert_int_equal(measure_settings_validate(s, "D/campaign.json", "fix it", &err), -1);
    char want[96];
    snprintf(want, sizeof want, "D/campaign.json: setting %s '", key);
    if (!strstr(err.msg, want) || !strstr(err.msg, "is not accepted: give ") ||
        !strstr(err.msg, "; fix it"))
        fail_msg("message does not name %s, the file and the fix: %s", key, err.msg);
    assert_int_equal(measure_settings_validate(s, NULL, NULL, &err), -1);
    snprintf(want, sizeof want, "%s '", option);
    if (strncmp(err.msg, want, strlen(want)) != 0 || strchr(err.msg, ';'))
        fail_msg("message does not start with %s: %s", option, err.msg);
}

static void test_validate_ranges(void **state)
{
    (void)state;
    measure_settings ok, s;
    hb_err err;
    memset(&ok, 0, sizeof ok);
    assert_int_equal(measure_settings_validate(&ok, NULL, NULL, &err), 0);
    s = ok;
    snprintf(s.planner, sizeof s.planner, "fast");
    refused(&s, "planner", "--plan");
    s = ok;
    s.n_sizes = MEASURE_MAX_SIZES + 1;
    refused(&s, "sizes", "--sizes");
    s = ok;
    s.n_sizes = 2;
    s.sizes[0] = 32;
    s.sizes[1] = 0;
    refused(&s, "sizes", "--sizes");
    s.sizes[1] = SETTINGS_MAX_SIZE_BYTES;
    assert_int_equal(measure_settings_validate(&s, NULL, NULL, &err), 0);
    s = ok;
    s.trials = SETTINGS_TRIALS_MIN - 1;
    refused(&s, "trials", "--trials");
    s.trials = SETTINGS_TRIALS_MAX + 1;
    refused(&s, "trials", "--trials");
    s.trials = SETTINGS_TRIALS_MAX;
    assert_int_equal(measure_settings_validate(&s, NULL, NULL, &err), 0);
    s = ok;
    s.target_ci = SETTINGS_TARGET_CI_MAX * 2;
    refused(&s, "target_ci_percent", "--target-ci");
    s = ok;
    s.budget_s = SETTINGS_BUDGET_MAX_S + 1;
    refused(&s, "budget_s", "--budget");
    s.budget_s = SETTINGS_BUDGET_MIN_S;
    assert_int_equal(measure_settings_validate(&s, NULL, NULL, &err), 0);
}

static void test_json(void **state)
{
    (void)state;
    measure_settings s, back;
    memset(&s, 0, sizeof s);
    measure_settings_resolve(&s);
    s.budget_s = 0.25;
    json_t *o = json_object();
    measure_settings_json(&s, o);
    char *text = json_dumps(o, JSON_COMPACT);
    /* only the measure stage's keys, in campaign.json's order */
    assert_string_equal(text,
        "{\"planner\":\"interleaved\",\"sizes\":[32,128,512,1024,4096,8192,16384,65536],"
        "\"target_ci_percent\":0.5,\"budget_s\":0.25,\"trials\":32}");
    free(text);
    hb_err err;
    assert_int_equal(measure_settings_from_json(o, "D/campaign.json", &back, &err), 0);
    assert_memory_equal(&s, &back, sizeof s);
    /* the campaign's keys beside them are not the stage's: ignored */
    json_object_set_new(o, "profile", json_integer(3));
    json_object_set_new(o, "shard", json_string("no shard"));
    assert_int_equal(measure_settings_from_json(o, "D/campaign.json", &back, &err), 0);
    assert_memory_equal(&s, &back, sizeof s);
    json_decref(o);
    /* null or missing: not given */
    assert_int_equal(measure_settings_from_json(NULL, "D/campaign.json", &back, &err), 0);
    assert_int_equal(back.n_sizes, 0);
    o = json_pack("{s:n, s:i}", "planner", "trials", 9);
    assert_int_equal(measure_settings_from_json(o, "D/campaign.json", &back, &err), 0);
    assert_string_equal(back.planner, "");
    assert_int_equal(back.trials, 9);
    json_decref(o);
    /* a wrong type names the file and the key */
    static const char *const wrong[][2] = {
        {"{\"planner\": 1}", "'planner' is not a string"},
        {"{\"planner\": \"a-name-longer-than-any-planner-name\"}",
         "'planner' is not a known name"},
        {"{\"sizes\": []}", "'sizes' is not a list of 1 to 32"},
        {"{\"sizes\": [0]}", "'sizes' is not a list of byte counts"},
        {"{\"target_ci_percent\": 0}", "'target_ci_percent' is not a positive number"},
        {"{\"budget_s\": \"1\"}", "'budget_s' is not a positive number of seconds"},
        {"{\"trials\": 1001}", "'trials' is not a whole number of trials"},
        {"7", "'settings' is not an object"},
    };
    for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
        o = json_loads(wrong[i][0], JSON_DECODE_ANY, NULL);
        assert_non_null(o);
        assert_int_equal(measure_settings_from_json(o, "D/campaign.json", &back, &err), -1);
        if (!strstr(err.msg, "D/campaign.json: setting ") || !strstr(err.msg, wrong[i][1]) ||
            !strstr(err.msg, "or start a new --run-dir"))
            fail_msg("%s: unexpected message: %s", wrong[i][0], err.msg);
        json_decref(o);
    }
}

/* Every row of the planner table holds its behaviour: a run and a cost
 * (positive, finite: the shard split divides by it), a grouping the stage
 * knows, and a trial rule wherever a budget applies to a cell's trials;
 * a name the table lacks is taken as the adaptive planner. */
static void test_planner_rows(void **state)
{
    (void)state;
    for (size_t i = 0; i < plan_n_planners; i++) {
        const plan_planner *p = &plan_planners[i];
        assert_non_null(p->run);
        assert_non_null(p->cell_cost_s);
        plan_settings s = {.planner = p->name, .host_rate_hz = 1e9};
        double cost = p->cell_cost_s(&s, 1000.0, 0.005);
        assert_true(isfinite(cost) && cost > 0);
        assert_true(p->pairs == 0 || p->pairs == 1 || p->pairs == PLAN_MAX_PAIRS);
        assert_true(!p->budgeted || p->rule);
        assert_ptr_equal(plan_planner_of(&s), p);
        if (p->rule)
            assert_ptr_equal(plan_rule_of(&s), p->rule);
    }
    plan_settings unknown = {.planner = "fast"};
    assert_ptr_equal(plan_planner_of(&unknown), plan_planner_find("adaptive"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_planner_rows),
        cmocka_unit_test(test_validate_ranges),
        cmocka_unit_test(test_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
