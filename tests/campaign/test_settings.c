/* The planning settings of a campaign (campaign/settings.h, around the
 * measure stage's of measure/settings.h): their defaults, the ranges
 * settings_validate enforces, their JSON form (campaign.json's, unchanged
 * since the measure stage's part moved into measure/), and a campaign.json
 * whose settings are out of range refused by campaign_run, naming the
 * file, before anything is written. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "campaign/campaign.h"
#include "campaign/costs.h"
#include "campaign/settings.h"
#include "common/fs.h"
#include "common/json.h"

static void test_defaults(void **state)
{
    (void)state;
    campaign_settings s;
    memset(&s, 0, sizeof s);
    settings_resolve(&s);
    assert_string_equal(s.measure.planner, "interleaved");
    assert_string_equal(s.profile, "reference");
    assert_int_equal(s.plain_shared, -1); /* hashbench's additions to the flags */
    assert_int_equal(s.measure.n_sizes, 8);
    assert_int_equal(s.measure.sizes[0], 32);
    assert_int_equal(s.measure.sizes[7], 65536);
    assert_true(s.measure.target_ci == 0.5);
    assert_true(s.measure.budget_s == 0); /* the budget rule */
    assert_int_equal(s.measure.trials, 32); /* the interleaved planner's minimum */
    assert_int_equal(s.shard.k, 1);
    assert_int_equal(s.shard.n, 1);
    assert_int_equal(settings_default_min_trials("reference"), 5);
    assert_int_equal(settings_default_min_trials("adaptive"), 5);
    assert_int_equal(settings_default_min_trials("interleaved"), 32);
    /* given fields stay */
    memset(&s, 0, sizeof s);
    snprintf(s.measure.planner, sizeof s.measure.planner, "reference");
    s.measure.target_ci = 2;
    s.measure.budget_s = 3;
    s.measure.sizes[0] = 64;
    s.measure.n_sizes = 1;
    settings_resolve(&s);
    assert_int_equal(s.measure.trials, 5);
    assert_true(s.measure.target_ci == 2 && s.measure.budget_s == 3);
    assert_int_equal(s.measure.n_sizes, 1);
    assert_int_equal(s.measure.sizes[0], 64);
    /* the resolved settings are valid */
    hb_err err;
    assert_int_equal(settings_validate(&s, NULL, NULL, &err), 0);
}

/* S with one field broken by BREAK must be refused naming WHAT. */
static void refused(const campaign_settings *s, const char *what)
{
    hb_err err;
    assert_int_equal(settings_validate(s, "D/campaign.json", "fix it", &err), -1);
    if (!strstr(err.msg, what) || !strstr(err.msg, "D/campaign.json") ||
        !strstr(err.msg, "fix it"))
        fail_msg("message does not name %s, the file and the fix: %s", what, err.msg);
}

static void test_validate_ranges(void **state)
{
    (void)state;
    campaign_settings ok, s;
    hb_err err;
    memset(&ok, 0, sizeof ok);
    assert_int_equal(settings_validate(&ok, NULL, NULL, &err), 0); /* nothing given */
    s = ok;
    snprintf(s.measure.planner, sizeof s.measure.planner, "fast");
    refused(&s, "planner 'fast'");
    s = ok;
    snprintf(s.profile, sizeof s.profile, "turbo");
    refused(&s, "profile 'turbo'");
    s = ok;
    s.measure.n_sizes = 1;
    s.measure.sizes[0] = (1u << 30) + 1;
    refused(&s, "sizes");
    s = ok;
    s.measure.trials = 1;
    refused(&s, "trials '1'");
    s.measure.trials = 1001;
    refused(&s, "trials '1001'");
    s.measure.trials = 2;
    assert_int_equal(settings_validate(&s, NULL, NULL, &err), 0);
    s = ok;
    s.measure.target_ci = 101;
    refused(&s, "target_ci_percent");
    s = ok;
    s.measure.budget_s = -1;
    refused(&s, "budget_s");
    s = ok;
    s.instance_budget_s = 0.5;
    refused(&s, "instance_budget_s '0.5'");
    s.instance_budget_s = 1;
    assert_int_equal(settings_validate(&s, NULL, NULL, &err), 0);
    s = ok;
    s.shard.k = 3;
    s.shard.n = 2;
    refused(&s, "shard '3/2'");
    /* without an origin the options are named as the command line spells them */
    s = ok;
    snprintf(s.measure.planner, sizeof s.measure.planner, "fast");
    assert_int_equal(settings_validate(&s, NULL, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "--plan 'fast'"));
    assert_non_null(strstr(err.msg, "interleaved, interleaved-processes, adaptive or reference"));
}

