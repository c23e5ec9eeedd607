/* The shared options' parsers (src/cli/options.h): one range for --cpu (a
 * CPU index below CPU_SETSIZE), --jobs and --timeout, and the planning
 * settings' options checked against campaign/settings.h and
 * measure/settings.h. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/options.h"

static void test_cpu(void **state)
{
    (void)state;
    static const char *const bad[] = {"4096", "1024", "-1", "1.5", "abc", "", " 1",
                                      "+1", "1e2", "0x1", "99999999999999999999"};
    hb_err err;
    int cpu = 7;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (hb_opt_cpu(bad[i], &cpu, &err) != -1)
            fail_msg("--cpu '%s' accepted", bad[i]);
        assert_non_null(strstr(err.msg, "--cpu"));
        assert_non_null(strstr(err.msg, "CPU index"));
        assert_int_equal(cpu, 7);
    }
    assert_int_equal(hb_opt_cpu("0", &cpu, &err), 0);
    assert_int_equal(cpu, 0);
    /* the last CPU of the affinity mask is accepted, one past it refused
     * naming the CPUs this process may use */
    cpu_set_t mine;
    assert_int_equal(sched_getaffinity(0, sizeof mine, &mine), 0);
    int top = 0;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &mine))
            top = c;
    char last[16];
    snprintf(last, sizeof last, "%d", top);
    assert_int_equal(hb_opt_cpu(last, &cpu, &err), 0);
    assert_int_equal(cpu, top);
    assert_int_equal(hb_opt_default_cpu(), top);
    if (top + 1 < CPU_SETSIZE) {
        snprintf(last, sizeof last, "%d", top + 1);
        assert_int_equal(hb_opt_cpu(last, &cpu, &err), -1);
        assert_non_null(strstr(err.msg, "not a CPU this process may run on"));
        assert_int_equal(cpu, top);
    }
}

static void test_jobs_timeout(void **state)
{
    (void)state;
    hb_err err;
    int jobs = 0;
    double t = 0;
    assert_int_equal(hb_opt_jobs("--jobs", "0", &jobs, &err), -1);
    assert_non_null(strstr(err.msg, "--jobs '0'"));
    assert_int_equal(hb_opt_jobs("-j", "1025", &jobs, &err), -1);
    assert_non_null(strstr(err.msg, "-j '1025'"));
    assert_int_equal(hb_opt_jobs("--jobs", "2.5", &jobs, &err), -1);
    assert_int_equal(hb_opt_jobs("--jobs", "1024", &jobs, &err), 0);
    assert_int_equal(jobs, 1024);
    assert_int_equal(hb_opt_timeout("0", &t, &err), -1);
    assert_non_null(strstr(err.msg, "--timeout"));
    assert_int_equal(hb_opt_timeout("abc", &t, &err), -1);
    assert_int_equal(hb_opt_timeout("2.5", &t, &err), 0);
    assert_true(t == 2.5);
}

static void test_settings_options(void **state)
{
    (void)state;
    campaign_settings s;
    memset(&s, 0, sizeof s);
    hb_err err;
    assert_int_equal(hb_opt_setting(HB_OPT_PLAN, "fast", &s, &err), -1);
    assert_non_null(strstr(err.msg, "--plan 'fast'"));
    assert_string_equal(s.measure.planner, "");
    assert_int_equal(hb_opt_setting(HB_OPT_PLAN, "reference", &s, &err), 0);
    assert_string_equal(s.measure.planner, "reference");
    assert_int_equal(hb_opt_setting(HB_OPT_PROFILE, "turbo", &s, &err), -1);
    assert_non_null(strstr(err.msg, "--profile 'turbo'"));
    assert_int_equal(hb_opt_setting(HB_OPT_SIZES, "32,x", &s, &err), -1);
    assert_non_null(strstr(err.msg, "--sizes"));
    assert_int_equal(hb_opt_setting(HB_OPT_SIZES, "0", &s, &err), -1);
    assert_int_equal(hb_opt_setting(HB_OPT_SIZES, "32,4096", &s, &err), 0);
    assert_int_equal(s.measure.n_sizes, 2);
    assert_int_equal(s.measure.sizes[1], 4096);
    assert_int_equal(hb_opt_setting(HB_OPT_TRIALS, "1", &s, &err), -1);
    assert_non_null(strstr(err.msg, "--trials '1'"));
    assert_int_equal(hb_opt_setting(HB_OPT_TRIALS, "2", &s, &err), 0);
    assert_int_equal(s.measure.trials, 2);
    assert_int_equal(hb_opt_setting(HB_OPT_TARGET_CI, "0", &s, &err), -1);
    assert_non_null(strstr(err.msg, "--target-ci"));
    assert_int_equal(hb_opt_setting(HB_OPT_TARGET_CI, "5", &s, &err), 0);
    assert_int_equal(hb_opt_setting(HB_OPT_BUDGET, "-1", &s, &err), -1);
    assert_non_null(strstr(err.msg, "--budget"));
    assert_int_equal(hb_opt_setting(HB_OPT_BUDGET, "0.3", &s, &err), 0);
    assert_true(s.measure.budget_s == 0.3 && s.measure.target_ci == 5);
    assert_int_equal(hb_opt_setting(HB_OPT_SHARD, "3/2", &s, &err), -1);
    assert_non_null(strstr(err.msg, "--shard"));
    assert_int_equal(hb_opt_setting(HB_OPT_SHARD, "1/2", &s, &err), 0);
    assert_int_equal(s.shard.n, 2);
}

/* getopt_long's errors name the option. */
static void test_getopt_errors(void **state)
{
    (void)state;
    static const struct option longopts[] = {HB_OPTION_CPU, HB_OPTIONS_END};
    char a0[] = "check", a1[] = "--bogus", a2[] = "--cpu";
    char *argv1[] = {a0, a1, NULL};
    char *argv2[] = {a0, a2, NULL};
    hb_err err;
    hb_opt_start();
    int ch = getopt_long(2, argv1, ":", longopts, NULL);
    assert_int_equal(hb_opt_getopt_error(ch, argv1, &err), -1);
    assert_non_null(strstr(err.msg, "unknown option '--bogus'"));
    hb_opt_start();
    ch = getopt_long(2, argv2, ":", longopts, NULL);
    assert_int_equal(ch, ':');
    assert_int_equal(hb_opt_getopt_error(ch, argv2, &err), -1);
    assert_non_null(strstr(err.msg, "--cpu needs a value"));
}

/* --instances of kat, ct and count: names split at commas, empty ones
 * skipped; a list naming nothing refused. */
static void test_instances(void **state)
{
    (void)state;
    hb_err err;
    const char **names = NULL;
    int n = -1;
    char list[] = "SM3,,SHA2/SHA256,";
    assert_int_equal(hb_opt_instances(list, &names, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_string_equal(names[0], "SM3");
    assert_string_equal(names[1], "SHA2/SHA256");
    free(names);
    char none[] = ",,";
    assert_int_equal(hb_opt_instances(none, &names, &n, &err), -1);
    assert_null(names);
    assert_string_equal(err.msg, "--instances: give Inst or Cand/Inst names");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpu),
        cmocka_unit_test(test_jobs_timeout),
        cmocka_unit_test(test_settings_options),
        cmocka_unit_test(test_getopt_errors),
        cmocka_unit_test(test_instances),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
