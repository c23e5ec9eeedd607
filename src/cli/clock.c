/* hashbench clock: shows the timing counter this host offers to the
 * measurement stage (perf cycles, the time-stamp counter or cntvct_el0), why
 * it was chosen, its rate against CLOCK_MONOTONIC_RAW, the cost of reading
 * it and how steady its rate is over a few seconds. */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

#include "measure/counter.h"
#include "measure/measure.h"

const char hb_summary_clock[] = "show the timing counter, its rate, overhead and steadiness";
const char hb_usage_clock[] =
    "usage: hashbench clock [--cpu N] [--seconds S]\n"
    "\n"
    "Selects the counter the measurement stage would use (core cycles from\n"
    "perf_event_open when the kernel allows, else the time-stamp counter on\n"
    "x86 or cntvct_el0 on AArch64), and prints why, its rate against\n"
    "CLOCK_MONOTONIC_RAW, its read overhead (ticks between back-to-back\n"
    "reads) and its steadiness (rate spread over 0.1 s windows).\n"
    "\n"
    "  --cpu N      pin to core N (default: the last core this process may use)\n"
    "  --seconds S  length of the steadiness test (default 2)\n";

static int parse_args(int argc, char **argv, int *cpu, double *seconds)
{
    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        if (i + 1 >= argc)
            return hb_cli_usage_error("clock", "unknown option or missing value: %s",
                                      argv[i]);
        if (!strcmp(argv[i], "--cpu")) {
            long v = strtol(argv[++i], &end, 10);
            if (*end || v < 0)
                return hb_cli_usage_error("clock", "--cpu needs a core number");
            *cpu = (int)v;
        } else if (!strcmp(argv[i], "--seconds")) {
            *seconds = strtod(argv[++i], &end);
            if (*end || !(*seconds > 0) || *seconds > 600)
                return hb_cli_usage_error("clock", "--seconds needs a number in (0, 600]");
        } else {
            return hb_cli_usage_error("clock", "unknown option %s", argv[i]);
        }
    }
    return 0;
}

int cmd_clock(int argc, char **argv)
{
    int cpu = measure_default_cpu();
    double seconds = 2.0;
    int rc = parse_args(argc, argv, &cpu, &seconds);
    if (rc)
        return rc;
    counter_report r;
    hb_err err;
    if (counter_characterise(cpu, seconds, &r, &err) != 0) {
        fprintf(stderr, "hashbench clock: %s\n", err.msg);
        return 1;
    }
    counter_kind k = r.state.kind;
    printf("counter:       %s (%s)\n", counter_name(k), counter_description(k));
    printf("why:           %s\n", r.state.reason);
    printf("core cycles:   %s\n", counter_is_cycles(k) ? "yes"
                                  : "no: figures are counter ticks, not cycles");
    printf("cpu:           %d\n", r.cpu);
    printf("rate:          %.6g ticks/s (%.4f GHz) against CLOCK_MONOTONIC_RAW\n",
           r.rate_hz, r.rate_hz / 1e9);
    printf("read overhead: min %.0f ticks, median %.0f ticks (back-to-back reads)\n",
           r.read_min_ticks, r.read_median_ticks);
    printf("steadiness:    rate spread %.3f%% over %d windows of %.1f s\n",
           r.spread_percent, r.windows, r.window_s);
    return 0;
}
