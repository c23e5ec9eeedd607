/* hashbench clock: placeholder until the command lands. */
#include "cli/cli.h"

const char hb_summary_clock[] = "(not available yet)";
const char hb_usage_clock[] = "usage: hashbench clock\n";

int cmd_clock(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "hashbench clock: not available yet\n");
    return 2;
}
