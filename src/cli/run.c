/* hashbench run: the whole campaign (check, build, kat, measure) into one run
 * directory, resumable and shardable; the work is done by
 * src/campaign/campaign.h, this file parses the options and finds the
 * bundled examples, the probe and the baseline library. */
#include "cli/cli.h"

#include <limits.h>
#include <math.h>
#include <signal.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include "campaign/campaign.h"
#include "compile/build.h"
#include "compile/profile.h"
#include "kat/kat.h"
#include "campaign/cores.h"
#include "campaign/progress.h"
#include "dataset/layout.h"
#include "campaign/table.h"
#include "common/clock.h"
#include "common/fs.h"
#include "common/json.h"
#include "rundir/baselines.h"
#include "rundir/lock.h"
#include "rundir/rundir.h"
#include "common/walk.h"
#include "common/strlist.h"
#include "count/count.h"
#include "ct/ct.h"
#include "measure/measure.h"
#include "report/compare.h"
#include "rundir/rundir.h"
#include "cli/options.h"

const char hb_summary_run[] = "run a whole campaign: check, build, kat, measure";
const char hb_usage_run[] =
    "usage: hashbench run --run-dir DIR [options] [SUBMISSION...]\n"
    "\n"
    "Runs the host check, then builds, KAT-checks and measures every instance\n"
    "of the submissions (default: the bundled examples) into DIR, recording\n"
    "the campaign in DIR/campaign.json. Running the same command again resumes\n"
    "where it stopped. Planning settings cannot change once DIR holds records.\n"
    "\n"
    "  --run-dir DIR        the run directory (required)\n"
    "  --system ID          test system id recorded in campaign.json\n"
    "                       (default: the machine's architecture)\n"
    "  --cpu N              core to measure on (default: the last usable one,\n"
    "                       as for check, clock and measure)\n"
    "  --cpus LIST          measure on these cores at once (e.g. 0,1 or 2-5):\n"
    "                       core i of the list takes shard i of the instances\n"
    "                       in DIR/cores/cpu<N>, each after a host check of\n"
    "                       its core; the shards are merged into DIR\n"
    "  --shard K/N          take shard K of N (all sizes of an instance stay on\n"
    "                       one shard); join shards with hashbench merge\n"
    "  --shard-costs FILE   balance the shards by calibrated cost: the first\n"
    "                       shard calibrates every instance into FILE (a path\n"
    "                       all shards share), the others read it\n"
    "  --profile P          build profile: reference (default: the flags of the\n"
    "                       published campaign, -std=c99 -Wpedantic -Wall\n"
    "                       -Wextra -O2), performance (-O3 -march=x86-64 -mavx2\n"
    "                       -mtune=native -flto ...) or resource (-Os ...); the\n"
    "                       guide's flags word for word, plus the build flags\n"
    "                       below\n"
    "  --plain-shared       build with the guide's flags and -fPIC -shared only\n"
    "                       (none of the other additions below), for the\n"
    "                       figures of a plain shared build; campaign.json,\n"
    "                       build.json and every page of the campaign say so\n"
    "  --plan P             planner: interleaved (default), interleaved-processes,\n"
    "                       adaptive or reference (hashbench measure --help)\n"
    "  --sizes LIST         message sizes in bytes, e.g. 32,4096 (default S1-S8)\n"
    "  --target-ci X        stop at a 95% CI half-width of X percent\n"
    "  --budget S           at most S seconds per (instance, size)\n"
    "  --trials N           reference: trials; others: minimum trials\n"
    "  --instance-budget S  wall seconds each instance may take over all its\n"
    "                       processes (KAT, variants, measurement, ct; default\n"
    "                       " SETTINGS_TEXT(SETTINGS_DEFAULT_INSTANCE_BUDGET_S) "); past it the instance is TIMEOUT\n"
    "  --loop, --no-loop    KAT_Loop (a million hashes) always / never; by\n"
    "                       default whenever the submitted vectors include it\n"
    "  --full               also run KAT_2_33 (a 1 GiB message)\n"
    "  --timeout S          KAT time limit per instance, seconds (default 600;\n"
    "                       scaled up to 4 h for an instance that needs more)\n"
    "  --retry-timeout      test a KAT TIMEOUT again on its own (hashbench kat\n"
    "                       --help)\n"
    "  --cc CC              compiler for the build (checked before the host\n"
    "                       check)\n"
    "  --jobs N             compilations and KAT instances run at once\n"
    "                       (default: the usable cores)\n"
    "  --baseline PACKAGE   also build PACKAGE and measure its instances as\n"
    "                       baselines: every cell is paired with its instance\n"
    "                       of the same digest length too (repeatable)\n"
    "  --no-independent-check\n"
    "                       timed digests recomputed by the same library only\n"
    "                       (hashbench measure --help)\n"
    "  --time-failed        also time instances whose KAT status is MISMATCH\n"
    "                       (not timed by default); their figures carry it\n"
    "  --add PACKAGE        add PACKAGE to the campaign DIR holds (its other\n"
    "                       submissions are kept, and need not be named again);\n"
    "                       without it, other submissions than DIR's are refused\n"
    "  --no-wait            refuse, instead of waiting, when another campaign\n"
    "                       of this host measures on the core (DIR is always\n"
    "                       refused at once while another command uses it)\n"
    "  --allow-unfit-host   measure even when the host check finds problems\n"
    "                       (they stay recorded in campaign.json)\n"
    "  --ct                 then the constant-time stage (hashbench ct) on every\n"
    "                       instance that passed its KATs\n"
    "  --count              then the instruction-count stage (hashbench count)\n"
    "                       on every instance that passed, at the campaign's\n"
    "                       sizes (about 3 CPU-s per instance at S1-S8)\n"
    "  --compilers LIST     with --count: also rebuild every counted instance with\n"
    "                       each of these compilers (e.g. gcc,clang, or\n"
    "                       'installed'; the build's own is left out), same\n"
    "                       flags, and count it at the\n"
    "                       sizes (hashbench count --help): one compile and one\n"
    "                       Valgrind run, about 1.5 s wall per instance and\n"
    "                       compiler at S1-S8\n"
    "\n"
    PROFILE_ADDED_HELP "\n"
    "Exit status: 0 all instances passed (some may lack vectors: NOKAT), 1 some\n"
    "failed or none could be compared with vectors (all NOKAT; the campaign still\n"
    "completed), 2 usage error or refusal.\n";

