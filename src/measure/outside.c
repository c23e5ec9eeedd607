/* The outside timing checks: see outside.h. The allowance model is three
 * rates (ns per message byte, per call's word, per digest byte folded),
 * each the fastest of a few runs of the probe's own window code in this
 * process, measured once, the first time a trial needs it, and the
 * exchange's share, set once per measurement stage (measure.c). */
#include "measure/outside.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "measure/stats.h"
#include "probe/probe_wire.h"

#define MODEL_SIZE 65536
#define MODEL_CALLS 8192
#define MODEL_DIGEST 64
#define MODEL_RUNS 5

typedef struct window_model {
    double base_ns_per_byte; /* tm_base and the copy into the second buffer */
    double word_ns;          /* probe_window_words, per call */
    double fold_ns_per_byte; /* probe_window_fold, per digest byte */
} window_model;

static double mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* A result the compiler cannot drop. */
static volatile uint64_t sink;

static void measure_model(window_model *m)
{
    unsigned char *msg = malloc(2 * MODEL_SIZE);
    uint64_t *delta = malloc(MODEL_CALLS * sizeof *delta);
    unsigned char *dig = calloc(MODEL_CALLS, MODEL_DIGEST);
    char hex[TM_FOLD_HEX];
    double best[3] = {1e30, 1e30, 1e30};
    if (!msg || !delta || !dig) {
        /* no memory for the model: a generous fixed guess instead */
        m->base_ns_per_byte = 2.0;
        m->word_ns = 20.0;
        m->fold_ns_per_byte = 5.0;
        free(msg);
        free(delta);
        free(dig);
        return;
    }
    for (int run = 0; run < MODEL_RUNS; run++) {
        double t0 = mono_ns();
        tm_base(msg, MODEL_SIZE, (uint64_t)run);
        memcpy(msg + MODEL_SIZE, msg, MODEL_SIZE);
        double t1 = mono_ns();
        probe_window_words(delta, MODEL_CALLS, (uint64_t)run);
        double t2 = mono_ns();
        probe_window_fold(dig, MODEL_CALLS, MODEL_DIGEST, hex);
        double t3 = mono_ns();
        sink += msg[MODEL_SIZE + run] + delta[run] + (uint64_t)hex[run];
        double t[3] = {t1 - t0, t2 - t1, t3 - t2};
        for (int k = 0; k < 3; k++)
            if (t[k] < best[k])
                best[k] = t[k];
    }
    m->base_ns_per_byte = best[0] / MODEL_SIZE;
    m->word_ns = best[1] / MODEL_CALLS;
    m->fold_ns_per_byte = best[2] / ((double)MODEL_CALLS * MODEL_DIGEST);
    free(msg);
    free(delta);
    free(dig);
}

double outside_exchange_of(const double *untimed_ns, size_t n)
{
    double *v = n ? malloc(n * sizeof *v) : NULL;
    double exchange_ns = OUTSIDE_EXCHANGE_NS;
    if (!v)
        return exchange_ns;
    memcpy(v, untimed_ns, n * sizeof *v);
    double median = stats_median(v, n);
    if (OUTSIDE_EXCHANGE_FACTOR * median > exchange_ns)
        exchange_ns = OUTSIDE_EXCHANGE_FACTOR * median;
    free(v);
    return exchange_ns;
}

unsigned long long outside_allowance_ns(unsigned long long size, unsigned long long calls,
                                        size_t d, double exchange_ns)
{
    static window_model model;
    static int measured;
    if (!measured) {
        measure_model(&model);
        measured = 1;
    }
    double work = (double)size * model.base_ns_per_byte + (double)calls * model.word_ns +
                  (double)calls * (double)d * model.fold_ns_per_byte;
    if (exchange_ns <= 0)
        exchange_ns = OUTSIDE_EXCHANGE_NS;
    return (unsigned long long)(OUTSIDE_ALLOWANCE_FACTOR * work + exchange_ns);
}

int outside_check(const trial_outside *o, unsigned long long loop_ns, char *why,
                  size_t whysz)
{
    if (!o->known)
        return OUTSIDE_UNKNOWN;
    double w = (double)o->window_ns, cpu = (double)o->window_cpu_ns, t = (double)loop_ns;
    double clock = w * OUTSIDE_CLOCK_PPM * 1e-6;
    double short_ns = cpu - t - (double)o->allowance_ns;
    if (t > w + clock + OUTSIDE_INSIDE_SLACK_NS) {
        snprintf(why, whysz, "the probe reports a %.0f ns loop in a %.0f ns window "
                 "(rule 1: the loop lies inside the window)", t, w);
        return OUTSIDE_INCONSISTENT;
    }
    /* rule 2, then rule 4 and rule 3: the worst verdict stands, with its
     * rule in WHY */
    int verdict = OUTSIDE_OK;
    double parallel_ns = cpu - (w + clock + OUTSIDE_CPU_SLACK_NS);
    if (!o->emulated && parallel_ns > 0) {
        snprintf(why, whysz, "the probe used %.0f ns of CPU time in a %.0f ns window "
                 "(rule 2: one core)", cpu, w);
        if (parallel_ns > OUTSIDE_GROSS_NS)
            return OUTSIDE_INCONSISTENT;
        verdict = OUTSIDE_EXCESS;
    }
    if (cpu > (double)o->process_cpu_ns + OUTSIDE_PROCESS_SLACK_NS) {
        snprintf(why, whysz, "the window's CPU time %.0f ns exceeds the process's %llu ns "
                 "(rule 4)", cpu, o->process_cpu_ns);
        return OUTSIDE_INCONSISTENT;
    }
    if (short_ns <= 0 || (verdict == OUTSIDE_EXCESS && short_ns <= OUTSIDE_GROSS_NS))
        return verdict;
    snprintf(why, whysz, "the probe reports a %.0f ns loop but used %.0f ns of CPU time "
             "in the window, %.0f ns more than the %llu ns allowed for its untimed work "
             "(rule 3)", t, cpu, short_ns, o->allowance_ns);
    return short_ns > OUTSIDE_GROSS_NS ? OUTSIDE_INCONSISTENT : OUTSIDE_EXCESS;
}
