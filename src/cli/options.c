/* The shared options' parsers and ranges (see options.h). */
#include "cli/options.h"
#include "measure/planners.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/fs.h"
#include "common/json.h"
#include "rundir/rundir.h"
#include <sys/stat.h>
#include <unistd.h>
#include "measure/measure.h"
#include "kat/kat.h"

void hb_opt_start(void)
{
    optind = 0; /* glibc: a full reset, whatever an earlier parse left */
    opterr = 0;
}

int hb_opt_getopt_error(int ch, char **argv, hb_err *err)
{
    char name[64];
    if (optopt > 0 && optopt < 0x100)
        snprintf(name, sizeof name, "-%c", optopt);
    else
        snprintf(name, sizeof name, "%s", argv[optind - 1]);
    if (ch == ':')
        return hb_fail(err, "%s needs a value", name);
    return hb_fail(err, "unknown option '%s'", name);
}

/* The CPUs of ALLOWED as a list of ranges ("0-3,6") into OUT. */
static void allowed_text(const cpu_set_t *allowed, char *out, size_t sz)
{
    size_t len = 0;
    out[0] = '\0';
    for (int c = 0; c < CPU_SETSIZE && len + 24 < sz; c++) {
        if (!CPU_ISSET(c, allowed))
            continue;
        int hi = c;
        while (hi + 1 < CPU_SETSIZE && CPU_ISSET(hi + 1, allowed))
            hi++;
        len += (size_t)snprintf(out + len, sz - len, hi > c ? "%s%d-%d" : "%s%d",
                                len ? "," : "", c, hi);
        c = hi;
    }
}

/* TEXT as a whole number of decimal digits only; -1 when it is not one or
 * exceeds MAX. */
static int whole(const char *text, long max, long *out)
{
    if (!text[0] || strspn(text, "0123456789") != strlen(text) || strlen(text) > 12)
        return -1;
    long v = strtol(text, NULL, 10);
    if (v > max)
        return -1;
    *out = v;
    return 0;
}

/* TEXT as a finite number in [LO, HI] (LO excluded when OPEN_LO). */
static int real(const char *text, double lo, int open_lo, double hi, double *out)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end || !(open_lo ? v > lo : v >= lo) || !(v <= hi))
        return -1;
    *out = v;
    return 0;
}

int hb_opt_cpu(const char *text, int *cpu, hb_err *err)
{
    long v;
    if (whole(text, CPU_SETSIZE - 1, &v) < 0)
        return hb_fail(err, "--cpu '%s' is not accepted: give a CPU index, a whole "
                       "number from 0 to %d", text, CPU_SETSIZE - 1);
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0 && !CPU_ISSET((int)v, &allowed)) {
        char list[256];
        allowed_text(&allowed, list, sizeof list);
        return hb_fail(err, "--cpu %ld is not a CPU this process may run on (it may use "
                       "%s; see nproc and taskset -p $$): give one of those", v, list);
    }
    *cpu = (int)v;
    return 0;
}

int hb_opt_default_cpu(void)
{
    int cpu = measure_default_cpu();
    return cpu < 0 ? 0 : cpu;
}

int hb_opt_packages(const char *const *packages, size_t n, hb_err *err)
{
    const char *file = NULL;
    size_t folders = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat(packages[i], &st) != 0)
            return hb_fail(err, "%s: no such submission folder (%s); name the folders "
                           "of the submission packages", packages[i], strerror(errno));
        if (S_ISDIR(st.st_mode))
            folders++;
        else if (!file)
            file = packages[i];
    }
    /* a plain file a shell glob caught beside the packages (pkgs/README) is
     * passed over by the build; only files alone are refused */
    if (n > 0 && folders == 0)
        return hb_fail(err, "%s: not a folder, and no submission folder is named; a "
                       "submission is the folder of its package (unpack an archive "
                       "first)", file);
    return 0;
}