/* --cpus LIST, when given. */
static const char *cpus_list;

static int want_ct; /* --ct */
static int want_count; /* --count */
static const char *compilers_list; /* --compilers */
static strlist compilers; /* its compilers */
/* after the options below */
enum { OPT_COUNT = HB_OPT_OWN + 0x80, OPT_PLAIN_SHARED, OPT_COMPILERS };

enum {
    OPT_SYSTEM = HB_OPT_OWN, OPT_CC, OPT_SHARD_COSTS, OPT_CPUS, OPT_PLANNER, OPT_LOOP,
    OPT_NO_LOOP, OPT_FULL, OPT_ALLOW_UNFIT, OPT_TIME_FAILED, OPT_CT, OPT_NO_INDEPENDENT,
    OPT_NO_WAIT, OPT_ADD, OPT_BASELINE, OPT_RETRY_TIMEOUT
};

/* --add PACKAGE, each given (parse_args sizes the list). */
static const char **added;
static size_t n_added;

/* --baseline PACKAGE, each time it is given. */
static const char **baseline_packages;
static size_t n_baseline_packages;

/* One option; returns 0, or -1 with ERR. */
static int parse_option(campaign_options *o, int ch, const char *v, hb_err *err)
{
    if (hb_opt_is_setting(ch))
        return hb_opt_setting(ch, v, &o->settings, err);
    switch (ch) {
    case HB_OPT_RUN_DIR: o->run_dir = v; break;
    case OPT_SYSTEM:
        o->system_id = v;
        return dataset_check_system(v, err);
    case OPT_CC: o->cc = v; break;
    case OPT_SHARD_COSTS: o->shard_costs = v; break;
    case OPT_CPUS: cpus_list = v; break;
    case OPT_PLANNER: return hb_opt_setting(HB_OPT_PLAN, v, &o->settings, err);
    case HB_OPT_CPU: return hb_opt_cpu(v, &o->cpu, err);
    case HB_OPT_TIMEOUT: return hb_opt_timeout(v, &o->timeout_s, err);
    case HB_OPT_JOBS: return hb_opt_jobs("--jobs", v, &o->jobs, err);
    case OPT_LOOP: o->loop = KAT_LOOP_ALWAYS; break;
    case OPT_NO_LOOP: o->loop = KAT_LOOP_NEVER; break;
    case OPT_FULL: o->full = 1; break;
    case OPT_ALLOW_UNFIT: o->allow_unfit_host = 1; break;
    case OPT_TIME_FAILED: o->time_failed = 1; break;
    case OPT_RETRY_TIMEOUT: o->retry_timeout = 1; break;
    case OPT_NO_INDEPENDENT: o->no_independent_check = 1; break;
    case OPT_CT: want_ct = 1; break;
    case OPT_COUNT: want_count = 1; break;
    case OPT_PLAIN_SHARED: o->settings.plain_shared = 1; break;
    case OPT_COMPILERS: compilers_list = v; break;
    case OPT_NO_WAIT: o->core_nowait = 1; break;
    case OPT_ADD: added[n_added++] = v; break;
    case OPT_BASELINE: baseline_packages[n_baseline_packages++] = v; break;
    default: return -1;
    }
    return 0;
}

