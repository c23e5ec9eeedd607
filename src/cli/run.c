/* hashbench run: the whole campaign (check, build, kat, measure) into one run
 * directory, resumable and shardable; the work is done by
 * src/campaign/campaign.h, this file parses the options and finds the
 * bundled examples, the probe and the baseline library. */
#include "cli/cli.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "campaign/campaign.h"
#include "kat/kat.h"
#include "campaign/cores.h"
#include "campaign/progress.h"
#include "campaign/table.h"
#include "common/fs.h"
#include "common/walk.h"
#include "ct/ct.h"
#include "measure/measure.h"
#include "measure/plan.h"

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
    "  --cpu N              core to measure on (default: the last usable one)\n"
    "  --cpus LIST          measure on these cores at once (e.g. 0,1 or 2-5):\n"
    "                       core i of the list takes shard i of the instances\n"
    "                       in DIR/cores/cpu<N>, each after a host check of\n"
    "                       its core; the shards are merged into DIR\n"
    "  --shard K/N          take shard K of N (all sizes of an instance stay on\n"
    "                       one shard); join shards with hashbench merge\n"
    "  --shard-costs FILE   balance the shards by calibrated cost: the first\n"
    "                       shard calibrates every instance into FILE (a path\n"
    "                       all shards share), the others read it\n"
    "  --profile P          build profile: reference, performance, resource\n"
    "  --plan P             planner: interleaved (default), adaptive or reference\n"
    "  --sizes LIST         message sizes in bytes, e.g. 32,4096 (default S1-S8)\n"
    "  --target-ci X        stop at a 95% CI half-width of X percent\n"
    "  --budget S           at most S seconds per (instance, size)\n"
    "  --trials N           reference: trials; others: minimum trials\n"
    "  --loop, --no-loop    KAT_Loop (a million hashes) always / never; by\n"
    "                       default whenever the submitted vectors include it\n"
    "  --full               also run KAT_2_33 (a 1 GiB message)\n"
    "  --timeout S          KAT time limit per instance, seconds\n"
    "  --cc CC              compiler for the build (checked before the host\n"
    "                       check)\n"
    "  --jobs N             compilations and KAT instances run at once\n"
    "                       (default: the usable cores)\n"
    "  --time-failed        also time instances whose KAT status is MISMATCH\n"
    "                       (not timed by default); their figures carry it\n"
    "  --allow-unfit-host   measure even when the host check finds problems\n"
    "                       (they stay recorded in campaign.json)\n"
    "  --ct                 then the constant-time stage (hashbench ct) on every\n"
    "                       instance that passed its KATs\n"
    "\n"
    "Exit status: 0 all instances passed, 1 some failed (the campaign still\n"
    "completed), 2 usage error or refusal.\n";

/* Parses a number in [LO, HI]; -1 when TEXT is not one. */
static int parse_num(const char *text, double lo, double hi, double *out)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int set_text(char *dst, size_t n, const char *opt, const char *v)
{
    if (strlen(v) >= n)
        return hb_cli_usage_error("run", "%s '%s' is too long", opt, v);
    snprintf(dst, n, "%s", v);
    return 0;
}

static int parse_sizes(campaign_settings *s, const char *list)
{
    unsigned sizes[CAMPAIGN_MAX_SIZES];
    hb_err err;
    int n = measure_parse_sizes(list, sizes, CAMPAIGN_MAX_SIZES, &err);
    if (n < 0)
        return hb_cli_usage_error("run", "--sizes: %s", err.msg);
    for (int i = 0; i < n; i++)
        s->sizes[i] = (long)sizes[i];
    s->n_sizes = n;
    return 0;
}

/* --cpus LIST, when given. */
static const char *cpus_list;

