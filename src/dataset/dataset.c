/* Loading a published dataset: see dataset.h. A system folder has the run
 * directory's layout (rundir/), so its records are listed by
 * rundir_list_records; folders are listed by the common walker in bytewise
 * order, so the order, and so every page, does not depend on the file
 * system or the locale. */
#include "dataset/dataset.h"
#include "dataset/layout.h"
#include "dataset/sign.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "common/fs.h"
#include "common/json.h"
#include "common/walk.h"
#include "dataset/notes.h"
#include "count/count_cc.h"
#include "rundir/rundir.h"

typedef struct name_list {
    int want_dir;
    char **v;
    size_t n, cap;
} name_list;

static int add_name(const hb_walk_entry *e, void *ctx, hb_err *err)
{
    name_list *l = ctx;
    int want = l->want_dir ? HB_WALK_DIR : HB_WALK_FILE;
    /* a link is listed by what it leads to, so that validate can name it as
     * a link (report_validate refuses every link in a dataset) */
    int is = e->type != HB_WALK_LINK ? e->type
             : l->want_dir ? (hb_is_dir(e->path) ? HB_WALK_DIR : 0)
                           : (hb_is_file(e->path) ? HB_WALK_FILE : 0);
    if (e->name[0] == '.' || is != want)
        return HB_WALK_CONTINUE;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        char **grown = realloc(l->v, cap * sizeof *grown);
        if (!grown)
            return hb_fail(err, "%s: out of memory", e->path);
        l->v = grown;
        l->cap = cap;
    }
    if (!(l->v[l->n] = strdup(e->name)))
        return hb_fail(err, "%s: out of memory", e->path);
    l->n++;
    return HB_WALK_CONTINUE;
}

/* Names of the entries of DIR (not starting with '.') that are, or lead
 * to, folders (WANT_DIR) or regular files, in bytewise order; *out is a
 * malloc'd array of malloc'd names. Missing DIR gives an empty list. */
static int list_dir(const char *dir, int want_dir, char ***out, size_t *n, hb_err *err)
{
    name_list l = {want_dir, NULL, 0, 0};
    int rc = hb_walk(dir, 1, HB_WALK_MISSING_OK, add_name, &l, err) < 0 ? -1 : 0;
    *out = l.v;
    *n = l.n;
    return rc;
}

