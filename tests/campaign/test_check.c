/* check_judge on the three captured hosts of tests/host/data: the verdicts
 * follow from what those files say (a fixed-clock Intel host and a pinned
 * AArch64 host are fit; the development VM lacks the PMU, cpufreq and a
 * readable SMT state), plus variations that break one fact at a time. The
 * counter, pinning and steadiness facts are set by the test, since they come
 * from the live machine. */
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "measure/hostcheck.h"

static void facts_for(const char *host, check_facts *f)
{
    char root[4096];
    hb_err err;
    memset(f, 0, sizeof *f);
    snprintf(root, sizeof root, "%s/tests/host/data/%s", HB_SOURCE_DIR, host);
    if (host_read(root, 0, &f->host, &err) != 0)
        fail_msg("%s", err.msg);
    f->cpu = 0;
    f->counter = COUNTER_PERF_CYCLES;
    f->pin_tested = f->pin_ok = 1;
    snprintf(f->pin_detail, sizeof f->pin_detail, "pinned to CPU 0");
    f->steady_tested = 1;
    f->rate_hz = 2.1e9;
    f->spread_percent = 0.05;
    f->work_tested = 1;
    f->work_spread_percent = 1.0;
}

static const check_item *find(const check_item *items, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(items[i].item, name) == 0)
            return &items[i];
    fail_msg("no check item '%s'", name);
    return NULL;
}

static int judge(const check_facts *f, check_item *items, int *n)
{
    int problems = check_judge(f, items, n);
    int counted = 0;
    for (int i = 0; i < *n; i++) {
        counted += !items[i].ok;
        /* every problem says how to fix it; every ok needs no fix */
        assert_int_equal(items[i].ok, items[i].fix[0] == '\0');
        assert_true(items[i].detail[0] != '\0');
    }
    assert_int_equal(problems, counted);
    return problems;
}

static void test_intel_fixed_is_fit(void **state)
{
    (void)state;
    check_facts f;
    check_item items[CHECK_MAX_ITEMS];
    int n;
    facts_for("intel_fixed", &f);
    assert_int_equal(judge(&f, items, &n), 0);
    assert_int_equal(n, 9);
    assert_non_null(strstr(find(items, n, "governor")->detail, "performance"));
    assert_non_null(strstr(find(items, n, "turbo")->detail, "no_turbo"));
}

static void test_intel_turbo_on_and_ondemand(void **state)
{
    (void)state;
    check_facts f;
    check_item items[CHECK_MAX_ITEMS];
    int n;
    facts_for("intel_fixed", &f);
    f.host.turbo = 1;
    snprintf(f.host.governor, sizeof f.host.governor, "ondemand");
    f.host.smt = 1;
    assert_int_equal(judge(&f, items, &n), 3);
    assert_non_null(strstr(find(items, n, "turbo")->fix, "intel_pstate/no_turbo"));
    assert_non_null(strstr(find(items, n, "governor")->fix, "performance"));
    assert_non_null(strstr(find(items, n, "smt")->fix, "smt/control"));
}

static void test_arm_pinned_is_fit(void **state)
{
    (void)state;
    check_facts f;
    check_item items[CHECK_MAX_ITEMS];
    int n;
    facts_for("arm_pinned", &f);
    assert_int_equal(judge(&f, items, &n), 0);
    assert_non_null(strstr(find(items, n, "governor")->detail, "2600000"));
}

static void test_arm_unpinned_needs_min_equal_max(void **state)
{
    (void)state;
    check_facts f;
    check_item items[CHECK_MAX_ITEMS];
    int n;
    facts_for("arm_pinned", &f);
    f.host.scaling_min_khz = 1000000;
    snprintf(f.host.governor, sizeof f.host.governor, "performance");
    assert_int_equal(judge(&f, items, &n), 2); /* governor, and turbo unknown */
    const check_item *g = find(items, n, "governor");
    assert_false(g->ok);
    assert_non_null(strstr(g->detail, "AArch64"));
    assert_non_null(strstr(g->fix, "-d 2600000kHz -u 2600000kHz"));
    assert_false(find(items, n, "turbo")->ok);
}

static void test_vm_problems(void **state)
{
    (void)state;
    check_facts f;
    check_item items[CHECK_MAX_ITEMS];
    int n;
    facts_for("vm_epyc", &f);
    f.counter = COUNTER_TSC;
    f.perf_errno = ENOENT;
    snprintf(f.counter_reason, sizeof f.counter_reason,
             "perf_event_open: not supported (ENOENT)");
    int problems = judge(&f, items, &n);
    const check_item *c = find(items, n, "counter");
    assert_false(c->ok);
    assert_non_null(strstr(c->detail, "tsc ticks, not core cycles"));
    assert_non_null(strstr(c->fix, "PMU"));
    assert_false(find(items, n, "governor")->ok);
    assert_non_null(strstr(find(items, n, "governor")->detail, "no cpufreq"));
    assert_false(find(items, n, "turbo")->ok);
    const check_item *smt = find(items, n, "smt");
    assert_false(smt->ok);
    assert_non_null(strstr(smt->detail, "notsupported"));
    assert_true(find(items, n, "perf_event_paranoid")->ok);
    assert_true(find(items, n, "pinning")->ok);
    /* the captured one-minute load average is below 1 */
    assert_true(find(items, n, "load")->ok);
    assert_int_equal(problems, 4);
}

