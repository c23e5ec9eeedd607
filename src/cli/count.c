/* hashbench count: the instruction-count stage (src/count/count.h) on a run
 * directory whose KAT stage has run: every instance that passed is run
 * under Valgrind's callgrind in the sandbox, one record per size and a
 * curve under DIR/count/. This file parses the options and prints one line per
 * record. */
#include "cli/cli.h"
#include "cli/options.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "common/fs.h"
#include "common/json.h"
#include "common/walk.h"
#include "count/count.h"
#include "count/count_plan.h"
#include "measure/settings.h"
#include "rundir/rundir.h"

const char hb_summary_count[] = "count instructions per byte under Valgrind (exact)";
const char hb_usage_count[] =
    "usage: hashbench count --run-dir DIR [--instances LIST] [--sizes LIST]\n"
    "                       [--jobs N] [--no-branches] [--memory] [--no-curve]\n"
    "\n"
    "For every instance of DIR/kat.json that passed its KATs (and the OpenSSL\n"
    "baseline), counts the instructions each call executes under Valgrind's\n"
    "callgrind (--branch-sim=yes: instructions and conditional branches), in\n"
    "the sandbox, with collection on during the call only: the median, minimum\n"
    "and maximum over " SETTINGS_TEXT(COUNT_CALLS_SIZE) " calls at each size and over "
    SETTINGS_TEXT(COUNT_CALLS_CURVE) " at every length of the\n"
    "curve (0-512 bytes, then every 64 to 4096), every call on a fresh message,\n"
    "the digests recomputed natively. An exact figure that does not depend on\n"
    "the host's state; instructions, not cycles (docs/INSTRUCTIONS.md).\n"
    "Writes DIR/count/<cand>/<Inst>__count_<bytes>.json and\n"
    "<Inst>__count_curve.json (docs/FORMATS.md).\n"
    "  --instances LIST   comma-separated Inst or Cand/Inst names (default: all)\n"
    "  --sizes LIST       message sizes in bytes, at most 1048576 (default:\n"
    "                     campaign.json's sizes, else S1-S8)\n"
    "  --jobs N           instances counted at once (default: the cores)\n"
    "  --no-branches      instructions only (no --branch-sim=yes)\n"
    "  --memory           also count memory reads and writes (--cache-sim=yes)\n"
    "  --no-curve         the sizes only, not the length curve\n"
    "\n"
    "Exit status: 0 every record counted, 1 some not countable or inconsistent,\n"
    "2 error.\n";

enum { OPT_NO_BRANCHES = HB_OPT_OWN, OPT_MEMORY, OPT_NO_CURVE };

static void progress(void *ctx, const char *step, int done, int total)
{
    (void)ctx;
    if (done < total)
        fprintf(stderr, "[%d/%d] %s\n", done + 1, total, step);
}

/* One line per record of DIR/count/, in file order. */
static int print_record(const hb_walk_entry *e, void *ctx, hb_err *err);

static void print_records(const char *run_dir)
{
    char dir[PATH_MAX];
    hb_err err;
    if (rundir_path(dir, sizeof dir, run_dir, RUNDIR_COUNT, &err) == 0 && hb_is_dir(dir))
        hb_walk(dir, 2, 0, print_record, NULL, &err);
}

