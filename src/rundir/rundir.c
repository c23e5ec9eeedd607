/* The run directory's layout: see rundir.h. Every path is formatted by
 * one checked formatter (fmt_rel), record names are parsed back by one
 * rule (rundir_parse_record_name), and records are listed by one walk of
 * the common walker (common/walk.h), two levels deep below records/. */
#include "rundir/rundir.h"
#include "rundir/baselines.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fs.h"
#include "common/json.h"
#include "common/walk.h"

#define RECORD_MARK "__hash_"
#define RECORD_EXT ".json"

/* printf into OUT; fails with ERR naming the start of the path when it
 * does not fit. */
static int fmt_rel(char *out, size_t sz, hb_err *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fmt_rel(char *out, size_t sz, hb_err *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out, sz, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < sz)
        return 0;
    char start[201] = "";
    if (sz > 0) {
        snprintf(start, sizeof start, "%s", out);
        out[0] = '\0';
    }
    return hb_fail(err, "%s...: path longer than %zu bytes; use a run directory "
                   "with a shorter path or shorter names", start, sz);
}

static int has(const char *s)
{
    return s && s[0];
}

int rundir_path(char *out, size_t sz, const char *run_dir, const char *rel, hb_err *err)
{
    return hb_path_join(out, sz, run_dir, rel, err);
}

int rundir_library_rel(char *out, size_t sz, const char *cand, const char *inst,
                       const char *flavour, hb_err *err)
{
    if (has(flavour))
        return fmt_rel(out, sz, err, RUNDIR_LIB "/%s/%s/lib%s.so", cand, flavour, inst);
    return fmt_rel(out, sz, err, RUNDIR_LIB "/%s/lib%s.so", cand, inst);
}

int rundir_build_log_rel(char *out, size_t sz, const char *cand, const char *inst,
                         const char *suffix, hb_err *err)
{
    return fmt_rel(out, sz, err, RUNDIR_BUILD_LOGS "/%s/%s%s%s.log", cand, inst,
                   has(suffix) ? "." : "", has(suffix) ? suffix : "");
}

int rundir_kat_log_rel(char *out, size_t sz, const char *cand, const char *inst,
                       const char *flavour, hb_err *err)
{
    return fmt_rel(out, sz, err, RUNDIR_KAT "/%s/%s%s%s.log", cand, inst,
                   has(flavour) ? "." : "", has(flavour) ? flavour : "");
}

int rundir_kat_texts_rel(char *out, size_t sz, const char *cand, const char *inst,
                         const char *flavour, hb_err *err)
{
    return fmt_rel(out, sz, err, RUNDIR_KAT "/%s/%s%s%s", cand, inst,
                   has(flavour) ? "/" : "", has(flavour) ? flavour : "");
}

/* The part of REL after "kat/<cand>/", or NULL when REL is not below kat/. */
static const char *below_kat_cand(const char *rel)
{
    size_t k = strlen(RUNDIR_KAT);
    if (strncmp(rel, RUNDIR_KAT, k) != 0 || rel[k] != '/')
        return NULL;
    const char *slash = strchr(rel + k + 1, '/');
    return slash && slash > rel + k + 1 ? slash + 1 : NULL;
}

int rundir_is_kat_log(const char *rel)
{
    const char *name = below_kat_cand(rel);
    size_t n = name ? strlen(name) : 0;
    return name && n > 4 && strcmp(name + n - 4, ".log") == 0 && !strchr(name, '/');
}

int rundir_kat_rel_of(const char *rel, const char *cand, const char *inst)
{
    size_t k = strlen(RUNDIR_KAT), c = strlen(cand), n = strlen(inst);
    if (strncmp(rel, RUNDIR_KAT, k) != 0 || rel[k] != '/' ||
        strncmp(rel + k + 1, cand, c) != 0 || rel[k + 1 + c] != '/')
        return 0;
    const char *name = rel + k + 1 + c + 1;
    return strncmp(name, inst, n) == 0 &&
           (name[n] == '/' || !strcmp(name + n, ".log") ||
            !strcmp(name + n, "." RUNDIR_HARNESS_DEFAULT ".log"));
}

