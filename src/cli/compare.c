/* hashbench compare: two measured systems side by side (report/compare.h),
 * or one system against a submitter's self-assessment
 * (report/selfassess.h). Prints a table; --out writes the page in
 * Markdown, SVG and HTML; --fail-above makes the exit status usable in CI. */
#include "cli/cli.h"
#include "cli/options.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "report/compare.h"
#include "report/selfassess.h"

const char hb_summary_compare[] = "compare two systems, or a self-assessment with the figures";
const char hb_usage_compare[] =
    "usage: hashbench compare A B [--out DIR] [--markdown] [--fail-above PCT]\n"
    "                             [--min-change PCT]\n"
    "       hashbench compare DATA --self-assessment FILE [--out DIR] [--markdown]\n"
    "\n"
    "A and B are each a dataset holding one system, a system folder DATA/<system>\n"
    "or a run directory. For every instance and message size measured on both:\n"
    "the two figures, B / A with a 95 % interval (bootstrap), and a verdict\n"
    "(faster, slower, no difference detected). Where both records have paired\n"
    "ratios to the baseline, the figures are those ratios, so the two hosts'\n"
    "speeds cancel; otherwise the mean time per call (marked unpaired).\n"
    "Instances measured on one side only are listed.\n"
    "  --out DIR          also write DIR/compare.md, compare.svg, compare.html\n"
    "  --markdown         print the Markdown page instead of the table\n"
    "  --fail-above PCT   exit 1 when a row is slower by more than PCT percent\n"
    "  --min-change PCT   smaller differences are 'no difference' (default 1)\n"
    "\n"
    "With --self-assessment FILE (CSV, JSON or the text of a published page;\n"
    "docs/SELF_ASSESSMENT.md), every claimed figure is printed beside the\n"
    "measured one, with its deviation; a claim outside the measured interval is\n"
    "flagged, and the exit status is 1 when any is.\n"
    "Exit status: 0, 1 (slowdown beyond --fail-above, or a flagged claim), 2 on\n"
    "a usage or input error.\n";

enum { OPT_OUT = HB_OPT_OWN, OPT_FAIL, OPT_MIN, OPT_SA, OPT_MD };

static int parse_pct(const char *opt, const char *text, double *out)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end || !isfinite(v) || v < 0 || v > 1e6)
        return hb_cli_usage_error("compare", "%s '%s': give a percentage, a number from "
                                  "0 to 1000000", opt, text);
    *out = v;
    return 0;
}

static int self_assessment(const char *data, const char *file, const char *out, int md)
{
    hb_err err = {{0}};
    report_dataset ds;
    const report_system *s;
    sa_file sa;
    sa_result res;
    if (compare_load_side(data, &ds, &s, &err) < 0) {
        fprintf(stderr, "hashbench compare: %s\n", err.msg);
        return 2;
    }
    if (sa_load(file, &sa, &err) < 0) {
        fprintf(stderr, "hashbench compare: %s\n", err.msg);
        report_dataset_free(&ds);
        return 2;
    }
    int rc = sa_hold(&sa, s, &res, &err);
    if (rc == 0) {
        if (md)
            rc = sa_md(stdout, &res, NULL, 1, &err);
        else
            sa_print_text(stdout, &res);
    }
    if (rc == 0 && out)
        rc = sa_write_pages(out, &res, &err);
    int status = rc < 0 ? 2 : res.flagged ? 1 : 0;
    if (rc < 0)
        fprintf(stderr, "hashbench compare: %s\n", err.msg);
    else
        fprintf(stderr, "compare: %zu claimed figures, %zu flagged%s%s\n", res.nchecks,
                res.flagged, out ? "; pages written to " : "", out ? out : "");
    if (rc == 0)
        sa_result_free(&res);
    sa_free(&sa);
    report_dataset_free(&ds);
    return status;
}

int cmd_compare(int argc, char **argv)
{
    const struct option longopts[] = {
        {"out", required_argument, NULL, OPT_OUT},
        {"fail-above", required_argument, NULL, OPT_FAIL},
        {"min-change", required_argument, NULL, OPT_MIN},
        {"self-assessment", required_argument, NULL, OPT_SA},
        {"markdown", no_argument, NULL, OPT_MD},
        HB_OPTIONS_END};
    const char *out = NULL, *sa = NULL, *side[2] = {NULL, NULL};
    double fail_above = NAN, min_change = COMPARE_MIN_CHANGE * 100.0;
    int md = 0, ch, nside = 0;
    hb_err err = {{0}};
    hb_opt_start();
    while ((ch = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        if (ch == OPT_OUT)
            out = optarg;
        else if (ch == OPT_SA)
            sa = optarg;
        else if (ch == OPT_MD)
            md = 1;
        else if (ch == OPT_FAIL || ch == OPT_MIN) {
            if (parse_pct(ch == OPT_FAIL ? "--fail-above" : "--min-change", optarg,
                          ch == OPT_FAIL ? &fail_above : &min_change) != 0)
                return 2;
        } else {
            hb_opt_getopt_error(ch, argv, &err);
            return hb_cli_usage_error("compare", "%s", err.msg);
        }
    }
    for (int i = optind; i < argc; i++) {
        if (nside == 2)
            return hb_cli_usage_error("compare", "two systems at most ('%s')", argv[i]);
        side[nside++] = argv[i];
    }
    if (sa) {
        if (nside != 1 || isfinite(fail_above))
            return hb_cli_usage_error("compare", "--self-assessment takes one dataset and "
                                      "no --fail-above");
        return self_assessment(side[0], sa, out, md);
    }
    if (nside != 2)
        return hb_cli_usage_error("compare", "give two systems A and B");
    report_dataset da, db;
    const report_system *a, *b;
    if (compare_load_side(side[0], &da, &a, &err) < 0) {
        fprintf(stderr, "hashbench compare: %s\n", err.msg);
        return 2;
    }
    if (compare_load_side(side[1], &db, &b, &err) < 0) {
        fprintf(stderr, "hashbench compare: %s\n", err.msg);
        report_dataset_free(&da);
        return 2;
    }
    compare_result res;
    int rc = compare_systems(a, b, min_change / 100.0, &res, &err);
    if (rc == 0) {
        if (md)
            rc = compare_md(stdout, &res, ".md", &err);
        else
            compare_print_text(stdout, &res);
    }
    if (rc == 0 && out)
        rc = compare_write_pages(out, &res, &err);
    int status = 0;
    if (rc < 0) {
        fprintf(stderr, "hashbench compare: %s\n", err.msg);
        status = 2;
    } else {
        size_t slow = isfinite(fail_above) ? compare_slowdowns(&res, fail_above) : 0;
        fprintf(stderr, "compare: %zu rows compared, %zu not compared", res.nrows,
                json_array_size(res.only_a) + json_array_size(res.only_b));
        if (isfinite(fail_above))
            fprintf(stderr, "; %zu slower by more than %g %%", slow, fail_above);
        if (out)
            fprintf(stderr, "; pages written to %s", out);
        fputs("\n", stderr);
        status = slow ? 1 : 0;
        compare_free(&res);
    }
    report_dataset_free(&da);
    report_dataset_free(&db);
    return status;
}