static void test_json_round_trip(void **state)
{
    (void)state;
    campaign_settings s, back;
    memset(&s, 0, sizeof s);
    settings_resolve(&s);
    s.measure.budget_s = 0.3;
    s.plain_shared = 1; /* run --plain-shared */
    json_t *j = campaign_settings_json(&s);
    assert_true(json_is_true(json_object_get(j, "plain_shared")));
    hb_err err;
    assert_int_equal(settings_from_json(j, "D/campaign.json", &back, &err), 0);
    assert_memory_equal(&s, &back, sizeof s);
    json_decref(j);
    /* a field of the wrong type names the file and the field */
    j = json_pack("{s:s, s:s}", "planner", "adaptive", "sizes", "64");
    assert_int_equal(settings_from_json(j, "D/campaign.json", &back, &err), -1);
    assert_non_null(strstr(err.msg, "D/campaign.json"));
    assert_non_null(strstr(err.msg, "'sizes'"));
    json_decref(j);
}

/* campaign.json's settings object is one flat object, its keys in the
 * order every version wrote them: a run directory made before and after
 * the measure stage's settings moved into measure/ holds the same text. */
static void test_json_format(void **state)
{
    (void)state;
    campaign_settings s;
    memset(&s, 0, sizeof s);
    settings_resolve(&s);
    s.measure.budget_s = 0.25;
    json_t *j = campaign_settings_json(&s);
    char *text = json_dumps(j, JSON_COMPACT);
    assert_string_equal(text,
        "{\"profile\":\"reference\",\"plain_shared\":false,\"planner\":\"interleaved\","
        "\"sizes\":[32,128,512,1024,4096,8192,16384,65536],"
        "\"target_ci_percent\":0.5,\"budget_s\":0.25,\"trials\":32,"
        "\"shard\":\"1/1\",\"instance_budget_s\":1800.0}");
    free(text);
    json_decref(j);
    /* nothing given: every key present, null */
    memset(&s, 0, sizeof s);
    j = campaign_settings_json(&s);
    text = json_dumps(j, JSON_COMPACT);
    assert_string_equal(text,
        "{\"profile\":null,\"plain_shared\":null,\"planner\":null,\"sizes\":null,"
        "\"target_ci_percent\":null,\"budget_s\":null,\"trials\":null,"
        "\"shard\":null,\"instance_budget_s\":null}");
    free(text);
    json_decref(j);
}

/* The settings of an older campaign.json (no shard, no instance budget)
 * read back into both parts; a wrong type in either part names its key. */
static void test_json_older_and_wrong(void **state)
{
    (void)state;
    hb_err err;
    campaign_settings s;
    json_t *j = json_loads("{\"profile\": \"performance\", \"planner\": \"adaptive\", "
                           "\"sizes\": [64, 4096], \"target_ci_percent\": 1.5, "
                           "\"budget_s\": null, \"trials\": 7}", 0, NULL);
    assert_non_null(j);
    assert_int_equal(settings_from_json(j, "D/campaign.json", &s, &err), 0);
    assert_string_equal(s.profile, "performance");
    assert_string_equal(s.measure.planner, "adaptive");
    assert_int_equal(s.measure.n_sizes, 2);
    assert_int_equal(s.measure.sizes[1], 4096);
    assert_true(s.measure.target_ci == 1.5 && s.measure.budget_s == 0);
    assert_int_equal(s.measure.trials, 7);
    assert_int_equal(s.shard.n, 0);
    assert_true(s.instance_budget_s == 0);
    assert_int_equal(s.plain_shared, 0); /* not given: with the additions */
    json_decref(j);
    static const char *const wrong[][2] = {
        {"{\"profile\": 3}", "'profile' is not a string"},
        {"{\"plain_shared\": 1}", "'plain_shared' is not true or false"},
        {"{\"trials\": \"many\"}", "'trials' is not a whole number"},
        {"{\"instance_budget_s\": -1}", "'instance_budget_s' is not a positive"},
        {"{\"shard\": \"2/1\"}", "'shard' is not a shard K/N"},
        {"[]", "'settings' is not an object"},
    };
    for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
        j = json_loads(wrong[i][0], 0, NULL);
        assert_non_null(j);
        assert_int_equal(settings_from_json(j, "D/campaign.json", &s, &err), -1);
        if (!strstr(err.msg, "D/campaign.json: setting ") || !strstr(err.msg, wrong[i][1]) ||
            !strstr(err.msg, "start a new --run-dir"))
            fail_msg("%s: unexpected message: %s", wrong[i][0], err.msg);
        json_decref(j);
    }
}