int hb_opt_run_dir_writable(const char *dir, hb_err *err)
{
    char at[PATH_MAX];
    struct stat st;
    if (snprintf(at, sizeof at, "%s", dir) >= (int)sizeof at)
        return hb_fail(err, "--run-dir %.64s...: the path is too long", dir);
    /* the run directory, or the nearest folder above it that exists */
    while (stat(at, &st) != 0) {
        char *slash = strrchr(at, '/');
        if (errno != ENOENT && errno != ENOTDIR)
            return hb_fail(err, "--run-dir %s: %s cannot be read (%s); give another "
                           "--run-dir", dir, at, strerror(errno));
        if (!slash) {
            snprintf(at, sizeof at, ".");
        } else if (slash == at) {
            at[1] = '\0';
        } else {
            *slash = '\0';
        }
    }
    if (!S_ISDIR(st.st_mode))
        return hb_fail(err, "--run-dir %s: %s is not a folder; give a --run-dir whose "
                       "parent folders are folders", dir, at);
    /* a file made and removed at once: the only sure test (root, read-only
     * file systems, ACLs) */
    char probe[PATH_MAX + 64];
    snprintf(probe, sizeof probe, "%s/.hashbench-write-test.%ld", at, (long)getpid());
    int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return hb_fail(err, "--run-dir %s: cannot write in %s (%s); give a --run-dir "
                       "this user can write", dir, at, strerror(errno));
    close(fd);
    unlink(probe);
    return 0;
}

int hb_opt_jobs(const char *name, const char *text, int *jobs, hb_err *err)
{
    long v;
    if (whole(text, HB_OPT_JOBS_MAX, &v) < 0 || v < 1)
        return hb_fail(err, "%s '%s' is not accepted: give a whole number from 1 "
                       "to %d", name, text, HB_OPT_JOBS_MAX);
    *jobs = (int)v;
    return 0;
}

int hb_opt_timeout(const char *text, double *seconds, hb_err *err)
{
    if (real(text, 0, 1, HB_OPT_TIMEOUT_MAX_S, seconds) < 0)
        return hb_fail(err, "--timeout '%s' is not accepted: give seconds, more "
                       "than 0 and at most %g", text, HB_OPT_TIMEOUT_MAX_S);
    return 0;
}

/* --sizes LIST: byte counts separated by commas. */
static int parse_sizes(const char *list, measure_settings *s, hb_err *err)
{
    int n = 0;
    const char *p = list;
    while (*p) {
        char *end;
        unsigned long v = strtoul(p, &end, 10);
        if (end == p || *p == '-' || *p == '+' || (*end && *end != ',') || v == 0 ||
            v > SETTINGS_MAX_SIZE_BYTES)
            return hb_fail(err, "--sizes '%s' is not accepted: give byte counts "
                           "(1 to 2^30) separated by commas, e.g. 32,4096", list);
        if (n == MEASURE_MAX_SIZES)
            return hb_fail(err, "--sizes '%s' is not accepted: give at most %d sizes",
                           list, MEASURE_MAX_SIZES);
        s->sizes[n++] = (unsigned)v;
        p = *end ? end + 1 : end;
    }
    if (n == 0)
        return hb_fail(err, "--sizes '' is not accepted: give byte counts separated "
                       "by commas, e.g. 32,4096");
    s->n_sizes = n;
    return 0;
}

static int set_name(char *dst, size_t n, const char *text)
{
    if (strlen(text) >= n)
        return -1;
    snprintf(dst, n, "%s", text);
    return 0;
}

int hb_opt_is_setting(int id)
{
    return id >= HB_OPT_PLAN && id <= HB_OPT_SHARD;
}