static void free_list(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static int load_optional(const char *dir, const char *name, json_t **out, hb_err *err)
{
    char path[4096];
    *out = NULL;
    if (hb_path_join(path, sizeof path, dir, name, err) < 0)
        return -1;
    if (!hb_is_file(path))
        return 0;
    return hb_json_load(path, out, err);
}

static int cmp_record(const void *a, const void *b)
{
    const report_record *x = a, *y = b;
    int c = strcmp(x->candidate, y->candidate);
    if (c == 0)
        c = strcmp(x->instance, y->instance);
    if (c == 0)
        c = (x->size > y->size) - (x->size < y->size);
    if (c == 0)
        c = strcmp(x->file, y->file);
    return c;
}

static int add_record(report_system *s, const char *root, const char *rel,
                      size_t *cap, hb_err *err)
{
    char path[4096];
    json_t *j;
    if (hb_path_join(path, sizeof path, root, rel, err) < 0 ||
        hb_json_load(path, &j, err) < 0)
        return -1;
    report_record r = {0};
    long long size;
    if (hb_json_get_str(j, "candidate", &r.candidate, rel, err) < 0 ||
        hb_json_get_str(j, "instance", &r.instance, rel, err) < 0 ||
        hb_json_get_int(j, "size_bytes", &size, rel, err) < 0) {
        json_decref(j);
        return -1;
    }
    r.size = size;
    r.json = j;
    r.file = strdup(rel);
    json_t *d = json_object_get(j, "derived");
    r.derived = json_is_object(d) && strcmp(report_str(j, "status", "OK"), "OK") == 0
                    ? d : NULL;
    if (s->nrecs == *cap) {
        *cap = *cap ? *cap * 2 : 64;
        report_record *grown = realloc(s->recs, *cap * sizeof *grown);
        if (!grown) {
            json_decref(j);
            free(r.file);
            return hb_fail(err, "%s: out of memory", rel);
        }
        s->recs = grown;
    }
    s->recs[s->nrecs++] = r;
    return 0;
}

typedef struct record_load {
    report_system *s;
    const char *root;
    size_t cap;
} record_load;

static int load_record(const rundir_record *r, void *ctx, hb_err *err)
{
    record_load *l = ctx;
    char rel[4096];
    if (hb_path_join(rel, sizeof rel, l->s->name, r->rel, err) < 0)
        return -1;
    return add_record(l->s, l->root, rel, &l->cap, err);
}

/* The records of system S (rundir_list_records: names by the record-name
 * rule), sorted by candidate, instance and size. */
static int load_records(report_system *s, const char *root, hb_err *err)
{
    char dir[4096];
    record_load l = {s, root, 0};
    if (hb_path_join(dir, sizeof dir, root, s->name, err) < 0 ||
        rundir_list_records(dir, NULL, NULL, load_record, &l, err) < 0)
        return -1;
    if (s->nrecs)
        qsort(s->recs, s->nrecs, sizeof *s->recs, cmp_record);
    return 0;
}

/* The JSON files of DATA/<system>/FOLDER/<cand>/ into *INTO, keyed
 * "<cand>/<Inst>" by the record's own candidate and instance, and
 * "/<size_bytes>" after them when WITH_SIZE ("/curve" for an instruction
 * count's curve). */
static int load_folder(report_system *s, const char *root, const char *folder,
                       json_t **into, int with_size, hb_err *err)
{
    char dir[4096], rel[4096], path[4096];
    char **cands;
    size_t ncands;
    char sys_ct[4096];
    *into = json_object();
    if (!*into || hb_path_join(sys_ct, sizeof sys_ct, s->name, folder, err) < 0 ||
        hb_path_join(dir, sizeof dir, root, sys_ct, err) < 0 ||
        list_dir(dir, 1, &cands, &ncands, err) < 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < ncands && rc == 0; i++) {
        char cdir[4096];
        char **files;
        size_t nfiles;
        if (hb_path_join(cdir, sizeof cdir, dir, cands[i], err) < 0 ||
            list_dir(cdir, 0, &files, &nfiles, err) < 0) {
            rc = -1;
            break;
        }
        for (size_t k = 0; k < nfiles && rc == 0; k++) {
            size_t len = strlen(files[k]);
            json_t *j;
            const char *c, *in;
            char crel[4096];
            if (len < 5 || strcmp(files[k] + len - 5, ".json") != 0)
                continue;
            if (hb_path_join(crel, sizeof crel, sys_ct, cands[i], err) < 0 ||
                hb_path_join(rel, sizeof rel, crel, files[k], err) < 0 ||
                hb_path_join(path, sizeof path, root, rel, err) < 0 ||
                hb_json_load(path, &j, err) < 0) {
                rc = -1;
                break;
            }
            if (hb_json_get_str(j, "candidate", &c, rel, err) < 0 ||
                hb_json_get_str(j, "instance", &in, rel, err) < 0) {
                json_decref(j);
                rc = -1;
                break;
            }
            char key[1100];
            const char *kind = json_string_value(json_object_get(j, "kind"));
            if (with_size && kind && strcmp(kind, "hashbench-count-curve") == 0)
                snprintf(key, sizeof key, "%.500s/%.500s/curve", c, in);
            else if (with_size && kind && strcmp(kind, COUNT_CC_KIND) == 0)
                snprintf(key, sizeof key, "%.450s/%.450s/cc-%.100s", c, in,
                         report_str(j, "compiler", ""));
            else if (with_size)
                snprintf(key, sizeof key, "%.500s/%.500s/%lld", c, in,
                         (long long)json_integer_value(json_object_get(j, "size_bytes")));
            else
                snprintf(key, sizeof key, "%.500s/%.500s", c, in);
            json_object_set_new(*into, key, json_pack("{s:s, s:o}", "file", rel, "record", j));
        }
        free_list(files, nfiles);
    }
    free_list(cands, ncands);
    return rc;
}

/* Moves the records under other compilers (kind COUNT_CC_KIND) from
 * S->count into S->count_cc, keyed "<cand>/<Inst>/<compiler>". */
static int split_count_cc(report_system *s, hb_err *err)
{
    s->count_cc = json_object();
    json_t *moved = json_array();
    if (!s->count_cc || !moved) {
        json_decref(moved);
        return hb_fail(err, "out of memory");
    }
    const char *key;
    json_t *e;
    json_object_foreach(s->count, key, e) {
        const json_t *r = json_object_get(e, "record");
        if (strcmp(report_str(r, "kind", ""), COUNT_CC_KIND) != 0)
            continue;
        char k[1100];
        snprintf(k, sizeof k, "%.400s/%.400s/%.200s", report_str(r, "candidate", ""),
                 report_str(r, "instance", ""), report_str(r, "compiler", ""));
        json_object_set(s->count_cc, k, e);
        json_array_append_new(moved, json_string(key));
    }
    size_t i;
    json_t *v;
    json_array_foreach(moved, i, v)
        json_object_del(s->count, json_string_value(v));
    json_decref(moved);
    return 0;
}

/* DATA/<system>/ct/<cand>/<Inst>.json into S->ct. */
static int load_ct(report_system *s, const char *root, hb_err *err)
{
    return load_folder(s, root, RUNDIR_CT, &s->ct, 0, err);
}

const json_t *report_count_record(const report_system *s, const char *cand, const char *inst,
                                  long long size, const char **file)
{
    char key[1100];
    snprintf(key, sizeof key, "%.500s/%.500s/%lld", cand, inst, size);
    const json_t *e = json_object_get(s->count, key);
    if (file)
        *file = e ? report_str(e, "file", NULL) : NULL;
    return e ? json_object_get(e, "record") : NULL;
}

const json_t *report_count_curve(const report_system *s, const char *cand, const char *inst)
{
    char key[1100];
    snprintf(key, sizeof key, "%.500s/%.500s/curve", cand, inst);
    return json_object_get(json_object_get(s->count, key), "record");
}

const json_t *report_soak_record(const report_system *s, const char *cand, const char *inst,
                                 const char **file)
{
    char key[1024];
    snprintf(key, sizeof key, "%.500s/%.500s", cand, inst);
    const json_t *e = json_object_get(s->soak, key);
    if (file)
        *file = e ? report_str(e, "file", NULL) : NULL;
    return e ? json_object_get(e, "record") : NULL;
}

const json_t *report_ct_record(const report_system *s, const char *cand, const char *inst,
                               const char **file)
{
    char key[1024];
    snprintf(key, sizeof key, "%.500s/%.500s", cand, inst);
    const json_t *e = json_object_get(s->ct, key);
    if (file)
        *file = e ? report_str(e, "file", NULL) : NULL;
    return e ? json_object_get(e, "record") : NULL;
}

static void add_unique(json_t *arr, const char *name)
{
    size_t i;
    json_t *v;
    if (!name)
        return;
    json_array_foreach(arr, i, v)
        if (strcmp(json_string_value(v), name) == 0)
            return;
    json_array_append_new(arr, json_string(name));
}

static int cmp_json_str(const void *a, const void *b)
{
    return strcmp(json_string_value(*(json_t *const *)a),
                  json_string_value(*(json_t *const *)b));
}

/* Sorts a JSON array in place with CMP (by rebuilding it). */
static void sort_array(json_t *arr, int (*cmp)(const void *, const void *))
{
    size_t n = json_array_size(arr);
    if (n < 2)
        return;
    json_t **items = malloc(n * sizeof *items);
    if (!items)
        return;
    for (size_t i = 0; i < n; i++)
        items[i] = json_incref(json_array_get(arr, i));
    qsort(items, n, sizeof *items, cmp);
    json_array_clear(arr);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(arr, items[i]);
    free(items);
}

static void collect_from(json_t *file, const char *cand, const char *field, json_t *out)
{
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(file, "instances"), i, e) {
        const char *c = report_str(e, "candidate", NULL);
        if (!c)
            continue;
        if (!cand)
            add_unique(out, c);
        else if (strcmp(c, cand) == 0)
            add_unique(out, report_str(e, field, NULL));
    }
}