/* Options with a value; returns 0, or the usage-error status. */
static int parse_valued(campaign_options *o, const char *opt, const char *v)
{
    campaign_settings *s = &o->settings;
    double x;
    hb_err err;
    if (!strcmp(opt, "--run-dir")) o->run_dir = v;
    else if (!strcmp(opt, "--system")) o->system_id = v;
    else if (!strcmp(opt, "--cc")) o->cc = v;
    else if (!strcmp(opt, "--shard-costs")) o->shard_costs = v;
    else if (!strcmp(opt, "--cpus")) cpus_list = v;
    else if (!strcmp(opt, "--profile")) return set_text(s->profile, sizeof s->profile, opt, v);
    else if (!strcmp(opt, "--plan") || !strcmp(opt, "--planner")) {
        if (!plan_known(v))
            return hb_cli_usage_error("run", "%s is interleaved, adaptive or reference, "
                                      "not '%s'", opt, v);
        return set_text(s->planner, sizeof s->planner, opt, v);
    }
    else if (!strcmp(opt, "--sizes")) return parse_sizes(s, v);
    else if (!strcmp(opt, "--shard")) {
        if (shard_parse(v, &s->shard, &err) < 0)
            return hb_cli_usage_error("run", "%s", err.msg);
    } else if (parse_num(v, 0, 1e9, &x) < 0) {
        return hb_cli_usage_error("run", "%s wants a number, not '%s'", opt, v);
    } else if (!strcmp(opt, "--cpu")) o->cpu = (int)x;
    else if (!strcmp(opt, "--target-ci")) s->target_ci = x;
    else if (!strcmp(opt, "--budget")) s->budget_s = x;
    else if (!strcmp(opt, "--trials")) s->trials = (int)x;
    else if (!strcmp(opt, "--timeout")) o->timeout_s = x;
    else if (!strcmp(opt, "--jobs")) o->jobs = (int)x;
    else return hb_cli_usage_error("run", "unknown option '%s'", opt);
    return 0;
}

static int is_valued(const char *opt)
{
    static const char *const names[] = {"--run-dir", "--system", "--cc", "--shard-costs",
        "--profile", "--plan", "--planner", "--sizes", "--shard", "--cpu",
        "--target-ci", "--budget", "--trials", "--timeout", "--jobs", "--cpus"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(opt, names[i]) == 0)
            return 1;
    return 0;
}

static int want_ct; /* --ct */

static int parse_args(int argc, char **argv, campaign_options *o,
                      const char ***subs, size_t *n_subs)
{
    *subs = calloc((size_t)argc, sizeof **subs);
    *n_subs = 0;
    o->cpu = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int rc = 0;
        if (is_valued(a)) {
            if (i + 1 >= argc)
                return hb_cli_usage_error("run", "%s needs a value", a);
            rc = parse_valued(o, a, argv[++i]);
        } else if (!strcmp(a, "--loop")) o->loop = KAT_LOOP_ALWAYS;
        else if (!strcmp(a, "--no-loop")) o->loop = KAT_LOOP_NEVER;
        else if (!strcmp(a, "--full")) o->full = 1;
        else if (!strcmp(a, "--allow-unfit-host")) o->allow_unfit_host = 1;
        else if (!strcmp(a, "--time-failed")) o->time_failed = 1;
        else if (!strcmp(a, "--ct")) want_ct = 1;
        else if (a[0] == '-' && a[1]) rc = hb_cli_usage_error("run", "unknown option '%s'", a);
        else (*subs)[(*n_subs)++] = a;
        if (rc)
            return rc;
    }
    if (!o->run_dir)
        return hb_cli_usage_error("run", "--run-dir DIR is required");
    if (cpus_list && (o->cpu >= 0 || o->settings.shard.n > 0))
        return hb_cli_usage_error("run", "--cpus gives each core its shard: leave out "
                                  "--cpu and --shard");
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

/* The bundled examples: HB_SOURCE_DIR/examples, or examples/ next to the
 * executable or one folder up; every subfolder is a package. *OUT holds
 * malloc'd paths (sorted) the caller frees. */
static int find_examples(char ***out, size_t *n)
{
    char cands[3][PATH_MAX];
    hb_err ignored;
    if (hb_path_join(cands[0], PATH_MAX, HB_SOURCE_DIR, "examples", &ignored) < 0 ||
        hb_path_join(cands[1], PATH_MAX, hb_cli_exe_dir, "examples", &ignored) < 0 ||
        hb_path_join(cands[2], PATH_MAX, hb_cli_exe_dir, "../examples", &ignored) < 0)
        return -1;
    examples x = {NULL, 0};
    for (int c = 0; c < 3 && x.n == 0; c++)
        hb_walk(cands[c], 1, HB_WALK_MISSING_OK, add_example, &x, &ignored);
    *out = x.v;
    *n = x.n;
    return x.n > 0 ? 0 : -1;
}

