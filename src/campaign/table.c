/* The closing table of `hashbench run` (see table.h): reads build.json,
 * kat.json and the record files of a run directory and prints one aligned
 * line per instance. Nothing here writes to the run directory. */
#include "campaign/table.h"

#include <jansson.h>
#include <limits.h>
#include <string.h>

#include "campaign/progress.h"
#include "count/count.h"
#include "common/fs.h"
#include "common/json.h"
#include "kat/kat.h"
#include "kat/kat_instance.h"
#include "measure/drift.h"
#include "rundir/rundir.h"

static const char *str(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

/* The kat.json entry of CAND/INST in the array ENTRIES, or NULL. */
static const json_t *kat_entry(const json_t *entries, const char *cand, const char *inst)
{
    size_t i;
    json_t *e;
    json_array_foreach(entries, i, e) {
        if (strcmp(str(e, "candidate"), cand) == 0 && strcmp(str(e, "instance"), inst) == 0)
            return e;
    }
    return NULL;
}

typedef struct record_count {
    int all, ok;
} record_count;

static int count_one(const rundir_record *r, void *ctx, hb_err *err)
{
    (void)err;
    record_count *n = ctx;
    json_t *j = NULL;
    hb_err ignored;
    n->all++;
    if (hb_json_load(r->path, &j, &ignored) == 0 && strcmp(str(j, "status"), "OK") == 0)
        n->ok++;
    json_decref(j);
    return 0;
}

/* Counts the records of CAND/INST in RUN_DIR (the record-name rule of
 * rundir.h: instance X does not count X_'s), and of them those whose
 * status is OK. */
static void count_records(const char *run_dir, const char *cand, const char *inst,
                          int *all, int *ok)
{
    record_count n = {0, 0};
    hb_err ignored;
    rundir_list_records(run_dir, cand, inst, count_one, &n, &ignored);
    *all = n.all;
    *ok = n.ok;
}

int campaign_print_table(const char *run_dir, FILE *out, hb_err *err)
{
    char path[PATH_MAX];
    json_t *build = NULL, *kat = NULL;
    if (rundir_path(path, sizeof path, run_dir, RUNDIR_BUILD_JSON, err) != 0 ||
        hb_json_load(path, &build, err) != 0)
        return -1;
    if (rundir_path(path, sizeof path, run_dir, RUNDIR_KAT_JSON, err) == 0 && hb_is_file(path)) {
        hb_err ignored;
        if (hb_json_load(path, &kat, &ignored) != 0)
            kat = NULL;
    }
    const json_t *kat_entries = json_object_get(kat, "instances");
    fprintf(out, "%-16s %-24s %6s %-10s %12s  %-9s %-10s %s\n", "candidate", "instance",
            "bits", "variant", "static bytes", "build", "records OK", "KAT (files checked)");
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(build, "instances"), i, e) {
        const char *cand = str(e, "candidate"), *inst = str(e, "instance");
        char bytes[32] = "-", recs[32] = "-";
        json_t *image = json_object_get(json_object_get(e, "static_size"), "image");
        if (json_is_integer(image))
            snprintf(bytes, sizeof bytes, "%lld", (long long)json_integer_value(image));
        int all, ok;
        count_records(run_dir, cand, inst, &all, &ok);
        const json_t *k = kat_entry(kat_entries, cand, inst);
        char kat_text[1024] = "-";
        if (k)
            kat_status_text(k, kat_text, sizeof kat_text);
        if (all > 0)
            snprintf(recs, sizeof recs, "%d/%d", ok, all);
        else if (k && kat_status_failed(str(k, "status")))
            snprintf(recs, sizeof recs, "not timed");
        fprintf(out, "%-16s %-24s %6lld %-10s %12s  %-9s %-10s %s\n", cand, inst,
                (long long)json_integer_value(json_object_get(e, "digest_bits")),
                str(e, "variant"), bytes, str(e, "status"), recs, kat_text);
    }
    json_decref(build);
    json_decref(kat);
    return 0;
}

/* ---- under the table ---------------------------------------------------- */

/* Prints "  LABEL  STATUS: REASON" with the reason's line breaks as spaces. */
static void failure_line(FILE *out, const char *cand, const char *inst, const char *status,
                         const char *reason)
{
    fprintf(out, "  %s/%s  %s: ", cand, inst, status);
    for (const char *p = *reason ? reason : "(no reason recorded)"; *p; p++)
        fputc(*p == '\n' || *p == '\r' ? ' ' : *p, out);
    fputc('\n', out);
}

typedef struct explained {
    FILE *out;
    int failures;  /* FAILED records printed */
    int missed;    /* records wider than their target */
    int pass;      /* 0: failed records, 1: missed targets */
} explained;

static double num(const json_t *o, const char *a, const char *b)
{
    const json_t *v = json_object_get(json_object_get(o, a), b);
    return json_is_number(v) ? json_number_value(v) : -1.0;
}

