/* hashbench count: the instruction-count stage (src/count/count.h) on a run
 * directory whose KAT stage has run: every instance that passed is run
 * under Valgrind's callgrind in the sandbox, one record per size and a
 * curve under DIR/count/. This file parses the options and prints one line per
 * record. */
#include "cli/cli.h"
#include "cli/options.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "common/fs.h"
#include "common/json.h"
#include "common/walk.h"
#include "count/count.h"
#include "count/count_cc.h"
#include "count/count_plan.h"
#include "measure/settings.h"
#include "rundir/rundir.h"

const char hb_summary_count[] = "count instructions per byte under Valgrind (exact)";
const char hb_usage_count[] =
    "usage: hashbench count --run-dir DIR [--instances LIST] [--sizes LIST]\n"
    "                       [--jobs N] [--no-branches] [--memory] [--no-curve]\n"
    "                       [--compilers LIST] [--nokat]\n"
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
    "  --compilers LIST   also rebuild every counted instance with each of these\n"
    "                     compilers (comma-separated, e.g. gcc,clang, or\n"
    "                     'installed': every gcc and clang on PATH; the build's\n"
    "                     own is left out), same flags, into\n"
    "                     DIR/lib/<cand>/cc-<name>/, and count its instructions\n"
    "                     at the sizes: <Inst>__count_cc-<name>.json. Costs per\n"
    "                     instance and compiler one compile and one Valgrind\n"
    "                     run, about 1.5 s wall at S1-S8\n"
    "  --nokat            also count the instances that submitted no KAT vectors\n"
    "                     (NOKAT), their records and pages marked NOKAT: their\n"
    "                     digests are recomputed by the library itself, so\n"
    "                     nothing shows that the code counted computes the hash\n"
    "\n"
    "Exit status: 0 every record counted, 1 some not countable, inconsistent or\n"
    "stopped by the instance budget (TIMEOUT), 2 error.\n";

/* A count below its own cost model (count.h: count_below_model), on the
 * failures' stream. */
static void below_line(void *ctx, const char *cand, const char *inst, const char *line)
{
    (void)ctx;
    fprintf(stderr, "count: %s/%s BELOW_MODEL: %s\n", cand, inst, line);
}

enum { OPT_NO_BRANCHES = HB_OPT_OWN, OPT_MEMORY, OPT_NO_CURVE, OPT_COMPILERS, OPT_NOKAT };

static void progress(void *ctx, const char *step, int done, int total)
{
    (void)ctx;
    if (done < total)
        fprintf(stderr, "[%d/%d] %s\n", done + 1, total, step);
}

/* The records of DIR/count/, read for printing in order. */
typedef struct count_lines {
    json_t **v;
    size_t n, cap;
} count_lines;

