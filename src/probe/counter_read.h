/* Reading the timing counters: the code shared by the probe (which links only
 * libc and libdl) and hbcore (src/measure/counter.c adds selection, rate and
 * steadiness on top). Everything here is static inline so both compile it
 * without a shared object file. Three counters, in order of preference:
 * hardware core cycles from perf_event_open (user space only), the x86
 * time-stamp counter read with rdtscp between lfences, and the AArch64
 * virtual counter cntvct_el0 read between isb barriers. CLOCK_MONOTONIC_RAW
 * is always read alongside. A counter_reader is owned by its caller; open it
 * with counter_reader_open, read it with counter_reader_read, close it with
 * counter_reader_close. */
#ifndef HB_PROBE_COUNTER_READ_H
#define HB_PROBE_COUNTER_READ_H

#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

typedef enum counter_kind {
    COUNTER_PERF_CYCLES, /* "perf_cycles": core cycles, user space only */
    COUNTER_TSC,         /* "tsc": x86 time-stamp counter (not core cycles) */
    COUNTER_CNTVCT,      /* "cntvct_el0": AArch64 virtual counter */
    COUNTER_NONE         /* "none": no counter; ticks are nanoseconds */
} counter_kind;

typedef struct counter_reader {
    counter_kind kind;
    int perf_fd; /* COUNTER_PERF_CYCLES only, else -1 */
} counter_reader;

/* The architecture's own fixed-rate counter: COUNTER_TSC on x86,
 * COUNTER_CNTVCT on AArch64, COUNTER_NONE elsewhere. */
static inline counter_kind counter_arch_kind(void)
{
#if defined(__x86_64__) || defined(__i386__)
    return COUNTER_TSC;
#elif defined(__aarch64__)
    return COUNTER_CNTVCT;
#else
    return COUNTER_NONE;
#endif
}

/* CLOCK_MONOTONIC_RAW in nanoseconds. */
static inline uint64_t counter_clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Opens a user-space-only hardware cycles event for this thread (and its
 * children threads), enabled at once. Returns the descriptor, or -1 with
 * errno set (ENOENT/EOPNOTSUPP: no PMU; EACCES/EPERM: perf_event_paranoid). */
static inline int counter_perf_open_cycles(void)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.type = PERF_TYPE_HARDWARE;
    a.size = sizeof a;
    a.config = PERF_COUNT_HW_CPU_CYCLES;
    a.disabled = 0;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    a.inherit = 1;
    long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0L);
    return fd < 0 ? -1 : (int)fd;
}

static inline uint64_t counter_perf_value(int fd)
{
    uint64_t v = 0;
    if (read(fd, &v, sizeof v) != (ssize_t)sizeof v)
        return 0;
    return v;
}

/* Reads the counter, ordered against the code around it. */
static inline uint64_t counter_reader_read(const counter_reader *r)
{
    switch (r->kind) {
    case COUNTER_PERF_CYCLES:
        return counter_perf_value(r->perf_fd);
    case COUNTER_TSC:
#if defined(__x86_64__) || defined(__i386__)
    {
        unsigned aux;
        _mm_lfence();
        uint64_t t = __rdtscp(&aux);
        _mm_lfence();
        return t;
    }
#else
        return 0;
#endif
    case COUNTER_CNTVCT:
#if defined(__aarch64__)
    {
        uint64_t t;
        __asm__ __volatile__("isb\n\tmrs %0, cntvct_el0\n\tisb" : "=r"(t) : : "memory");
        return t;
    }
#else
        return 0;
#endif
    case COUNTER_NONE:
    default:
        return counter_clock_ns();
    }
}

/* Prepares R for KIND. Returns 0, or -1 with errno set when the counter is
 * not available here (perf refused, or the architecture lacks it). */
static inline int counter_reader_open(counter_reader *r, counter_kind kind)
{
    r->kind = kind;
    r->perf_fd = -1;
    if (kind == COUNTER_PERF_CYCLES) {
        r->perf_fd = counter_perf_open_cycles();
        return r->perf_fd < 0 ? -1 : 0;
    }
    if (kind != COUNTER_NONE && kind != counter_arch_kind()) {
        errno = ENOTSUP;
        return -1;
    }
    return 0;
}

static inline void counter_reader_close(counter_reader *r)
{
    if (r->perf_fd >= 0)
        close(r->perf_fd);
    r->perf_fd = -1;
}

/* The stable names used on probe command lines and in records. */
static inline const char *counter_kind_name(counter_kind k)
{
    switch (k) {
    case COUNTER_PERF_CYCLES: return "perf_cycles";
    case COUNTER_TSC: return "tsc";
    case COUNTER_CNTVCT: return "cntvct_el0";
    default: return "none";
    }
}

/* Parses a counter name: the names above, plus the short forms "perf" and
 * "cntvct". Returns 0 and sets *out, or -1 for an unknown name. */
static inline int counter_kind_parse(const char *s, counter_kind *out)
{
    if (!strcmp(s, "perf") || !strcmp(s, "perf_cycles"))
        *out = COUNTER_PERF_CYCLES;
    else if (!strcmp(s, "tsc"))
        *out = COUNTER_TSC;
    else if (!strcmp(s, "cntvct") || !strcmp(s, "cntvct_el0"))
        *out = COUNTER_CNTVCT;
    else if (!strcmp(s, "none"))
        *out = COUNTER_NONE;
    else
        return -1;
    return 0;
}

#endif
