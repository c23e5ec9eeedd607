/* The closing table of `hashbench run` (see table.h): reads build.json,
 * kat.json and the record files of a run directory and prints one aligned
 * line per instance. Nothing here writes to the run directory. */
#include "campaign/table.h"

#include <jansson.h>
#include <limits.h>
#include <string.h>

#include "common/fs.h"
#include "common/json.h"
#include "kat/kat.h"
#include "kat/kat_instance.h"
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
