/* hashbench kat: placeholder until the command lands. */
#include "cli/cli.h"

const char hb_summary_kat[] = "(not available yet)";
const char hb_usage_kat[] = "usage: hashbench kat\n";

int cmd_kat(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "hashbench kat: not available yet\n");
    return 2;
}
