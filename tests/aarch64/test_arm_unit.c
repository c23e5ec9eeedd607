/* The AArch64 facts that need no emulator: the build profiles chosen by the
 * compiler's target triple (the ARM guide's flags, word for word), and the
 * AArch64 rule of `hashbench check` on captured procfs/sysfs texts
 * (tests/aarch64/data): on AArch64 the scaling minimum and maximum frequency
 * must be equal, whatever the governor says. arm_perf_governor is a
 * Neoverse-N1 host whose two cores both run the performance governor, core 0
 * with scaling 1-3 GHz and core 1 pinned at 3 GHz; arm_vm is an AArch64
 * guest without cpufreq. The x86-64 capture of tests/host/data/intel_fixed
 * (performance governor, scaling 1-2.1 GHz) shows that the same frequency
 * range passes on x86-64, where the performance governor suffices. The
 * counter, pinning and steadiness facts come from the live machine in
 * `hashbench check`; here the test sets them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "compile/profile.h"
#include "measure/hostcheck.h"

/* The guides' flag sets (SPEC 2, the ARM guide), plus -fPIC -shared. */
#define ARM_PERF "-O3 -march=armv8.2-a+sve -flto -fomit-frame-pointer " \
                 "-std=c99 -Wpedantic -Wall -Wextra -fPIC -shared"
#define ARM_RES "-Os -march=armv8-a -flto -fomit-frame-pointer " \
                "-std=c99 -Wpedantic -Wall -Wextra -fPIC -shared"
#define X86_PERF "-O3 -march=x86-64 -mavx2 -mtune=native -flto " \
                 "-fomit-frame-pointer -std=c99 -Wpedantic -Wall -Wextra " \
                 "-fPIC -shared"
#define REF "-std=c99 -Wpedantic -Wall -Wextra -O2 -fPIC -shared"

/* `cc -dumpmachine` of the compilers an evaluator meets. */
static void test_profiles_by_target(void **state)
{
    (void)state;
    static const char *const arm[] = {"aarch64-linux-gnu", "aarch64-unknown-linux-gnu",
                                      "arm64-apple-darwin23"};
    static const char *const other[] = {"x86_64-linux-gnu", "x86_64-pc-linux-gnu",
                                        "arm-linux-gnueabihf", ""};
    for (size_t i = 0; i < sizeof arm / sizeof arm[0]; i++) {
        int a = profile_target_is_aarch64(arm[i]);
        assert_true(a);
        assert_string_equal(profile_flags("performance", a), ARM_PERF);
        assert_string_equal(profile_flags("resource", a), ARM_RES);
        assert_string_equal(profile_flags("reference", a), REF);
    }
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
        int a = profile_target_is_aarch64(other[i]);
        assert_false(a);
        assert_string_equal(profile_flags("performance", a), X86_PERF);
        assert_string_equal(profile_flags("reference", a), REF);
    }
    assert_false(profile_target_is_aarch64(NULL));
}

static void facts_for(const char *rel, int cpu, check_facts *f)
{
    char root[4096];
    hb_err err;
    memset(f, 0, sizeof *f);
    snprintf(root, sizeof root, "%s/tests/%s", HB_SOURCE_DIR, rel);
    if (host_read(root, cpu, &f->host, &err) != 0)
        fail_msg("%s", err.msg);
    f->cpu = cpu;
    f->counter = COUNTER_PERF_CYCLES;
    f->pin_tested = f->pin_ok = 1;
    snprintf(f->pin_detail, sizeof f->pin_detail, "pinned to CPU %d", cpu);
    f->steady_tested = 1;
    f->rate_hz = 3e9;
    f->spread_percent = 0.05;
    f->work_tested = 1;
    f->work_spread_percent = 1.0;
}

static const check_item *judge_item(const check_facts *f, const char *name,
                                    int *problems)
{
    static check_item items[CHECK_MAX_ITEMS];
    int n;
    *problems = check_judge(f, items, &n);
    for (int i = 0; i < n; i++)
        if (strcmp(items[i].item, name) == 0)
            return &items[i];
    fail_msg("no check item '%s'", name);
    return NULL;
}

/* Core 0: performance governor, min 1 GHz < max 3 GHz: refused on AArch64,
 * with the cpupower line that pins it at its maximum. */