static void test_paranoid_pinning_steadiness_load(void **state)
{
    (void)state;
    check_facts f;
    check_item items[CHECK_MAX_ITEMS];
    int n;
    facts_for("intel_fixed", &f);
    f.host.perf_event_paranoid = 3;
    f.pin_ok = 0;
    f.spread_percent = CHECK_MAX_SPREAD_PERCENT * 3;
    f.host.loadavg1 = CHECK_MAX_LOADAVG + 0.5;
    assert_int_equal(judge(&f, items, &n), 4);
    assert_non_null(strstr(find(items, n, "perf_event_paranoid")->fix,
                           "perf_event_paranoid=2"));
    assert_non_null(strstr(find(items, n, "pinning")->fix, "--cpu"));
    assert_false(find(items, n, "clock_steadiness")->ok);
    assert_false(find(items, n, "load")->ok);
    /* a steady clock with an unsteady throughput (a shared vCPU) */
    f.work_spread_percent = CHECK_MAX_WORK_SPREAD_PERCENT * 4;
    assert_int_equal(judge(&f, items, &n), 5);
    assert_false(find(items, n, "throughput_steadiness")->ok);
    assert_non_null(strstr(find(items, n, "throughput_steadiness")->detail, "20.0%"));
    assert_non_null(strstr(find(items, n, "throughput_steadiness")->fix, "paired ratios"));
    f.work_spread_percent = CHECK_MAX_WORK_SPREAD_PERCENT - 0.1;
    assert_int_equal(judge(&f, items, &n), 4);
    assert_true(find(items, n, "throughput_steadiness")->ok);
    f.steady_tested = 0;
    f.pin_tested = 0;
    f.work_tested = 0;
    check_judge(&f, items, &n);
    assert_non_null(strstr(find(items, n, "throughput_steadiness")->detail, "not measured"));
    assert_non_null(strstr(find(items, n, "clock_steadiness")->detail, "not measured"));
    assert_non_null(strstr(find(items, n, "pinning")->detail, "not tested"));
}

static void test_json_and_live_gather(void **state)
{
    (void)state;
    check_facts f;
    check_item items[CHECK_MAX_ITEMS];
    int n;
    hb_err err;
    assert_int_equal(check_gather("/", 0, &f, &err), 0);
    assert_true(f.pin_tested);
    assert_true(f.pin_ok); /* CPU 0 exists everywhere */
    assert_true(f.work_tested);
    assert_true(f.work_spread_percent >= 0 && isfinite(f.work_spread_percent));
    int problems = check_judge(&f, items, &n);
    json_t *arr = check_items_json(items, n);
    assert_int_equal(json_array_size(arr), (size_t)n);
    int bad = 0;
    for (size_t i = 0; i < json_array_size(arr); i++)
        bad += json_is_false(json_object_get(json_array_get(arr, i), "ok"));
    assert_int_equal(bad, problems);
    json_decref(arr);
}

/* The suite's shortened check (HB_TEST_CHECK_WINDOWS, set for every other
 * test): 2 windows when asked, the full 10 when the value is out of range,
 * and the verdicts say which. */
static const char *window_text(const check_item *items, int n)
{
    const check_item *it = find(items, n, "throughput_steadiness");
    assert_non_null(it);
    return strstr(it->detail, "over 2 windows") ? "2" :
           strstr(it->detail, "over 10 windows") ? "10" : "?";
}

static void test_short_check_windows(void **state)
{
    (void)state;
    const char *values[] = {"2", "1", "50", NULL};
    const char *want[] = {"2", "10", "10"};
    for (int i = 0; values[i]; i++) {
        check_facts f;
        check_item items[CHECK_MAX_ITEMS];
        int n;
        hb_err err;
        setenv("HB_TEST_CHECK_WINDOWS", values[i], 1);
        assert_int_equal(check_gather("/", 0, &f, &err), 0);
        assert_true(f.work_tested);
        check_judge(&f, items, &n);
        assert_string_equal(window_text(items, n), want[i]);
    }
    unsetenv("HB_TEST_CHECK_WINDOWS");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_intel_fixed_is_fit),
        cmocka_unit_test(test_intel_turbo_on_and_ondemand),
        cmocka_unit_test(test_arm_pinned_is_fit),
        cmocka_unit_test(test_arm_unpinned_needs_min_equal_max),
        cmocka_unit_test(test_vm_problems),
        cmocka_unit_test(test_paranoid_pinning_steadiness_load),
        cmocka_unit_test(test_json_and_live_gather),
        cmocka_unit_test(test_short_check_windows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