int hb_opt_setting(int id, const char *text, campaign_settings *s, hb_err *err)
{
    /* the value goes into a copy, which settings_validate then judges with
     * the same ranges as a campaign.json read back */
    campaign_settings one;
    memset(&one, 0, sizeof one);
    long n;
    double x;
    switch (id) {
    case HB_OPT_PLAN:
        if (set_name(one.measure.planner, sizeof one.measure.planner, text) < 0 ||
            !settings_planner_known(text))
        {
            char names[160];
            return hb_fail(err, "--plan '%s' is not accepted: give %s", text,
                           plan_planner_names(names, sizeof names));
        }
        break;
    case HB_OPT_PROFILE:
        if (set_name(one.profile, sizeof one.profile, text) < 0 || !text[0])
            return hb_fail(err, "--profile '%s' is not accepted: give reference, "
                           "performance or resource", text);
        break;
    case HB_OPT_SIZES:
        if (parse_sizes(text, &one.measure, err) < 0)
            return -1;
        break;
    case HB_OPT_TRIALS:
        if (whole(text, SETTINGS_TRIALS_MAX, &n) < 0 || n < SETTINGS_TRIALS_MIN)
            return hb_fail(err, "--trials '%s' is not accepted: give a whole number "
                           "from %d to %d", text, SETTINGS_TRIALS_MIN,
                           SETTINGS_TRIALS_MAX);
        one.measure.trials = (int)n;
        break;
    case HB_OPT_TARGET_CI:
        if (real(text, SETTINGS_TARGET_CI_MIN, 0, SETTINGS_TARGET_CI_MAX, &x) < 0)
            return hb_fail(err, "--target-ci '%s' is not accepted: give a percentage "
                           "from %g to %g", text, SETTINGS_TARGET_CI_MIN,
                           SETTINGS_TARGET_CI_MAX);
        one.measure.target_ci = x;
        break;
    case HB_OPT_BUDGET:
        if (real(text, SETTINGS_BUDGET_MIN_S, 0, SETTINGS_BUDGET_MAX_S, &x) < 0)
            return hb_fail(err, "--budget '%s' is not accepted: give seconds from %g "
                           "to %g", text, SETTINGS_BUDGET_MIN_S, SETTINGS_BUDGET_MAX_S);
        one.measure.budget_s = x;
        break;
    case HB_OPT_INSTANCE_BUDGET:
        if (real(text, SETTINGS_INSTANCE_BUDGET_MIN_S, 0, SETTINGS_INSTANCE_BUDGET_MAX_S,
                 &x) < 0)
            return hb_fail(err, "--instance-budget '%s' is not accepted: give seconds "
                           "from %g to %g", text, SETTINGS_INSTANCE_BUDGET_MIN_S,
                           SETTINGS_INSTANCE_BUDGET_MAX_S);
        one.instance_budget_s = x;
        break;
    case HB_OPT_SHARD:
        if (shard_parse(text, &one.shard, err) < 0)
            return -1;
        break;
    default:
        return hb_fail(err, "internal: option %d is no setting", id);
    }
    if (settings_validate(&one, NULL, NULL, err) < 0)
        return -1;
    switch (id) {
    case HB_OPT_PLAN:
        memcpy(s->measure.planner, one.measure.planner, sizeof s->measure.planner);
        break;
    case HB_OPT_PROFILE: memcpy(s->profile, one.profile, sizeof s->profile); break;
    case HB_OPT_SIZES:
        memcpy(s->measure.sizes, one.measure.sizes, sizeof s->measure.sizes);
        s->measure.n_sizes = one.measure.n_sizes;
        break;
    case HB_OPT_TRIALS: s->measure.trials = one.measure.trials; break;
    case HB_OPT_TARGET_CI: s->measure.target_ci = one.measure.target_ci; break;
    case HB_OPT_BUDGET: s->measure.budget_s = one.measure.budget_s; break;
    case HB_OPT_INSTANCE_BUDGET: s->instance_budget_s = one.instance_budget_s; break;
    default: s->shard = one.shard; break;
    }
    return 0;
}

double hb_opt_instance_budget(const char *run_dir, double given)
{
    char path[PATH_MAX];
    json_t *doc = NULL;
    campaign_settings s;
    hb_err ignored;
    if (given > 0)
        return given;
    double out = SETTINGS_DEFAULT_INSTANCE_BUDGET_S;
    if (run_dir && rundir_path(path, sizeof path, run_dir, RUNDIR_CAMPAIGN_JSON, &ignored) == 0 &&
        hb_is_file(path) && hb_json_load(path, &doc, &ignored) == 0 &&
        settings_from_json(json_object_get(doc, "settings"), path, &s, &ignored) == 0 &&
        s.instance_budget_s > 0)
        out = s.instance_budget_s;
    json_decref(doc);
    return out;
}

