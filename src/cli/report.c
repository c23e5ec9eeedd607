/* hashbench report: turns a published dataset into the report site (the
 * Markdown pages, their SVG charts and the HTML rendering). */
#include "cli/cli.h"
#include "cli/options.h"

#include "report/report.h"
#include "rundir/rundir.h"

const char hb_summary_report[] = "write the report pages and HTML site of a dataset";
const char hb_usage_report[] =
    "usage: hashbench report DATA --out SITE [--self-assessment FILE] [--notes FILE]\n"
    "                        [--compare DIR]...\n"
    "\n"
    "Reads the published dataset DATA (DATA/<system>/campaign.json, build.json,\n"
    "kat.json, " RUNDIR_KAT "/, " RUNDIR_RECORDS "/) and writes into SITE:\n"
    "  index.md, index.html                  the systems and their candidates\n"
    "  <system>/<candidate>.{md,svg,html}    one page per candidate and system\n"
    "  <system>/summary.{md,svg,html}        every instance against the SM3 baseline\n"
    "  <system>/method.{md,html}             how the figures were obtained\n"
    "The same dataset always gives byte-identical pages.\n"
    "With --self-assessment FILE (docs/SELF_ASSESSMENT.md), each candidate page\n"
    "the file claims figures for gets a section holding them against the\n"
    "system's figures.\n"
    "With --compare DIR (a folder written by 'hashbench compare A B --out DIR';\n"
    "repeat for several), the comparison is installed as SITE/compare/<name of\n"
    "DIR>/ and listed on SITE/index.html.\n"
    "The evaluator's notes (a caveat per instance, the cause of KATs that do not\n"
    "pass; docs/FORMATS.md, notes.txt) come from DATA/<system>/notes.txt; with\n"
    "--notes FILE from FILE instead, for every system (a draft: validate --site\n"
    "compares with the dataset's own notes).\n";

int cmd_report(int argc, char **argv)
{
    enum { OPT_OUT = HB_OPT_OWN, OPT_SA, OPT_COMPARE, OPT_NOTES, MAX_COMPARE = 64 };
    const struct option longopts[] = {{"out", required_argument, NULL, OPT_OUT},
                                      {"self-assessment", required_argument, NULL, OPT_SA},
                                      {"compare", required_argument, NULL, OPT_COMPARE},
                                      {"notes", required_argument, NULL, OPT_NOTES},
                                      HB_OPTIONS_END};
    const char *data = NULL, *out = NULL, *sa = NULL, *notes = NULL, *compare[MAX_COMPARE];
    size_t ncompare = 0;
    hb_err err = {{0}};
    int ch;
    hb_opt_start();
    while ((ch = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        if (ch == OPT_OUT)
            out = optarg;
        else if (ch == OPT_SA)
            sa = optarg;
        else if (ch == OPT_NOTES)
            notes = optarg;
        else if (ch == OPT_COMPARE) {
            if (ncompare == MAX_COMPARE)
                return hb_cli_usage_error("report", "at most %d --compare folders",
                                          MAX_COMPARE);
            compare[ncompare++] = optarg;
        } else {
            hb_opt_getopt_error(ch, argv, &err);
            return hb_cli_usage_error("report", "%s", err.msg);
        }
    }
    for (int i = optind; i < argc; i++) {
        if (data)
            return hb_cli_usage_error("report", "one dataset folder only ('%s')", argv[i]);
        data = argv[i];
    }
    if (!data || !out)
        return hb_cli_usage_error("report", "give the dataset folder and --out SITE");
    report_options opt = {sa, compare, ncompare, notes};
    if (report_site_opts(data, out, &opt, &err) < 0) {
        fprintf(stderr, "hashbench report: %s\n", err.msg);
        return 2;
    }
    printf("report: site written to %s (open %s/index.html)\n", out, out);
    return 0;
}