static int explain_record(const rundir_record *r, void *ctx, hb_err *err)
{
    (void)err;
    explained *x = ctx;
    json_t *j = NULL;
    hb_err ignored;
    if (hb_json_load(r->path, &j, &ignored) != 0)
        return 0;
    const char *status = str(j, "status");
    char what[64];
    snprintf(what, sizeof what, "%llu B: %s", r->size, status);
    if (x->pass == 0 && strcmp(status, "OK") != 0) {
        failure_line(x->out, r->candidate, r->instance, what, str(j, "failure"));
        x->failures++;
    }
    double ci = num(j, "derived", "ci95_rel_percent"), target = num(j, "plan", "target_ci_percent");
    if (x->pass == 1 && strcmp(status, "OK") == 0 && ci >= 0 && target > 0 && ci > target) {
        if (x->missed++ == 0)
            fprintf(x->out, "figures that missed their confidence target (the 95 %% "
                    "interval's half-width; --target-ci):\n");
        fprintf(x->out, "  %s/%s %llu B: +-%.2f %% against a target of %.2g %%\n",
                r->candidate, r->instance, r->size, ci, target);
    }
    json_decref(j);
    return 0;
}

typedef struct below_ctx {
    FILE *out;
    int printed;  /* failure lines before */
} below_ctx;

/* A count below its own cost model (count.h: count_below_model). */
static void below_line(void *ctx, const char *cand, const char *inst, const char *line)
{
    below_ctx *b = ctx;
    if (b->printed++ == 0)
        fprintf(b->out, "failures (the reason as the run directory holds it):\n");
    failure_line(b->out, cand, inst, "count BELOW_MODEL", line);
}

int campaign_print_explained(const char *run_dir, double wall_s, FILE *out, hb_err *err)
{
    char path[PATH_MAX];
    json_t *build = NULL, *kat = NULL, *campaign = NULL;
    hb_err ignored;
    if (rundir_path(path, sizeof path, run_dir, RUNDIR_BUILD_JSON, err) != 0 ||
        hb_json_load(path, &build, err) != 0)
        return -1;
    if (rundir_path(path, sizeof path, run_dir, RUNDIR_KAT_JSON, &ignored) == 0 &&
        hb_is_file(path) && hb_json_load(path, &kat, &ignored) != 0)
        kat = NULL;
    if (rundir_path(path, sizeof path, run_dir, RUNDIR_CAMPAIGN_JSON, &ignored) == 0 &&
        hb_is_file(path) && hb_json_load(path, &campaign, &ignored) != 0)
        campaign = NULL;
    int failures = 0;
    size_t i;
    json_t *e;
    const json_t *kat_entries = json_object_get(kat, "instances");
    json_array_foreach(json_object_get(build, "instances"), i, e) {
        const char *cand = str(e, "candidate"), *inst = str(e, "instance");
        const char *status = str(e, "status");
        const json_t *k = kat_entry(kat_entries, cand, inst);
        const char *line_status = NULL, *reason = "";
        if (strcmp(status, "BUILT") != 0 && *status) {
            line_status = status;
            reason = str(e, "reason");
        } else if (k && kat_status_failed(str(k, "status"))) {
            line_status = str(k, "status");
            reason = str(k, "reason");
        }
        if (!line_status)
            continue;
        if (failures++ == 0)
            fprintf(out, "failures (the reason as the run directory holds it):\n");
        failure_line(out, cand, inst, line_status, reason);
    }
    explained x = {out, 0, 0, 0};
    rundir_list_records(run_dir, NULL, NULL, explain_record, &x, &ignored);
    below_ctx below = {out, failures + x.failures};
    x.failures += count_below_model(run_dir, below_line, &below);
    if (failures + x.failures == 0)
        fprintf(out, "failures: none\n");
    failures += x.failures;
    x.pass = 1;
    rundir_list_records(run_dir, NULL, NULL, explain_record, &x, &ignored);
    if (x.missed)
        fprintf(out, "  what to do: measure again with a larger --budget (more trials "
                "narrow the interval), on a core no other work shares (hashbench check "
                "says what disturbs it), or compare instances by their paired ratios to "
                "the baseline\n");
    const json_t *drift = json_object_get(campaign, "host_drift");
    double spread = num(campaign, "host_drift", "spread_percent");
    if (drift && spread > DRIFT_WARN_PERCENT)
        fprintf(out, "host drift: the baseline's speed varied by %.1f %% during the "
                "measurement (more than %.0f %%): an absolute figure moves that much with "
                "the moment it was taken; compare instances by their paired ratios, or "
                "measure on a core no other work shares\n", spread, DRIFT_WARN_PERCENT);
    char d[32], stages[512] = "";
    size_t len = 0;
    double sum = 0;
    const char *name;
    json_t *ph;
    json_object_foreach(json_object_get(campaign, "phases"), name, ph) {
        const json_t *s = json_object_get(ph, "seconds");
        if (!json_is_number(s) || len + 64 >= sizeof stages)
            continue;
        sum += json_number_value(s);
        int n = snprintf(stages + len, sizeof stages - len, "%s%s %s", len ? ", " : "", name,
                         campaign_format_duration(json_number_value(s), d, sizeof d));
        len += n > 0 ? (size_t)n : 0;
    }
    if (wall_s >= 0)
        fprintf(out, "total time: %s", campaign_format_duration(wall_s, d, sizeof d));
    else
        fprintf(out, "total time of the stages: %s", campaign_format_duration(sum, d, sizeof d));
    fprintf(out, "%s%s%s\n", len ? " (" : "", stages, len ? ")" : "");
    json_decref(build);
    json_decref(kat);
    json_decref(campaign);
    return failures;
}
