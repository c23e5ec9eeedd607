/* hashbench run: placeholder until the command lands. */
#include "cli/cli.h"

const char hb_summary_run[] = "(not available yet)";
const char hb_usage_run[] = "usage: hashbench run\n";

int cmd_run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "hashbench run: not available yet\n");
    return 2;
}
