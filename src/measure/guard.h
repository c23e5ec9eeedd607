/* The guard: every rule by which the measure stage refuses a figure, in
 * one table (its name, the record status it gives, its threshold, one
 * line of explanation and the fixed words its failure text starts with),
 * and the checks that decide on numbers in one place. The code that
 * gathers what a rule looks at (the probe's maps, its memory, its CPU
 * clock: session_probe.c, windows.c, measure.c) asks the guard for the
 * verdict and for the failure text, and a record names the rule that
 * fired ("refused_by": guard_rule_of_text on its failure); the method page
 * prints the table from here, so that the page and the code cannot drift
 * apart.
 *
 * To add a rule: an id and a row (same order), and guard_text at the place
 * that finds it; a rule that decides on numbers gets its check here. */
#ifndef HB_MEASURE_GUARD_H
#define HB_MEASURE_GUARD_H

#include <stddef.h>

typedef enum guard_id {
    GUARD_ANSWER_TIMEOUT = 0,
    GUARD_BUDGET,
    GUARD_CHANNEL,
    GUARD_NEEDED_LIBRARY,
    GUARD_FOREIGN_CODE,
    GUARD_EXEC_FILTER,
    GUARD_THREADS,
    GUARD_NOT_STOPPED,
    GUARD_REGION_RESIDENT,
    GUARD_REGION_CHANGED,
    GUARD_REGION_WRITTEN,
    GUARD_SAME_DIGESTS,
    GUARD_OUTPUT_AFTER_END,
    GUARD_GAINED_CPU,
    GUARD_WAITS,
    GUARD_WARMUPS,
    GUARD_PINNED_CPU,
    GUARD_CALIBRATION,
    GUARD_CYCLES,
    GUARD_DIGESTS,
    GUARD_BASELINE_FAILED,
    GUARD_GROWTH,
    GUARD_N
} guard_id;

typedef struct guard_rule {
    guard_id id;
    const char *name;        /* the record's "refused_by" */
    const char *status;      /* INCONSISTENT, FAILED or TIMEOUT */
    const char *threshold;   /* what fires it, in words with its numbers */
    const char *explanation; /* one line: why a figure is refused */
    const char *lead;        /* the fixed start of its text after "STATUS: " */
} guard_rule;

/* The rules, in guard_id order. */
extern const guard_rule guard_rules[GUARD_N];

/* ID's failure text into OUT (SZ bytes): "STATUS: " (for FAILED rules
 * none), the rule's lead, then FMT's words. */
void guard_text(char *out, size_t sz, guard_id id, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The rule whose text FAILURE is (its status and lead), or NULL: a
 * failure of the library itself (CRASH, ERROR, a KAT ...) names no rule. */
const guard_rule *guard_rule_of_text(const char *failure);

/* ---- the checks on numbers: each returns 1 and fills OUT with the rule's
 * text when it fires, else 0 ---- */

/* CPU time a stopped session gained between two windows (any at all). */
int guard_gained_cpu(long long gained_ns, char *out, size_t sz);

/* Voluntary switches in a window of CALLS calls against an empty window's
 * EMPTY (-1: unknown, no verdict). */
int guard_waits(long long waits, long long empty, unsigned long long calls, char *out,
                size_t sz);

/* A cell's untimed warm-ups so far: CPU_NS of CPU time where their calls
 * cost EXPECT_NS at its figure. */
int guard_warmups(double cpu_ns, double expect_ns, char *out, size_t sz);

/* The core a session last ran on against the one it is pinned to (either
 * -1: unknown, no verdict). */
int guard_pinned_cpu(int ran, int pinned, char *out, size_t sz);

/* A window's cost per call PER_NS against calibration's CALIB_NS: 0 in
 * agreement, 1 when far cheaper and calibration may be taken again (not
 * yet RECALIBRATED), else 1 with OUT filled (returns 2). */
int guard_calibration(double per_ns, double calib_ns, int recalibrated, char *out,
                      size_t sz);

/* The timed session's resident growth GREW_KIB from FROM_KIB (BEFORE_LOAD:
 * read before the library was loaded, else once open) to PEAK_KIB against
 * what the loaded image (IMAGE_KIB), the memory run's stack and heap
 * (FOUND_KIB) and SLACK_KIB account for. */
int guard_growth(long long grew_kib, long long from_kib, int before_load, long long peak_kib,
                 long long image_kib, long long found_kib, long long slack_kib, char *out,
                 size_t sz);

/* The thresholds the checks above use. */
#define GUARD_CALIB_FACTOR 3.0        /* a window's cost per call against calibration */
#define GUARD_WAIT_SLACK 2            /* voluntary switches beyond an empty window's */
#define GUARD_WARMUP_SLACK_NS 50e6    /* the warm-ups' allowance beyond the factor */

#endif
