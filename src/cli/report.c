/* hashbench report: placeholder until the command lands. */
#include "cli/cli.h"

const char hb_summary_report[] = "(not available yet)";
const char hb_usage_report[] = "usage: hashbench report\n";

int cmd_report(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "hashbench report: not available yet\n");
    return 2;
}