json_t *report_instances(const report_system *s, const char *cand)
{
    /* the submission's order first: build.json lists the instances as the
     * override file declares them, else as discovery found them */
    json_t *out = json_array(), *rest = json_array();
    collect_from(s->build, cand, "instance", out);
    collect_from(s->kat, cand, "instance", rest);
    for (size_t i = 0; i < s->nrecs; i++)
        if (strcmp(s->recs[i].candidate, cand) == 0)
            add_unique(rest, s->recs[i].instance);
    sort_array(rest, cmp_json_str);
    size_t i;
    json_t *v;
    json_array_foreach(rest, i, v)
        add_unique(out, json_string_value(v));
    json_decref(rest);
    return out;
}

json_t *report_withheld(const report_system *s, const char *cand)
{
    json_t *out = json_array(), *e;
    size_t i;
    json_array_foreach(json_object_get(s->campaign, "withheld"), i, e) {
        const char *c = report_str(e, "candidate", NULL);
        if (c && report_str(e, "instance", NULL) && report_str(e, "reason", NULL) &&
            (!cand || strcmp(c, cand) == 0))
            json_array_append(out, e);
    }
    return out;
}

static json_t *all_candidates(const report_system *s)
{
    json_t *out = json_array(), *withheld = report_withheld(s, NULL), *e;
    size_t i;
    collect_from(s->build, NULL, NULL, out);
    collect_from(s->kat, NULL, NULL, out);
    json_array_foreach(withheld, i, e) /* a candidate all of whose instances are */
        add_unique(out, report_str(e, "candidate", NULL));
    json_decref(withheld);
    for (size_t i = 0; i < s->nrecs; i++)
        add_unique(out, s->recs[i].candidate);
    sort_array(out, cmp_json_str);
    return out;
}

