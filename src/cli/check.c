/* hashbench check: is this host fit to measure on? Gathers the host facts,
 * the counter, a pinning test and the counter's steadiness on the chosen
 * core (src/measure/hostcheck.h), prints each item as ok or a problem with its
 * fix, and exits 1 while any problem remains. */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>
#include "cli/options.h"
#include "measure/hostcheck.h"

const char hb_summary_check[] = "check the host's fitness for measurement";
const char hb_usage_check[] =
    "usage: hashbench check [--cpu N] [--json]\n"
    "\n"
    "Checks what decides whether timings on this host mean anything: the\n"
    "counter (hardware cycles through perf_event_open, or a fixed-rate tick\n"
    "counter), perf_event_paranoid, the frequency governor (performance, or\n"
    "scaling min = max; on AArch64 min = max is required), turbo/boost off,\n"
    "SMT off, pinning to the core, the counter's steadiness over short\n"
    "windows, and the load. Each problem is printed with its fix.\n"
    "\n"
    "  --cpu N   the core measurements will be pinned to (default: the last\n"
    "            core this process may use, as for run, clock and measure)\n"
    "  --json    print the verdicts as JSON instead\n"
    "\n"
    "Exit status: 0 fit, 1 problems remain, 2 usage error.\n";

static void print_json(const check_facts *f, const check_item *items, int n)
{
    json_t *o = json_object();
    json_object_set_new(o, "cpu", json_integer(f->cpu));
    json_object_set_new(o, "host", host_info_json(&f->host));
    json_object_set_new(o, "counter", check_counter_json(f));
    json_object_set_new(o, "checks", check_items_json(items, n));
    json_dumpf(o, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    fputc('\n', stdout);
    json_decref(o);
}

int cmd_check(int argc, char **argv)
{
    static const struct option longopts[] = {
        HB_OPTION_CPU, {"json", no_argument, NULL, HB_OPT_OWN}, HB_OPTIONS_END};
    int cpu = hb_opt_default_cpu(), as_json = 0, ch;
    hb_err err;
    hb_opt_start();
    while ((ch = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        if (ch == HB_OPT_OWN)
            as_json = 1;
        else if ((ch == HB_OPT_CPU ? hb_opt_cpu(optarg, &cpu, &err)
                                   : hb_opt_getopt_error(ch, argv, &err)) < 0)
            return hb_cli_usage_error("check", "%s", err.msg);
    }
    if (optind < argc)
        return hb_cli_usage_error("check", "unknown argument '%s'", argv[optind]);
    check_facts f;
    if (check_gather("/", cpu, &f, &err) < 0) {
        fprintf(stderr, "hashbench check: %s\n", err.msg);
        return 2;
    }
    check_item items[CHECK_MAX_ITEMS];
    int n;
    int problems = check_judge(&f, items, &n);
    if (as_json) {
        print_json(&f, items, n);
        return problems ? 1 : 0;
    }
    printf("host: %s, %s, kernel %s, %d CPUs%s; checking CPU %d\n",
           f.host.arch, f.host.cpu_model, f.host.kernel, f.host.ncpu,
           f.host.hypervisor ? " (virtual machine)" : "", cpu);
    check_print(stdout, items, n);
    if (problems)
        printf("%d problem%s: timings here are labelled with them; 'hashbench "
               "run' measures only with --allow-unfit-host\n", problems,
               problems == 1 ? "" : "s");
    else
        printf("fit for measurement\n");
    return problems ? 1 : 0;
}
