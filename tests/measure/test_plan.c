/* The planners' rules on hand-computed cases, the disturbed-trial rules
 * (counter rate, context switches, CPU time short of wall time), the
 * adaptive budget (a tenth of the reference rule's cost unless given),
 * plan_execute driven by a scripted trial runner (so each stopping rule is
 * checked exactly: calibration after warm-up from several calls, the
 * reference rule's trial and call counts, the adaptive planner stopping on
 * its CI target, its trial cap, its explicit and its default time budget,
 * the 100-call floor reached with short trials, re-runs of trials disturbed
 * by the rate or by preemption with their reasons kept, a digest that
 * changes between processes),
 * and plan_execute on the plain fixture through the real probe: with the
 * host's real counter rate no trial is disturbed by the rate rule (on a
 * busy host some may be preempted: they are re-run); with a rate twice too high
 * every trial is, each is re-run at most twice, all are kept and counted,
 * and the outcome fails with a reason instead of looping. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "measure/settings.h"
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
    /* adaptive: >= 1 ms, >= 1e5 ticks, >= 1 call, >= 10 from 10 ms a call */
    assert_int_equal(plan_adaptive_calls(1000, 2.5e9), 1000);
    assert_int_equal(plan_adaptive_calls(1000, 1e6), 100000);
    assert_int_equal(plan_adaptive_calls(3e5, 2.5e9), 4);
    assert_int_equal(plan_adaptive_calls(5e6, 2.5e9), 1);
    /* a slow call gets trials of one call, however slow */
    assert_int_equal(plan_adaptive_calls(2e7, 2.5e9), 1);
    assert_int_equal(plan_adaptive_calls(1e9, 2.5e9), 1);
    assert_int_equal(plan_warmup_calls(1000), 5000);
    assert_int_equal(plan_warmup_calls(1e9), 10);
    assert_int_equal(plan_warmup_calls(1), 10000);
    assert_int_equal(plan_adaptive_warmup_calls(1000), 1000);
    assert_int_equal(plan_adaptive_warmup_calls(1e9), 1);
    assert_int_equal(plan_adaptive_warmup_calls(1), 10000);
    /* reference cost at 1 ms a call: 5 x (1000 + 10) calls = 5.05 s */
    assert_true(fabs(plan_reference_cost_s(1e6, 5) - 5.05) < 1e-9);
    plan_settings b = {.planner = "adaptive", .budget_s = 10};
    assert_true(fabs(plan_adaptive_budget(&b, 1e6, 5) - 0.505) < 1e-9);
    b.budget_s = 0.2; /* an upper bound below the cap */
    assert_true(fabs(plan_adaptive_budget(&b, 1e6, 5) - 0.2) < 1e-12);
    b.budget_s = 0; /* default upper bound: 10 s (reference: 5 x 20010 s) */
    assert_true(fabs(plan_adaptive_budget(&b, 1e9, 5) - SETTINGS_AUTO_BUDGET_MAX_S) < 1e-12);
    b.budget_fraction = 0.5;
    b.budget_s = 10;
    assert_true(fabs(plan_adaptive_budget(&b, 1e6, 5) - 2.525) < 1e-9);
    b.budget_explicit = 1;
    b.budget_s = 3;
    assert_true(fabs(plan_adaptive_budget(&b, 1e6, 5) - 3) < 1e-12);
    b.budget_s = 100; /* explicit: above the reference cost too */
    assert_true(fabs(plan_adaptive_budget(&b, 1e6, 5) - 100) < 1e-12);
    assert_true(plan_is_disturbed(1.06e9, 1e9));
    assert_true(plan_is_disturbed(0.94e9, 1e9));
    assert_false(plan_is_disturbed(1.04e9, 1e9));
    assert_false(plan_is_disturbed(0.96e9, 1e9));
}

