/* hashbench check: placeholder until the command lands. */
#include "cli/cli.h"

const char hb_summary_check[] = "(not available yet)";
const char hb_usage_check[] = "usage: hashbench check\n";

int cmd_check(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "hashbench check: not available yet\n");
    return 2;
}
