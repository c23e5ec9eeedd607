/* hashbench drng: placeholder until the command lands. */
#include "cli/cli.h"

const char hb_summary_drng[] = "(not available yet)";
const char hb_usage_drng[] = "usage: hashbench drng\n";

int cmd_drng(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "hashbench drng: not available yet\n");
    return 2;
}
