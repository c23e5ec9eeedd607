/* Joining shards (see merge.h). Every shard built every instance but tested
 * and measured only its own share (campaign.json "shard.instances"), so the
 * merged run directory takes each instance's build entry (matched by
 * candidate, instance and source folder), library and logs from its owner,
 * and the KAT texts and records from the one shard that has them. */
#include "dataset/merge.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "common/strlist.h"
#include "dataset/tree.h"
#include "common/fs.h"
#include "common/json.h"
#include "report/ratiodrift.h"
#include "rundir/rundir.h"

typedef struct shard_in {
    const char *dir;
    json_t *campaign, *build, *kat;
    int k, n;
    strlist owned;        /* "cand/Inst" of this shard's share */
    strlist owned_paths;  /* run-dir paths of the owned instances' files */
} shard_in;

typedef struct merge_ctx {
    const char *out;
    shard_in *s;
    int n;
    int cur;              /* shard being copied */
    strlist all_owned_paths;
    merge_counts counts;
} merge_ctx;

/* ---- loading ---------------------------------------------------------- */

static int load_part(const char *dir, const char *name, json_t **out, hb_err *err)
{
    char path[PATH_MAX];
    if (rundir_path(path, sizeof path, dir, name, err) != 0)
        return -1;
    if (!hb_is_file(path))
        return hb_fail(err, "%s: missing; finish this shard (repeat its "
                       "hashbench run command) before merging", path);
    return hb_json_load(path, out, err);
}

static int load_shard(shard_in *s, const char *dir, hb_err *err)
{
    memset(s, 0, sizeof *s);
    s->dir = dir;
    if (load_part(dir, RUNDIR_CAMPAIGN_JSON, &s->campaign, err) < 0 ||
        load_part(dir, RUNDIR_BUILD_JSON, &s->build, err) < 0 ||
        load_part(dir, RUNDIR_KAT_JSON, &s->kat, err) < 0)
        return -1;
    json_t *measure = json_object_get(json_object_get(s->campaign, "phases"),
                                      "measure");
    if (!json_is_true(json_object_get(measure, "done")))
        return hb_fail(err, "%s/campaign.json: the measure phase has not "
                       "finished; resume the shard (repeat its hashbench run "
                       "command) before merging", dir);
    json_t *shard = json_object_get(s->campaign, "shard");
    s->k = (int)json_integer_value(json_object_get(shard, "k"));
    s->n = (int)json_integer_value(json_object_get(shard, "n"));
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(shard, "instances"), i, x)
        if (json_is_string(x))
            strlist_push(&s->owned, json_string_value(x));
    if (s->k < 1 || s->n < s->k)
        return hb_fail(err, "%s/campaign.json: no valid shard (k, n); was it "
                       "made by hashbench run?", dir);
    return 0;
}

static void free_shard(shard_in *s)
{
    json_decref(s->campaign);
    json_decref(s->build);
    json_decref(s->kat);
    strlist_free(&s->owned);
    strlist_free(&s->owned_paths);
}

/* ---- comparing settings ----------------------------------------------- */

typedef struct setting {
    const char *label;
    const char *part;   /* "campaign" or "build" */
    const char *path[3];
} setting;

static const setting settings_to_match[] = {
    {"the counter", "campaign", {"counter", "name", NULL}},
    {"the architecture", "campaign", {"environment", "start", "arch"}},
    {"the CPU model", "campaign", {"environment", "start", "cpu_model"}},
    {"the governor", "campaign", {"environment", "start", "governor"}},
    {"turbo/boost", "campaign", {"environment", "start", "turbo"}},
    {"SMT", "campaign", {"environment", "start", "smt"}},
    {"the profile", "campaign", {"settings", "profile", NULL}},
    {"the planner", "campaign", {"settings", "planner", NULL}},
    {"the sizes", "campaign", {"settings", "sizes", NULL}},
    {"the target CI", "campaign", {"settings", "target_ci_percent", NULL}},
    {"the budget", "campaign", {"settings", "budget_s", NULL}},
    {"the trials", "campaign", {"settings", "trials", NULL}},
    {"the number of shards", "campaign", {"shard", "n", NULL}},
    {"the shard costs file", "campaign", {"shard", "costs_sha256", NULL}},
    {"the compiler", "build", {"compiler_version", NULL, NULL}},
    {"the plain shared build (--plain-shared)", "build", {"plain_shared", NULL, NULL}},
};