int rundir_ct_dir_rel(char *out, size_t sz, const char *cand, const char *inst,
                      hb_err *err)
{
    return fmt_rel(out, sz, err, RUNDIR_CT "/%s/%s", cand, inst);
}

int rundir_ct_rel(char *out, size_t sz, const char *cand, const char *inst, hb_err *err)
{
    return fmt_rel(out, sz, err, RUNDIR_CT "/%s/%s.json", cand, inst);
}

int rundir_count_rel(char *out, size_t sz, const char *cand, const char *inst,
                     unsigned long long size, hb_err *err)
{
    return fmt_rel(out, sz, err, RUNDIR_COUNT "/%s/%s__count_%llu.json", cand, inst, size);
}

int rundir_ct_debug_library_rel(char *out, size_t sz, const char *cand, const char *inst,
                                hb_err *err)
{
    return fmt_rel(out, sz, err, RUNDIR_CT "/%s/lib%s-g.so", cand, inst);
}

int rundir_ct_debug_log_rel(char *out, size_t sz, const char *cand, const char *inst,
                            hb_err *err)
{
    return fmt_rel(out, sz, err, RUNDIR_CT "/%s/%s.build.log", cand, inst);
}

int rundir_core_rel(char *out, size_t sz, const char *name, hb_err *err)
{
    return fmt_rel(out, sz, err, RUNDIR_CORES "/%s", name);
}

/* ---- records ---------------------------------------------------------- */

int rundir_record_name(char *out, size_t sz, const char *inst, unsigned long long size,
                       hb_err *err)
{
    return fmt_rel(out, sz, err, "%s" RECORD_MARK "%llu" RECORD_EXT, inst, size);
}

int rundir_record_rel(char *out, size_t sz, const char *cand, const char *inst,
                      unsigned long long size, hb_err *err)
{
    return fmt_rel(out, sz, err, RUNDIR_RECORDS "/%s/%s" RECORD_MARK "%llu" RECORD_EXT,
                   cand, inst, size);
}

/* The last occurrence of NEEDLE in S before END, or NULL. */
static const char *last_mark(const char *s, const char *end)
{
    size_t m = strlen(RECORD_MARK);
    for (const char *p = end - m; p >= s; p--)
        if (memcmp(p, RECORD_MARK, m) == 0)
            return p;
    return NULL;
}

int rundir_parse_record_name(const char *name, char *inst, size_t inst_sz,
                             unsigned long long *size)
{
    size_t n = strlen(name), ext = strlen(RECORD_EXT);
    if (n <= ext || strcmp(name + n - ext, RECORD_EXT) != 0 || strchr(name, '/'))
        return 0;
    const char *end = name + n - ext; /* the size's digits end here */
    /* the digits cannot hold the mark, so its last occurrence splits the
     * name: an instance may itself contain "__hash_" */
    const char *mark = last_mark(name, end);
    if (!mark || mark == name)
        return 0;
    const char *digits = mark + strlen(RECORD_MARK);
    size_t nd = (size_t)(end - digits);
    if (nd == 0 || nd > 20 || strspn(digits, "0123456789") != nd ||
        (digits[0] == '0' && nd > 1))
        return 0;
    size_t ni = (size_t)(mark - name);
    if ((ni == 1 && name[0] == '.') || (ni == 2 && name[0] == '.' && name[1] == '.'))
        return 0;
    if (inst) {
        if (ni >= inst_sz)
            return 0;
        memcpy(inst, name, ni);
        inst[ni] = '\0';
    }
    if (size) {
        errno = 0;
        *size = strtoull(digits, NULL, 10);
        if (errno)
            return 0;
    }
    return 1;
}

int rundir_is_baseline(const char *cand, const char *inst)
{
    return cand && inst && strcmp(cand, RUNDIR_BASELINE_CANDIDATE) == 0 &&
           strcmp(inst, hb_baseline_primary()->instance) == 0;
}

int rundir_entry_builtin_baseline(const json_t *e)
{
    return json_is_true(json_object_get(e, "baseline")) &&
           !json_is_true(json_object_get(e, "baseline_package"));
}

