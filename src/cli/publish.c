/* hashbench publish: placeholder until the command lands. */
#include "cli/cli.h"

const char hb_summary_publish[] = "(not available yet)";
const char hb_usage_publish[] = "usage: hashbench publish\n";

int cmd_publish(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "hashbench publish: not available yet\n");
    return 2;
}