static json_t *setting_value(const shard_in *s, const setting *st)
{
    json_t *v = strcmp(st->part, "build") == 0 ? s->build : s->campaign;
    for (int i = 0; i < 3 && st->path[i] && v; i++)
        v = json_object_get(v, st->path[i]);
    return v;
}

static int compare_settings(const shard_in *a, const shard_in *b, hb_err *err)
{
    for (size_t i = 0; i < sizeof settings_to_match / sizeof settings_to_match[0];
         i++) {
        const setting *st = &settings_to_match[i];
        json_t *va = setting_value(a, st), *vb = setting_value(b, st);
        int na = !va || json_is_null(va), nb = !vb || json_is_null(vb);
        if ((na && nb) || (!na && !nb && json_equal(va, vb)))
            continue;
        char *ta = na ? strdup("unknown") : json_dumps(va, JSON_ENCODE_ANY);
        char *tb = nb ? strdup("unknown") : json_dumps(vb, JSON_ENCODE_ANY);
        hb_fail(err, "%s/%s.json: %s is %s, but %s/%s.json has %s; shards "
                "measured under different settings cannot be merged: measure "
                "them again under the same host and planning settings", b->dir,
                st->part, st->label, tb, a->dir, st->part, ta);
        free(ta);
        free(tb);
        return -1;
    }
    return 0;
}

static int check_shards(merge_ctx *m, hb_err *err)
{
    for (int i = 0; i < m->n; i++) {
        if (i > 0 && compare_settings(&m->s[0], &m->s[i], err) < 0)
            return -1;
        for (int j = 0; j < i; j++) {
            if (m->s[i].k == m->s[j].k)
                return hb_fail(err, "%s and %s are both shard %d/%d; give each "
                               "shard once", m->s[j].dir, m->s[i].dir,
                               m->s[i].k, m->s[i].n);
            for (int e = 0; e < m->s[i].owned.n; e++)
                if (strlist_contains(&m->s[j].owned, m->s[i].owned.v[e]))
                    return hb_fail(err, "%s/campaign.json: instance %s is also "
                                   "on shard %d (%s); the shards were split "
                                   "from different instance lists", m->s[i].dir,
                                   m->s[i].owned.v[e], m->s[j].k, m->s[j].dir);
        }
    }
    m->counts.shards = m->n;
    m->counts.missing_shards = m->s[0].n - m->n;
    return 0;
}

/* ---- ownership -------------------------------------------------------- */

static void entry_key(const json_t *e, char *key, size_t n)
{
    snprintf(key, n, "%s/%s", hb_json_str(e, "candidate"), hb_json_str(e, "instance"));
}

static int owner_of(const merge_ctx *m, const char *key)
{
    for (int i = 0; i < m->n; i++)
        if (strlist_contains(&m->s[i].owned, key))
            return i;
    return -1;
}

static void add_path(merge_ctx *m, shard_in *s, const json_t *v)
{
    const char *p = json_string_value(v);
    if (p && !strlist_contains(&s->owned_paths, p)) {
        strlist_push(&s->owned_paths, p);
        strlist_push(&m->all_owned_paths, p);
    }
}

/* Files each owner's build.json and kat.json entries point to. */
static void collect_owned_paths(merge_ctx *m)
{
    for (int i = 0; i < m->n; i++) {
        shard_in *s = &m->s[i];
        json_t *docs[2] = {s->build, s->kat}, *e;
        size_t j;
        char key[512];
        for (int d = 0; d < 2; d++) {
            json_array_foreach(json_object_get(docs[d], "instances"), j, e) {
                entry_key(e, key, sizeof key);
                if (!strlist_contains(&s->owned, key))
                    continue;
                json_t *guide = json_object_get(e, "guide");
                json_t *rebuilt = json_object_get(e, RUNDIR_HARNESS_DEFAULT_KEY);
                add_path(m, s, json_object_get(rebuilt, "library"));
                add_path(m, s, json_object_get(rebuilt, "log"));
                add_path(m, s, json_object_get(e, "library"));
                add_path(m, s, json_object_get(e, "log"));
                add_path(m, s, json_object_get(guide, "library"));
                add_path(m, s, json_object_get(guide, "log"));
            }
        }
    }
}

/* ---- copying files ---------------------------------------------------- */

/* A temporary file an interrupted atomic write left behind ("X.tmp.PID"). */
static int is_leftover(const char *rel)
{
    return strstr(hb_basename(rel), ".tmp.") != NULL;
}

/* Fills SRC (in the current shard) and DST (in the merged folder) for the
 * file REL; 0 when REL is to be passed over (a leftover temporary file), -1
 * when a path does not fit. */
