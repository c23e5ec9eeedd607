/* hashbench kat: the KAT gate (every built instance of a run directory
 * against its submitted vectors), manifest writing, and checks against NIST
 * CAVP .rsp files. The work is done in src/kat; this file parses options
 * and prints results. */
#include "cli/cli.h"
#include "cli/options.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "campaign/stages.h"
#include "common/json.h"
#include "kat/kat.h"
#include "kat/kat_vectors.h"
#include "kat/katfile.h"
#include "kat/manifest.h"
#include "common/fs.h"
#include "rundir/lock.h"
#include "rundir/rundir.h"

const char hb_summary_kat[] = "check every built instance against its known-answer tests";
const char hb_usage_kat[] =
    "usage: hashbench kat --run-dir DIR [--loop|--no-loop] [--full] [--timeout S]\n"
    "                     [--instances LIST] [--jobs N] [--variants-seed HEX]\n"
    "                     [--retry-timeout]\n"
    "       hashbench kat --write-manifest PACKAGE [--from-run DIR]\n"
    "       hashbench kat --vectors FILE.rsp LIBRARY [--digest-bits N] [--timeout S]\n"
    "       hashbench kat --digest FILE...\n"
    "\n"
    "The first form runs the official KAT procedure (SPEC 3) through the CryptHash\n"
    "of every instance built in DIR/build.json, one child process per instance\n"
    "and --jobs of them at once,\n"
    "writes the texts to DIR/" RUNDIR_KAT_TEXTS_PATTERN ", compares them with the package's\n"
    "Test_Vector(s) files or its kat.sha256 manifest, and records each status in\n"
    "DIR/kat.json with a log in DIR/" RUNDIR_KAT_LOG_PATTERN ". A failing guide build is\n"
    "rebuilt once with harness-default flags and tested again. Then the variants\n"
    "of each instance (e.g. SM3 and SM3-Optimized) are compared on 1000 messages\n"
    "of random bit lengths, each library in its own sandboxed runner.\n"
    "KAT_2_12 and KAT_2_23 are always checked, KAT_Loop (one million chained\n"
    "hashes) whenever the submitted vectors include it; each result says which\n"
    "submitted files were checked and which not, e.g.\n"
    "PASS (2_12, 2_23, Loop; 2_33 not checked: needs --full).\n"
    "  --loop           KAT_Loop even without a submitted KAT_Loop file\n"
    "  --no-loop        never KAT_Loop (a submitted one is reported not checked)\n"
    "  --full           also KAT_2_33 (a 1 GiB message)\n"
    "  --timeout S      seconds allowed per instance (default 600); an instance\n"
    "                   whose calibration call shows it needs more gets 4 times\n"
    "                   its files' known work at its measured speed, up to 4 h\n"
    "  --retry-timeout  test again the instances whose result is TIMEOUT (also\n"
    "                   with a weaker check, e.g. --no-loop); others are kept\n"
    "  --instance-budget S  wall seconds each instance may take over all its\n"
    "                   processes, shared with the other stages and counted in\n"
    "                   DIR/budget/ (default: DIR/campaign.json's, else "
    SETTINGS_TEXT(SETTINGS_DEFAULT_INSTANCE_BUDGET_S) ")\n"
    "  --instances LIST comma-separated Inst or Cand/Inst names (default: all)\n"
    "  --jobs N         instances checked at once (default: the usable cores);\n"
    "                   the results do not depend on it\n"
    "  --variants-seed HEX  compare variants with this seed (32 hex digits, as\n"
    "                   kat.json records it) instead of a random one: repeats a\n"
    "                   recorded comparison\n"
    "\n"
    "--write-manifest writes PACKAGE/kat.sha256 from the package's KAT text files,\n"
    "or, with --from-run, from the texts generated in DIR for that package (a\n"
    "copy moved since is found by its folder's name, the candidate id).\n"
    "--vectors hashes every record of a CAVP .rsp file (Len/Msg/MD) with LIBRARY\n"
    "and prints 'N passed, M failed'.\n"
    "--digest prints the SHA-256 of each KAT text FILE in its canonical form\n"
    "(what kat.sha256 lists; docs/FORMATS.md), as sha256sum prints a digest.\n"
    "\n"
    "Exit status: 0 all passed (some may lack vectors: NOKAT), 1 some instances\n"
    "failed, or none could be compared (all NOKAT), 2 error.\n";