int hb_opt_instances(char *list, const char ***names, int *n, hb_err *err)
{
    const char **v = calloc(strlen(list) + 1, sizeof *v);
    *n = 0;
    for (char *tok = strtok(list, ","); v && tok; tok = strtok(NULL, ","))
        v[(*n)++] = tok;
    *names = v;
    if (v && *n > 0)
        return 0;
    free(v);
    *names = NULL;
    return hb_fail(err, "--instances: give Inst or Cand/Inst names");
}

/* Why a stage that takes the passed instances leaves out one whose build
 * status is BUILD and KAT status KAT ("" when kat.json has no entry). */
static const char *skip_reason(const char *build, const char *kat)
{
    if (strcmp(build, "BUILT") != 0)
        return "it did not build (hashbench status names the reason)";
    if (!*kat)
        return "it has no KAT result (run hashbench kat first)";
    if (strcmp(kat, "NOKAT") == 0)
        return "no KAT vectors were submitted, so nothing shows its code computes the hash; "
               "add them (kat.sha256 or Test_Vectors) and run hashbench kat again";
    return "it did not pass its KATs (hashbench status names the reason)";
}

int hb_opt_print_skipped(FILE *fp, const char *stage, const char *run_dir,
                         const char *const *names, int n)
{
    return hb_opt_print_skipped_nokat(fp, stage, run_dir, names, n, 0);
}

int hb_opt_print_skipped_nokat(FILE *fp, const char *stage, const char *run_dir,
                               const char *const *names, int n, int nokat)
{
    char path[PATH_MAX];
    json_t *build = NULL, *kat = NULL;
    hb_err ignored;
    int lines = 0;
    if (rundir_path(path, sizeof path, run_dir, RUNDIR_BUILD_JSON, &ignored) != 0 ||
        !hb_is_file(path) || hb_json_load(path, &build, &ignored) != 0)
        return 0;
    if (rundir_path(path, sizeof path, run_dir, RUNDIR_KAT_JSON, &ignored) == 0 &&
        hb_is_file(path) && hb_json_load(path, &kat, &ignored) != 0)
        kat = NULL;
    kat_options sel = {0};
    sel.instances = names;
    sel.n_instances = n;
    json_t *list = json_object_get(build, "instances"), *b;
    size_t i, idx;
    json_array_foreach(list, i, b) {
        const char *cand = hb_json_str(b, "candidate"), *inst = hb_json_str(b, "instance");
        if (!kat_selected(&sel, cand, inst))
            continue;
        const json_t *k = kat_find_entry(json_object_get(kat, "instances"), cand, inst, &idx);
        const char *ks = k ? hb_json_str(k, "status") : "";
        if (strcmp(ks, "PASS") == 0 || strcmp(ks, "BASELINE") == 0)
            continue;
        int is_nokat = strcmp(ks, "NOKAT") == 0 && strcmp(hb_json_str(b, "status"), "BUILT") == 0;
        if (is_nokat && nokat) {
            fprintf(fp, "%s: %s/%s (NOKAT) is counted as asked (--nokat), its figures marked "
                        "NOKAT: no KAT vectors were submitted, so nothing shows its code "
                        "computes the hash\n", stage, cand, inst);
            lines++;
            continue;
        }
        fprintf(fp, "%s: skipped %s/%s (%s): %s%s\n", stage, cand, inst,
                strcmp(hb_json_str(b, "status"), "BUILT") != 0 ? hb_json_str(b, "status") : ks,
                skip_reason(hb_json_str(b, "status"), ks),
                is_nokat && strcmp(stage, "count") == 0
                    ? " (or count it as it is, marked NOKAT: hashbench count --nokat)" : "");
        lines++;
    }
    for (int j = 0; j < n; j++) {
        int found = 0;
        json_array_foreach(list, i, b) {
            kat_options one = {0};
            one.instances = &names[j];
            one.n_instances = 1;
            found |= kat_selected(&one, hb_json_str(b, "candidate"), hb_json_str(b, "instance"));
        }
        if (!found) {
            fprintf(fp, "%s: skipped %s: no instance of %s has that name (%s lists them)\n",
                    stage, names[j], run_dir, RUNDIR_BUILD_JSON);
            lines++;
        }
    }
    json_decref(build);
    json_decref(kat);
    return lines;
}