static void print_outcome(const campaign_options *o, const campaign_result *r)
{
    hb_err terr;
    fflush(stderr);
    if (campaign_print_table(o->run_dir, stdout, &terr) != 0)
        fprintf(stderr, "hashbench run: %s\n", terr.msg);
    fflush(stdout);
    int records = campaign_count_records(o->run_dir);
    fprintf(stderr, "campaign %s: %s/campaign.json, %d record%s\n",
            r->measured ? "complete" : "stopped", o->run_dir, records,
            records == 1 ? "" : "s");
    if (r->build_failed || r->kat_failed || r->measure_failed)
        fprintf(stderr, "failures: %d build, %d KAT, %d measurement (see "
                "build.json, kat.json and the FAILED records)\n",
                r->build_failed, r->kat_failed, r->measure_failed);
    if (r->host_problems)
        fprintf(stderr, "host problems recorded: %d (campaign.json "
                "host_checks)\n", r->host_problems);
}

int cmd_run(int argc, char **argv)
{
    campaign_options o;
    memset(&o, 0, sizeof o);
    const char **subs;
    size_t n_subs;
    char **examples = NULL;
    size_t n_examples = 0;
    int rc = parse_args(argc, argv, &o, &subs, &n_subs);
    if (rc == 0 && n_subs == 0 && find_examples(&examples, &n_examples) < 0)
        rc = hb_cli_usage_error("run", "no submission given and no bundled "
                                "examples found in %s/examples; name the "
                                "submission folders", HB_SOURCE_DIR);
    if (rc != 0) {
        free(subs);
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
            return hb_cli_usage_error("run", "%s", cerr.msg);
        }
    }
    char probe[PATH_MAX + 32], baseline[PATH_MAX + 32];
    snprintf(probe, sizeof probe, "%s/hashbench-probe", hb_cli_exe_dir);
    snprintf(baseline, sizeof baseline, "%s/libhb_baseline_sm3.so", hb_cli_exe_dir);
    o.packages = n_subs ? subs : (const char *const *)examples;
    o.n_packages = n_subs ? n_subs : n_examples;
    o.probe_path = probe;
    o.baseline_lib = hb_is_file(baseline) ? baseline : NULL;
    if (o.cpu < 0)
        o.cpu = measure_default_cpu() < 0 ? 0 : measure_default_cpu();
    o.host_root = "/";
    o.log = stderr;
    campaign_progress prog;
    campaign_progress_init(&prog, stderr, -1);
    o.progress = campaign_progress_fn;
    o.progress_ctx = &prog;

    campaign_result r;
    hb_err err;
    rc = n_cpus > 0 ? cores_run(&o, cpus, n_cpus, &r, &err) : campaign_run(&o, &r, &err);
    campaign_progress_end(&prog);
    if (rc == 0 && want_ct) {
        /* the constant-time stage after the campaign (src/ct/ct.h) */
        ct_options co = {0};
        int found = 0, na = 0;
        co.run_dir = o.run_dir;
        co.progress = o.progress;
        co.progress_ctx = o.progress_ctx;
        campaign_progress_init(&prog, stderr, -1);
        rc = ct_run(&co, &found, &na, &err);
        campaign_progress_end(&prog);
        if (rc == 0)
            fprintf(stderr, "constant-time stage: %d instance(s) with findings, %d not "
                    "analysable (%s/%s/)\n", found, na, o.run_dir, CT_DIR);
    }
    if (rc < 0)
        fprintf(stderr, "hashbench run: %s\n", err.msg);
    else
        print_outcome(&o, &r);
    for (size_t i = 0; i < n_examples; i++)
        free(examples[i]);
    free(examples);
    free(subs);
    if (rc < 0)
        return 2;
    return r.build_failed || r.kat_failed || r.measure_failed ? 1 : 0;
}
