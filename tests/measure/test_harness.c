/* The harness cost estimate (measure/harness.h). harness_per_call: the
 * median per call with the exchange taken off, never below 0, windows
 * without calls left out. harness_measure on a scripted session: a timed
 * window costs the exchange plus 40 ns a call plus a footprint of 0.01 ns a
 * message byte, an untimed warm-up 50 times as much (so that one counted
 * by mistake shows), and the estimate is exactly 40 + 0.01 * size; every
 * timed window gets fresh messages of its calls, every warm-up none; a
 * session that fails gives NaN and the reason. Last, the real probe with
 * hashbench's null library (libhb_null.so) at 16 KiB: a finite, positive
 * cost well under what any hash of 16 KiB takes. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "measure/harness.h"
#include "measure_fixture.h"

#define EXCHANGE_NS 20000.0
#define PER_CALL_NS 40.0
#define PER_BYTE_NS 0.01

static char probe[4096], build_dir[4096];

static void test_per_call(void **state)
{
    (void)state;
    double cpu[] = {20000 + 100 * 50.0, 20000 + 100 * 70.0, 20000 + 100 * 60.0, 5.0, 99.0};
    unsigned long long calls[] = {100, 100, 100, 100, 0};
    /* (the fourth is below the exchange: 0; the fifth has no calls) */
    assert_true(fabs(harness_per_call(cpu, calls, 3, 20000.0) - 60.0) < 1e-9);
    assert_true(fabs(harness_per_call(cpu, calls, 5, 20000.0) - 55.0) < 1e-9);
    assert_true(harness_per_call(cpu, calls, 4, 1e9) == 0.0);
    assert_true(isnan(harness_per_call(cpu + 4, calls + 4, 1, 0.0)));
    assert_true(isnan(harness_per_call(cpu, calls, 0, 0.0)));
}

/* ---- a scripted session ---- */

typedef struct scripted {
    unsigned long long size;
    int fail_at;          /* window number that fails, 0: none */
    int windows, fresh, closed;
    unsigned char first[16]; /* the first bytes of the previous fresh window */
    int repeated;         /* a fresh window that began like the one before */
} scripted;

static scripted script;

static int s_open(void *state, const session_open_rq *rq, session_figure *f, hb_err *err)
{
    (void)state;
    (void)err;
    memset(f, 0, sizeof *f);
    script.size = rq->size;
    return 0;
}

static int s_window(void *state, const session_window_rq *w, session_figure *f, hb_err *err)
{
    (void)state;
    (void)err;
    memset(f, 0, sizeof *f);
    if (++script.windows == script.fail_at) {
        f->status = SESSION_FAILED;
        snprintf(f->failure, sizeof f->failure, "CRASH: scripted");
        return 0;
    }
    double work = (double)w->calls * (PER_CALL_NS + PER_BYTE_NS * (double)script.size);
    if (w->raw) {
        script.fresh++;
        script.repeated |= script.fresh > 1 && !memcmp(script.first, w->raw, 16);
        memcpy(script.first, w->raw, 16);
    } else {
        work *= 50.0;
    }
    f->cpu_ns = (unsigned long long)llround(EXCHANGE_NS + work);
    return 0;
}

static void s_close(void *state, session_figure *f)
{
    (void)state;
    script.closed++;
    if (f)
        memset(f, 0, sizeof *f);
}

static const session_class scripted_class = {"scripted", 8, s_open, s_window, s_close,
                                             NULL};

static void test_measure_scripted(void **state)
{
    (void)state;
    static unsigned char raw[1000 * 1024];
    harness_rq rq = {&scripted_class,
                     {"/fake/probe", "/fake/libhb_null.so", 1024, 256, -1, 0, 0, 1000, 10, 1,
                      1},
                     raw, 1000, EXCHANGE_NS};
    memset(&script, 0, sizeof script);
    double ns = NAN;
    char why[128];
    hb_err err;
    assert_int_equal(harness_measure(&rq, &ns, why, sizeof why, &err), 0);
    print_message("scripted harness cost: %.3f ns/call\n", ns);
    assert_true(fabs(ns - (PER_CALL_NS + PER_BYTE_NS * 1024)) < 1e-3);
    assert_int_equal(script.windows, 2 * HARNESS_WINDOWS);
    assert_int_equal(script.fresh, HARNESS_WINDOWS);
    assert_int_equal(script.repeated, 0);
    assert_int_equal(script.closed, 1);
    assert_string_equal(why, "");

    /* a session that fails: no figure, the reason, and it is closed */
    memset(&script, 0, sizeof script);
    script.fail_at = 5;
    assert_int_equal(harness_measure(&rq, &ns, why, sizeof why, &err), 0);
    assert_true(isnan(ns));
    assert_string_equal(why, "CRASH: scripted");
    assert_int_equal(script.closed, 1);
}

static void test_measure_null_library(void **state)
{
    (void)state;
    char lib[4200];
    snprintf(lib, sizeof lib, "%s/%s", build_dir, HARNESS_LIBRARY);
    const unsigned long long size = 16384, calls = 200;
    unsigned char *raw = malloc(size * calls);
    assert_non_null(raw);
    harness_rq rq = {&session_probe,
                     {probe, lib, size, 256, -1, counter_arch_kind(), 0, calls, 30, 1, 1},
                     raw, calls, 0.0};
    double ns = NAN;
    char why[600];
    hb_err err;
    if (harness_measure(&rq, &ns, why, sizeof why, &err) != 0)
        fail_msg("%s", err.msg);
    print_message("null library at 16 KiB: %.1f ns/call (exchange not taken off)%s%s\n", ns,
                  why[0] ? ": " : "", why);
    assert_true(isfinite(ns));
    assert_true(ns > 0 && ns < 20000.0);
    free(raw);
}

int main(void)
{
    if (fixture_env(build_dir, sizeof build_dir, probe, sizeof probe) != 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_per_call),
        cmocka_unit_test(test_measure_scripted),
        cmocka_unit_test(test_measure_null_library),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
