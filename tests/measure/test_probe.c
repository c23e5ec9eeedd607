/* The probe on the fixture libraries, through trial_run (the way the
 * measurement stage runs it, in the sandbox): the digest it sends equals an
 * in-process call of the same library, the fold of its timed digests equals
 * an in-process run of the trial's messages from its seed, each trial has
 * its own seed, process and outside figures, the 64 KiB stack array and the
 * 1 MiB heap block are seen, the plain fold uses no heap, the probe runs on
 * the core it was given, and each misbehaviour is caught with its own
 * status. The attacks on the figures (fixtures/fixture_forge.h): forged
 * result lines from a constructor or a destructor are never taken, an
 * informed forger that cuts its loop time is INCONSISTENT by the outside
 * rules (outside.h, whose rules are also checked on figures made up here),
 * and a helper thread on another core is not taken whenever it got more
 * CPU time than the rules allow. A request with an instance budget is
 * ended by it (test_budget). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/untrusted.h"
#include "measure/measure.h"
#include "measure/outside.h"
#include "common/clock.h"
#include "common/fs.h"
#include "measure/trial.h"
#include "rundir/ibudget.h"
#include "measure_fixture.h"
#include "probe/probe_codes.h"

static char probe[4096], build_dir[4096];

static void request(trial_request *rq, const char *lib, unsigned long long size)
{
    memset(rq, 0, sizeof *rq);
    rq->probe_path = probe;
    rq->run_dir = build_dir;
    rq->lib = lib;
    rq->size = size;
    rq->calls = 20;
    rq->warmup = 2;
    rq->cpu = -1;
    rq->counter = counter_arch_kind();
    rq->digest_bits = 256;
    rq->timeout_s = 60;
}

static void run_ok(const char *lib, unsigned long long size, int memory,
                   trial_result *r)
{
    trial_request rq;
    request(&rq, lib, size);
    rq.memory = memory;
    hb_err err;
    assert_int_equal(trial_run(&rq, r, &err), 0);
    if (!r->ok)
        fail_msg("%s: %s", lib, r->failure);
    assert_int_equal(r->calls, 20);
    assert_true(r->ns > 0 && r->ticks > 0);
}

static void test_plain(void **state)
{
    (void)state;
    trial_result r, r2;
    run_ok("libmfix_plain.so", 1000, 1, &r);
    char hex[65], msg_sha[65], path[8192], fold[TM_FOLD_HEX];
    snprintf(path, sizeof path, "%s/libmfix_plain.so", build_dir);
    assert_int_equal(fixture_digest(path, 1000, hex, msg_sha), 0);
    assert_string_equal(r.digest, hex);
    /* the timed digests: every call's message from the seed */
    assert_int_equal(fixture_fold(path, 1000, r.seed, 20, fold), 0);
    assert_string_equal(r.fold, fold);
    /* another trial: another seed, another process, seen from outside */
    run_ok("libmfix_plain.so", 1000, 0, &r2);
    assert_true(r2.seed != r.seed);
    assert_string_not_equal(r2.fold, r.fold);
    assert_true(r2.pid != r.pid);
    assert_true(r.outside.known && r2.outside.known);
    assert_true(r.outside.window_ns >= r.ns);
    assert_true(r.outside.window_cpu_ns > 0);
    assert_true(r.outside.process_cpu_ns >= r.outside.window_cpu_ns);
    assert_true(r.outside.process_wall_ns >= r.outside.window_ns);
    assert_true(r.outside.allowance_ns >= (unsigned long long)OUTSIDE_EXCHANGE_NS);
    /* nothing of its own: only the dynamic linker's records of it, kept
     * from its loading on */
    assert_true(r.heap_peak_bytes > 0 && r.heap_peak_bytes < 16 * 1024);
    assert_int_equal(r.heap_allocs, 0);
    assert_true(r.stack_peak_bytes > 0 && r.stack_peak_bytes < 4096);
    assert_true(r.rss_baseline_kb > 0 && r.rss_peak_kb >= r.rss_baseline_kb);
    assert_true(r.pid > 0 && r.cpu >= 0);
    /* the probe reads the timed loop's CPU time and context switches */
    assert_true(r.sched_known);
    assert_true(r.cpu_ns > 0);
    assert_true(r.vcsw >= 0 && r.ivcsw >= 0);
}