typedef struct list_ctx {
    const char *cand, *inst;
    rundir_record_fn fn;
    void *ctx;
    char rel[PATH_MAX];
} list_ctx;

static int visit_record(const hb_walk_entry *e, void *ctx, hb_err *err)
{
    list_ctx *l = ctx;
    if (e->depth == 1)
        return e->type == HB_WALK_DIR && l->cand && strcmp(e->name, l->cand) != 0
                   ? HB_WALK_SKIP : HB_WALK_CONTINUE;
    char inst[NAME_MAX + 1];
    unsigned long long size;
    if (e->type != HB_WALK_FILE || !rundir_parse_record_name(e->name, inst, sizeof inst, &size) ||
        (l->inst && strcmp(inst, l->inst) != 0))
        return HB_WALK_CONTINUE;
    /* e->rel is <cand>/<name> */
    char cand[NAME_MAX + 1];
    const char *slash = strchr(e->rel, '/');
    size_t nc = slash ? (size_t)(slash - e->rel) : sizeof cand;
    if (nc >= sizeof cand)
        return HB_WALK_CONTINUE;
    memcpy(cand, e->rel, nc);
    cand[nc] = '\0';
    if (fmt_rel(l->rel, sizeof l->rel, err, RUNDIR_RECORDS "/%s", e->rel) != 0)
        return -1;
    rundir_record r = {e->path, l->rel, cand, inst, size};
    int rc = l->fn(&r, l->ctx, err);
    return rc < 0 ? rc : HB_WALK_CONTINUE;
}

int rundir_list_records(const char *root, const char *cand, const char *inst,
                        rundir_record_fn fn, void *ctx, hb_err *err)
{
    char dir[PATH_MAX];
    list_ctx l = {cand, inst, fn, ctx, ""};
    if (rundir_path(dir, sizeof dir, root, RUNDIR_RECORDS, err) != 0)
        return -1;
    return hb_walk(dir, 2, HB_WALK_MISSING_OK, visit_record, &l, err);
}

static int count_one(const rundir_record *r, void *ctx, hb_err *err)
{
    (void)r;
    (void)err;
    (*(int *)ctx)++;
    return 0;
}

int rundir_count_records(const char *root, const char *cand, const char *inst, hb_err *err)
{
    int n = 0;
    return rundir_list_records(root, cand, inst, count_one, &n, err) < 0 ? -1 : n;
}

static int load_one(const rundir_record *r, void *ctx, hb_err *err)
{
    rundir_loaded *l = ctx;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        json_t **v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return hb_fail(err, "%s: out of memory", r->path);
        l->v = v;
        l->cap = cap;
    }
    if (hb_json_load(r->path, &l->v[l->n], NULL) == 0)
        l->n++;
    return 0;
}

int rundir_load_records(const char *root, const char *cand, const char *inst,
                        rundir_loaded *out, hb_err *err)
{
    memset(out, 0, sizeof *out);
    return rundir_list_records(root, cand, inst, load_one, out, err) < 0 ? -1 : 0;
}

void rundir_loaded_free(rundir_loaded *l)
{
    for (size_t i = 0; i < l->n; i++)
        json_decref(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* ---- the library of an instance --------------------------------------- */

static void library_of(const json_t *o, rundir_library *out)
{
    out->library = json_string_value(json_object_get(o, "library"));
    out->library_sha256 = json_string_value(json_object_get(o, "library_sha256"));
    out->flags_kind = json_string_value(json_object_get(o, "flags_kind"));
    out->flags = json_string_value(json_object_get(o, "flags"));
}

void rundir_instance_library(const json_t *build, const json_t *kat, rundir_library *out)
{
    const json_t *rebuilt = json_object_get(build, RUNDIR_HARNESS_DEFAULT_KEY);
    if (json_is_object(json_object_get(kat, "guide")) && json_is_object(rebuilt) &&
        json_is_string(json_object_get(rebuilt, "library")))
        library_of(rebuilt, out);
    else if (json_is_string(json_object_get(kat, "library")))
        library_of(kat, out); /* the library the KAT stage tested */
    else
        library_of(build, out);
}
