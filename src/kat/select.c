/* Which instances a KAT run selects (--instances), finding an entry in
 * kat.json or build.json, and the instances that passed: shared by the KAT
 * stage (kat.c), the comparison of variants (variants.c) and the stages
 * after the KATs (ct/, count/). */
#include "kat/kat.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "common/fs.h"
#include "common/json.h"

static const char *field(const json_t *o, const char *k)
{
    const char *v = json_string_value(json_object_get(o, k));
    return v ? v : "";
}

int kat_selected(const kat_options *o, const char *cand, const char *inst)
{
    if (!o->instances)
        return 1;
    for (int i = 0; i < o->n_instances; i++) {
        const char *s = o->instances[i], *slash = strchr(s, '/');
        if (!slash && strcmp(s, inst) == 0)
            return 1;
        if (slash && strncmp(s, cand, (size_t)(slash - s)) == 0 &&
            cand[slash - s] == '\0' && strcmp(slash + 1, inst) == 0)
            return 1;
    }
    return 0;
}

json_t *kat_find_entry(json_t *arr, const char *cand, const char *inst, size_t *idx)
{
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e) {
        if (strcmp(field(e, "candidate"), cand) == 0 &&
            strcmp(field(e, "instance"), inst) == 0) {
            *idx = i;
            return e;
        }
    }
    return NULL;
}

int kat_passed_load(const char *run_dir, const char *const *instances, int n_instances,
                    kat_passed *out, hb_err *err)
{
    return kat_passed_load_nokat(run_dir, instances, n_instances, 0, out, err);
}

int kat_passed_load_nokat(const char *run_dir, const char *const *instances,
                          int n_instances, int nokat, kat_passed *out, hb_err *err)
{
    char path[PATH_MAX];
    memset(out, 0, sizeof *out);
    if (rundir_path(path, sizeof path, run_dir, RUNDIR_KAT_JSON, err) != 0)
        return -1;
    if (!hb_is_file(path))
        return hb_fail(err, "%s: missing; run hashbench kat --run-dir %s first", path,
                       run_dir);
    if (hb_json_load(path, &out->kat_doc, err) != 0 ||
        rundir_path(path, sizeof path, run_dir, RUNDIR_BUILD_JSON, err) != 0 ||
        hb_json_load(path, &out->build_doc, err) != 0)
        return -1;
    kat_options sel = {0};
    sel.instances = instances;
    sel.n_instances = n_instances;
    json_t *list = json_object_get(out->kat_doc, "instances");
    json_t *blist = json_object_get(out->build_doc, "instances");
    size_t cap = json_array_size(list) + 1, i;
    out->kat = calloc(cap, sizeof *out->kat);
    out->build = calloc(cap, sizeof *out->build);
    if (!out->kat || !out->build)
        return hb_fail(err, "out of memory");
    json_t *k;
    json_array_foreach(list, i, k) {
        const char *st = field(k, "status"), *cand = field(k, "candidate"),
                   *inst = field(k, "instance");
        int taken = !strcmp(st, "PASS") || !strcmp(st, "BASELINE") ||
                    (nokat && !strcmp(st, "NOKAT"));
        if (!taken || !kat_selected(&sel, cand, inst))
            continue;
        size_t bi;
        const json_t *b = kat_find_entry(blist, cand, inst, &bi);
        if (!b)
            return hb_fail(err, "%s: %.64s/%.64s is in %s but not in %s; run hashbench "
                           "build and kat again", KAT_JSON, cand, inst, KAT_JSON,
                           RUNDIR_BUILD_JSON);
        out->kat[out->n] = k;
        out->build[out->n++] = b;
    }
    return 0;
}

void kat_passed_free(kat_passed *p)
{
    free(p->kat);
    free(p->build);
    json_decref(p->kat_doc);
    json_decref(p->build_doc);
    memset(p, 0, sizeof *p);
}