static int copy_paths(const merge_ctx *m, const char *rel, char src[PATH_MAX],
                      char dst[PATH_MAX], hb_err *err)
{
    if (is_leftover(rel))
        return 0;
    if (rundir_path(src, PATH_MAX, m->s[m->cur].dir, rel, err) != 0 ||
        rundir_path(dst, PATH_MAX, m->out, rel, err) != 0)
        return -1;
    return 1;
}

static int copy_exclusive(void *ctx, const char *rel, hb_err *err)
{
    merge_ctx *m = ctx;
    char src[PATH_MAX], dst[PATH_MAX];
    int rc = copy_paths(m, rel, src, dst, err);
    if (rc <= 0)
        return rc;
    if (hb_is_file(dst))
        return hb_fail(err, "%s: also present in another shard; an instance "
                       "was tested or measured twice: merge shards split from "
                       "the same instance list", src);
    return hb_copy_file(src, dst, err);
}

/* A file of the records folder: copied like the KAT texts, and counted. */
static int copy_record(void *ctx, const char *rel, hb_err *err)
{
    merge_ctx *m = ctx;
    if (!is_leftover(rel))
        m->counts.records++;
    return copy_exclusive(ctx, rel, err);
}

static int copy_owned(void *ctx, const char *rel, hb_err *err)
{
    merge_ctx *m = ctx;
    char src[PATH_MAX], dst[PATH_MAX];
    int rc = copy_paths(m, rel, src, dst, err);
    if (rc <= 0)
        return rc;
    if (strlist_contains(&m->s[m->cur].owned_paths, rel) ||
        (!strlist_contains(&m->all_owned_paths, rel) && !hb_is_file(dst)))
        return hb_copy_file(src, dst, err);
    return 0;
}

static int copy_files(merge_ctx *m, hb_err *err)
{
    for (m->cur = 0; m->cur < m->n; m->cur++) {
        const char *dir = m->s[m->cur].dir;
        if (tree_walk(dir, RUNDIR_RECORDS, copy_record, m, err) < 0 ||
            tree_walk(dir, RUNDIR_KAT, copy_exclusive, m, err) < 0 ||
            tree_walk(dir, RUNDIR_CT, copy_exclusive, m, err) < 0 ||
            tree_walk(dir, RUNDIR_COUNT, copy_exclusive, m, err) < 0 ||
            tree_walk(dir, RUNDIR_SOAK, copy_exclusive, m, err) < 0 ||
            tree_walk(dir, RUNDIR_LIB, copy_owned, m, err) < 0 ||
            tree_walk(dir, RUNDIR_LOGS, copy_owned, m, err) < 0)
            return -1;
    }
    return 0;
}

/* ---- the merged JSON files -------------------------------------------- */

static json_t *find_entry(const json_t *doc, const char *key)
{
    size_t i;
    json_t *e;
    char k[512];
    json_array_foreach(json_object_get(doc, "instances"), i, e) {
        entry_key(e, k, sizeof k);
        if (strcmp(k, key) == 0)
            return e;
    }
    return NULL;
}

/* The build.json entry of DOC for the instance of E: the same candidate,
 * instance name and source folder (folders sharing a name each have their
 * own entry, all BUILDFAIL), or NULL. */
static json_t *find_build_entry(const json_t *doc, const json_t *e)
{
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(doc, "instances"), i, x)
        if (strcmp(hb_json_str(x, "candidate"), hb_json_str(e, "candidate")) == 0 &&
            strcmp(hb_json_str(x, "instance"), hb_json_str(e, "instance")) == 0 &&
            strcmp(hb_json_str(x, "source_dir"), hb_json_str(e, "source_dir")) == 0)
            return x;
    return NULL;
}

/* build.json and kat.json: the first shard's header, each instance's entry
 * from its owner (build entries of unowned instances from the first shard). */
