/* hashbench status: what `run` prints at its end, for a run directory a
 * campaign wrote earlier (or one under way): the table of instances, each
 * failure with the reason build.json, kat.json or its record holds, the
 * figures that missed their confidence target, the host's drift and the
 * time each stage took. It only reads the run directory
 * (src/campaign/table.h). */
#include "cli/cli.h"
#include "cli/options.h"

#include "campaign/table.h"
#include "rundir/rundir.h"

const char hb_summary_status[] = "show a run directory's instances, failures and times";
const char hb_usage_status[] =
    "usage: hashbench status RUN_DIR\n"
    "\n"
    "Prints what 'hashbench run' prints at its end, for the campaign RUN_DIR\n"
    "holds: one line per instance (build, records OK, KAT status), then one\n"
    "line per failure with its reason as the run directory holds it (the\n"
    "compiler's file:line, the manifest's file:line, the KAT file and message\n"
    "length of a crash), one line per figure whose 95% interval is wider than\n"
    "its target (--target-ci) and one when the host's drift limits every\n"
    "figure, each with what to do, and the time the stages took. Nothing is\n"
    "written.\n"
    "\n"
    "Exit status: 0 no failure, 1 some instance failed, 2 usage error or no\n"
    "build.json in RUN_DIR.\n";

int cmd_status(int argc, char **argv)
{
    const char *dir = NULL, *unused = NULL;
    int rc = hb_cli_dataset_args("status", argc, argv, "--run-dir", &dir, &unused);
    if (rc != 0)
        return rc;
    if (!dir && unused)
        dir = unused;
    if (!dir)
        return hb_cli_usage_error("status", "give the run directory");
    hb_err err;
    int failures;
    if (campaign_print_table(dir, stdout, &err) != 0 ||
        (failures = campaign_print_explained(dir, -1, stdout, &err)) < 0) {
        fprintf(stderr, "hashbench status: %s (is %s a run directory? 'hashbench run "
                "--run-dir %s' makes one)\n", err.msg, dir, dir);
        return 2;
    }
    return failures > 0 ? 1 : 0;
}