static void test_disturbance(void **state)
{
    (void)state;
    trial_result r;
    memset(&r, 0, sizeof r);
    r.ns = 1000000;
    r.ticks = 2000000;
    /* no scheduling figures from the probe: the rate rule alone */
    assert_int_equal(plan_disturbance(&r, 2e9, 2e9), 0);
    assert_int_equal(plan_disturbance(&r, 1e9, 2e9), PLAN_DISTURBED_RATE);
    r.sched_known = 1;
    r.cpu_ns = 1000300; /* read around the loop: a little above wall time */
    assert_int_equal(plan_disturbance(&r, 2e9, 2e9), 0);
    r.ivcsw = 1;
    assert_int_equal(plan_disturbance(&r, 2e9, 2e9), PLAN_DISTURBED_INVOLUNTARY);
    r.ivcsw = 0;
    r.vcsw = 2;
    assert_int_equal(plan_disturbance(&r, 2e9, 2e9), PLAN_DISTURBED_VOLUNTARY);
    r.vcsw = 0;
    /* CPU time short of wall time: 1 % + 2 us is tolerated, more is not */
    r.cpu_ns = 988000;
    assert_int_equal(plan_disturbance(&r, 2e9, 2e9), 0);
    r.cpu_ns = 987000;
    assert_int_equal(plan_disturbance(&r, 2e9, 2e9), PLAN_DISTURBED_CPU_TIME);
    /* a preempted trial on a wall-clock counter: its rate is normal */
    r.cpu_ns = 500000;
    r.ivcsw = 3;
    assert_int_equal(plan_disturbance(&r, 2e9, 2e9),
                     PLAN_DISTURBED_INVOLUNTARY | PLAN_DISTURBED_CPU_TIME);
    assert_int_equal(plan_disturbance(&r, 1e9, 2e9), PLAN_DISTURBED_RATE |
                     PLAN_DISTURBED_INVOLUNTARY | PLAN_DISTURBED_CPU_TIME);
    assert_string_equal(plan_disturbed_reason_name(PLAN_DISTURBED_RATE), "rate");
    assert_string_equal(plan_disturbed_reason_name(PLAN_DISTURBED_INVOLUNTARY),
                        "involuntary_switch");
    assert_string_equal(plan_disturbed_reason_name(PLAN_DISTURBED_VOLUNTARY),
                        "voluntary_switch");
    assert_string_equal(plan_disturbed_reason_name(PLAN_DISTURBED_CPU_TIME), "cpu_time");
    assert_null(plan_disturbed_reason_name(3));
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

/* A scripted probe: every call is one "process" (its own pid) whose trial
 * costs NS_PER_CALL per call, NOISE above or below it (a fixed sign pattern), and
 * ticks at RATE_HZ, or at half of it for the first DISTURB timed trials. */
typedef struct fake_probe {
    double ns_per_call, rate_hz, noise;
    int disturb;            /* timed trials to disturb, from the first */
    int preempt;            /* timed trials switched out, from the first */
    int steal;              /* timed trials with half their wall time as CPU time */
    int sched;              /* 1: report CPU time and switches */
    int digest_change_at;   /* timed trial whose digest differs; -1 none */
    int fail_calibration;
    int calib_outside;      /* calibration trials that break the outside rules
                               (reporting a hundredth of their loop time) */
    int calib_runs;         /* calibration invocations */
    double sleep_s;         /* wall time each timed trial takes */
    int runs, timed;        /* invocations, timed ones */
    trial_request calib;    /* the first calibration request */
    trial_request timed_rq; /* the last timed request */
    long pids[512];
} fake_probe;

static int fake_run(const trial_request *rq, trial_result *r, void *ctx, hb_err *err)
{
    (void)err;
    fake_probe *f = ctx;
    memset(r, 0, sizeof *r);
    long pid = 1000 + f->runs++;
    if (rq->calibrate) {
        if (f->runs == 1)
            f->calib = *rq;
        if (f->fail_calibration) {
            snprintf(r->failure, sizeof r->failure, "LOADFAIL: no CryptHash");
            return 0;
        }
        if (f->calib_runs++ < f->calib_outside) {
            r->ok = 1;
            r->outside_excess = 1;
            r->calls = rq->calls;
            r->ns = (unsigned long long)llround((double)rq->calls * f->ns_per_call / 100);
            r->ticks = (unsigned long long)llround((double)r->ns * f->rate_hz / 1e9);
            r->pid = pid;
            snprintf(r->digest, sizeof r->digest, "ab");
            return 0;
        }
    } else {
        f->timed_rq = *rq;
        if (f->timed < 512)
            f->pids[f->timed] = pid;
        if (f->sleep_s > 0) {
            struct timespec ts = {0, (long)(f->sleep_s * 1e9)};
            nanosleep(&ts, NULL);
        }
    }
    int index = rq->calibrate ? -1 : f->timed++;
    /* the noise's sign from a fixed bit sequence, not alternating: batches of
     * consecutive trials (the interval's, stats.h) must not cancel it */
    static const char signs[] = "+--+-+++--+-++---+-+";
    double sign = index >= 0 && signs[index % 20] == '-' ? -1.0 : 1.0;
    double scale = 1.0 + (index >= 0 ? sign * f->noise : 0.0);
    r->ok = 1;
    r->calls = rq->calls;
    r->ns = (unsigned long long)llround((double)rq->calls * f->ns_per_call * scale);
    double rate = index >= 0 && index < f->disturb ? f->rate_hz / 2 : f->rate_hz;
    r->ticks = (unsigned long long)llround((double)r->ns * rate / 1e9);
    r->pid = pid;
    r->cpu = rq->cpu;
    r->rss_baseline_kb = 100;
    r->rss_peak_kb = 120;
    r->stack_peak_bytes = r->heap_peak_bytes = r->heap_allocs = -1;
    if (f->sched) {
        r->sched_known = 1;
        r->cpu_ns = index >= 0 && index < f->steal ? r->ns / 2 : r->ns;
        r->ivcsw = index >= 0 && index < f->preempt ? 1 : 0;
        r->vcsw = 0;
    }
    snprintf(r->digest, sizeof r->digest, "%s",
             index >= 0 && index == f->digest_change_at ? "cd" : "ab");
    return 0;
}

static void fake_init(fake_probe *f, double ns_per_call)
{
    memset(f, 0, sizeof *f);
    f->ns_per_call = ns_per_call;
    f->rate_hz = 2e9;
    f->digest_change_at = -1;
}

static plan_settings fake_settings(const char *planner, fake_probe *f)
{
    plan_settings s = {.planner = planner, .min_trials = 5, .target_ci_percent = 0.5,
                       .budget_s = 1000, .max_retries = 2, .max_trials = 200,
                       .host_rate_hz = f->rate_hz, .run = fake_run, .run_ctx = f};
    return s;
}

/* plan_execute with S on the standard request; asserts that it succeeded. */
static void execute_ok(const plan_settings *s, plan_outcome *o)
{
    trial_request rq;
    hb_err err;
    request(&rq);
    assert_int_equal(plan_execute(s, &rq, o, &err), 0);
    assert_true(o->ok);
}

static unsigned long long kept_calls(const plan_outcome *o, size_t *kept)
{
    unsigned long long calls = 0;
    *kept = 0;
    for (size_t i = 0; i < o->n_trials; i++)
        if (!o->trials[i].disturbed) {
            calls += o->trials[i].r.calls;
            (*kept)++;
        }
    return calls;
}

/* Every timed trial was its own invocation of the probe. */
static void assert_fresh_processes(const fake_probe *f, const plan_outcome *o)
{
    for (size_t i = 0; i < o->n_trials; i++)
        for (size_t j = 0; j < i; j++)
            assert_true(o->trials[i].r.pid != o->trials[j].r.pid);
    for (size_t i = 0; i < o->n_trials && i < 512; i++)
        assert_int_equal(o->trials[i].r.pid, f->pids[i]);
}

static void test_fake_reference(void **state)
{
    (void)state;
    fake_probe f;
    fake_init(&f, 1e6); /* 1 ms per call */
    f.noise = 0.2;
    plan_settings s = fake_settings("reference", &f);
    plan_outcome o;
    execute_ok(&s, &o);
    /* calibration: timed calls after warm-up, more than one, grown until
     * the timed loop lasts 10 ms (8 calls = 8 ms, then 16) */
    assert_true(f.calib.calibrate);
    assert_true(f.calib.warmup >= 1);
    assert_true(f.calib.calls > 1);
    assert_int_equal(o.calib_calls, 16);
    assert_true(fabs(o.calib_ns_per_call - 1e6) < 1);
    /* the published rule: 5 trials of min(20000, max(ceil(1 s / t1), 20)) */
    assert_int_equal(o.n_trials, 5);
    assert_int_equal(o.calls_per_trial, 1000);
    assert_int_equal(f.timed_rq.calls, 1000);
    assert_false(f.timed_rq.calibrate);
    assert_int_equal(o.warmup_calls, plan_warmup_calls(1e6));
    assert_int_equal(f.timed_rq.warmup, o.warmup_calls);
    assert_false(o.target_reached); /* noisy, and reference ignores the CI */
    assert_int_equal(o.disturbed_retries, 0);
    assert_fresh_processes(&f, &o);
    plan_outcome_free(&o);
}

/* A calibration trial the outside rules do not trust is taken again, so
 * its (understated) loop time never sets the calls; a library whose
 * calibration keeps breaking them gets no figure. */
static void test_calibration_outside_retried(void **state)
{
    (void)state;
    fake_probe f;
    fake_init(&f, 1e6);
    f.calib_outside = 3;
    plan_settings s = fake_settings("reference", &f);
    plan_outcome o;
    execute_ok(&s, &o);
    assert_true(fabs(o.calib_ns_per_call - 1e6) < 1);
    assert_int_equal(o.calls_per_trial, 1000);
    plan_outcome_free(&o);
    fake_init(&f, 1e6);
    f.calib_outside = 4;
    s = fake_settings("reference", &f);
    trial_request rq;
    hb_err err;
    request(&rq);
    assert_int_equal(plan_execute(&s, &rq, &o, &err), 0);
    assert_false(o.ok);
    assert_true(o.inconsistent);
    assert_non_null(strstr(o.failure, "calibration"));
    assert_int_equal(f.timed, 0);
    plan_outcome_free(&o);
}

static void test_fake_adaptive_reaches_target(void **state)
{
    (void)state;
    fake_probe f;
    fake_init(&f, 2000);
    plan_settings s = fake_settings("adaptive", &f);
    plan_outcome o;
    execute_ok(&s, &o);
    /* steady trials: the CI is 0 after the minimum of 5 */
    assert_int_equal(o.n_trials, 5);
    assert_true(o.target_reached);
    /* short trials: 1 ms at 2 us per call */
    assert_int_equal(o.calls_per_trial, plan_adaptive_calls(2000, f.rate_hz));
    assert_int_equal(o.calls_per_trial, 500);
    assert_int_equal(o.warmup_calls, plan_adaptive_warmup_calls(2000));
    assert_fresh_processes(&f, &o);
    plan_outcome_free(&o);
}

static void test_fake_adaptive_trial_cap(void **state)
{
    (void)state;
    fake_probe f;
    fake_init(&f, 2000);
    f.noise = 0.2; /* the CI never gets within 0.5 % */
    plan_settings s = fake_settings("adaptive", &f);
    s.max_trials = 12;
    plan_outcome o;
    execute_ok(&s, &o);
    assert_int_equal(o.n_trials, 12);
    assert_false(o.target_reached);
    plan_outcome_free(&o);
}

static void test_fake_adaptive_budget(void **state)
{
    (void)state;
    fake_probe f;
    fake_init(&f, 2000);
    f.noise = 0.2;
    f.sleep_s = 0.002; /* five trials take at least 10 ms, the budget 1 us */
    plan_settings s = fake_settings("adaptive", &f);
    s.budget_s = 1e-6;
    s.budget_explicit = 1;
    plan_outcome o;
    execute_ok(&s, &o);
    /* the first min_trials processes always run; then an explicit budget
     * holds, floors or not */
    assert_int_equal(o.n_trials, 5);
    assert_int_equal(o.stopped, PLAN_STOP_BUDGET);
    assert_string_equal(plan_stop_name(o.stopped), "budget");
    assert_false(o.target_reached);
    assert_true(o.budget_s == 1e-6);
    assert_true(o.floor_budget_s == 1e-6);
    /* calibration (a 10 ms loop at 2 us: 8, then 512, then 5120 calls) and
     * the five timed trials */
    assert_int_equal(o.processes, 8);
    plan_outcome_free(&o);
}

/* Every trial disturbed, each taking at least 2 ms: the default budget
 * (22.5 ms, see below) ends the cell after at most 12 processes (the old
 * planner waited for 5 kept trials and ran its 600-process cap). */
static void test_fake_budget_all_disturbed(void **state)
{
    (void)state;
    fake_probe f;
    fake_init(&f, 2000);
    f.disturb = 1 << 30;
    f.sleep_s = 0.002;
    plan_settings s = fake_settings("adaptive", &f);
    s.budget_s = 10;
    trial_request rq;
    request(&rq);
    plan_outcome o;
    hb_err err;
    assert_int_equal(plan_execute(&s, &rq, &o, &err), 0);
    assert_false(o.ok);
    assert_false(o.inconsistent);
    assert_int_equal(o.stopped, PLAN_STOP_BUDGET);
    assert_non_null(strstr(o.failure, "every trial was disturbed"));
    assert_non_null(strstr(o.failure, "budget"));
    assert_true(o.n_trials >= 5);
    assert_true(o.n_trials <= 12);
    assert_int_equal(f.timed, (int)o.n_trials);
    plan_outcome_free(&o);
}

/* A slow instance (0.5 ms a call: 2 calls a trial, 50 trials for the
 * 100-call floor) under an explicit 20 ms budget, each trial taking 2 ms:
 * the budget holds before the floors are met, at most 11 processes, and
 * the kept trials are the result. */
static void test_fake_budget_slow(void **state)
{
    (void)state;
    fake_probe f;
    fake_init(&f, 5e5);
    f.sleep_s = 0.002;
    plan_settings s = fake_settings("adaptive", &f);
    s.budget_s = 0.02;
    s.budget_explicit = 1;
    plan_outcome o;
    execute_ok(&s, &o);
    assert_int_equal(o.stopped, PLAN_STOP_BUDGET);
    assert_true(o.n_trials >= 5 && o.n_trials <= 11);
    size_t kept;
    assert_true(kept_calls(&o, &kept) < PLAN_MIN_CALLS);
    assert_false(o.target_reached);
    plan_outcome_free(&o);
}

/* The hard caps: the process cap holds for disturbed trials too (12
 * processes, not 12 kept trials), and the cell's wall-clock cap ends a
 * cell whose budget would let it go on. */
static void test_fake_hard_caps(void **state)
{
    (void)state;
    fake_probe f;
    fake_init(&f, 2000);
    f.noise = 0.2;
    f.disturb = 6; /* the first six timed trials */
    plan_settings s = fake_settings("adaptive", &f);
    s.max_trials = 12;
    s.budget_explicit = 1;
    plan_outcome o;
    execute_ok(&s, &o);
    assert_int_equal(o.n_trials, 12);
    assert_int_equal(o.stopped, PLAN_STOP_PROCESS_CAP);
    plan_outcome_free(&o);

    fake_init(&f, 2000);
    f.noise = 0.2;
    f.sleep_s = 0.01;
    s = fake_settings("adaptive", &f);
    s.budget_explicit = 1; /* 1000 s */
    s.max_cell_s = 0.05;
    execute_ok(&s, &o);
    assert_int_equal(o.stopped, PLAN_STOP_TIME_CAP);
    assert_true(o.n_trials <= 6);
    assert_true(o.elapsed_s < 0.05 + 0.02);
    plan_outcome_free(&o);
}

/* Without --budget the adaptive planner spends at most a tenth of the
 * reference rule's cost: at 2 us a call that rule times 5 x (20000 + 2500)
 * calls = 0.225 s, so the budget is 22.5 ms; each scripted trial sleeps
 * 2 ms, so no more than 12 trials fit (an upper bound the sleeps guarantee,
 * however slow the host). */
static void test_fake_adaptive_default_budget(void **state)
{
    (void)state;
    fake_probe f;
    fake_init(&f, 2000);
    f.noise = 0.2;
    f.sleep_s = 0.002;
    plan_settings s = fake_settings("adaptive", &f);
    s.budget_s = 10;
    plan_outcome o;
    execute_ok(&s, &o);
    assert_true(fabs(o.reference_cost_s - 0.225) < 1e-9);
    assert_true(fabs(o.budget_s - 0.0225) < 1e-9);
    assert_true(o.n_trials >= 5);
    assert_true(o.n_trials <= 12);
    assert_false(o.target_reached);
    plan_outcome_free(&o);
}

/* A slow call (0.5 ms, e.g. a long message): one-millisecond trials of 2
 * calls, added until 100 kept calls even though the CI target is met at
 * once. */
static void test_fake_adaptive_short_trials(void **state)
{
    (void)state;
    fake_probe f;
    fake_init(&f, 5e5);
    plan_settings s = fake_settings("adaptive", &f);
    plan_outcome o;
    execute_ok(&s, &o);
    assert_int_equal(o.calls_per_trial, 2);
    assert_int_equal(o.n_trials, 50);
    size_t kept;
    assert_int_equal(kept_calls(&o, &kept), PLAN_MIN_CALLS);
    assert_true(o.target_reached);
    assert_fresh_processes(&f, &o);
    plan_outcome_free(&o);
}

static void test_fake_hundred_calls(void **state)
{
    (void)state;
    const char *planners[] = {"reference", "adaptive"};
    for (int p = 0; p < 2; p++) {
        fake_probe f;
        fake_init(&f, 1e8); /* 100 ms per call: the rules ask for 20 and 1 */
        plan_settings s = fake_settings(planners[p], &f);
        s.min_trials = 2;
        plan_outcome o;
        execute_ok(&s, &o);
        size_t kept;
        assert_true(kept_calls(&o, &kept) >= PLAN_MIN_CALLS);
        /* reference: its 2 trials grow to 50 calls; adaptive: 100 of 1 */
        assert_int_equal(kept, p == 0 ? 2 : 100);
        assert_int_equal(o.calls_per_trial, p == 0 ? 50 : 1);
        plan_outcome_free(&o);
    }
}

static void test_fake_disturbed_rerun(void **state)
{
    (void)state;
    const char *planners[] = {"reference", "adaptive"};
    for (int p = 0; p < 2; p++) {
        fake_probe f;
        fake_init(&f, 2000);
        f.disturb = 1; /* the first timed trial ticks at half the rate */
        plan_settings s = fake_settings(planners[p], &f);
        plan_outcome o;
        execute_ok(&s, &o);
        assert_int_equal(o.n_trials, 6);
        assert_true(o.trials[0].disturbed);
        assert_true(fabs(o.trials[0].rate_hz - 1e9) < 1e6);
        for (size_t i = 1; i < o.n_trials; i++)
            assert_false(o.trials[i].disturbed);
        assert_int_equal(o.disturbed_retries, 1);
        size_t kept;
        kept_calls(&o, &kept);
        assert_int_equal(kept, 5);
        plan_outcome_free(&o);
    }
}

/* Trials preempted (an involuntary switch) or short of CPU time (time
 * stolen without a switch the thread sees) while their counter rate is
 * normal: each is re-run at most twice, and kept with its reasons. */
static void test_fake_preempted_rerun(void **state)
{
    (void)state;
    fake_probe f;
    fake_init(&f, 2000);
    f.sched = 1;
    f.preempt = 2; /* trials 0 and 1 preempted, 2 fine */
    f.steal = 4;   /* trials 0 to 3 short of CPU time */
    plan_settings s = fake_settings("adaptive", &f);
    plan_outcome o;
    execute_ok(&s, &o);
    /* the first slot: 0 and 1 re-run, 2 still short and kept as such
     * (two retries used); the second slot: 3 re-run, 4 fine */
    assert_int_equal(o.trials[0].disturbed,
                     PLAN_DISTURBED_INVOLUNTARY | PLAN_DISTURBED_CPU_TIME);
    assert_int_equal(o.trials[1].disturbed,
                     PLAN_DISTURBED_INVOLUNTARY | PLAN_DISTURBED_CPU_TIME);
    assert_int_equal(o.trials[2].disturbed, PLAN_DISTURBED_CPU_TIME);
    assert_int_equal(o.trials[3].disturbed, PLAN_DISTURBED_CPU_TIME);
    assert_int_equal(o.disturbed_retries, 3);
    assert_true(fabs(o.trials[0].rate_hz - f.rate_hz) < 1e3);
    size_t kept;
    kept_calls(&o, &kept);
    assert_int_equal(kept, 5);
    assert_int_equal(o.n_trials, 9);
    for (size_t i = 4; i < o.n_trials; i++)
        assert_int_equal(o.trials[i].disturbed, 0);
    assert_fresh_processes(&f, &o);
    plan_outcome_free(&o);
}

static void test_fake_failures(void **state)
{
    (void)state;
    fake_probe f;
    fake_init(&f, 2000);
    f.digest_change_at = 3;
    plan_settings s = fake_settings("reference", &f);
    trial_request rq;
    request(&rq);
    plan_outcome o;
    hb_err err;
    assert_int_equal(plan_execute(&s, &rq, &o, &err), 0);
    assert_false(o.ok);
    assert_non_null(strstr(o.failure, "NONDETERMINISTIC"));
    plan_outcome_free(&o);

    fake_init(&f, 2000);
    f.fail_calibration = 1;
    s = fake_settings("adaptive", &f);
    assert_int_equal(plan_execute(&s, &rq, &o, &err), 0);
    assert_false(o.ok);
    assert_non_null(strstr(o.failure, "calibration: LOADFAIL"));
    assert_int_equal(f.timed, 0);
    plan_outcome_free(&o);
}

static void test_undisturbed(void **state)
{
    (void)state;
    double rate;
    hb_err err;
    assert_int_equal(counter_measure_rate(counter_arch_kind(), 0.05, &rate, &err), 0);
    plan_settings s = {.planner = "reference", .min_trials = 3, .target_ci_percent = 0.5,
                       .budget_s = 1, .max_retries = 2, .max_trials = 10,
                       .host_rate_hz = rate};
    trial_request rq;
    request(&rq);
    plan_outcome o;
    assert_int_equal(plan_execute(&s, &rq, &o, &err), 0);
    if (!o.ok)
        fail_msg("%s", o.failure);
    assert_true(o.calib_calls > 1);
    /* a fixed-rate counter matches itself: nothing disturbed by the rate
     * (a busy host may preempt some trials: those are re-run) */
    if (counter_arch_kind() != COUNTER_PERF_CYCLES)
        for (size_t i = 0; i < o.n_trials; i++)
            assert_false(o.trials[i].disturbed & PLAN_DISTURBED_RATE);
    /* at most 3 tries of each slot, the last slot started below 9 runs */
    assert_true(o.n_trials >= 3 && o.n_trials <= 11);
    size_t disturbed = 0;
    for (size_t i = 0; i < o.n_trials; i++)
        disturbed += o.trials[i].disturbed != 0;
    assert_int_equal(o.n_trials - disturbed, o.n_trials < 9 ? 3 : o.n_trials - disturbed);
    assert_true((size_t)o.disturbed_retries <= disturbed);
    for (size_t i = 0; i < o.n_trials; i++) {
        assert_int_equal(o.trials[i].r.calls, o.calls_per_trial);
        /* the probe reports the loop's CPU time and switches */
        assert_true(o.trials[i].r.sched_known);
        assert_true(o.trials[i].r.cpu_ns > 0);
    }
    plan_outcome_free(&o);
}

static void test_all_disturbed(void **state)
{
    (void)state;
    double rate;
    hb_err err;
    assert_int_equal(counter_measure_rate(counter_arch_kind(), 0.05, &rate, &err), 0);
    plan_settings s = {.planner = "reference", .min_trials = 2, .target_ci_percent = 0.5,
                       .budget_s = 1, .max_retries = 2, .max_trials = 10,
                       .host_rate_hz = rate * 2};
    trial_request rq;
    request(&rq);
    plan_outcome o;
    assert_int_equal(plan_execute(&s, &rq, &o, &err), 0);
    assert_false(o.ok);
    if (!strstr(o.failure, "disturbed"))
        fail_msg("%s", o.failure);
    assert_int_equal(o.n_trials, 6);       /* 2 trials, each tried 3 times */
    assert_int_equal(o.disturbed_retries, 4);
    for (size_t i = 0; i < o.n_trials; i++)
        assert_true(o.trials[i].disturbed & PLAN_DISTURBED_RATE);
    plan_outcome_free(&o);
}

/* The real probe on an instance that sleeps 5 ms in every call: every
 * adaptive trial is disturbed (it sleeps in its loop), and a probe process
 * makes at least 4 calls (2 checks, 1 warm-up, 1 timed), so at least
 * 20 ms. The default budget, a tenth of the reference rule's 5 x (200 + 10)
 * calls, is 0.525 s: at most 27 timed processes, counted in the outcome. */
static void test_budget_sleepy_probe(void **state)
{
    (void)state;
    double rate;
    hb_err err;
    assert_int_equal(counter_measure_rate(counter_arch_kind(), 0.05, &rate, &err), 0);
    plan_settings s = {.planner = "adaptive", .min_trials = 5, .target_ci_percent = 0.5,
                       .budget_s = 10, .max_retries = 2, .max_trials = 200,
                       .host_rate_hz = rate};
    trial_request rq;
    request(&rq);
    rq.lib = "libmfix_sleepy.so";
    plan_outcome o;
    assert_int_equal(plan_execute(&s, &rq, &o, &err), 0);
    assert_false(o.ok);
    if (!strstr(o.failure, "every trial was disturbed"))
        fail_msg("%s", o.failure);
    assert_int_equal(o.stopped, PLAN_STOP_BUDGET);
    assert_true(o.calib_ns_per_call >= 5e6);
    assert_true(fabs(o.budget_s - 0.1 * plan_reference_cost_s(o.calib_ns_per_call, 5)) < 1e-9);
    assert_true(o.budget_s < 0.6);
    assert_true(o.n_trials >= 5);
    assert_true(o.n_trials <= 27);
    for (size_t i = 0; i < o.n_trials; i++)
        assert_true(o.trials[i].disturbed & PLAN_DISTURBED_VOLUNTARY);
    plan_outcome_free(&o);
}

int main(void)
{
    if (fixture_env(build_dir, sizeof build_dir, probe, sizeof probe) != 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_disturbance),
        cmocka_unit_test(test_fake_reference),
        cmocka_unit_test(test_calibration_outside_retried),
        cmocka_unit_test(test_fake_adaptive_reaches_target),
        cmocka_unit_test(test_fake_adaptive_trial_cap),
        cmocka_unit_test(test_fake_adaptive_budget),
        cmocka_unit_test(test_fake_adaptive_default_budget),
        cmocka_unit_test(test_fake_budget_all_disturbed),
        cmocka_unit_test(test_fake_budget_slow),
        cmocka_unit_test(test_fake_hard_caps),
        cmocka_unit_test(test_fake_adaptive_short_trials),
        cmocka_unit_test(test_fake_hundred_calls),
        cmocka_unit_test(test_fake_disturbed_rerun),
        cmocka_unit_test(test_fake_preempted_rerun),
        cmocka_unit_test(test_fake_failures),
        cmocka_unit_test(test_undisturbed),
        cmocka_unit_test(test_all_disturbed),
        cmocka_unit_test(test_budget_sleepy_probe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