static void test_stack_64k(void **state)
{
    (void)state;
    trial_result r;
    run_ok("libmfix_stack64k.so", 4096, 1, &r);
    assert_true(r.stack_peak_bytes >= 64 * 1024);
    assert_true(r.stack_peak_bytes <= 72 * 1024);
    assert_true(r.heap_peak_bytes < 16 * 1024); /* the loader's records */
}

static void test_heap_1m(void **state)
{
    (void)state;
    trial_result r;
    run_ok("libmfix_heap1m.so", 4096, 1, &r);
    assert_true(r.heap_peak_bytes >= 1024 * 1024);
    assert_true(r.heap_allocs >= 1);
    assert_true(r.stack_peak_bytes < 4096);
}

/* A table the library builds on its first call (one of the checks') and
 * keeps is in the memory run's heap figure, as it is in a timed session. */
static void test_heap_kept(void **state)
{
    (void)state;
    trial_result r;
    run_ok("libmfix_lazyheap.so", 4096, 1, &r);
    assert_true(r.heap_peak_bytes >= 1024 * 1024);
    assert_int_equal(r.heap_allocs, 0);
    /* a table its constructor built is the library's too */
    run_ok("libmfix_ctorheap.so", 4096, 1, &r);
    assert_true(r.heap_peak_bytes >= 1024 * 1024);
    assert_int_equal(r.heap_allocs, 0);
    /* and a library that keeps nothing holds only the loader's records */
    run_ok("libmfix_plain.so", 4096, 1, &r);
    assert_true(r.heap_peak_bytes < 16 * 1024);
}

/* The probe pins itself to the requested core and reports it. */
static void test_pinned(void **state)
{
    (void)state;
    int cpu = measure_default_cpu();
    assert_true(cpu >= 0);
    trial_request rq;
    request(&rq, "libmfix_plain.so", 64);
    rq.cpu = cpu;
    trial_result r;
    hb_err err;
    assert_int_equal(trial_run(&rq, &r, &err), 0);
    if (!r.ok)
        fail_msg("%s", r.failure);
    assert_int_equal(r.cpu, cpu);
}

/* The probe opens the counter it is told to: perf cycles when this kernel
 * grants them (else NOCOUNTER, never a silent substitute), the
 * architecture's own counter, and not the other architecture's. */
static void test_counter_choice(void **state)
{
    (void)state;
    trial_request rq;
    request(&rq, "libmfix_plain.so", 64);
    trial_result r;
    hb_err err;
    rq.counter = COUNTER_PERF_CYCLES;
    int fd = counter_perf_open_cycles();
    assert_int_equal(trial_run(&rq, &r, &err), 0);
    if (fd >= 0) {
        close(fd);
        if (!r.ok)
            fail_msg("perf cycles open here but not in the probe: %s", r.failure);
    } else {
        assert_false(r.ok);
        assert_non_null(strstr(r.failure, probe_exit_word(PROBE_NOCOUNTER)));
        assert_non_null(strstr(r.failure, "perf_cycles"));
    }
    rq.counter = counter_arch_kind();
    assert_int_equal(trial_run(&rq, &r, &err), 0);
    assert_true(r.ok);
    rq.counter = counter_arch_kind() == COUNTER_TSC ? COUNTER_CNTVCT : COUNTER_TSC;
    assert_int_equal(trial_run(&rq, &r, &err), 0);
    assert_false(r.ok);
    assert_non_null(strstr(r.failure, probe_exit_word(PROBE_NOCOUNTER)));
}

static void test_without_memory_flag(void **state)
{
    (void)state;
    trial_result r;
    run_ok("libmfix_heap1m.so", 64, 0, &r);
    assert_int_equal(r.heap_peak_bytes, -1);
    assert_int_equal(r.stack_peak_bytes, -1);
}

