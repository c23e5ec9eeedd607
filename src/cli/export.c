/* hashbench export: a dataset's figures as one CSV table for spreadsheets
 * and plotting tools, and as one JSON document for programs; "-" writes to
 * standard output. */
#include "cli/cli.h"
#include "cli/options.h"

#include <string.h>
#include "report/report.h"

const char hb_summary_export[] = "write a dataset's figures as CSV or JSON";
const char hb_usage_export[] =
    "usage: hashbench export DATA [--csv FILE] [--json FILE]\n"
    "\n"
    "--csv FILE   RFC 4180 CSV with one row per (system, candidate, instance,\n"
    "             message size): status, KAT status, counter, the headline and\n"
    "             dispersion figures of the record, its paired ratio to the\n"
    "             baseline with the ratio's 95 % interval (empty for a FAILED\n"
    "             record, with its failure).\n"
    "--json FILE  one JSON document: systems and their environment, candidates,\n"
    "             instances (build, KAT and constant-time status, static size)\n"
    "             and, per message size, every figure with its interval, the\n"
    "             paired ratio and the memory (docs/FORMATS.md gives its schema).\n"
    "FILE '-' is standard output (then the summary line goes to standard error).\n"
    "'hashbench validate DATA --export FILE' checks an export against DATA.\n";

int cmd_export(int argc, char **argv)
{
    enum { OPT_CSV = HB_OPT_OWN, OPT_JSON };
    const struct option longopts[] = {{"csv", required_argument, NULL, OPT_CSV},
                                      {"json", required_argument, NULL, OPT_JSON},
                                      HB_OPTIONS_END};
    const char *data = NULL, *csv = NULL, *json = NULL;
    hb_err err = {{0}};
    int ch;
    hb_opt_start();
    while ((ch = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        if (ch == OPT_CSV)
            csv = optarg;
        else if (ch == OPT_JSON)
            json = optarg;
        else {
            hb_opt_getopt_error(ch, argv, &err);
            return hb_cli_usage_error("export", "%s", err.msg);
        }
    }
    for (int i = optind; i < argc; i++) {
        if (data)
            return hb_cli_usage_error("export", "one dataset folder only ('%s')", argv[i]);
        data = argv[i];
    }
    if (!data || (!csv && !json))
        return hb_cli_usage_error("export", "give the dataset folder and --csv FILE or "
                                  "--json FILE");
    if (csv && json && !strcmp(csv, "-") && !strcmp(json, "-"))
        return hb_cli_usage_error("export", "only one of --csv and --json can write to "
                                  "standard output");
    int rows = 0;
    if (csv) {
        if (report_export_csv(data, csv, &rows, &err) < 0) {
            fprintf(stderr, "hashbench export: %s\n", err.msg);
            return 2;
        }
        fprintf(strcmp(csv, "-") ? stdout : stderr, "export: %d rows written to %s\n", rows,
                strcmp(csv, "-") ? csv : "standard output");
    }
    if (json) {
        if (report_export_json(data, json, &rows, &err) < 0) {
            fprintf(stderr, "hashbench export: %s\n", err.msg);
            return 2;
        }
        fprintf(strcmp(json, "-") ? stdout : stderr, "export: %d records written to %s\n",
                rows, strcmp(json, "-") ? json : "standard output");
    }
    return 0;
}