static int print_record(const hb_walk_entry *e, void *ctx, hb_err *err)
{
    (void)ctx;
    (void)err;
    size_t n = strlen(e->path);
    json_t *r = NULL;
    hb_err ignored;
    if (e->type != HB_WALK_FILE || n < 5 || strcmp(e->path + n - 5, ".json") != 0 ||
        hb_json_load(e->path, &r, &ignored) != 0)
        return HB_WALK_CONTINUE;
    const json_t *d = json_object_get(r, "derived"), *ir = json_object_get(d, "Ir");
    const json_t *points = json_object_get(r, "points");
    printf("%-14s %s/%s", hb_json_str(r, "status"), hb_json_str(r, "candidate"),
           hb_json_str(r, "instance"));
    if (points)
        printf(" curve, %zu lengths", json_array_size(points));
    else
        printf(" %lld B", (long long)json_integer_value(json_object_get(r, "size_bytes")));
    if (ir)
        printf("  %.1f instructions/call (median), %.2f instructions/B%s\n",
               json_number_value(json_object_get(ir, "per_call")),
               json_number_value(json_object_get(ir, "per_byte")),
               json_is_true(json_object_get(d, "spread_flagged"))
                   ? ", SPREAD above 0.1 % between calls" : "");
    else if (points && strcmp(hb_json_str(r, "status"), "COUNTED") == 0)
        printf("\n");
    else
        printf("  %s\n", hb_json_str(r, "reason"));
    json_decref(r);
    return HB_WALK_CONTINUE;
}

int cmd_count(int argc, char **argv)
{
    static const struct option opts[] = {
        HB_OPTION_RUN_DIR, HB_OPTION_INSTANCES, HB_OPTION_SIZES, HB_OPTION_JOBS,
        {"no-branches", no_argument, 0, OPT_NO_BRANCHES}, {"memory", no_argument, 0, OPT_MEMORY},
        {"no-curve", no_argument, 0, OPT_NO_CURVE}, HB_OPTIONS_END};
    count_options o = {0};
    o.events.branches = 1;
    campaign_settings sizes;
    memset(&sizes, 0, sizeof sizes);
    char *list = NULL;
    hb_err err;
    int ch;
    hb_opt_start();
    while ((ch = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        switch (ch) {
        case HB_OPT_RUN_DIR: o.run_dir = optarg; break;
        case HB_OPT_INSTANCES: list = optarg; break;
        case HB_OPT_SIZES:
            if (hb_opt_setting(ch, optarg, &sizes, &err) != 0)
                return hb_cli_usage_error("count", "%s", err.msg);
            break;
        case HB_OPT_JOBS:
            if (hb_opt_jobs("--jobs", optarg, &o.jobs, &err) != 0)
                return hb_cli_usage_error("count", "%s", err.msg);
            if (o.jobs > COUNT_MAX_JOBS)
                o.jobs = COUNT_MAX_JOBS;
            break;
        case OPT_NO_BRANCHES: o.events.branches = 0; break;
        case OPT_MEMORY: o.events.memory = 1; break;
        case OPT_NO_CURVE: o.no_curve = 1; break;
        default:
            hb_opt_getopt_error(ch, argv, &err);
            return hb_cli_usage_error("count", "%s", err.msg);
        }
    }
    if (!o.run_dir || optind != argc)
        return hb_cli_usage_error("count", "give --run-dir DIR, and no other argument");
    for (int i = 0; i < sizes.measure.n_sizes; i++)
        if (sizes.measure.sizes[i] > 1048576)
            return hb_cli_usage_error("count", "--sizes: %u is above 1048576 bytes",
                                      sizes.measure.sizes[i]);
    o.sizes = sizes.measure.n_sizes ? sizes.measure.sizes : NULL;
    o.n_sizes = sizes.measure.n_sizes;
    const char **names = NULL;
    if (list) {
        if (hb_opt_instances(list, &names, &o.n_instances, &err) < 0)
            return hb_cli_usage_error("count", "%s", err.msg);
        o.instances = names;
    }
    o.progress = progress;
    int counted = 0, not = 0;
    int rc = count_run(&o, &counted, &not, &err);
    free(names);
    if (rc != 0) {
        fprintf(stderr, "hashbench count: %s\n", err.msg);
        return 2;
    }
    print_records(o.run_dir);
    if (not)
        fprintf(stderr, "hashbench count: %d record(s) not counted; see %s/%s/\n", not,
                o.run_dir, RUNDIR_COUNT);
    return not ? 1 : 0;
}