static int write_stage_files(merge_ctx *m, hb_err *err)
{
    json_t *build = json_deep_copy(m->s[0].build), *kat = json_deep_copy(m->s[0].kat);
    json_t *bi = json_array(), *ki = json_array(), *e;
    json_t *ki_doc = json_pack("{s:O}", "instances", ki); /* for find_entry */
    size_t i;
    char key[512], path[PATH_MAX];
    json_array_foreach(json_object_get(m->s[0].build, "instances"), i, e) {
        entry_key(e, key, sizeof key);
        int o = owner_of(m, key);
        json_t *be = o >= 0 ? find_build_entry(m->s[o].build, e) : NULL;
        json_t *ke = o >= 0 ? find_entry(m->s[o].kat, key) : NULL;
        json_array_append(bi, be ? be : e);
        if (ke && !find_entry(ki_doc, key))
            json_array_append(ki, ke);
        m->counts.instances++;
    }
    json_decref(ki_doc);
    json_object_set_new(build, "instances", bi);
    json_object_set_new(kat, "instances", ki);
    int rc = rundir_path(path, sizeof path, m->out, RUNDIR_BUILD_JSON, err);
    if (rc == 0)
        rc = hb_json_save(path, build, err);
    if (rc == 0)
        rc = rundir_path(path, sizeof path, m->out, RUNDIR_KAT_JSON, err);
    if (rc == 0)
        rc = hb_json_save(path, kat, err);
    json_decref(build);
    json_decref(kat);
    return rc;
}

static json_t *shard_summary(const shard_in *s)
{
    json_t *o = json_object();
    char abs[PATH_MAX];
    json_object_set_new(o, "k", json_integer(s->k));
    json_object_set_new(o, "n", json_integer(s->n));
    json_object_set_new(o, "run_dir", json_string(realpath(s->dir, abs) ? abs
                                                                         : s->dir));
    const char *keys[] = {"start_utc", "end_utc", "cpu", "host_checks",
                          "host_problems", "environment", "counter"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        json_t *v = json_object_get(s->campaign, keys[i]);
        json_object_set(o, keys[i], v ? v : json_null());
    }
    json_t *split = json_object_get(s->campaign, "shard");
    const char *split_keys[] = {"rule", "costs_file", "costs_sha256", "cost_s",
                                "total_cost_s", "instances"};
    for (size_t i = 0; i < sizeof split_keys / sizeof split_keys[0]; i++) {
        json_t *v = json_object_get(split, split_keys[i]);
        if (v)
            json_object_set(o, split_keys[i], v);
    }
    return o;
}

/* Phase failure counts add up over shards, except build: every shard built
 * every instance, so its count is read from the merged build.json. */
static json_t *merged_phases(const merge_ctx *m, const json_t *build_instances)
{
    json_t *phases = json_deep_copy(json_object_get(m->s[0].campaign, "phases"));
    const char *names[] = {"kat", "measure"};
    for (size_t p = 0; p < 2; p++) {
        long long failed = 0;
        for (int i = 0; i < m->n; i++)
            failed += json_integer_value(json_object_get(json_object_get(
                json_object_get(m->s[i].campaign, "phases"), names[p]), "failed"));
        json_object_set_new(json_object_get(phases, names[p]), "failed",
                            json_integer(failed));
    }
    long long buildfail = 0;
    size_t i;
    json_t *e;
    json_array_foreach((json_t *)build_instances, i, e)
        buildfail += strcmp(hb_json_str(e, "status"), "BUILDFAIL") == 0;
    json_object_set_new(json_object_get(phases, "build"), "failed",
                        json_integer(buildfail));
    return phases;
}

