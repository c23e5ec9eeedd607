/* hashbench clock: shows the timing counter this host offers to the
 * measurement stage (perf cycles, the time-stamp counter or cntvct_el0), why
 * it was chosen, its rate against CLOCK_MONOTONIC_RAW, the cost of reading
 * it and how steady its rate is over a few seconds. */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

#include "cli/options.h"
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
    static const struct option longopts[] = {
        HB_OPTION_CPU, {"seconds", required_argument, NULL, HB_OPT_OWN}, HB_OPTIONS_END};
    hb_err err;
    int ch;
    hb_opt_start();
    while ((ch = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        if (ch == HB_OPT_OWN) {
            char *end;
            *seconds = strtod(optarg, &end);
            if (end == optarg || *end || !(*seconds > 0) || *seconds > 600)
                return hb_cli_usage_error("clock", "--seconds '%s' is not accepted: "
                                          "give a number in (0, 600]", optarg);
        } else if ((ch == HB_OPT_CPU ? hb_opt_cpu(optarg, cpu, &err)
                                     : hb_opt_getopt_error(ch, argv, &err)) < 0) {
            return hb_cli_usage_error("clock", "%s", err.msg);
        }
    }
    if (optind < argc)
        return hb_cli_usage_error("clock", "unknown argument '%s'", argv[optind]);
    return 0;
}

int cmd_clock(int argc, char **argv)
{
    int cpu = hb_opt_default_cpu();
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
