/* hashbench merge: placeholder until the command lands. */
#include "cli/cli.h"

const char hb_summary_merge[] = "(not available yet)";
const char hb_usage_merge[] = "usage: hashbench merge\n";

int cmd_merge(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "hashbench merge: not available yet\n");
    return 2;
}