static void expect_failure(const char *lib, const char *word)
{
    trial_request rq;
    request(&rq, lib, 512);
    trial_result r;
    hb_err err;
    assert_int_equal(trial_run(&rq, &r, &err), 0);
    assert_false(r.ok);
    if (!strstr(r.failure, word))
        fail_msg("%s: expected %s in '%s'", lib, word, r.failure);
}

static void test_misbehaviour_caught(void **state)
{
    (void)state;
    expect_failure("libmfix_nondet.so", probe_exit_word(PROBE_NONDETERMINISTIC));
    expect_failure("libmfix_modify.so", probe_exit_word(PROBE_INPUT_MODIFIED));
    expect_failure("libmfix_overflow.so", probe_exit_word(PROBE_OVERFLOW));
    expect_failure("libmfix_error.so", "returned 3");
    expect_failure("libmfix_overread.so", "SIGSEGV");
    expect_failure("libmfix_missing.so", probe_exit_word(PROBE_LOADFAIL));
}

/* Forged result lines, from a constructor (before the probe is ready) and
 * from a destructor (after its result, through descriptors copied at
 * load time): the trial is INCONSISTENT and the forged 1 ns loop is never
 * taken. */
static void test_forged_lines(void **state)
{
    (void)state;
    const char *libs[] = {"libmfix_forge_ctor.so", "libmfix_forge_dtor.so"};
    for (int i = 0; i < 2; i++) {
        trial_request rq;
        request(&rq, libs[i], 512);
        trial_result r;
        hb_err err;
        assert_int_equal(trial_run(&rq, &r, &err), 0);
        if (r.ok || !r.inconsistent)
            fail_msg("%s: ok %d, failure '%s'", libs[i], r.ok, r.failure);
        assert_non_null(strstr(r.failure, "INCONSISTENT"));
        assert_true(r.ns != 1);
    }
}

/* A library that hashes honestly but sends, with the probe's nonce, its
 * digest and its fold, a loop time a twentieth of the real one, then ends
 * the process: the CPU time hashbench saw in the window gives it away. */
static void test_informed_forger(void **state)
{
    (void)state;
    trial_request rq;
    request(&rq, "libmfix_informed.so", 4096);
    rq.calls = 3000; /* about 20 ms of hashing */
    trial_result r;
    hb_err err;
    assert_int_equal(trial_run(&rq, &r, &err), 0);
    if (r.ok || !r.inconsistent)
        fail_msg("ok %d, failure '%s'", r.ok, r.failure);
    /* the library ends the process right after its line: when hashbench
     * still read the probe's CPU time, rule 3 tells; when the probe was
     * already gone, its early end does */
    if (!r.outside.known) {
        assert_non_null(strstr(r.failure, "an end of the probe before"));
        return;
    }
    assert_non_null(strstr(r.failure, "rule 3"));
    /* the forged line was taken as the result: the attack did reach it
     * (its loop time, a twentieth of the wall time it saw, stays under half
     * the CPU time unless the probe got less than a tenth of its core) */
    assert_true(r.ns > 0 && r.ns * 2 < r.outside.window_cpu_ns);
    char fold[TM_FOLD_HEX], path[8192];
    snprintf(path, sizeof path, "%s/libmfix_informed.so", build_dir);
    assert_int_equal(fixture_fold(path, 4096, r.seed, 3000, fold), 0);
    assert_string_equal(r.fold, fold);
}

/* A helper thread unpinned from the probe's core spins through the timed
 * loop. Its CPU time is the probe process's but not the loop's: beyond
 * wall time it breaks rule 2, beyond the allowance rule 3, so whenever it
 * got more than their tolerance (how much depends on how busy the other
 * core is), the trial is not taken as it stands: disturbed, or beyond 12 ms
 * more INCONSISTENT. */