static int write_campaign(merge_ctx *m, hb_err *err)
{
    json_t *doc = json_deep_copy(m->s[0].campaign), *shards = json_array();
    json_t *from = json_array(), *all = json_array();
    int first = 0, last = 0, problems = 0;
    for (int i = 0; i < m->n; i++) {
        const json_t *c = m->s[i].campaign;
        json_array_append_new(shards, shard_summary(&m->s[i]));
        json_array_append_new(from, json_string(m->s[i].dir));
        for (int e = 0; e < m->s[i].owned.n; e++)
            json_array_append_new(all, json_string(m->s[i].owned.v[e]));
        if (strcmp(hb_json_str(c, "start_utc"),
                   hb_json_str(m->s[first].campaign, "start_utc")) < 0)
            first = i;
        if (strcmp(hb_json_str(c, "end_utc"),
                   hb_json_str(m->s[last].campaign, "end_utc")) > 0)
            last = i;
        int p = (int)json_integer_value(json_object_get(c, "host_problems"));
        problems = p > problems ? p : problems;
    }
    json_t *env = json_object();
    json_object_set(env, "start", json_object_get(json_object_get(
        m->s[first].campaign, "environment"), "start"));
    json_object_set(env, "end", json_object_get(json_object_get(
        m->s[last].campaign, "environment"), "end"));
    json_object_set_new(doc, "environment", env);
    json_object_set(doc, "start_utc", json_object_get(m->s[first].campaign,
                                                      "start_utc"));
    json_object_set(doc, "end_utc", json_object_get(m->s[last].campaign,
                                                    "end_utc"));
    json_object_set_new(doc, "host_problems", json_integer(problems));
    json_object_set_new(json_object_get(doc, "settings"), "shard", json_null());
    json_t *shard = json_object();
    json_object_set_new(shard, "k", json_integer(1));
    json_object_set_new(shard, "n", json_integer(1));
    json_object_set_new(shard, "merged", json_true());
    json_object_set_new(shard, "instances", all);
    json_object_set_new(doc, "shard", shard);
    json_object_set_new(doc, "shards", shards);
    json_object_set_new(doc, "merged_from", from);
    char path[PATH_MAX];
    json_t *build;
    if (rundir_path(path, sizeof path, m->out, RUNDIR_BUILD_JSON, err) != 0 ||
        hb_json_load(path, &build, err) < 0) {
        json_decref(doc);
        return -1;
    }
    json_object_set_new(doc, "phases",
                        merged_phases(m, json_object_get(build, "instances")));
    json_decref(build);
    json_object_del(doc, "sessions");
    /* the ratio drift of every shard's groups, not the first shard's */
    if (json_object_get(doc, RATIODRIFT_KEY)) {
        json_t *rd = ratiodrift_of_dir(m->out);
        json_object_set_new(doc, RATIODRIFT_KEY, rd ? rd : json_null());
    }
    int rc = rundir_path(path, sizeof path, m->out, RUNDIR_CAMPAIGN_JSON, err);
    if (rc == 0)
        rc = hb_json_save(path, doc, err);
    json_decref(doc);
    return rc;
}

/* OUT must be new, empty, or an earlier merge (which is replaced). */
static int prepare_out(const char *out, const char *const *dirs, int n,
                       hb_err *err)
{
    char a[PATH_MAX], b[PATH_MAX], path[PATH_MAX];
    for (int i = 0; i < n; i++)
        if (realpath(out, a) && realpath(dirs[i], b) && strcmp(a, b) == 0)
            return hb_fail(err, "--run-dir %s is also a shard to merge; merge "
                           "into a new folder", out);
    if (rundir_path(path, sizeof path, out, RUNDIR_CAMPAIGN_JSON, err) != 0)
        return -1;
    if (hb_is_file(path)) {
        json_t *doc;
        if (hb_json_load(path, &doc, err) < 0)
            return -1;
        int merged = json_object_get(doc, "merged_from") != NULL;
        json_decref(doc);
        if (!merged)
            return hb_fail(err, "%s: %s holds a campaign that is not a merge; "
                           "merge into a new folder", path, out);
        if (hb_remove_tree(out, err) < 0)
            return -1;
    } else if (hb_is_dir(out)) {
        char build[PATH_MAX];
        if (rundir_path(path, sizeof path, out, RUNDIR_RECORDS, err) != 0 ||
            rundir_path(build, sizeof build, out, RUNDIR_BUILD_JSON, err) != 0)
            return -1;
        if (hb_is_dir(path) || hb_is_file(build))
            return hb_fail(err, "%s: holds run files but no campaign.json; "
                           "merge into a new folder", out);
    }
    return hb_mkdirs(out, err);
}

int merge_run(const char *out_dir, const char *const *dirs, int n_dirs,
              merge_counts *counts, hb_err *err)
{
    merge_ctx m;
    memset(&m, 0, sizeof m);
    if (n_dirs < 1)
        return hb_fail(err, "no shard to merge: name the shards' run directories");
    m.out = out_dir;
    m.n = n_dirs;
    m.s = calloc((size_t)n_dirs, sizeof *m.s);
    if (!m.s)
        return hb_fail(err, "out of memory");
    int rc = 0, loaded = 0;
    for (; loaded < n_dirs && rc == 0; loaded++)
        rc = load_shard(&m.s[loaded], dirs[loaded], err);
    if (rc == 0)
        rc = check_shards(&m, err);
    if (rc == 0)
        rc = prepare_out(out_dir, dirs, n_dirs, err);
    if (rc == 0) {
        collect_owned_paths(&m);
        rc = copy_files(&m, err);
    }
    if (rc == 0)
        rc = write_stage_files(&m, err);
    if (rc == 0)
        rc = write_campaign(&m, err);
    if (rc == 0 && counts)
        *counts = m.counts;
    for (int i = 0; i < loaded; i++)
        free_shard(&m.s[i]);
    strlist_free(&m.all_owned_paths);
    free(m.s);
    return rc;
}
