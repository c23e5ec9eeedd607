/* hashbench export: placeholder until the command lands. */
#include "cli/cli.h"

const char hb_summary_export[] = "(not available yet)";
const char hb_usage_export[] = "usage: hashbench export\n";

int cmd_export(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "hashbench export: not available yet\n");
    return 2;
}