static void test_performance_governor_is_not_enough(void **state)
{
    (void)state;
    check_facts f;
    int problems;
    facts_for("aarch64/data/arm_perf_governor", 0, &f);
    assert_string_equal(f.host.arch, "aarch64"); /* from CPU implementer */
    assert_string_equal(f.host.governor, "performance");
    assert_int_equal(f.host.scaling_min_khz, 1000000);
    assert_int_equal(f.host.scaling_max_khz, 3000000);
    assert_int_equal(f.host.turbo, 0); /* cpufreq/boost = 0 */
    const check_item *g = judge_item(&f, "governor", &problems);
    assert_false(g->ok);
    assert_non_null(strstr(g->detail, "1000000"));
    assert_non_null(strstr(g->detail, "3000000"));
    assert_non_null(strstr(g->detail, "AArch64"));
    assert_non_null(strstr(g->fix, "frequency-set -d 3000000kHz -u 3000000kHz"));
    assert_int_equal(problems, 1); /* everything else on this host is fit */
}

/* Core 1 of the same host: min = max = 3 GHz: fit. */
static void test_min_equal_max_is_fit(void **state)
{
    (void)state;
    check_facts f;
    int problems;
    facts_for("aarch64/data/arm_perf_governor", 1, &f);
    assert_int_equal(f.host.scaling_min_khz, 3000000);
    assert_int_equal(f.host.scaling_max_khz, 3000000);
    const check_item *g = judge_item(&f, "governor", &problems);
    assert_true(g->ok);
    assert_non_null(strstr(g->detail, "min = max = 3000000 kHz"));
    assert_int_equal(problems, 0);
}

/* The same range (min < max, performance governor) on the x86-64 capture
 * passes: the min = max rule is AArch64's. */
static void test_x86_performance_governor_suffices(void **state)
{
    (void)state;
    check_facts f;
    int problems;
    facts_for("host/data/intel_fixed", 0, &f);
    assert_string_equal(f.host.arch, "x86_64");
    assert_true(f.host.scaling_min_khz < f.host.scaling_max_khz);
    assert_string_equal(f.host.governor, "performance");
    assert_true(judge_item(&f, "governor", &problems)->ok);
}

/* An AArch64 guest without cpufreq: the frequency cannot be read, and the
 * fix asks for a host where min = max can be set. */
static void test_arm_without_cpufreq(void **state)
{
    (void)state;
    check_facts f;
    int problems;
    facts_for("aarch64/data/arm_vm", 0, &f);
    assert_string_equal(f.host.arch, "aarch64");
    assert_int_equal(f.host.scaling_min_khz, -1);
    const check_item *g = judge_item(&f, "governor", &problems);
    assert_false(g->ok);
    assert_non_null(strstr(g->detail, "no cpufreq for CPU 0"));
    assert_non_null(strstr(g->fix, "min = max"));
    assert_null(strstr(g->fix, "-g performance"));
}

/* On AArch64 without perf, the counter is cntvct_el0 and the verdict calls
 * its figures ticks, not cycles. */
static void test_cntvct_named_as_timer(void **state)
{
    (void)state;
    check_facts f;
    int problems;
    facts_for("aarch64/data/arm_perf_governor", 1, &f);
    f.counter = COUNTER_CNTVCT;
    f.rate_hz = 25e6;
    snprintf(f.counter_reason, sizeof f.counter_reason,
             "perf_event_open: not supported (ENOENT), falling back to cntvct_el0");
    const check_item *c = judge_item(&f, "counter", &problems);
    assert_false(c->ok);
    assert_non_null(strstr(c->detail, "cntvct_el0 ticks, not core cycles"));
    json_t *j = check_counter_json(&f);
    assert_string_equal(json_string_value(json_object_get(j, "name")), "cntvct_el0");
    assert_true(json_is_false(json_object_get(j, "is_cycles")));
    json_decref(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_profiles_by_target),
        cmocka_unit_test(test_performance_governor_is_not_enough),
        cmocka_unit_test(test_min_equal_max_is_fit),
        cmocka_unit_test(test_x86_performance_governor_suffices),
        cmocka_unit_test(test_arm_without_cpufreq),
        cmocka_unit_test(test_cntvct_named_as_timer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