static int parse_args(int argc, char **argv, campaign_options *o,
                      const char ***subs, size_t *n_subs)
{
    static const struct option longopts[] = {
        HB_OPTION_RUN_DIR, HB_OPTION_CPU, HB_OPTION_JOBS, HB_OPTION_TIMEOUT,
        HB_OPTION_PLAN, HB_OPTION_PROFILE, HB_OPTION_SIZES, HB_OPTION_TRIALS,
        HB_OPTION_TARGET_CI, HB_OPTION_BUDGET, HB_OPTION_INSTANCE_BUDGET, HB_OPTION_SHARD,
        {"planner", required_argument, NULL, OPT_PLANNER},
        {"system", required_argument, NULL, OPT_SYSTEM},
        {"cc", required_argument, NULL, OPT_CC},
        {"shard-costs", required_argument, NULL, OPT_SHARD_COSTS},
        {"cpus", required_argument, NULL, OPT_CPUS},
        {"loop", no_argument, NULL, OPT_LOOP},
        {"no-loop", no_argument, NULL, OPT_NO_LOOP},
        {"full", no_argument, NULL, OPT_FULL},
        {"allow-unfit-host", no_argument, NULL, OPT_ALLOW_UNFIT},
        {"time-failed", no_argument, NULL, OPT_TIME_FAILED},
        {"retry-timeout", no_argument, NULL, OPT_RETRY_TIMEOUT},
        {"no-independent-check", no_argument, NULL, OPT_NO_INDEPENDENT},
        {"ct", no_argument, NULL, OPT_CT},
        {"count", no_argument, NULL, OPT_COUNT},
        {"plain-shared", no_argument, NULL, OPT_PLAIN_SHARED},
        {"compilers", required_argument, NULL, OPT_COMPILERS},
        {"no-wait", no_argument, NULL, OPT_NO_WAIT},
        {"add", required_argument, NULL, OPT_ADD},
        {"baseline", required_argument, NULL, OPT_BASELINE},
        HB_OPTIONS_END};
    hb_err err;
    int ch;
    *subs = calloc((size_t)argc, sizeof **subs);
    *n_subs = 0;
    added = calloc((size_t)argc, sizeof *added);
    n_added = 0;
    baseline_packages = calloc((size_t)argc + 1, sizeof *baseline_packages);
    n_baseline_packages = 0;
    if (!*subs || !added || !baseline_packages)
        return hb_cli_usage_error("run", "out of memory");
    o->cpu = -1;
    hb_opt_start();
    while ((ch = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        if ((ch == '?' || ch == ':') && hb_opt_getopt_error(ch, argv, &err) < 0)
            return hb_cli_usage_error("run", "%s", err.msg);
        if (parse_option(o, ch, optarg, &err) < 0)
            return hb_cli_usage_error("run", "%s", err.msg);
    }
    for (int i = optind; i < argc; i++)
        (*subs)[(*n_subs)++] = argv[i];
    if (!o->run_dir)
        return hb_cli_usage_error("run", "--run-dir DIR is required");
    if (compilers_list && !want_count)
        return hb_cli_usage_error("run", "--compilers counts under other compilers: give "
                                  "--count too");
    if (n_added && (cpus_list || o->settings.shard.n > 0))
        return hb_cli_usage_error("run", "--add extends an unsharded campaign; a "
                                  "sharded one (--shard, --cpus) keeps its submissions: "
                                  "start the larger campaign in a new --run-dir");
    if (cpus_list && (o->cpu >= 0 || o->settings.shard.n > 0))
        return hb_cli_usage_error("run", "--cpus gives each core its shard: leave out "
                                  "--cpu and --shard");
    /* every setting, before anything is built or written */
    if (settings_validate(&o->settings, NULL, NULL, &err) < 0)
        return hb_cli_usage_error("run", "%s", err.msg);
    return 0;
}

typedef struct examples {
    char **v;
    size_t n;
} examples;

/* find_examples's visitor: every folder is a package. */
static int add_example(const hb_walk_entry *e, void *ctx, hb_err *err)
{
    examples *x = ctx;
    if (e->name[0] == '.' || !hb_is_dir(e->path))
        return HB_WALK_CONTINUE;
    char **grown = realloc(x->v, (x->n + 1) * sizeof *x->v);
    if (!grown || !(grown[x->n] = strdup(e->path))) {
        if (grown)
            x->v = grown;
        return hb_fail(err, "out of memory");
    }
    x->v = grown;
    x->n++;
    return HB_WALK_CONTINUE;
}

#ifndef HB_DATA_FROM_EXE
#define HB_DATA_FROM_EXE "../../share/hashbench"
#endif

/* The bundled examples: those an installed hashbench carries
 * (HB_DATA_FROM_EXE/examples from the executable's folder, CMakeLists.txt),
 * else HB_SOURCE_DIR/examples, or examples/ next to the executable or one
 * folder up; every subfolder is a package. *OUT holds malloc'd paths
 * (sorted) the caller frees. */
static int find_examples(char ***out, size_t *n)
{
    char cands[4][PATH_MAX];
    hb_err ignored;
    if (hb_path_join(cands[0], PATH_MAX, hb_cli_exe_dir, HB_DATA_FROM_EXE "/examples",
                     &ignored) < 0 ||
        hb_path_join(cands[1], PATH_MAX, HB_SOURCE_DIR, "examples", &ignored) < 0 ||
        hb_path_join(cands[2], PATH_MAX, hb_cli_exe_dir, "examples", &ignored) < 0 ||
        hb_path_join(cands[3], PATH_MAX, hb_cli_exe_dir, "../examples", &ignored) < 0)
        return -1;
    examples x = {NULL, 0};
    for (int c = 0; c < 4 && x.n == 0; c++)
        hb_walk(cands[c], 1, HB_WALK_MISSING_OK, add_example, &x, &ignored);
    *out = x.v;
    *n = x.n;
    return x.n > 0 ? 0 : -1;
}

/* The submissions of the campaign RUN_DIR holds (campaign.json), or those
 * given (SUBS), then the ADDED ones: malloc'd copies into *OUT (the caller
 * frees each and the array). */
static int with_added(const char *run_dir, const char *const *subs, size_t n_subs,
                      char ***out, size_t *n, hb_err *err)
{
    char path[PATH_MAX];
    json_t *doc = NULL, *stored = NULL;
    if (rundir_path(path, sizeof path, run_dir, RUNDIR_CAMPAIGN_JSON, err) != 0)
        return -1;
    if (n_subs == 0 && hb_is_file(path)) {
        if (hb_json_load(path, &doc, err) < 0)
            return -1;
        stored = json_object_get(doc, "submissions");
    }
    size_t cap = n_subs + n_added + json_array_size(stored), i;
    json_t *x;
    *out = calloc(cap + 1, sizeof **out);
    *n = 0;
    if (!*out) {
        json_decref(doc);
        return hb_fail(err, "out of memory");
    }
    for (i = 0; i < n_subs; i++)
        (*out)[(*n)++] = strdup(subs[i]);
    json_array_foreach(stored, i, x)
        if (json_is_string(x))
            (*out)[(*n)++] = strdup(json_string_value(x));
    for (i = 0; i < n_added; i++)
        (*out)[(*n)++] = strdup(added[i]);
    json_decref(doc);
    for (i = 0; i < *n; i++)
        if (!(*out)[i])
            return hb_fail(err, "out of memory");
    return 0;
}

/* ---- interruption ------------------------------------------------------ */

/* The line an interrupted run prints, made before the campaign starts (a
 * signal handler may only write it). */
static char interrupt_line[8192];
static size_t interrupt_len;
static pid_t main_pid;

/* Appends ARG to OUT (size SZ, used *LEN), quoted for a POSIX shell when it
 * holds anything but plain characters. */
static void append_arg(char *out, size_t sz, size_t *len, const char *arg)
{
    int plain = arg[0] != '\0';
    for (const char *p = arg; *p; p++)
        plain &= strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                        "0123456789-_./,=:+@%", *p) != NULL;
    int n;
    if (plain) {
        n = snprintf(out + *len, sz - *len, " %s", arg);
    } else {
        n = snprintf(out + *len, sz - *len, " '");
        *len += n > 0 && (size_t)n < sz - *len ? (size_t)n : 0;
        for (const char *p = arg; *p && *len + 8 < sz; p++) {
            if (*p == '\'')
                n = snprintf(out + *len, sz - *len, "'\\''");
            else
                n = snprintf(out + *len, sz - *len, "%c", *p);
            *len += n > 0 ? (size_t)n : 0;
        }
        n = snprintf(out + *len, sz - *len, "'");
    }
    if (n > 0 && (size_t)n < sz - *len)
        *len += (size_t)n;
}

