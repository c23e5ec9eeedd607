/* The probe on the fixture libraries, through trial_run (the way the
 * measurement stage runs it): the digest it prints equals an in-process
 * call of the same library, the 64 KiB stack array and the 1 MiB heap block
 * are seen, the plain fold uses no heap, the probe runs on the core it was
 * given, and each misbehaviour is caught with its own status. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "measure/measure.h"
#include "measure/trial.h"
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
    trial_result r;
    run_ok("libmfix_plain.so", 1000, 1, &r);
    char hex[65], msg_sha[65], path[8192];
    snprintf(path, sizeof path, "%s/libmfix_plain.so", build_dir);
    assert_int_equal(fixture_digest(path, 1000, hex, msg_sha), 0);
    assert_string_equal(r.digest, hex);
    assert_int_equal(r.heap_peak_bytes, 0);
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
    assert_int_equal(r.heap_peak_bytes, 0);
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

static void test_parse_line(void **state)
{
    (void)state;
    trial_result r;
    memset(&r, 0, sizeof r);
    assert_int_equal(trial_parse_line("status=ok counter=tsc ticks=10 ns=4 calls=2 "
                                      "pid=7 cpu=1 rss_baseline_kb=5 rss_peak_kb=6 "
                                      "digest=ab", &r), 0);
    assert_int_equal(r.ticks, 10);
    assert_int_equal(r.rss_peak_kb, 6);
    assert_string_equal(r.digest, "ab");
    assert_int_equal(r.heap_allocs, -1);
    assert_false(r.sched_known); /* no CPU time or switches reported */
    assert_int_equal(trial_parse_line("status=ok counter=tsc ticks=10 ns=4 calls=2 "
                                      "pid=7 cpu=1 rss_baseline_kb=5 rss_peak_kb=6 "
                                      "cpu_ns=3 vcsw=0 ivcsw=2 digest=ab", &r), 0);
    assert_true(r.sched_known);
    assert_int_equal(r.cpu_ns, 3);
    assert_int_equal(r.vcsw, 0);
    assert_int_equal(r.ivcsw, 2);
    assert_int_equal(trial_parse_line("status=ok ticks=10", &r), -1);
    assert_int_equal(trial_parse_line("status=OVERFLOW reason=wrote past it", &r), -1);
    assert_string_equal(r.failure, "OVERFLOW: wrote past it");
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
        cmocka_unit_test(test_pinned),
        cmocka_unit_test(test_counter_choice),
        cmocka_unit_test(test_without_memory_flag),
        cmocka_unit_test(test_misbehaviour_caught),
        cmocka_unit_test(test_parse_line),
        cmocka_unit_test(test_command),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
