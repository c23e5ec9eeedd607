/* hashbench validate: re-derives every figure of a dataset from its raw
 * evidence and, with --site, checks that the published site is exactly what
 * the dataset gives. */
#include "cli/cli.h"
#include "cli/options.h"

#include <string.h>
#include "report/export_check.h"
#include "report/validate.h"

const char hb_summary_validate[] = "re-derive a dataset's figures and check its site";
const char hb_usage_validate[] =
    "usage: hashbench validate DATA [--site SITE] [--run-dir DIR] [--export FILE]\n"
    "\n"
    "Recomputes every record's derived figures from its raw trials, checks every\n"
    "KAT log's SHA-256 and RESULT line against kat.json, rejects absolute paths\n"
    "and '..' in the dataset's path fields, and with --site regenerates the\n"
    "report into a temporary folder and requires SITE to be byte-identical.\n"
    "Every file of DATA is searched for this host's boot_id and, with --run-dir,\n"
    "for the absolute path of the campaign's run directory DIR, each as it is\n"
    "or hex-encoded (in either case): a file holding one is a problem.\n"
    "Prints one line per problem (FILE: field X: recorded A, recomputed B) and a\n"
    "summary line; exits 1 when there is any problem, 2 on a usage or input error.\n"
    "With --export FILE (a CSV or JSON file of 'hashbench export'), also checks\n"
    "that it holds every record of DATA once and that each exported figure is the\n"
    "record's (FILE:LINE or the JSON field: exported A, the record has B).\n";

int cmd_validate(int argc, char **argv)
{
    enum { OPT_SITE = HB_OPT_OWN, OPT_EXPORT };
    const struct option longopts[] = {{"site", required_argument, NULL, OPT_SITE},
                                      {"export", required_argument, NULL, OPT_EXPORT},
                                      {"run-dir", required_argument, NULL, HB_OPT_RUN_DIR},
                                      HB_OPTIONS_END};
    const char *data = NULL, *site = NULL, *export = NULL, *run_dir = NULL;
    hb_err err = {{0}};
    int ch, rc;
    hb_opt_start();
    while ((ch = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        if (ch == OPT_SITE)
            site = optarg;
        else if (ch == OPT_EXPORT)
            export = optarg;
        else if (ch == HB_OPT_RUN_DIR)
            run_dir = optarg;
        else {
            hb_opt_getopt_error(ch, argv, &err);
            return hb_cli_usage_error("validate", "%s", err.msg);
        }
    }
    for (int i = optind; i < argc; i++) {
        if (data)
            return hb_cli_usage_error("validate", "one dataset folder only ('%s')", argv[i]);
        data = argv[i];
    }
    if (!data)
        return hb_cli_usage_error("validate", "give the dataset folder");
    report_validate_stats st;
    rc = report_validate_ex(data, site, run_dir, stdout, &st, &err);
    if (rc < 0) {
        fprintf(stderr, "hashbench validate: %s\n", err.msg);
        return 2;
    }
    printf("validate: %d records, %d KAT logs, %d compiler logs, %d pages checked; "
           "%d problem%s\n", st.records, st.kat_logs, st.build_logs, st.pages,
           st.problems, st.problems == 1 ? "" : "s");
    if (export) {
        export_check_stats xs;
        int xrc = report_check_export(data, export, stdout, &xs, &err);
        if (xrc < 0) {
            fprintf(stderr, "hashbench validate: %s\n", err.msg);
            return 2;
        }
        printf("validate: export %s: %d entries, %d figures checked; %d problem%s\n", export,
               xs.entries, xs.figures, xs.problems, xs.problems == 1 ? "" : "s");
        rc |= xrc;
    }
    return rc == 0 ? 0 : 1;
}