/* The cost estimate asks the planner: the interleaved planner's trials come
 * with their paired baseline trials and its larger minimum. */
static void test_costs_follow_planner(void **state)
{
    (void)state;
    measure_settings s;
    memset(&s, 0, sizeof s);
    snprintf(s.planner, sizeof s.planner, "adaptive");
    double adaptive = costs_estimate(&s, 1e5, 2e9);
    snprintf(s.planner, sizeof s.planner, "interleaved");
    double interleaved = costs_estimate(&s, 1e5, 2e9);
    /* 0.1 ms a call: trials of 10 calls; adaptive: the 10 trials 100 calls
     * need; interleaved: its minimum of 16, each paired with a baseline
     * trial */
    assert_true(interleaved > 2.5 * adaptive); /* 32 against 10 trials */
}

static int count_entries(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", dir);
    FILE *p = popen(cmd, "r");
    int n = -1;
    if (p) {
        if (fscanf(p, "%d", &n) != 1)
            n = -1;
        pclose(p);
    }
    return n;
}

static void test_campaign_refuses_stored_settings(void **state)
{
    (void)state;
    char dir[] = "/tmp/hb-settings-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[300], run[300];
    snprintf(path, sizeof path, "%s/campaign.json", dir);
    const char *text = "{\"schema\": 1, \"kind\": \"hashbench-campaign\", "
                       "\"settings\": {\"planner\": \"fast\", \"sizes\": [64]}}\n";
    hb_err err;
    assert_int_equal(hb_write_atomic(path, text, strlen(text), &err), 0);
    const char *pkgs[] = {"/nonexistent-package"};
    campaign_options o;
    memset(&o, 0, sizeof o);
    o.run_dir = dir;
    o.cpu = 0;
    o.packages = pkgs;
    o.n_packages = 1;
    o.host_root = "/";
    campaign_result res;
    assert_int_equal(campaign_run(&o, &res, &err), -1);
    if (!strstr(err.msg, path) || !strstr(err.msg, "planner 'fast'") ||
        !strstr(err.msg, "start a new --run-dir"))
        fail_msg("the refusal does not name %s, the setting and the fix: %s", path,
                 err.msg);
    /* nothing written: campaign.json as it was, nothing beside it */
    char *now = NULL;
    size_t n = 0;
    assert_int_equal(hb_read_file(path, &now, &n, &err), 0);
    assert_string_equal(now, text);
    free(now);
    assert_int_equal(count_entries(dir), 1);

    /* a bad setting given as an option: refused before the run directory is
     * made */
    snprintf(run, sizeof run, "%s/new", dir);
    o.run_dir = run;
    snprintf(o.settings.measure.planner, sizeof o.settings.measure.planner, "fast");
    assert_int_equal(campaign_run(&o, &res, &err), -1);
    assert_non_null(strstr(err.msg, "'fast'"));
    assert_false(hb_is_dir(run));
    assert_int_equal(hb_remove_tree(dir, &err), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_validate_ranges),
        cmocka_unit_test(test_json_round_trip),
        cmocka_unit_test(test_json_format),
        cmocka_unit_test(test_json_older_and_wrong),
        cmocka_unit_test(test_costs_follow_planner),
        cmocka_unit_test(test_campaign_refuses_stored_settings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
