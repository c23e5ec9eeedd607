/* hashbench report: turns a published dataset into the report site (the
 * Markdown pages, their SVG charts and the HTML rendering). */
#include "cli/cli.h"

#include "report/report.h"
#include "rundir/rundir.h"

const char hb_summary_report[] = "write the report pages and HTML site of a dataset";
const char hb_usage_report[] =
    "usage: hashbench report DATA --out SITE\n"
    "\n"
    "Reads the published dataset DATA (DATA/<system>/campaign.json, build.json,\n"
    "kat.json, " RUNDIR_KAT "/, " RUNDIR_RECORDS "/) and writes into SITE:\n"
    "  index.md, index.html                  the systems and their candidates\n"
    "  <system>/<candidate>.{md,svg,html}    one page per candidate and system\n"
    "  <system>/summary.{md,svg,html}        every instance against the SM3 baseline\n"
    "  <system>/method.{md,html}             how the figures were obtained\n"
    "The same dataset always gives byte-identical pages.\n";

int cmd_report(int argc, char **argv)
{
    const char *data = NULL, *out = NULL;
    int rc = hb_cli_dataset_args("report", argc, argv, "--out", &data, &out);
    if (rc != 0)
        return rc;
    if (!data || !out)
        return hb_cli_usage_error("report", "give the dataset folder and --out SITE");
    hb_err err = {{0}};
    if (report_site(data, out, &err) < 0) {
        fprintf(stderr, "hashbench report: %s\n", err.msg);
        return 2;
    }
    printf("report: site written to %s (open %s/index.html)\n", out, out);
    return 0;
}