static void test_parallel_helper(void **state)
{
    (void)state;
    trial_request rq;
    request(&rq, "libmfix_parallel.so", 4096);
    rq.calls = 3000;
    rq.cpu = measure_default_cpu();
    trial_result r;
    hb_err err;
    assert_int_equal(trial_run(&rq, &r, &err), 0);
    assert_true(r.outside.known);
    printf("# helper thread: loop %llu ns, window %llu ns, window CPU %llu ns: %s\n",
           r.ns, r.outside.window_ns, r.outside.window_cpu_ns,
           r.ok ? (r.outside_excess ? "disturbed (outside_cpu)" : "ok") : r.failure);
    double wall = (double)r.outside.window_ns * (1 + OUTSIDE_CLOCK_PPM * 1e-6);
    double cpu = (double)r.outside.window_cpu_ns;
    double beyond = cpu - (wall + OUTSIDE_CPU_SLACK_NS);
    double unexplained = cpu - (double)(r.ns + r.outside.allowance_ns);
    if (beyond > OUTSIDE_GROSS_NS || unexplained > OUTSIDE_GROSS_NS)
        assert_true(r.inconsistent);
    else if (beyond > 0 || unexplained > 0)
        assert_true(r.inconsistent || r.outside_excess);
    else
        assert_false(r.inconsistent);
}

/* The outside rules on made-up figures: each rule breaks exactly where
 * outside.h says. */
