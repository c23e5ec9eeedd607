/* Counter selection and characterisation: see counter.h. Rates are measured
 * by busy-waiting on CLOCK_MONOTONIC_RAW between two counter reads, so the
 * result is ticks per second of the raw clock the records also carry. */
#include "measure/counter.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int counter_perf_open_default(void *ctx)
{
    (void)ctx;
    return counter_perf_open_cycles();
}

static const char *errno_word(int e)
{
    const char *n = strerrorname_np(e);
    return n ? n : "unknown error";
}

static const char *refusal_kind(int e)
{
    switch (e) {
    case ENOENT:
    case EOPNOTSUPP:
    case ENODEV:
    case ENOSYS:
        return "not supported";
    case EACCES:
    case EPERM:
        return "not permitted (see perf_event_paranoid)";
    default:
        return "refused";
    }
}

int counter_select(counter_state *c, counter_perf_open_fn perf_open, void *ctx,
                   hb_err *err)
{
    if (!c)
        return hb_fail(err, "counter_select: no state to fill");
    if (!perf_open)
        perf_open = counter_perf_open_default;
    memset(c, 0, sizeof *c);
    errno = 0;
    int fd = perf_open(ctx);
    if (fd >= 0) {
        close(fd);
        c->kind = COUNTER_PERF_CYCLES;
        snprintf(c->reason, sizeof c->reason,
                 "perf_event_open: user-space core cycles available");
        return 0;
    }
    c->perf_errno = errno ? errno : ENOENT;
    c->kind = counter_arch_kind();
    snprintf(c->reason, sizeof c->reason,
             "perf_event_open: %s (%s), falling back to %s",
             refusal_kind(c->perf_errno), errno_word(c->perf_errno),
             counter_name(c->kind));
    return 0;
}

const char *counter_name(counter_kind k)
{
    return counter_kind_name(k);
}

const char *counter_description(counter_kind k)
{
    switch (k) {
    case COUNTER_PERF_CYCLES:
        return "core cycles, user space only (perf_event_open)";
    case COUNTER_TSC:
        return "x86 time-stamp counter (rdtscp, fenced); fixed rate, not core cycles";
    case COUNTER_CNTVCT:
        return "AArch64 virtual counter cntvct_el0 (isb); fixed rate, not core cycles";
    default:
        return "no hardware counter: CLOCK_MONOTONIC_RAW nanoseconds";
    }
}

int counter_is_cycles(counter_kind k)
{
    return k == COUNTER_PERF_CYCLES;
}

int counter_from_name(const char *name, counter_kind *out, hb_err *err)
{
    if (counter_kind_parse(name, out) != 0)
        return hb_fail(err, "unknown counter '%s': use perf, tsc, cntvct or none",
                       name);
    return 0;
}

static int open_reader(counter_reader *r, counter_kind k, hb_err *err)
{
    if (counter_reader_open(r, k) != 0)
        return hb_fail_errno(err, "cannot use the counter %s on this host",
                             counter_name(k));
    return 0;
}

int counter_measure_rate(counter_kind k, double seconds, double *rate_hz,
                         hb_err *err)
{
    counter_reader r;
    if (open_reader(&r, k, err) != 0)
        return -1;
    uint64_t span = (uint64_t)(seconds * 1e9);
    uint64_t t0 = counter_clock_ns();
    uint64_t c0 = counter_reader_read(&r);
    uint64_t t1;
    do {
        t1 = counter_clock_ns();
    } while (t1 - t0 < span);
    uint64_t c1 = counter_reader_read(&r);
    counter_reader_close(&r);
    if (t1 == t0)
        return hb_fail(err, "CLOCK_MONOTONIC_RAW did not advance");
    *rate_hz = (double)(c1 - c0) * 1e9 / (double)(t1 - t0);
    return 0;
}

static int cmp_double(const void *a, const void *b);

int counter_steadiness(counter_kind k, int windows, double window_s,
                       double *mean_rate_hz, double *spread_percent,
                       hb_err *err)
{
    if (windows < 2)
        return hb_fail(err, "counter steadiness needs at least 2 windows");
    double *r = malloc((size_t)windows * sizeof *r);
    if (!r)
        return hb_fail(err, "out of memory");
    for (int i = 0; i < windows; i++)
        if (counter_measure_rate(k, window_s, &r[i], err) != 0) {
            free(r);
            return -1;
        }
    qsort(r, (size_t)windows, sizeof *r, cmp_double);
    double lo = r[0], hi = r[windows - 1];
    double med = windows % 2 ? r[windows / 2] : (r[windows / 2 - 1] + r[windows / 2]) / 2;
    free(r);
    if (mean_rate_hz)
        *mean_rate_hz = med;
    if (spread_percent)
        *spread_percent = med > 0 ? (hi - lo) / med * 100.0 : 0.0;
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int counter_read_overhead(counter_kind k, int samples, double *min_ticks,
                          double *median_ticks, hb_err *err)
{
    if (samples < 1)
        return hb_fail(err, "counter read overhead needs at least 1 sample");
    double *d = malloc((size_t)samples * sizeof *d);
    if (!d)
        return hb_fail(err, "out of memory");
    counter_reader r;
    if (open_reader(&r, k, err) != 0) {
        free(d);
        return -1;
    }
    for (int i = 0; i < samples; i++) {
        uint64_t a = counter_reader_read(&r);
        uint64_t b = counter_reader_read(&r);
        d[i] = (double)(b - a);
    }
    counter_reader_close(&r);
    qsort(d, (size_t)samples, sizeof *d, cmp_double);
    *min_ticks = d[0];
    *median_ticks = samples % 2 ? d[samples / 2]
                                : (d[samples / 2 - 1] + d[samples / 2]) / 2.0;
    free(d);
    return 0;
}

/* The frequency the architecture states for K, where it states one:
 * cntfrq_el0 for cntvct_el0 on AArch64; 0 elsewhere. */
static double counter_nominal_hz(counter_kind k)
{
#if defined(__aarch64__)
    if (k == COUNTER_CNTVCT) {
        uint64_t hz;
        __asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(hz));
        return (double)hz;
    }
#else
    (void)k;
#endif
    return 0;
}

json_t *counter_json(counter_kind k, double rate_hz)
{
    json_t *j = json_pack("{s:s, s:b, s:f, s:s}", "name", counter_name(k),
                          "is_cycles", counter_is_cycles(k), "rate_hz", rate_hz,
                          "description", counter_description(k));
    double nominal = counter_nominal_hz(k);
    if (j && nominal > 0) {
        json_object_set_new(j, "nominal_hz", json_real(nominal));
        json_object_set_new(j, "nominal_source", json_string("cntfrq_el0"));
    }
    return j;
}

int counter_characterise(int cpu, double seconds, counter_report *out,
                         hb_err *err)
{
    memset(out, 0, sizeof *out);
    out->cpu = cpu;
    if (cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        if (sched_setaffinity(0, sizeof set, &set) != 0)
            return hb_fail_errno(err, "cannot pin to cpu %d (see --cpu)", cpu);
    }
    if (counter_select(&out->state, NULL, NULL, err) != 0)
        return -1;
    out->window_s = 0.1;
    out->windows = (int)(seconds / out->window_s + 0.5);
    if (out->windows < 2)
        out->windows = 2;
    counter_kind k = out->state.kind;
    if (counter_steadiness(k, out->windows, out->window_s, &out->rate_hz,
                           &out->spread_percent, err) != 0)
        return -1;
    return counter_read_overhead(k, 10001, &out->read_min_ticks,
                                 &out->read_median_ticks, err);
}