/* S's drift from its baseline records (measure/drift.h). */
static int load_drift(report_system *s, hb_err *err)
{
    const json_t **recs = malloc((s->nrecs ? s->nrecs : 1) * sizeof *recs);
    size_t n = 0;
    if (!recs)
        return hb_fail(err, "%s: out of memory", s->name);
    for (size_t i = 0; i < s->nrecs; i++)
        if (rundir_is_baseline(s->recs[i].candidate, s->recs[i].instance))
            recs[n++] = s->recs[i].json;
    int rc = drift_of_records(recs, n, &s->drift);
    free(recs);
    return rc == 0 ? 0 : hb_fail(err, "%s: out of memory", s->name);
}

/* DIR/notes.txt when there is one; a file that does not parse leaves no
 * notes and its error in S->notes_error, for report to refuse and validate
 * to list. */
static int load_notes(report_system *s, const char *dir, hb_err *err)
{
    char path[4096];
    hb_err perr = {{0}};
    s->notes = json_object();
    if (hb_path_join(path, sizeof path, dir, NOTES_FILE, err) < 0)
        return -1;
    if (!hb_is_file(path))
        return 0;
    s->notes_file = strdup(path);
    json_t *n;
    if (notes_load(path, &n, &perr) < 0) {
        s->notes_error = strdup(perr.msg);
        return 0;
    }
    json_decref(s->notes);
    s->notes = n;
    return 0;
}

