/* hashbench build: parses the options, calls build_run (src/compile/build.h)
 * and prints one table row per instance of DIR/build.json, followed by the
 * reason of every instance that was not built. */
#include "cli/cli.h"
#include "compile/profile.h"
#include "cli/options.h"
#include "common/progress.h"

#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "compile/build.h"
#include "common/fs.h"
#include "common/json.h"
#include "rundir/baselines.h"
#include "rundir/lock.h"

const char hb_summary_build[] = "compile submission packages into instance libraries";
const char hb_usage_build[] =
    "usage: hashbench build --run-dir DIR [--profile reference|performance|resource]\n"
    "                       [--plain-shared] [--cc COMPILER] [-j N]\n"
    "                       [--baseline PACKAGE]...\n"
    "                       SUBMISSION...\n"
    "\n"
    "Discovers every instance of each SUBMISSION package (official layout,\n"
    "Implementations/*_Implementation/<Instance>/, plus hashbench.ini at the\n"
    "package root when present; see docs/OVERRIDE.md), compiles each with the\n"
    "profile's guide flags and the build flags below into\n"
    "DIR/lib/<cand>/lib<Inst>.so,\n"
    "and writes DIR/build.json. Nothing the package ships is run: no Makefile,\n"
    "CMake file, script or binary; only the compiler on the listed .c files.\n"
    "A SUBMISSION that is a plain file (a README caught by examples/*) is\n"
    "passed over. Running again on the same DIR rebuilds only what changed.\n"
    "\n"
    "options:\n"
    "  --run-dir DIR   run directory (created when missing)\n"
    "  --profile P     reference, performance or resource (default: the\n"
    "                  profile DIR was built with, else reference: the flags\n"
    "                  of the published campaign, -std=c99 -Wpedantic -Wall\n"
    "                  -Wextra -O2; performance: -O3 -march=x86-64 -mavx2\n"
    "                  -mtune=native -flto -fomit-frame-pointer ...; resource:\n"
    "                  -Os ...; the guide's §3.2, word for word)\n"
    "  --plain-shared  the guide's flags and -fPIC -shared only (none of the\n"
    "                  other additions below), for the figures of a plain\n"
    "                  shared build; recorded in build.json (default: as DIR\n"
    "                  was built, else with the additions)\n"
    "  --cc COMPILER   C compiler (default: $CC, else cc); checked before\n"
    "                  anything is read or written\n"
    "  -j, --jobs N    parallel compiles (default: number of online CPUs)\n"
    "  --baseline PACKAGE\n"
    "                  build PACKAGE too and mark its instances as baselines:\n"
    "                  each cell is also paired with its instance of the same\n"
    "                  digest length (repeatable; see docs/CAMPAIGNS.md)\n"
    "\n" PROFILE_ADDED_HELP "\n"
    "exit status: 0 all built, 1 some instance BUILDFAIL, 2 usage or input error\n";

static void show_progress(void *ctx, const char *step, int done, int total)
{
    (void)ctx;
    fprintf(stderr, "[%d/%d] %s\n", hb_progress_shown(done, total), total, step);
}

static const char *str(const json_t *e, const char *key)
{
    const char *s = json_string_value(json_object_get(e, key));
    return s ? s : "";
}

static void print_table(const json_t *root)
{
    const json_t *arr = json_object_get(root, "instances");
    size_t i;
    json_t *e;
    printf("%-16s %-24s %6s %-12s %12s  %s\n", "candidate", "instance",
           "bits", "variant", "static bytes", "status");
    json_array_foreach(arr, i, e) {
        json_t *size = json_object_get(json_object_get(e, "static_size"), "image");
        char bytes[32] = "-";
        if (json_is_integer(size))
            snprintf(bytes, sizeof bytes, "%lld", (long long)json_integer_value(size));
        printf("%-16s %-24s %6lld %-12s %12s  %s\n", str(e, "candidate"),
               str(e, "instance"),
               (long long)json_integer_value(json_object_get(e, "digest_bits")),
               str(e, "variant"), bytes, str(e, "status"));
    }
    json_array_foreach(arr, i, e) {
        if (strcmp(str(e, "status"), "BUILT") == 0)
            continue;
        printf("%s/%s: %s: %s", str(e, "candidate"), str(e, "instance"),
               str(e, "status"), str(e, "reason"));
        printf(*str(e, "log") ? " (log: %s)\n" : "%s\n", str(e, "log"));
    }
}

