/* hashbench validate: re-derives every figure of a dataset from its raw
 * evidence and, with --site, checks that the published site is exactly what
 * the dataset gives. */
#include "cli/cli.h"

#include <string.h>
#include "report/validate.h"

const char hb_summary_validate[] = "re-derive a dataset's figures and check its site";
const char hb_usage_validate[] =
    "usage: hashbench validate DATA [--site SITE]\n"
    "\n"
    "Recomputes every record's derived figures from its raw trials, checks every\n"
    "KAT log's SHA-256 and RESULT line against kat.json, rejects absolute paths\n"
    "and '..' in the dataset's path fields, and with --site regenerates the\n"
    "report into a temporary folder and requires SITE to be byte-identical.\n"
    "Prints one line per problem (FILE: field X: recorded A, recomputed B) and a\n"
    "summary line; exits 1 when there is any problem, 2 on a usage or input error.\n";

int cmd_validate(int argc, char **argv)
{
    const char *data = NULL, *site = NULL;
    int rc = hb_cli_dataset_args("validate", argc, argv, "--site", &data, &site);
    if (rc != 0)
        return rc;
    if (!data)
        return hb_cli_usage_error("validate", "give the dataset folder");
    hb_err err = {{0}};
    report_validate_stats st;
    rc = report_validate(data, site, stdout, &st, &err);
    if (rc < 0) {
        fprintf(stderr, "hashbench validate: %s\n", err.msg);
        return 2;
    }
    printf("validate: %d records, %d KAT logs, %d compiler logs, %d pages checked; "
           "%d problem%s\n", st.records, st.kat_logs, st.build_logs, st.pages,
           st.problems, st.problems == 1 ? "" : "s");
    return rc == 0 ? 0 : 1;
}
