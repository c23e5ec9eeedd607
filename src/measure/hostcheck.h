/* The host check: is this machine fit to measure on? check_gather collects
 * the facts (host_read, the counter counter_select picks, whether pinning to
 * the core works, the counter's steadiness over short windows);
 * check_judge turns facts into verdicts, one per item, each ok or a problem
 * with its fix. Judging is a pure function so it can be tested on captured
 * hosts; `hashbench check` prints the verdicts and `hashbench run` records
 * them in campaign.json and refuses to measure on an unfit host unless told. */
#ifndef HB_MEASURE_HOSTCHECK_H
#define HB_MEASURE_HOSTCHECK_H

#include <stdio.h>
#include <jansson.h>
#include "common/err.h"
#include "measure/host.h"
#include "probe/counter_read.h"

/* Everything the verdicts depend on. */
typedef struct check_facts {
    host_info host;
    int cpu;                  /* the core measurements will be pinned to */
    counter_kind counter;     /* the counter counter_select chose */
    int perf_errno;           /* why perf_event_open was refused; 0 when it worked */
    char counter_reason[256];
    int pin_tested, pin_ok;   /* pin_tested 0: not tried */
    char pin_detail[128];
    int steady_tested;        /* 0: not measured */
    double rate_hz;           /* mean counter rate over the windows */
    double spread_percent;    /* (max - min) / mean of the window rates */
    int work_tested;          /* 0: the throughput was not measured */
    double work_spread_percent; /* (max - min) / median of the windows'
                                   throughput of a fixed workload */
} check_facts;

#define CHECK_MAX_ITEMS 12

/* One verdict. ITEM is a short fixed name ("counter", "perf_event_paranoid",
 * "governor", "turbo", "smt", "pinning", "clock_steadiness",
 * "throughput_steadiness", "load"). */
typedef struct check_item {
    char item[32];
    int ok;
    char detail[256];
    char fix[256]; /* "" when ok */
} check_item;

/* Thresholds used by check_judge. */
#define CHECK_MAX_SPREAD_PERCENT 1.0
#define CHECK_MAX_LOADAVG 1.0
#define CHECK_STEADY_WINDOWS 10
#define CHECK_STEADY_WINDOW_S 0.02
/* Throughput steadiness: a fixed workload (SHA-256 of 4 KiB with OpenSSL)
 * run for CHECK_WORK_WINDOWS windows of CHECK_WORK_WINDOW_S each; the
 * counter's rate can be steady while the work it times is not (a virtual
 * machine whose vCPU shares its core, a neighbour thrashing the cache). */
#define CHECK_MAX_WORK_SPREAD_PERCENT 5.0
#define CHECK_WORK_WINDOWS 10
#define CHECK_WORK_WINDOW_S 0.05

/* Fills ITEMS (capacity CHECK_MAX_ITEMS, owned by the caller) with one verdict
 * per item from F; returns the number of problems (items not ok). *N gets
 * the number of items. Pure: reads nothing but F. */
int check_judge(const check_facts *f, check_item *items, int *n);

/* Gathers the facts of the live host under ROOT ("/" normally) for CPU:
 * host_read, counter_select, a pinning test and a steadiness measurement on
 * that core (about CHECK_STEADY_WINDOWS * CHECK_STEADY_WINDOW_S seconds).
 * Fails only when the host cannot be read at all. */
int check_gather(const char *root, int cpu, check_facts *f, hb_err *err);

/* The verdicts as a JSON array of {"item", "ok", "detail", "fix"} (new
 * reference owned by the caller). */
json_t *check_items_json(const check_item *items, int n);

/* Prints the verdicts to FP, one line per item ("ok" or "PROBLEM", the item,
 * the detail) and an indented "fix:" line under each problem. */
void check_print(FILE *fp, const check_item *items, int n);

/* The counter facts as {"name", "is_cycles", "reason", "rate_hz",
 * "spread_percent"} (new reference owned by the caller). */
json_t *check_counter_json(const check_facts *f);

#endif