static void test_outside_rules(void **state)
{
    (void)state;
    char why[256];
    trial_outside o = {1, 1000000, 990000, 200000, 50000000, 20000000, 0};
    assert_int_equal(outside_check(&o, 990000, why, sizeof why), OUTSIDE_OK);
    /* rule 1: a loop longer than the window (0.1 % + 20 us allowed) */
    assert_int_equal(outside_check(&o, 1020999, why, sizeof why), OUTSIDE_OK);
    assert_int_equal(outside_check(&o, 1021001, why, sizeof why), OUTSIDE_INCONSISTENT);
    assert_non_null(strstr(why, "rule 1"));
    /* rule 2: more CPU time than wall time (0.1 % + 50 us allowed; up to
     * 12 ms more, disturbed) */
    o.window_cpu_ns = 1050999;
    assert_int_equal(outside_check(&o, 990000, why, sizeof why), OUTSIDE_OK);
    o.window_cpu_ns = 1051001;
    assert_int_equal(outside_check(&o, 990000, why, sizeof why), OUTSIDE_EXCESS);
    assert_non_null(strstr(why, "rule 2"));
    o.window_cpu_ns = 13050999;
    o.process_cpu_ns = 20000000;
    assert_int_equal(outside_check(&o, 990000, why, sizeof why), OUTSIDE_EXCESS);
    assert_non_null(strstr(why, "rule 2"));
    o.window_cpu_ns = 13051001;
    assert_int_equal(outside_check(&o, 990000, why, sizeof why), OUTSIDE_INCONSISTENT);
    assert_non_null(strstr(why, "rule 2"));
    /* the baseline's own trial on a 250 Hz guest: 6.3 ms of CPU time in a
     * 3.6 ms window with a 3.3 ms loop breaks rules 2 and 3 by a tick's
     * share: disturbed, not INCONSISTENT */
    trial_outside seen = {1, 3600000, 6300000, 300000, 50000000, 20000000, 0};
    assert_int_equal(outside_check(&seen, 3300000, why, sizeof why), OUTSIDE_EXCESS);
    /* within rule 2's tolerance but short by more than rule 3's: the worse
     * verdict stands */
    o.window_ns = 14000000;
    o.window_cpu_ns = 14500000;
    assert_int_equal(outside_check(&o, 1000000, why, sizeof why), OUTSIDE_INCONSISTENT);
    assert_non_null(strstr(why, "rule 3"));
    o.window_ns = 1000000;
    o.window_cpu_ns = 3051001;
    o.emulated = 1; /* an emulator's own threads: rule 2 does not apply */
    assert_int_equal(outside_check(&o, 990000, why, sizeof why), OUTSIDE_EXCESS);
    assert_non_null(strstr(why, "rule 3"));
    o.emulated = 0;
    o.process_cpu_ns = 20000000;
    /* rule 3: loop time short of the window's CPU time by the allowance:
     * disturbed; by the allowance and 12 ms more: inconsistent */
    o.window_ns = 20000000;
    o.window_cpu_ns = 19000000;
    assert_int_equal(outside_check(&o, 18800000, why, sizeof why), OUTSIDE_OK);
    assert_int_equal(outside_check(&o, 18799999, why, sizeof why), OUTSIDE_EXCESS);
    assert_non_null(strstr(why, "rule 3"));
    assert_int_equal(outside_check(&o, 6800000, why, sizeof why), OUTSIDE_EXCESS);
    assert_int_equal(outside_check(&o, 6799999, why, sizeof why), OUTSIDE_INCONSISTENT);
    /* rule 4: the window's CPU time within the process's (1 ms allowed) */
    o.process_cpu_ns = 18000000;
    assert_int_equal(outside_check(&o, 18800000, why, sizeof why), OUTSIDE_OK);
    o.process_cpu_ns = 17999999;
    assert_int_equal(outside_check(&o, 18800000, why, sizeof why), OUTSIDE_INCONSISTENT);
    assert_non_null(strstr(why, "rule 4"));
    o.known = 0;
    assert_int_equal(outside_check(&o, 1, why, sizeof why), OUTSIDE_UNKNOWN);
    /* the allowance grows with the window's work and starts at the
     * exchange's share */
    unsigned long long small = outside_allowance_ns(32, 1, 32, 0);
    assert_true(small >= (unsigned long long)OUTSIDE_EXCHANGE_NS);
    assert_true(outside_allowance_ns(65536, 100000, 64, 0) > small);
    /* the exchange comes with the request: a larger one moves the allowance
     * by exactly the difference, and nothing else remembers it */
    assert_int_equal(outside_allowance_ns(32, 1, 32, OUTSIDE_EXCHANGE_NS + 1000.0),
                     small + 1000);
    assert_int_equal(outside_allowance_ns(32, 1, 32, 0), small);
    /* from a trusted library's untimed time: the factor times the median,
     * never below the default */
    double untimed[3] = {100e3, 300e3, 200e3}, tiny[1] = {1.0};
    assert_true(fabs(outside_exchange_of(untimed, 3) - OUTSIDE_EXCHANGE_FACTOR * 200e3) < 1.0);
    assert_true(fabs(outside_exchange_of(tiny, 1) - OUTSIDE_EXCHANGE_NS) < 1e-9);
    assert_true(fabs(outside_exchange_of(NULL, 0) - OUTSIDE_EXCHANGE_NS) < 1e-9);
}

/* A request with an instance budget: a probe that would run past it (the
 * SLEEPY fixture sleeps 5 ms a call: 2000 calls, 10 s) is ended by it,
 * TIMEOUT with the budget's line, within a second of it, and its wall time
 * is charged; once spent, no probe starts. */
static void test_budget(void **state)
{
    (void)state;
    char dir[] = "/tmp/hb-probe-budget.XXXXXX";
    assert_non_null(mkdtemp(dir));
    trial_request rq;
    request(&rq, "libmfix_sleepy.so", 64);
    rq.calls = 2000;
    rq.budget = (ibudget){dir, "Cand", "Inst", 1.5};
    trial_result r;
    hb_err err;
    double t0 = hb_mono_s();
    assert_int_equal(trial_run(&rq, &r, &err), 0);
    double took = hb_mono_s() - t0;
    assert_false(r.ok);
    if (strncmp(r.failure, "TIMEOUT: " IBUDGET_REASON_START, 9 + strlen(IBUDGET_REASON_START)))
        fail_msg("not ended by the budget: %s", r.failure);
    assert_true(took >= 1.4 && took < 2.5);
    double left;
    assert_int_equal(ibudget_left(&rq.budget, &left, &err), 0);
    assert_true(left < 0.1 && left > -1.0);
    printf("# a 10 s probe under a 1.5 s budget: ended after %.2f s, %.2f s left\n", took,
           left);
    t0 = hb_mono_s();
    assert_int_equal(trial_run(&rq, &r, &err), 0);
    assert_false(r.ok);
    assert_non_null(strstr(r.failure, IBUDGET_REASON_START));
    assert_true(hb_mono_s() - t0 < 0.2); /* nothing started */
    assert_int_equal(hb_remove_tree(dir, &err), 0);
}

