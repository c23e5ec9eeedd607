/* hashbench validate: placeholder until the command lands. */
#include "cli/cli.h"

const char hb_summary_validate[] = "(not available yet)";
const char hb_usage_validate[] = "usage: hashbench validate\n";

int cmd_validate(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "hashbench validate: not available yet\n");
    return 2;
}
