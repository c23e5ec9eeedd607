/* hashbench build: placeholder until the command lands. */
#include "cli/cli.h"

const char hb_summary_build[] = "(not available yet)";
const char hb_usage_build[] = "usage: hashbench build\n";

int cmd_build(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "hashbench build: not available yet\n");
    return 2;
}
