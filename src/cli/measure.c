/* hashbench measure: placeholder until the command lands. */
#include "cli/cli.h"

const char hb_summary_measure[] = "(not available yet)";
const char hb_usage_measure[] = "usage: hashbench measure\n";

int cmd_measure(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "hashbench measure: not available yet\n");
    return 2;
}