static void test_parse_line(void **state)
{
    (void)state;
    trial_result r;
    memset(&r, 0, sizeof r);
    static const char fold[] = "fold=0123456789abcdef0123456789abcdef";
    char line[512];
    snprintf(line, sizeof line, "status=ok counter=tsc ticks=10 ns=4 calls=2 "
             "rss_baseline_kb=5 digest=ab %s", fold);
    assert_int_equal(trial_parse_line(line, &r), 0);
    assert_int_equal(r.ticks, 10);
    assert_int_equal(r.rss_baseline_kb, 5);
    assert_string_equal(r.digest, "ab");
    assert_string_equal(r.fold, fold + 5);
    assert_int_equal(r.heap_allocs, -1);
    assert_false(r.sched_known); /* no CPU time or switches reported */
    snprintf(line, sizeof line, "status=ok counter=tsc ticks=10 ns=4 calls=2 "
             "rss_baseline_kb=5 cpu_ns=3 vcsw=0 ivcsw=2 digest=ab %s", fold);
    assert_int_equal(trial_parse_line(line, &r), 0);
    assert_true(r.sched_known);
    assert_int_equal(r.cpu_ns, 3);
    assert_int_equal(r.vcsw, 0);
    assert_int_equal(r.ivcsw, 2);
    assert_int_equal(trial_parse_line("status=ok ticks=10", &r), -1);
    /* the fold is required, whole */
    assert_int_equal(trial_parse_line("status=ok counter=tsc ticks=10 ns=4 calls=2 "
                                      "rss_baseline_kb=5 digest=ab fold=0123", &r), -1);
    /* the line's text is raw (common/untrusted.h), its word kept only when
     * it is one of the probe's own */
    assert_int_equal(trial_parse_line("status=OVERFLOW reason=wrote past it", &r), -1);
    assert_string_equal(r.failure, "OVERFLOW: the probe's failure line"
                                   HB_UNTRUSTED_MARK_STR "wrote past it");
    assert_int_equal(trial_parse_line("status=Hello-0x6f reason=a\tb", &r), -1);
    assert_string_equal(r.failure, "UNKNOWN: the probe's failure line"
                                   HB_UNTRUSTED_MARK_STR "a?b");
}

static void test_command(void **state)
{
    (void)state;
    trial_request rq;
    request(&rq, "lib/X/libX.so", 32);
    json_t *c = trial_command_json(&rq);
    assert_string_equal(json_string_value(json_array_get(c, 0)), "hashbench-probe");
    assert_string_equal(json_string_value(json_array_get(c, 2)), "lib/X/libX.so");
    json_decref(c);
}

int main(void)
{
    if (fixture_env(build_dir, sizeof build_dir, probe, sizeof probe) != 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain),
        cmocka_unit_test(test_stack_64k),
        cmocka_unit_test(test_heap_1m),
        cmocka_unit_test(test_heap_kept),
        cmocka_unit_test(test_pinned),
        cmocka_unit_test(test_counter_choice),
        cmocka_unit_test(test_without_memory_flag),
        cmocka_unit_test(test_misbehaviour_caught),
        cmocka_unit_test(test_forged_lines),
        cmocka_unit_test(test_informed_forger),
        cmocka_unit_test(test_parallel_helper),
        cmocka_unit_test(test_outside_rules),
        cmocka_unit_test(test_budget),
        cmocka_unit_test(test_parse_line),
        cmocka_unit_test(test_command),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
