/* The closing table of `hashbench run` (see table.h): reads build.json,
 * kat.json and the record files of a run directory and prints one aligned
 * line per instance. Nothing here writes to the run directory. */
#include "campaign/table.h"

#include <dirent.h>
#include <jansson.h>
#include <limits.h>
#include <string.h>

#include "common/fs.h"
#include "common/json.h"
#include "kat/kat.h"
#include "kat/kat_instance.h"

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

/* Counts RUN_DIR/records/CAND/INST__*.json files, and of them those whose
 * status is OK. */
static void count_records(const char *run_dir, const char *cand, const char *inst,
                          int *all, int *ok)
{
    char dir[PATH_MAX], prefix[160], path[PATH_MAX];
    *all = *ok = 0;
    if (snprintf(dir, sizeof dir, "%s/records/%s", run_dir, cand) >= (int)sizeof dir)
        return;
    /* exactly <inst>__hash_<digits>.json: instance X must not count X_'s */
    snprintf(prefix, sizeof prefix, "%s__hash_", inst);
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t n = strlen(de->d_name), p = strlen(prefix);
        if (strncmp(de->d_name, prefix, p) != 0 || n < p + 6 ||
            strcmp(de->d_name + n - 5, ".json") != 0 ||
            strspn(de->d_name + p, "0123456789") != n - p - 5)
            continue;
        if (snprintf(path, sizeof path, "%s/%s", dir, de->d_name) >= (int)sizeof path)
            continue;
        (*all)++;
        json_t *r = NULL;
        hb_err ignored;
        if (hb_json_load(path, &r, &ignored) == 0 && strcmp(str(r, "status"), "OK") == 0)
            (*ok)++;
        json_decref(r);
    }
    closedir(d);
}

int campaign_print_table(const char *run_dir, FILE *out, hb_err *err)
{
    char path[PATH_MAX];
    json_t *build = NULL, *kat = NULL;
    if (hb_path_join(path, sizeof path, run_dir, "build.json", err) != 0 ||
        hb_json_load(path, &build, err) != 0)
        return -1;
    if (hb_path_join(path, sizeof path, run_dir, "kat.json", err) == 0 && hb_is_file(path)) {
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