typedef struct kat_cli {
    const char *run_dir, *manifest_pkg, *from_run, *rsp, *variants_seed, *digest;
    int loop, full, digest_bits, jobs, retry_timeout;
    double timeout_s, instance_budget_s;
    char *instances;
} kat_cli;

static void print_progress(void *ctx, const char *step, int done, int total)
{
    (void)ctx;
    if (done < total) /* STEP names the instances under way */
        fprintf(stderr, "[%d/%d] %s\n", done + 1, total, step);
}

static int parse_number(const char *s, double *out)
{
    char *end = NULL;
    errno = 0;
    *out = strtod(s, &end);
    return errno || !end || *end || *out <= 0 ? -1 : 0;
}

static int parse_args(int argc, char **argv, kat_cli *c)
{
    static const struct option opts[] = {
        HB_OPTION_RUN_DIR, HB_OPTION_TIMEOUT, HB_OPTION_INSTANCES, HB_OPTION_JOBS,
        HB_OPTION_INSTANCE_BUDGET,
        {"loop", no_argument, 0, 'l'}, {"no-loop", no_argument, 0, 'n'},
        {"full", no_argument, 0, 'f'},
        {"write-manifest", required_argument, 0, 'm'},
        {"from-run", required_argument, 0, 'r'}, {"vectors", required_argument, 0, 'v'},
        {"digest-bits", required_argument, 0, 'b'},
        {"variants-seed", required_argument, 0, 's'},
        {"retry-timeout", no_argument, 0, 't'},
        {"digest", required_argument, 0, 'd'},
        HB_OPTIONS_END};
    double num;
    hb_err err;
    int ch;
    hb_opt_start();
    while ((ch = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        switch (ch) {
        case HB_OPT_RUN_DIR: c->run_dir = optarg; break;
        case 'l':
        case 'n':
            if (c->loop && c->loop != (ch == 'l' ? KAT_LOOP_ALWAYS : KAT_LOOP_NEVER))
                return hb_cli_usage_error("kat", "give --loop or --no-loop, not both");
            c->loop = ch == 'l' ? KAT_LOOP_ALWAYS : KAT_LOOP_NEVER;
            break;
        case 'f': c->full = 1; break;
        case 't': c->retry_timeout = 1; break;
        case 'd': c->digest = optarg; break;
        case HB_OPT_INSTANCES: c->instances = optarg; break;
        case 'm': c->manifest_pkg = optarg; break;
        case 'r': c->from_run = optarg; break;
        case 'v': c->rsp = optarg; break;
        case 's': c->variants_seed = optarg; break;
        case HB_OPT_TIMEOUT:
            if (hb_opt_timeout(optarg, &c->timeout_s, &err) != 0)
                return hb_cli_usage_error("kat", "%s", err.msg);
            break;
        case HB_OPT_INSTANCE_BUDGET: {
            campaign_settings one = {0};
            if (hb_opt_setting(ch, optarg, &one, &err) != 0)
                return hb_cli_usage_error("kat", "%s", err.msg);
            c->instance_budget_s = one.instance_budget_s;
            break;
        }
        case HB_OPT_JOBS:
            if (hb_opt_jobs("--jobs", optarg, &c->jobs, &err) != 0)
                return hb_cli_usage_error("kat", "%s", err.msg);
            break;
        case 'b':
            if (parse_number(optarg, &num) != 0 || (long)num % 8 || num != (long)num)
                return hb_cli_usage_error("kat", "--digest-bits '%s': give a multiple "
                                          "of 8", optarg);
            c->digest_bits = (int)num;
            break;
        default:
            hb_opt_getopt_error(ch, argv, &err);
            return hb_cli_usage_error("kat", "%s", err.msg);
        }
    }
    if (!!c->run_dir + !!c->manifest_pkg + !!c->rsp + !!c->digest != 1)
        return hb_cli_usage_error("kat", "give exactly one of --run-dir, "
                                  "--write-manifest, --vectors, --digest");
    return 0;
}

/* The variant check headed by a kat.json entry: its verdict, then one line
 * per variant that disagreed or failed. */
static void print_variants(const json_t *v)
{
    size_t i;
    json_t *m;
    if (!v)
        return;
    printf("%-9s variants of %s: seed %s\n", json_string_value(json_object_get(v, "verdict")),
           json_string_value(json_object_get(v, "algorithm_instance")),
           json_string_value(json_object_get(v, "seed")));
    json_array_foreach(json_object_get(v, "members"), i, m) {
        const json_t *d = json_object_get(m, "first_disagreement");
        const char *outcome = json_string_value(json_object_get(m, "outcome"));
        if (json_is_object(d))
            printf("          %s differs first on message %lld (%lld bits), %lld of %lld "
                   "differ\n", json_string_value(json_object_get(m, "instance")),
                   (long long)json_integer_value(json_object_get(d, "index")),
                   (long long)json_integer_value(json_object_get(d, "bits")),
                   (long long)json_integer_value(json_object_get(m, "disagreements")),
                   (long long)json_integer_value(json_object_get(m, "compared")));
        if (outcome && strcmp(outcome, "OK") != 0)
            printf("          %s %s: %s\n", json_string_value(json_object_get(m, "instance")),
                   outcome, json_string_value(json_object_get(m, "detail")));
    }
}

/* The part of a status text after the status: what was checked. */
static const char *checked_part(const char *text)
{
    const char *p = strchr(text, '(');
    return p ? p : "";
}

/* Every result of kat.json, each with what it checked; a result this run
 * did not redo (outside --instances) is marked, and when the results were
 * not all checked the same way a last line says so. */
static void print_statuses(const char *run_dir, const kat_options *o)
{
    char path[4096], text[1024], first[1024] = "";
    json_t *kat = NULL;
    hb_err err;
    size_t i;
    json_t *e;
    int earlier = 0, mixed = 0, n = 0;
    if (rundir_path(path, sizeof path, run_dir, RUNDIR_KAT_JSON, &err) != 0 ||
        hb_json_load(path, &kat, &err) != 0)
        return;
    json_array_foreach(json_object_get(kat, "instances"), i, e) {
        const char *reason = json_string_value(json_object_get(e, "reason"));
        const char *cand = json_string_value(json_object_get(e, "candidate"));
        const char *inst = json_string_value(json_object_get(e, "instance"));
        int this_run = cand && inst && kat_selected(o, cand, inst);
        kat_status_text(e, text, sizeof text);
        const char *status = json_string_value(json_object_get(e, "status"));
        if (!status || strcmp(status, "BASELINE") != 0) {
            if (n++ == 0)
                snprintf(first, sizeof first, "%s", checked_part(text));
            else
                mixed |= strcmp(first, checked_part(text)) != 0;
        }
        int baseline = status && strcmp(status, "BASELINE") == 0;
        earlier += !this_run && !baseline;
        printf("%-9s %s/%s%s%s%s\n", text, cand ? cand : "?", inst ? inst : "?",
               this_run || baseline ? "" : "  (an earlier kat run)",
               reason && reason[0] ? "  " : "", reason ? reason : "");
        print_variants(json_object_get(e, "variants"));
    }
    if (mixed)
        printf("note: these results were not all checked with the same KAT files "
               "(see the parentheses)%s; run hashbench kat --run-dir %s with the "
               "same options for every instance to compare them alike\n",
               earlier ? ", and some come from an earlier kat run" : "", run_dir);
    json_decref(kat);
}

static int run_gate(kat_cli *c)
{
    kat_options o = {0};
    hb_err err;
    int n_failed = 0, n = 0;
    const char **names = NULL;
    o.run_dir = c->run_dir;
    o.loop = c->loop;
    o.full = c->full;
    o.retry_timeout = c->retry_timeout;
    o.timeout_s = c->timeout_s;
    o.instance_budget_s = hb_opt_instance_budget(c->run_dir, c->instance_budget_s);
    o.jobs = c->jobs;
    o.progress = print_progress;
    o.log = stderr;
    o.variants_seed = c->variants_seed;
    if (c->instances) {
        if (hb_opt_instances(c->instances, &names, &n, &err) < 0)
            return hb_cli_usage_error("kat", "%s", err.msg);
        o.instances = names;
        o.n_instances = n;
    }
    hb_lock lock = HB_LOCK_NONE;
    if (hb_is_dir(c->run_dir) && hb_opt_run_dir_writable(c->run_dir, &err) < 0) {
        free(names);
        return hb_cli_usage_error("kat", "%s", err.msg);
    }
    int rc = hb_is_dir(c->run_dir) ? rundir_lock(c->run_dir, "kat", stderr, &lock, &err)
                                   : 0;
    if (rc == 0)
        rc = stages_kat_with_rebuilds(&o, &n_failed, &err);
    hb_unlock(&lock);
    if (rc != 0) {
        free(names);
        fprintf(stderr, "hashbench kat: %s\n", err.msg);
        return 2;
    }
    print_statuses(c->run_dir, &o);
    free(names);
    if (n_failed) {
        fprintf(stderr, "hashbench kat: %d instance(s) failed their KATs or group(s) "
                        "of variants do not agree; see the logs under %s/" RUNDIR_KAT "/ and "
                        "%s/kat.json\n", n_failed, c->run_dir, c->run_dir);
        return 1;
    }
    int nokat;
    if (kat_nothing_compared(c->run_dir, &nokat)) {
        fprintf(stderr, "hashbench kat: nothing was compared: all %d instance(s) are "
                "NOKAT (their packages submit no vectors: no Test_Vectors file, no "
                "kat.sha256), so no implementation is verified; add the vectors to the "
                "packages and run the KATs again\n", nokat);
        return 1;
    }
    return 0;
}

static int write_manifest(const kat_cli *c)
{
    hb_err err;
    int n = 0;
    int rc = c->from_run ? kat_manifest_write_run(c->manifest_pkg, c->from_run, &n, &err)
                         : kat_manifest_write_package(c->manifest_pkg, &n, &err);
    if (rc != 0) {
        fprintf(stderr, "hashbench kat: %s\n", err.msg);
        return 2;
    }
    printf("%s/%s: %d file(s)\n", c->manifest_pkg, KAT_MANIFEST_NAME, n);
    return 0;
}

static int check_vectors(const kat_cli *c, const char *library)
{
    kat_vectors_result r;
    hb_err err;
    if (kat_vectors_check(c->rsp, library, c->digest_bits, c->timeout_s, &r, &err) != 0) {
        fprintf(stderr, "hashbench kat: %s\n", err.msg);
        return 2;
    }
    printf("%ld passed, %ld failed\n", r.passed, r.failed);
    if (r.skipped)
        printf("%ld skipped (digest length differs from --digest-bits)\n", r.skipped);
    for (int i = 0; i < KAT_VECTORS_MAX_FAIL_LINES && i < r.failed; i++)
        printf("  %s:%ld: digest differs\n", c->rsp, r.fail_lines[i]);
    if (strcmp(r.status, "PASS") != 0 && strcmp(r.status, "MISMATCH") != 0)
        printf("%s: %s\n", r.status, r.reason);
    return strcmp(r.status, "PASS") == 0 ? 0 : 1;
}

/* Prints the canonical SHA-256 of FIRST and of each further FILE. */
static int print_digests(const char *first, char **more, int n_more)
{
    for (int i = -1; i < n_more; i++) {
        const char *path = i < 0 ? first : more[i];
        char sha[HB_SHA256_HEX];
        hb_err err;
        if (kat_file_sha256(path, sha, &err) != 0) {
            fprintf(stderr, "hashbench kat: %s\n", err.msg);
            return 2;
        }
        printf("%s  %s\n", sha, path);
    }
    return 0;
}

int cmd_kat(int argc, char **argv)
{
    kat_cli c = {0};
    int rc = parse_args(argc, argv, &c);
    if (rc != 0)
        return rc;
    if (c.digest)
        return print_digests(c.digest, argv + optind, argc - optind);
    if (c.rsp) {
        if (optind != argc - 1)
            return hb_cli_usage_error("kat", "--vectors FILE.rsp needs one LIBRARY");
        return check_vectors(&c, argv[optind]);
    }
    if (optind != argc)
        return hb_cli_usage_error("kat", "unexpected argument '%s'", argv[optind]);
    if (c.from_run && !c.manifest_pkg)
        return hb_cli_usage_error("kat", "--from-run goes with --write-manifest");
    return c.manifest_pkg ? write_manifest(&c) : run_gate(&c);
}