static int load_system(report_dataset *ds, const char *name, hb_err *err)
{
    char dir[4096];
    report_system *s = &ds->sys[ds->nsys];
    memset(s, 0, sizeof *s);
    s->name = strdup(name);
    ds->nsys++;
    if (hb_path_join(dir, sizeof dir, ds->root, name, err) < 0 ||
        load_optional(dir, RUNDIR_CAMPAIGN_JSON, &s->campaign, err) < 0 ||
        load_optional(dir, RUNDIR_BUILD_JSON, &s->build, err) < 0 ||
        load_optional(dir, RUNDIR_KAT_JSON, &s->kat, err) < 0 ||
        load_records(s, ds->root, err) < 0 || load_ct(s, ds->root, err) < 0 ||
        load_folder(s, ds->root, RUNDIR_COUNT, &s->count, 1, err) < 0 ||
        load_folder(s, ds->root, RUNDIR_SOAK, &s->soak, 0, err) < 0 ||
        split_count_cc(s, err) < 0 ||
        load_drift(s, err) < 0 || load_notes(s, dir, err) < 0)
        return -1;
    s->candidates = all_candidates(s);
    return 0;
}

int report_dataset_load(const char *data_dir, report_dataset *ds, hb_err *err)
{
    char **names;
    size_t n;
    memset(ds, 0, sizeof *ds);
    if (!hb_is_dir(data_dir))
        return hb_fail(err, "%s: no such dataset folder; give the folder that "
                            "holds <system>/campaign.json", data_dir);
    ds->root = strdup(data_dir);
    if (list_dir(data_dir, 1, &names, &n, err) < 0)
        return -1;
    ds->sys = calloc(n ? n : 1, sizeof *ds->sys);
    int rc = ds->sys ? 0 : hb_fail(err, "%s: out of memory", data_dir);
    for (size_t i = 0; i < n && rc == 0; i++)
        if (dataset_is_system_dir(data_dir, names[i]))
            rc = load_system(ds, names[i], err);
    free_list(names, n);
    if (rc == 0) {
        hb_err kerr;
        ds->is_signed = sign_is_signed(data_dir);
        if (sign_named_fingerprint(data_dir, ds->key_fingerprint, &kerr) != 1)
            ds->key_fingerprint[0] = '\0';
    }
    if (rc == 0 && ds->nsys == 0)
        rc = hb_fail(err, "%s: no system folder (<system>/build.json, kat.json, "
                          "campaign.json or " RUNDIR_RECORDS "/) found; publish a campaign "
                          "into it first", data_dir);
    if (rc < 0)
        report_dataset_free(ds);
    return rc;
}

int report_dataset_load_path(const char *path, report_dataset *ds, hb_err *err)
{
    char root[4096], name[1024], real[PATH_MAX];
    memset(ds, 0, sizeof *ds);
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/')
        len--;
    /* "." and ".." name their folder only once resolved */
    if (((len == 1 || (len >= 2 && path[len - 2] == '/')) && path[len - 1] == '.') ||
        (len >= 2 && !strncmp(path + len - 2, "..", 2) &&
         (len == 2 || path[len - 3] == '/'))) {
        if (realpath(path, real))
            path = real;
        len = strlen(path);
    }
    const char *base = path + len;
    while (base > path && base[-1] != '/')
        base--;
    size_t nlen = (size_t)(path + len - base), rlen = (size_t)(base - path);
    if (nlen == 0 || nlen >= sizeof name || rlen >= sizeof root)
        return report_dataset_load(path, ds, err);
    memcpy(name, base, nlen);
    name[nlen] = '\0';
    if (rlen == 0)
        snprintf(root, sizeof root, ".");
    else {
        memcpy(root, path, rlen);
        root[rlen > 1 ? rlen - 1 : rlen] = '\0'; /* "/" stays "/" */
    }
    if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || !hb_is_dir(path) ||
        !dataset_is_system_dir(root, name))
        return report_dataset_load(path, ds, err);
    ds->root = strdup(root);
    ds->sys = calloc(1, sizeof *ds->sys);
    int rc = ds->root && ds->sys ? load_system(ds, name, err)
                                 : hb_fail(err, "%s: out of memory", path);
    if (rc < 0)
        report_dataset_free(ds);
    return rc;
}