static int collect_record(const hb_walk_entry *e, void *ctx, hb_err *err)
{
    (void)err;
    count_lines *l = ctx;
    size_t n = strlen(e->path);
    json_t *r = NULL;
    hb_err ignored;
    if (e->type != HB_WALK_FILE || n < 5 || strcmp(e->path + n - 5, ".json") != 0 ||
        hb_json_load(e->path, &r, &ignored) != 0)
        return HB_WALK_CONTINUE;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        json_t **v = realloc(l->v, cap * sizeof *v);
        if (!v) {
            json_decref(r);
            return HB_WALK_CONTINUE;
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = r;
    return HB_WALK_CONTINUE;
}

/* A record's place among its instance's: its message size, the curve
 * (which has none) after them all. */
static json_int_t size_key(const json_t *r)
{
    const json_t *s = json_object_get(r, "size_bytes");
    return json_is_integer(s) ? json_integer_value(s) : (json_int_t)LLONG_MAX;
}

/* Candidate, instance, then message size in numeric order, the curve last. */
static int by_instance_size(const void *a, const void *b)
{
    const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    int c = strcmp(hb_json_str(x, "candidate"), hb_json_str(y, "candidate"));
    if (!c)
        c = strcmp(hb_json_str(x, "instance"), hb_json_str(y, "instance"));
    if (!c) {
        json_int_t sx = size_key(x), sy = size_key(y);
        c = (sx > sy) - (sx < sy);
    }
    return c;
}

/* A count as an integer when it is one ("77556", not "77556.0"), else with
 * DECIMALS decimals, into BUF. */
static const char *count_text(double v, int decimals, char *buf, size_t sz)
{
    if (v == floor(v) && fabs(v) < 1e15)
        snprintf(buf, sz, "%.0f", v);
    else
        snprintf(buf, sz, "%.*f", decimals, v);
    return buf;
}

/* A record under another compiler (count_cc.h): one line per size. */
static void print_compiler_record(const json_t *r)
{
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(r, "points"), i, p) {
        const json_t *ir = json_object_get(json_object_get(p, "derived"), "Ir");
        char byte[64];
        printf("%-14s %s/%s %lld B with %s", hb_json_str(p, "status"),
               hb_json_str(r, "candidate"), hb_json_str(r, "instance"),
               (long long)json_integer_value(json_object_get(p, "size_bytes")),
               hb_json_str(r, "compiler_label"));
        if (ir)
            printf("  %s instructions/B\n",
                   count_text(json_number_value(json_object_get(ir, "per_byte")), 2, byte,
                              sizeof byte));
        else
            printf("  %s\n", hb_json_str(p, "reason"));
    }
}

/* One line per record of DIR/count/: by candidate and instance, each
 * instance's sizes in numeric order, then its curve. */
static void print_records(const char *run_dir)
{
    char dir[PATH_MAX];
    hb_err err;
    count_lines l = {NULL, 0, 0};
    if (rundir_path(dir, sizeof dir, run_dir, RUNDIR_COUNT, &err) == 0 && hb_is_dir(dir))
        hb_walk(dir, 2, 0, collect_record, &l, &err);
    if (l.n)
        qsort(l.v, l.n, sizeof *l.v, by_instance_size);
    for (size_t i = 0; i < l.n; i++) {
        const json_t *r = l.v[i];
        const json_t *d = json_object_get(r, "derived"), *ir = json_object_get(d, "Ir");
        const json_t *points = json_object_get(r, "points");
        char call[64], byte[64];
        if (strcmp(hb_json_str(r, "kind"), COUNT_CC_KIND) == 0) {
            print_compiler_record(r);
            json_decref(l.v[i]);
            continue;
        }
        printf("%-14s %s/%s%s", hb_json_str(r, "status"), hb_json_str(r, "candidate"),
               hb_json_str(r, "instance"),
               strcmp(hb_json_str(r, "kat_status"), "NOKAT") == 0 ? " (NOKAT)" : "");
        if (points)
            printf(" curve, %zu lengths", json_array_size(points));
        else
            printf(" %lld B", (long long)json_integer_value(json_object_get(r, "size_bytes")));
        if (ir)
            printf("  %s instructions/call (median), %s instructions/B%s\n",
                   count_text(json_number_value(json_object_get(ir, "per_call")), 1, call,
                              sizeof call),
                   count_text(json_number_value(json_object_get(ir, "per_byte")), 2, byte,
                              sizeof byte),
                   json_is_true(json_object_get(d, "spread_flagged"))
                       ? ", SPREAD above 0.1 % between calls" : "");
        else if (points && strcmp(hb_json_str(r, "status"), "COUNTED") == 0)
            printf("\n");
        else
            printf("  %s\n", hb_json_str(r, "reason"));
        json_decref(l.v[i]);
    }
    free(l.v);
}

