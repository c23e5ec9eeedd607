/* Seeding a shard from a whole run directory (see seed.h). */
#include "campaign/seed.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <jansson.h>
#include "dataset/tree.h"
#include "common/fs.h"
#include "common/json.h"
#include "rundir/rundir.h"

typedef struct seed_copy {
    const char *from, *to;
    const char *cand, *inst; /* NULL: every file; else only the instance's KAT files */
} seed_copy;

static int copy_one(void *ctx, const char *rel, hb_err *err)
{
    const seed_copy *s = ctx;
    char src[PATH_MAX], dst[PATH_MAX];
    if (strstr(hb_basename(rel), ".tmp.") ||
        (s->inst && !rundir_kat_rel_of(rel, s->cand, s->inst)))
        return 0;
    if (rundir_path(src, sizeof src, s->from, rel, err) != 0 ||
        rundir_path(dst, sizeof dst, s->to, rel, err) != 0)
        return -1;
    return hb_copy_file(src, dst, err);
}

int seed_build(const char *seed, const char *dir, hb_err *err)
{
    char src[PATH_MAX], dst[PATH_MAX];
    if (rundir_path(src, sizeof src, seed, RUNDIR_BUILD_JSON, err) != 0 ||
        rundir_path(dst, sizeof dst, dir, RUNDIR_BUILD_JSON, err) != 0)
        return -1;
    if (hb_is_file(dst) || !hb_is_file(src))
        return 0;
    seed_copy s = {seed, dir, NULL, NULL};
    if (tree_walk(seed, RUNDIR_LIB, copy_one, &s, err) < 0 ||
        tree_walk(seed, RUNDIR_BUILD_LOGS, copy_one, &s, err) < 0)
        return -1;
    return hb_copy_file(src, dst, err); /* last: a half-copied seed is redone */
}

static json_t *find(json_t *arr, const char *key)
{
    size_t i;
    json_t *e;
    char k[600];
    json_array_foreach(arr, i, e) {
        snprintf(k, sizeof k, "%s/%s", json_string_value(json_object_get(e, "candidate")),
                 json_string_value(json_object_get(e, "instance")));
        if (strcmp(k, key) == 0)
            return e;
    }
    return NULL;
}

int seed_kat(const char *seed, const char *dir, const strlist *mine, hb_err *err)
{
    char src[PATH_MAX], dst[PATH_MAX];
    json_t *from = NULL, *to = NULL;
    if (rundir_path(src, sizeof src, seed, RUNDIR_KAT_JSON, err) != 0 ||
        rundir_path(dst, sizeof dst, dir, RUNDIR_KAT_JSON, err) != 0)
        return -1;
    if (!hb_is_file(src))
        return 0;
    if (hb_json_load(src, &from, err) < 0)
        return -1;
    if (hb_is_file(dst) && hb_json_load(dst, &to, err) < 0) {
        json_decref(from);
        return -1;
    }
    if (!to) {
        to = json_deep_copy(from);
        json_array_clear(json_object_get(to, "instances"));
    }
    json_t *arr = json_object_get(to, "instances");
    int rc = json_is_array(arr) ? 0 : hb_fail(err, "%s: no 'instances' array; remove it "
                                              "and run again", dst);
    int added = 0;
    for (int i = 0; rc == 0 && i < mine->n; i++) {
        json_t *e = find(json_object_get(from, "instances"), mine->v[i]);
        if (!e || find(arr, mine->v[i]))
            continue;
        char cand[512], sub[600];
        snprintf(cand, sizeof cand, "%s", mine->v[i]);
        char *slash = strchr(cand, '/');
        if (!slash)
            continue;
        *slash = '\0';
        seed_copy s = {seed, dir, cand, slash + 1};
        rc = rundir_path(sub, sizeof sub, RUNDIR_KAT, cand, err);
        if (rc == 0)
            rc = tree_walk(seed, sub, copy_one, &s, err);
        if (rc == 0) {
            json_array_append(arr, e);
            added++;
        }
    }
    if (rc == 0 && added)
        rc = hb_json_save(dst, to, err);
    json_decref(from);
    json_decref(to);
    return rc;
}