void report_dataset_free(report_dataset *ds)
{
    for (size_t i = 0; i < ds->nsys; i++) {
        report_system *s = &ds->sys[i];
        for (size_t k = 0; k < s->nrecs; k++) {
            free(s->recs[k].file);
            json_decref(s->recs[k].json);
        }
        free(s->recs);
        free(s->name);
        json_decref(s->campaign);
        json_decref(s->build);
        json_decref(s->kat);
        json_decref(s->candidates);
        json_decref(s->ct);
        json_decref(s->count);
        json_decref(s->soak);
        json_decref(s->count_cc);
        drift_free(&s->drift);
        json_decref(s->notes);
        free(s->notes_file);
        free(s->notes_error);
    }
    free(ds->sys);
    free(ds->root);
    memset(ds, 0, sizeof *ds);
}

static json_t *find_entry(json_t *file, const char *cand, const char *inst)
{
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(file, "instances"), i, e)
        if (strcmp(report_str(e, "candidate", ""), cand) == 0 &&
            strcmp(report_str(e, "instance", ""), inst) == 0)
            return e;
    return NULL;
}

json_t *report_build_entry(const report_system *s, const char *cand, const char *inst)
{
    return find_entry(s->build, cand, inst);
}

json_t *report_kat_entry(const report_system *s, const char *cand, const char *inst)
{
    return find_entry(s->kat, cand, inst);
}

int report_has_candidate(const report_system *s, const char *cand)
{
    size_t i;
    json_t *v;
    json_array_foreach(s->candidates, i, v)
        if (strcmp(json_string_value(v), cand) == 0)
            return 1;
    return 0;
}

int report_has_instance(const report_system *s, const char *cand, const char *inst)
{
    if (report_build_entry(s, cand, inst) || report_kat_entry(s, cand, inst))
        return 1;
    for (size_t i = 0; i < s->nrecs; i++)
        if (strcmp(s->recs[i].candidate, cand) == 0 && strcmp(s->recs[i].instance, inst) == 0)
            return 1;
    return 0;
}

const char *report_notes_stranger(const report_system *s, const json_t *notes, long *line)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)notes, key, v) {
        char cand[80];
        const char *slash = strchr(key, '/');
        *line = (long)json_integer_value(json_object_get(v, "line"));
        if (!slash || (size_t)(slash - key) >= sizeof cand)
            return key;
        memcpy(cand, key, (size_t)(slash - key));
        cand[slash - key] = '\0';
        if (!report_has_instance(s, cand, slash + 1))
            return key;
    }
    return NULL;
}

const report_record *report_find_record(const report_system *s, const char *cand,
                                        const char *inst, long long size)
{
    for (size_t i = 0; i < s->nrecs; i++) {
        const report_record *r = &s->recs[i];
        if (r->size == size && strcmp(r->candidate, cand) == 0 &&
            strcmp(r->instance, inst) == 0)
            return r;
    }
    return NULL;
}

static int cmp_json_int(const void *a, const void *b)
{
    json_int_t x = json_integer_value(*(json_t *const *)a);
    json_int_t y = json_integer_value(*(json_t *const *)b);
    return (x > y) - (x < y);
}

json_t *report_sizes(const report_system *s, const char *cand)
{
    json_t *out = json_array();
    for (size_t i = 0; i < s->nrecs; i++) {
        const report_record *r = &s->recs[i];
        if (cand && strcmp(r->candidate, cand) != 0)
            continue;
        size_t k;
        json_t *v;
        int seen = 0;
        json_array_foreach(out, k, v)
            seen |= json_integer_value(v) == r->size;
        if (!seen)
            json_array_append_new(out, json_integer(r->size));
    }
    sort_array(out, cmp_json_int);
    return out;
}

const char *report_str(const json_t *obj, const char *key, const char *def)
{
    json_t *v = json_object_get(obj, key);
    return json_is_string(v) ? json_string_value(v) : def;
}

double report_num(const json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}