int cmd_build(int argc, char **argv)
{
    static const struct option longopts[] = {
        HB_OPTION_RUN_DIR, HB_OPTION_PROFILE, HB_OPTION_JOBS,
        {"cc", required_argument, NULL, 'c'},
        {"baseline", required_argument, NULL, 'B'},
        {"plain-shared", no_argument, NULL, 'P'},
        HB_OPTIONS_END};
    build_options opt = {0};
    const char *bases[argc + 1]; /* the --baseline packages */
    opt.baseline_packages = bases;
    hb_err err;
    int c;
    hb_opt_start();
    while ((c = getopt_long(argc, argv, ":j:", longopts, NULL)) != -1) {
        switch (c) {
        case HB_OPT_RUN_DIR: opt.run_dir = optarg; break;
        case HB_OPT_PROFILE: opt.profile = optarg; break;
        case 'c': opt.cc = optarg; break;
        case 'B': bases[opt.n_baseline_packages++] = optarg; break;
        case 'P': opt.plain_shared = 1; break;
        case 'j':
        case HB_OPT_JOBS:
            if (hb_opt_jobs(c == 'j' ? "-j" : "--jobs", optarg, &opt.jobs, &err) != 0)
                return hb_cli_usage_error("build", "%s", err.msg);
            break;
        default:
            hb_opt_getopt_error(c, argv, &err);
            return hb_cli_usage_error("build", "%s", err.msg);
        }
    }
    if (!opt.run_dir)
        return hb_cli_usage_error("build", "--run-dir DIR is required");
    if (optind >= argc && opt.n_baseline_packages == 0)
        return hb_cli_usage_error("build", "name at least one SUBMISSION folder");
    if (hb_opt_packages((const char *const *)(argv + optind), (size_t)(argc - optind),
                        &err) < 0 ||
        hb_opt_run_dir_writable(opt.run_dir, &err) < 0)
        return hb_cli_usage_error("build", "%s", err.msg);
    char baseline[PATH_MAX];
    if (hb_path_join(baseline, sizeof baseline, hb_cli_exe_dir,
                     hb_baseline_primary()->file, &err) != 0) {
        fprintf(stderr, "hashbench build: %s\n", err.msg);
        return 2;
    }
    opt.packages = (const char *const *)(argv + optind);
    opt.n_packages = argc - optind;
    opt.baseline_lib = baseline;
    opt.progress = show_progress;
    int failed = 0;
    hb_lock lock = HB_LOCK_NONE;
    int made = !hb_is_dir(opt.run_dir);
    if (hb_mkdirs(opt.run_dir, &err) != 0 ||
        rundir_lock(opt.run_dir, "build", stderr, &lock, &err) != 0 ||
        build_run(&opt, &failed, &err) != 0) {
        hb_unlock(&lock);
        if (made) /* a refusal leaves no run directory behind */
            rundir_unmake(opt.run_dir);
        fprintf(stderr, "hashbench build: %s\n", err.msg);
        return 2;
    }
    hb_unlock(&lock);
    char path[PATH_MAX];
    json_t *root = NULL;
    if (hb_path_join(path, sizeof path, opt.run_dir, BUILD_JSON, &err) != 0 ||
        hb_json_load(path, &root, &err) != 0) {
        fprintf(stderr, "hashbench build: %s\n", err.msg);
        return 2;
    }
    print_table(root);
    json_decref(root);
    return failed ? 1 : 0;
}