static void on_interrupt(int sig)
{
    if (getpid() == main_pid) {
        ssize_t w = write(STDERR_FILENO, interrupt_line, interrupt_len);
        (void)w;
        rundir_lock_clear_on_signal(); /* ended cleanly: no stale holder */
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

/* SIGINT and SIGTERM print what is kept in O->run_dir and the command that
 * resumes (ARGV, as given), then end the process as the signal would. */
static void catch_interrupts(const campaign_options *o, int argc, char **argv)
{
    size_t len = 0;
    int n = snprintf(interrupt_line, sizeof interrupt_line,
                     "\nhashbench run: interrupted; kept in %s: the finished phases, the "
                     "build, the KAT results and every finished record (a measure stage cut "
                     "short is measured again: its records are written when its passes "
                     "end; the one-process planners' rounds continue from their "
                     "journal); resume with:\n  hashbench run", o->run_dir);
    len = n > 0 ? (size_t)n : 0;
    for (int i = 1; i < argc && len + 16 < sizeof interrupt_line; i++)
        append_arg(interrupt_line, sizeof interrupt_line - 2, &len, argv[i]);
    interrupt_line[len++] = '\n';
    interrupt_len = len;
    main_pid = getpid();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* What a repeat campaign on this host could not tell (report/compare.h),
 * from the records of RUN_DIR; nothing where they time no baseline pair. */
static void print_repeat_limits(const char *run_dir)
{
    report_dataset ds;
    const report_system *s;
    hb_err err;
    if (compare_load_side(run_dir, &ds, &s, &err) != 0)
        return;
    compare_result r;
    if (compare_repeat(s, &r, &err) == 0) {
        char told[800];
        compare_smallest_told_words(&r, told, sizeof told);
        if (told[0] && isfinite(r.ratio_within_a))
            fprintf(stderr, "ratio drift: OpenSSL SHA-256 / SM3 moved by %.3g %% within "
                            "this campaign. Against a repeat run: %s (a floor; "
                            "'hashbench compare' measures the shift between two runs)\n",
                    r.ratio_within_a, told);
        compare_free(&r);
    }
    report_dataset_free(&ds);
}

/* hb_mono_s when the command started, for the total time. */
static double started_s;

static void print_outcome(const campaign_options *o, const campaign_result *r)
{
    hb_err terr;
    fflush(stderr);
    if (campaign_print_table(o->run_dir, stdout, &terr) != 0 ||
        campaign_print_explained(o->run_dir, hb_mono_s() - started_s, stdout, &terr) < 0)
        fprintf(stderr, "hashbench run: %s\n", terr.msg);
    fflush(stdout);
    int records = campaign_count_records(o->run_dir);
    fprintf(stderr, "campaign %s: %s/campaign.json, %d record%s\n",
            r->measured ? "complete" : "stopped", o->run_dir, records,
            records == 1 ? "" : "s");
    if (r->build_failed || r->kat_failed || r->measure_failed)
        fprintf(stderr, "failures: %d build, %d KAT, %d measurement (each "
                "named above with its reason; the logs in build.json and kat.json)\n",
                r->build_failed, r->kat_failed, r->measure_failed);
    if (r->host_problems)
        fprintf(stderr, "host problems recorded: %d (campaign.json "
                "host_checks)\n", r->host_problems);
    print_repeat_limits(o->run_dir);
    int nokat;
    if (kat_nothing_compared(o->run_dir, &nokat))
        fprintf(stderr, "KAT: nothing was compared: all %d instance(s) are NOKAT (their "
                "packages submit no vectors), so no implementation is verified; add "
                "the vectors (Test_Vectors or kat.sha256) and run again\n", nokat);
}

int cmd_run(int argc, char **argv)
{
    campaign_options o;
    memset(&o, 0, sizeof o);
    started_s = hb_mono_s();
    const char **subs;
    size_t n_subs;
    char **examples = NULL;
    size_t n_examples = 0;
    int rc = parse_args(argc, argv, &o, &subs, &n_subs);
    if (rc == 0 && n_added) {
        /* the campaign's submissions (as given, or as DIR holds them) and
         * the added ones; kept in EXAMPLES, freed with them */
        hb_err xerr;
        if (hb_opt_packages(added, n_added, &xerr) < 0 ||
            with_added(o.run_dir, subs, n_subs, &examples, &n_examples, &xerr) < 0)
            rc = hb_cli_usage_error("run", "%s", xerr.msg);
        n_subs = 0;
        o.extend = 1;
    }
    if (rc == 0 && n_subs == 0 && !o.extend && find_examples(&examples, &n_examples) < 0)
        rc = hb_cli_usage_error("run", "no submission given and no bundled "
                                "examples found in %s/examples; name the "
                                "submission folders", HB_SOURCE_DIR);
    if (rc != 0) {
        free(subs);
        free(baseline_packages);
        return rc;
    }
    int cpus[CORES_MAX], n_cpus = 0;
    if (cpus_list) {
        hb_err cerr;
        n_cpus = cores_parse(cpus_list, cpus, &cerr);
        if (n_cpus < 0) {
            for (size_t i = 0; i < n_examples; i++)
                free(examples[i]);
            free(examples);
            free(subs);
            free(baseline_packages);
            return hb_cli_usage_error("run", "%s", cerr.msg);
        }
    }
    /* the submissions and the run directory, before anything runs */
    hb_err aerr;
    int bad_cc = compilers_list &&
                 count_compilers_list(compilers_list, o.run_dir, o.cc, &compilers, &aerr) < 0;
    if (bad_cc || build_check_compiler(o.cc, &aerr) < 0 ||
        (n_subs && hb_opt_packages(subs, n_subs, &aerr) < 0) ||
        hb_opt_run_dir_writable(o.run_dir, &aerr) < 0) {
        for (size_t i = 0; i < n_examples; i++)
            free(examples[i]);
        free(examples);
        free(subs);
        return hb_cli_usage_error("run", "%s", aerr.msg);
    }
    char probe[PATH_MAX + 32], baseline[PATH_MAX + 32];
    hb_err perr;
    if (hb_path_join(probe, sizeof probe, hb_cli_exe_dir, "hashbench-probe", &perr) < 0 ||
        hb_path_join(baseline, sizeof baseline, hb_cli_exe_dir,
                     hb_baseline_primary()->file, &perr) < 0) {
        for (size_t i = 0; i < n_examples; i++)
            free(examples[i]);
        free(examples);
        free(subs);
        free(baseline_packages);
        fprintf(stderr, "hashbench run: %s\n", perr.msg);
        return 2;
    }
    o.packages = n_subs ? subs : (const char *const *)examples;
    o.n_packages = n_subs ? n_subs : n_examples;
    o.baseline_packages = baseline_packages;
    o.n_baseline_packages = n_baseline_packages;
    o.probe_path = probe;
    o.baseline_lib = hb_is_file(baseline) ? baseline : NULL;
    if (o.cpu < 0)
        o.cpu = hb_opt_default_cpu();
    o.host_root = "/";
    o.log = stderr;
    campaign_progress prog;
    campaign_progress_init(&prog, stderr, -1);
    o.progress = campaign_progress_fn;
    o.progress_ctx = &prog;
    /* a unit can take minutes: the step under way is shown again at least
     * every CAMPAIGN_HEARTBEAT_S (without the thread, the display works as
     * before) */
    campaign_progress_heartbeat(&prog, CAMPAIGN_HEARTBEAT_S);

    catch_interrupts(&o, argc, argv);
    /* both filled before any use: a stage that fails without a message
     * still prints a defined one */
    campaign_result r;
    memset(&r, 0, sizeof r);
    hb_err err;
    hb_fail(&err, "the campaign stopped without saying why");
    rc = n_cpus > 0 ? cores_run(&o, cpus, n_cpus, &r, &err) : campaign_run(&o, &r, &err);
    campaign_progress_end(&prog);
    if (rc == 0 && want_ct) {
        /* the constant-time stage after the campaign (src/ct/ct.h) */
        ct_options co = {0};
        int found = 0, na = 0;
        co.run_dir = o.run_dir;
        co.instance_budget_s = hb_opt_instance_budget(o.run_dir, o.settings.instance_budget_s);
        co.progress = o.progress;
        co.progress_ctx = o.progress_ctx;
        hb_lock lock = HB_LOCK_NONE;
        double t0 = hb_mono_s();
        char d[32];
        rc = rundir_lock(o.run_dir, "run --ct", stderr, &lock, &err);
        if (rc == 0) {
            hb_opt_print_skipped(stderr, "ct", o.run_dir, NULL, 0);
            rc = ct_run(&co, &found, &na, &err);
        }
        hb_unlock(&lock);
        campaign_progress_end(&prog);
        if (rc == 0)
            fprintf(stderr, "ct: finished in %s: %d instance(s) with findings, %d not "
                    "analysable (%s/%s/)\n",
                    campaign_format_duration(hb_mono_s() - t0, d, sizeof d), found, na,
                    o.run_dir, CT_DIR);
    }
    if (rc == 0 && want_count) {
        /* the instruction-count stage after the campaign (src/count/count.h) */
        count_options no = {0};
        int counted = 0, not = 0;
        no.run_dir = o.run_dir;
        no.instance_budget_s = hb_opt_instance_budget(o.run_dir, o.settings.instance_budget_s);
        no.events.branches = 1;
        no.jobs = o.jobs;
        no.progress = o.progress;
        no.progress_ctx = o.progress_ctx;
        double t0 = hb_mono_s();
        char d[32];
        hb_opt_print_skipped(stderr, "count", o.run_dir, NULL, 0);
        rc = count_run(&no, &counted, &not, &err);
        if (rc == 0 && compilers.n)
            rc = count_compilers(&no, (const char *const *)compilers.v, compilers.n, &not,
                                 &err);
        campaign_progress_end(&prog);
        if (rc == 0)
            fprintf(stderr, "count: finished in %s: %d record(s) counted, %d not (%s/%s/)\n",
                    campaign_format_duration(hb_mono_s() - t0, d, sizeof d), counted, not,
                    o.run_dir, RUNDIR_COUNT);
    }
    campaign_progress_stop(&prog);
    if (rc < 0)
        fprintf(stderr, "hashbench run: %s\n", err.msg);
    else
        print_outcome(&o, &r);
    for (size_t i = 0; i < n_examples; i++)
        free(examples[i]);
    free(examples);
    free(subs);
    free(added);
    free(baseline_packages);
    strlist_free(&compilers);
    if (rc < 0)
        return 2;
    int nokat;
    return r.build_failed || r.kat_failed || r.measure_failed ||
                   kat_nothing_compared(o.run_dir, &nokat) ? 1 : 0;
}