int count_compilers_list(const char *list, const char *run_dir, const char *main_cc,
                         strlist *out, hb_err *err)
{
    if (strcmp(list, COUNT_CC_INSTALLED) == 0) {
        int n = count_cc_installed(out);
        if (n < 0)
            return hb_fail(err, "out of memory");
        if (n == 0)
            return hb_fail(err, "--compilers " COUNT_CC_INSTALLED ": no gcc or clang "
                           "on PATH; install them (Debian packages gcc, clang) or name "
                           "the compilers");
    } else {
        char *copy = strdup(list);
        const char **names = NULL;
        int n = 0;
        if (!copy)
            return hb_fail(err, "out of memory");
        int rc = hb_opt_instances(copy, &names, &n, err);
        for (int i = 0; rc == 0 && i < n; i++)
            if (strlist_push(out, names[i]) != 0)
                rc = hb_fail(err, "out of memory");
        free(names);
        free(copy);
        if (rc != 0)
            return -1;
    }
    if (out->n > COUNT_CC_MAX)
        return hb_fail(err, "--compilers: give at most %d compilers", COUNT_CC_MAX);
    return count_cc_check(run_dir, main_cc, (const char *const *)out->v, out->n, err);
}

int count_compilers(const count_options *o, const char *const *cc, int n, int *not,
                    hb_err *err)
{
    int counted = 0, failed = 0, same = 0;
    int rc = count_cc_run(o, cc, n, &counted, &failed, &same, err);
    if (rc == 0 && same)
        fprintf(stderr, "count: %d compiler(s) of --compilers left out: the build's own "
                "(the same --version)\n", same);
    if (rc == 0)
        fprintf(stderr, "count: %d instance-compiler record(s) counted under other "
                "compilers, %d not\n", counted, failed);
    *not += failed;
    return rc;
}

int cmd_count(int argc, char **argv)
{
    static const struct option opts[] = {
        HB_OPTION_RUN_DIR, HB_OPTION_INSTANCES, HB_OPTION_SIZES, HB_OPTION_JOBS,
        {"no-branches", no_argument, 0, OPT_NO_BRANCHES}, {"memory", no_argument, 0, OPT_MEMORY},
        {"no-curve", no_argument, 0, OPT_NO_CURVE},
        {"compilers", required_argument, 0, OPT_COMPILERS},
        {"nokat", no_argument, 0, OPT_NOKAT}, HB_OPTIONS_END};
    count_options o = {0};
    o.events.branches = 1;
    campaign_settings sizes;
    memset(&sizes, 0, sizeof sizes);
    char *list = NULL, *compilers = NULL;
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
        case OPT_COMPILERS: compilers = optarg; break;
        case OPT_NOKAT: o.nokat = 1; break;
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
    o.instance_budget_s = hb_opt_instance_budget(o.run_dir, 0); /* campaign.json's */
    o.sizes = sizes.measure.n_sizes ? sizes.measure.sizes : NULL;
    o.n_sizes = sizes.measure.n_sizes;
    const char **names = NULL;
    if (list) {
        if (hb_opt_instances(list, &names, &o.n_instances, &err) < 0)
            return hb_cli_usage_error("count", "%s", err.msg);
        o.instances = names;
    }
    o.progress = progress;
    hb_opt_print_skipped_nokat(stderr, "count", o.run_dir, o.instances, o.n_instances,
                               o.nokat);
    /* the compilers before any work: a wrong name is said at once */
    strlist ccs = {0};
    if (compilers && count_compilers_list(compilers, o.run_dir, NULL, &ccs, &err) != 0) {
        free(names);
        strlist_free(&ccs);
        return hb_cli_usage_error("count", "--compilers: %s", err.msg);
    }
    int counted = 0, not = 0;
    int rc = count_run(&o, &counted, &not, &err);
    if (rc == 0 && ccs.n)
        rc = count_compilers(&o, (const char *const *)ccs.v, ccs.n, &not, &err);
    free(names);
    strlist_free(&ccs);
    if (rc != 0) {
        fprintf(stderr, "hashbench count: %s\n", err.msg);
        return 2;
    }
    print_records(o.run_dir);
    count_below_model(o.run_dir, below_line, NULL);
    if (not)
        fprintf(stderr, "hashbench count: %d record(s) not counted; see %s/%s/\n", not,
                o.run_dir, RUNDIR_COUNT);
    return not ? 1 : 0;
}
