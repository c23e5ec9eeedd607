/* The planners' rules on hand-computed cases, the disturbed-trial rule, and
 * plan_execute on the plain fixture: with the host's real counter rate no
 * trial is disturbed; with a rate twice too high every trial is, each is
 * re-run at most twice, all are kept and counted, and the outcome fails
 * with a reason instead of looping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "measure/counter.h"
#include "measure/plan.h"
#include "measure_fixture.h"

static char probe[4096], build_dir[4096];

static void test_rules(void **state)
{
    (void)state;
    /* min(20000, max(ceil(1 s / t1), 20)) */
    assert_int_equal(plan_reference_calls(1e6), 1000);
    assert_int_equal(plan_reference_calls(3e7), 34);
    assert_int_equal(plan_reference_calls(10), 20000);
    assert_int_equal(plan_reference_calls(1e8), 20);
    /* adaptive: >= 20 ms, >= 1e5 ticks, >= 100/min_trials calls */
    assert_int_equal(plan_adaptive_calls(1000, 2.5e9, 5), 20000);
    assert_int_equal(plan_adaptive_calls(1000, 1e6, 5), 100000);
    assert_int_equal(plan_adaptive_calls(1e9, 2.5e9, 5), 20);
    assert_int_equal(plan_adaptive_calls(1e9, 2.5e9, 8), 13);
    assert_int_equal(plan_warmup_calls(1000), 5000);
    assert_int_equal(plan_warmup_calls(1e9), 10);
    assert_int_equal(plan_warmup_calls(1), 10000);
    assert_true(plan_is_disturbed(1.06e9, 1e9));
    assert_true(plan_is_disturbed(0.94e9, 1e9));
    assert_false(plan_is_disturbed(1.04e9, 1e9));
    assert_false(plan_is_disturbed(0.96e9, 1e9));
}

static void request(trial_request *rq)
{
    memset(rq, 0, sizeof *rq);
    rq->probe_path = probe;
    rq->run_dir = build_dir;
    rq->lib = "libmfix_plain.so";
    rq->size = 256;
    rq->cpu = -1;
    rq->counter = counter_arch_kind();
    rq->digest_bits = 256;
}

static void test_undisturbed(void **state)
{
    (void)state;
    double rate;
    hb_err err;
    assert_int_equal(counter_measure_rate(counter_arch_kind(), 0.05, &rate, &err), 0);
    plan_settings s = {"reference", 3, 0.5, 1, 2, 10, rate};
    trial_request rq;
    request(&rq);
    plan_outcome o;
    assert_int_equal(plan_execute(&s, &rq, &o, &err), 0);
    assert_true(o.ok);
    assert_true(o.calib_calls > 1);
    /* a fixed-rate counter matches itself: nothing disturbed */
    if (counter_arch_kind() != COUNTER_PERF_CYCLES) {
        assert_int_equal(o.n_trials, 3);
        assert_int_equal(o.disturbed_retries, 0);
    }
    for (size_t i = 0; i < o.n_trials; i++)
        assert_int_equal(o.trials[i].r.calls, o.calls_per_trial);
    plan_outcome_free(&o);
}

static void test_all_disturbed(void **state)
{
    (void)state;
    double rate;
    hb_err err;
    assert_int_equal(counter_measure_rate(counter_arch_kind(), 0.05, &rate, &err), 0);
    plan_settings s = {"reference", 2, 0.5, 1, 2, 10, rate * 2};
    trial_request rq;
    request(&rq);
    plan_outcome o;
    assert_int_equal(plan_execute(&s, &rq, &o, &err), 0);
    assert_false(o.ok);
    assert_non_null(strstr(o.failure, "disturbed"));
    assert_int_equal(o.n_trials, 6);       /* 2 trials, each tried 3 times */
    assert_int_equal(o.disturbed_retries, 4);
    for (size_t i = 0; i < o.n_trials; i++)
        assert_true(o.trials[i].disturbed);
    plan_outcome_free(&o);
}

int main(void)
{
    if (fixture_env(build_dir, sizeof build_dir, probe, sizeof probe) != 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_undisturbed),
        cmocka_unit_test(test_all_disturbed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
