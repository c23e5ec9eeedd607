/* hashbench merge: joins the run directories of a sharded campaign into one
 * (src/dataset/merge.h), refusing shards measured under different settings. */
#include "cli/cli.h"
#include "cli/options.h"

#include <stdlib.h>
#include <string.h>
#include "dataset/merge.h"

const char hb_summary_merge[] = "join the run directories of a sharded campaign";
const char hb_usage_merge[] =
    "usage: hashbench merge --run-dir OUT DIR...\n"
    "\n"
    "Joins shards (run directories made with hashbench run --shard K/N) into\n"
    "OUT: build.json, kat.json, records, logs and libraries of each instance\n"
    "from the shard that measured it, and campaign.json listing the shards.\n"
    "Shards measured under different host settings (counter, CPU model,\n"
    "governor, turbo, SMT) or planning settings (profile, planner, sizes, ...)\n"
    "are refused. OUT must be new, empty, or an earlier merge (replaced).\n"
    "\n"
    "Exit status: 0 merged, 2 usage error or refusal.\n";

int cmd_merge(int argc, char **argv)
{
    static const struct option longopts[] = {HB_OPTION_RUN_DIR, HB_OPTIONS_END};
    const char *out = NULL;
    hb_err err;
    int ch;
    hb_opt_start();
    while ((ch = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        if (ch == HB_OPT_RUN_DIR) {
            out = optarg;
        } else {
            hb_opt_getopt_error(ch, argv, &err);
            return hb_cli_usage_error("merge", "%s", err.msg);
        }
    }
    const char **dirs = (const char **)argv + optind;
    int n = argc - optind;
    if (!out || n == 0)
        return hb_cli_usage_error("merge", "give --run-dir OUT and at least one "
                                  "shard directory");
    merge_counts c;
    int rc = merge_run(out, dirs, n, &c, &err);
    if (rc < 0) {
        fprintf(stderr, "hashbench merge: %s\n", err.msg);
        return 2;
    }
    printf("merged %d shard%s (%d instances, %d records) into %s\n", c.shards,
           c.shards == 1 ? "" : "s", c.instances, c.records, out);
    if (c.missing_shards > 0)
        printf("note: %d of the campaign's %d shards %s not given; %s "
               "instances have no records (merge again with every shard)\n",
               c.missing_shards, c.shards + c.missing_shards,
               c.missing_shards == 1 ? "was" : "were",
               c.missing_shards == 1 ? "its" : "their");
    return 0;
}
