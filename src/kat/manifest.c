/* KAT manifests and vector discovery: see manifest.h. */
#include "kat/manifest.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <jansson.h>
#include "compile/build.h"
#include "compile/override.h"
#include "common/fs.h"
#include "common/json.h"
#include "common/walk.h"
#include "kat/kat_gen.h"
#include "kat/katfile.h"
#include "rundir/rundir.h"

/* ---- parsing ---- */

static int valid_label(const char *s, size_t n)
{
    if (n == 0 || n > 64)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-')
            return 0;
    return 1;
}

static int parse_line(char *line, long lineno, const char *path, kat_manifest_entry *e,
                      hb_err *err)
{
    char *hex = strtok(line, " \t");
    char *mode = strtok(NULL, " \t");
    char *what = strtok(NULL, " \t");
    char *extra = strtok(NULL, " \t");
    if (!hex || !mode || !what || extra)
        return hb_fail_at(err, path, lineno, "expected '<sha256> strict "
                          "<instance>/<file name>'; repair the line");
    if (strlen(hex) != 64 || hb_hex_decode(hex, 64, (unsigned char[32]){0}) != 32)
        return hb_fail_at(err, path, lineno, "'%.70s' is not a SHA-256 (64 hex "
                          "digits); repair the line", hex);
    if (strcmp(mode, "strict") != 0)
        return hb_fail_at(err, path, lineno, "unknown comparison '%.40s'; only "
                          "'strict' is defined", mode);
    char *slash = strchr(what, '/');
    if (!slash || !valid_label(what, (size_t)(slash - what)) || !slash[1] ||
        strchr(slash + 1, '/'))
        return hb_fail_at(err, path, lineno, "'%.100s' is not <instance>/<file "
                          "name> (instance: 1-64 of A-Z a-z 0-9 _ -)", what);
    for (int i = 0; i < 64; i++)
        e->sha256[i] = (char)tolower((unsigned char)hex[i]);
    e->sha256[64] = '\0';
    *slash = '\0';
    e->label = strdup(what);
    e->name = strdup(slash + 1);
    e->line = lineno;
    if (!e->label || !e->name)
        return hb_fail(err, "%s: out of memory", path);
    return 0;
}

/* Appends the entry of LINE, growing the array geometrically. */
static int manifest_add(kat_manifest *m, size_t *cap, char *line, long lineno,
                        const char *path, hb_err *err)
{
    if (m->n == *cap) {
        size_t want = *cap ? *cap * 2 : 64;
        kat_manifest_entry *v = realloc(m->v, want * sizeof *v);
        if (!v)
            return hb_fail(err, "%s: out of memory", path);
        m->v = v;
        *cap = want;
    }
    memset(&m->v[m->n], 0, sizeof m->v[m->n]);
    int rc = parse_line(line, lineno, path, &m->v[m->n], err);
    if (rc != 0) { /* the line is left out; what it held is released */
        free(m->v[m->n].label);
        free(m->v[m->n].name);
        return rc;
    }
    m->n++;
    return 0;
}

/* Counts a skipped line; the first one's message is kept. */
static void note_bad(kat_manifest *m, const hb_err *why)
{
    if (m->n_bad++ == 0)
        snprintf(m->bad, sizeof m->bad, "%s", why->msg);
}

static int cmp_entry(const void *a, const void *b)
{
    const kat_manifest_entry *x = *(const kat_manifest_entry *const *)a;
    const kat_manifest_entry *y = *(const kat_manifest_entry *const *)b;
    int c = strcmp(x->label, y->label);
    if (c == 0)
        c = strcmp(x->name, y->name);
    return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* Fails on the first line (in file order) that repeats an earlier one's
 * instance/file name: sorted, so n log n for a million lines. With DROP,
 * every repeating line is instead left out of M and counted as a bad line
 * (the first one's message kept), and the call succeeds. */
static int check_duplicates(kat_manifest *m, const char *path, int drop, hb_err *err)
{
    if (m->n < 2)
        return 0;
    const kat_manifest_entry **idx = malloc(m->n * sizeof *idx);
    if (!idx)
        return hb_fail(err, "%s: out of memory", path);
    for (size_t i = 0; i < m->n; i++)
        idx[i] = &m->v[i];
    qsort(idx, m->n, sizeof *idx, cmp_entry);
    /* within a run of equal names, lines ascend: the second one repeats */
    const kat_manifest_entry *first = NULL, *again = NULL;
    for (size_t i = 1; i < m->n; i++) {
        const kat_manifest_entry *a = idx[i - 1], *b = idx[i];
        int start = i == 1 || strcmp(idx[i - 2]->label, a->label) != 0 ||
                    strcmp(idx[i - 2]->name, a->name) != 0;
        if (start && strcmp(a->label, b->label) == 0 && strcmp(a->name, b->name) == 0 &&
            (!again || b->line < again->line)) {
            again = b;
            first = a;
        }
    }
    if (drop && again) {
        /* every line equal to the one before it in sorted order repeats an
         * earlier line (within a run, lines ascend): mark, then compact */
        hb_err why;
        hb_fail_at(&why, path, again->line, "%s/%s is already listed on line %ld; keep "
                   "one line", again->label, again->name, first->line);
        char *repeat = calloc(m->n, 1);
        if (!repeat) {
            free(idx);
            return hb_fail(err, "%s: out of memory", path);
        }
        for (size_t i = 1; i < m->n; i++)
            if (strcmp(idx[i - 1]->label, idx[i]->label) == 0 &&
                strcmp(idx[i - 1]->name, idx[i]->name) == 0)
                repeat[idx[i] - m->v] = 1;
        size_t kept = 0;
        for (size_t i = 0; i < m->n; i++) {
            if (repeat[i]) {
                note_bad(m, &why);
                free(m->v[i].label);
                free(m->v[i].name);
            } else {
                m->v[kept++] = m->v[i];
            }
        }
        m->n = kept;
        free(repeat);
        again = NULL;
    }
    free(idx);
    if (again)
        return hb_fail_at(err, path, again->line, "%s/%s is already listed on line "
                          "%ld; keep one line", again->label, again->name, first->line);
    return 0;
}

/* Loads PATH; with LENIENT a malformed or repeated line is skipped and
 * counted, else it fails the load. */
static int manifest_load(const char *path, kat_manifest *m, int lenient, hb_err *err)
{
    memset(m, 0, sizeof *m);
    char dir[PATH_MAX], norm[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    if (override_inside(!slash ? "." : dir[0] ? dir : "/", hb_basename(path), 0, norm,
                        sizeof norm) != 0)
        return hb_fail(err, "%s: not a file inside its package (a symbolic link "
                       "leading out?); put the manifest itself there", path);
    FILE *fp = hb_open_limited(path, HB_LIMIT_TEXT, "a KAT manifest", err);
    if (!fp)
        return -1;
    char *buf = NULL;
    size_t cap = 0, entries = 0;
    long lineno = 0;
    ssize_t n;
    int rc = 0;
    while (rc == 0 && (n = getline(&buf, &cap, fp)) >= 0) {
        if (++lineno > KAT_MANIFEST_MAX_LINES) {
            rc = hb_fail_at(err, path, lineno, "more than %d lines, the limit for a "
                            "KAT manifest; list each KAT file once",
                            KAT_MANIFEST_MAX_LINES);
            break;
        }
        if (n > 0 && buf[n - 1] == '\n')
            n--;
        size_t len = kat_canon_line(buf, (size_t)n);
        char *p = buf;
        while (*p == ' ' || *p == '\t')
            p++;
        if (len == 0 || *p == '\0' || *p == '#')
            continue;
        rc = manifest_add(m, &entries, p, lineno, path, err);
        if (rc != 0 && lenient) {
            note_bad(m, err);
            rc = 0;
        }
    }
    if (rc == 0 && ferror(fp))
        rc = hb_fail_errno(err, "%s:%ld: cannot read", path, lineno + 1);
    free(buf);
    fclose(fp);
    if (rc == 0)
        rc = check_duplicates(m, path, lenient, err);
    if (rc != 0)
        kat_manifest_free(m);
    return rc;
}

int kat_manifest_load(const char *path, kat_manifest *m, hb_err *err)
{
    return manifest_load(path, m, 0, err);
}

int kat_manifest_load_lines(const char *path, kat_manifest *m, hb_err *err)
{
    return manifest_load(path, m, 1, err);
}

const kat_manifest_entry *kat_manifest_find(const kat_manifest *m, const char *label,
                                            const char *name)
{
    for (size_t i = 0; i < m->n; i++)
        if (strcmp(m->v[i].label, label) == 0 && strcasecmp(m->v[i].name, name) == 0)
            return &m->v[i];
    return NULL;
}

void kat_manifest_free(kat_manifest *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->v[i].label);
        free(m->v[i].name);
    }
    free(m->v);
    memset(m, 0, sizeof *m);
}

/* ---- discovery ---- */

static int is_vector_dir(const char *name)
{
    return strcasecmp(name, "Test_Vector") == 0 || strcasecmp(name, "Test_Vectors") == 0;
}

typedef struct vector_walk {
    const char *package;
    strlist *out;
} vector_walk;

/* 1 when a folder of REL's path before its last component is a vector
 * folder. */
static int below_vector_dir(const char *rel)
{
    char part[PATH_MAX];
    const char *p = rel, *slash;
    while ((slash = strchr(p, '/')) != NULL) {
        size_t n = (size_t)(slash - p);
        if (n < sizeof part) {
            memcpy(part, p, n);
            part[n] = '\0';
            if (is_vector_dir(part))
                return 1;
        }
        p = slash + 1;
    }
    return 0;
}

/* Lists the files below a vector folder of the package. Hidden entries are
 * passed over; folders reached through a symbolic link are not entered
 * (common/walk.h), and a file that is a link leading outside the package is
 * not listed. */
static int add_vector_file(const hb_walk_entry *e, void *ctx, hb_err *err)
{
    vector_walk *w = ctx;
    char norm[PATH_MAX];
    if (e->name[0] == '.')
        return e->type == HB_WALK_DIR ? HB_WALK_SKIP : HB_WALK_CONTINUE;
    if (e->type == HB_WALK_DIR)
        return e->depth > 32 ? hb_fail(err, "%s: folders nested too deep", e->path)
                             : HB_WALK_CONTINUE;
    if (e->type == HB_WALK_DIR_POST || !below_vector_dir(e->rel) ||
        override_inside(w->package, e->rel, 0, norm, sizeof norm) != 0)
        return HB_WALK_CONTINUE;
    return strlist_push(w->out, e->path) != 0 ? hb_fail(err, "out of memory")
                                               : HB_WALK_CONTINUE;
}

int kat_vectors_list(const char *package, strlist *out, hb_err *err)
{
    vector_walk w = {package, out};
    if (hb_walk(package, HB_WALK_MAX_DEPTH, 0, add_vector_file, &w, err) != 0)
        return -1;
    strlist_sort(out);
    return 0;
}

const char *kat_vectors_match(const strlist *files, const char *name, const char *prefer)
{
    const char *first = NULL;
    for (int i = 0; i < files->n; i++) {
        if (strcasecmp(hb_basename(files->v[i]), name) != 0)
            continue;
        if (prefer && *prefer && strstr(files->v[i], prefer))
            return files->v[i];
        if (!first)
            first = files->v[i];
    }
    return first;
}

int kat_label_of(const char *name, char *out, size_t outsz)
{
    size_t n = strlen(name);
    for (int k = 0; k < KAT_KIND_COUNT; k++) {
        const char *p = kat_kind_prefix((kat_kind)k);
        size_t pl = strlen(p);
        if (n > pl + 1 + 4 && strncasecmp(name, p, pl) == 0 && name[pl] == '_' &&
            strcasecmp(name + n - 4, ".txt") == 0) {
            size_t ll = n - pl - 1 - 4;
            if (!valid_label(name + pl + 1, ll) || ll >= outsz)
                return -1;
            memcpy(out, name + pl + 1, ll);
            out[ll] = '\0';
            return 0;
        }
    }
    return -1;
}

/* ---- writing ---- */

/* Appends "<sha> strict <label>/<name>" for the KAT file PATH to LINES,
 * unless an identical label/name is already there. */
static int add_manifest_line(strlist *lines, const char *path, const char *label,
                             hb_err *err)
{
    char sha[HB_SHA256_HEX], line[512], tail[256];
    snprintf(tail, sizeof tail, " strict %s/%s", label, hb_basename(path));
    for (int i = 0; i < lines->n; i++)
        if (strcmp(lines->v[i] + 64, tail) == 0)
            return 0;
    if (kat_file_sha256(path, sha, err) != 0)
        return -1;
    snprintf(line, sizeof line, "%s%s", sha, tail);
    return strlist_push(lines, line) == 0 ? 0 : hb_fail(err, "out of memory");
}

static int save_manifest(const char *package, strlist *lines, int *n_files, hb_err *err)
{
    char path[PATH_MAX];
    if (lines->n == 0)
        return hb_fail(err, "%s: no KAT text file found (KAT_<kind>_<instance>.txt "
                       "in a Test_Vector or Test_Vectors folder); nothing to write",
                       package);
    if (hb_path_join(path, sizeof path, package, KAT_MANIFEST_NAME, err) != 0)
        return -1;
    strlist_sort(lines);
    char *text = strlist_join(lines, "\n");
    if (!text)
        return hb_fail(err, "out of memory");
    size_t n = strlen(text);
    text[n] = '\0';
    char *full = malloc(n + 2);
    int rc = -1;
    if (full) {
        memcpy(full, text, n);
        full[n] = '\n';
        rc = hb_write_atomic(path, full, n + 1, err);
    } else {
        hb_fail(err, "out of memory");
    }
    free(full);
    free(text);
    *n_files = lines->n;
    return rc;
}

int kat_manifest_write_package(const char *package, int *n_files, hb_err *err)
{
    strlist files = {0}, lines = {0};
    char label[80];
    int rc = kat_vectors_list(package, &files, err);
    for (int i = 0; rc == 0 && i < files.n; i++)
        if (kat_label_of(hb_basename(files.v[i]), label, sizeof label) == 0)
            rc = add_manifest_line(&lines, files.v[i], label, err);
    if (rc == 0)
        rc = save_manifest(package, &lines, n_files, err);
    strlist_free(&files);
    strlist_free(&lines);
    return rc;
}

/* The kat.json status of CAND/INST in RUN_DIR, or NULL. */
static const char *kat_status_of(const json_t *kat, const char *cand, const char *inst)
{
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(kat, "instances"), i, e) {
        if (json_is_string(json_object_get(e, "candidate")) &&
            strcmp(json_string_value(json_object_get(e, "candidate")), cand) == 0 &&
            json_is_string(json_object_get(e, "instance")) &&
            strcmp(json_string_value(json_object_get(e, "instance")), inst) == 0)
            return json_string_value(json_object_get(e, "status"));
    }
    return NULL;
}

static int same_folder(const char *a, const char *b)
{
    char ra[PATH_MAX], rb[PATH_MAX];
    return realpath(a, ra) && realpath(b, rb) && strcmp(ra, rb) == 0;
}

/* The last component of the folder PATH ("pkgs/SM3/" -> "SM3"), which is
 * its candidate id (discovery names a candidate by its folder). */
static void package_name(const char *path, char *out, size_t outsz)
{
    char name[PATH_MAX];
    snprintf(name, sizeof name, "%s", path);
    size_t n = strlen(name);
    while (n > 1 && name[n - 1] == '/')
        name[--n] = '\0';
    const char *slash = strrchr(name, '/');
    snprintf(out, outsz, "%s", slash ? slash + 1 : name);
}

/* The refusal when BUILD (BPATH) holds no instance of PACKAGE: what was
 * looked for, and the packages the run did build. */
static int none_built(const char *bpath, const json_t *all, const char *package,
                      const char *name, hb_err *err)
{
    strlist pkgs = {0};
    size_t i;
    json_t *e;
    json_array_foreach(all, i, e) {
        const char *pkg = json_string_value(json_object_get(e, "package"));
        if (pkg && pkg[0] && !rundir_entry_builtin_baseline(e) &&
            !strlist_contains(&pkgs, pkg) && strlist_push(&pkgs, pkg) != 0)
            break;
    }
    char *list = strlist_join(&pkgs, ", ");
    hb_fail(err, "%s: no instance was built from %s, nor of a candidate named %s (a "
            "package moved since is found by its folder's name); this run built %s: "
            "give one of those folders, or a copy named as its candidate", bpath, package,
            name, list && list[0] ? list : "no submitted package");
    free(list);
    strlist_free(&pkgs);
    return -1;
}

/* Adds the generated texts of one build.json entry. */
static int add_run_instance(const char *run_dir, const json_t *kat, const json_t *e,
                            strlist *lines, hb_err *err)
{
    const char *cand, *inst;
    char path[PATH_MAX], name[256], texts[PATH_MAX], dir[PATH_MAX];
    if (hb_json_get_str(e, "candidate", &cand, RUNDIR_BUILD_JSON, err) != 0 ||
        hb_json_get_str(e, "instance", &inst, RUNDIR_BUILD_JSON, err) != 0 ||
        rundir_kat_texts_rel(texts, sizeof texts, cand, inst, NULL, err) != 0 ||
        rundir_path(dir, sizeof dir, run_dir, texts, err) != 0)
        return -1;
    const char *st = kat_status_of(kat, cand, inst);
    if (!st || (strcmp(st, "PASS") && strcmp(st, "NOKAT") && strcmp(st, "MISMATCH")))
        return hb_fail(err, "%s/kat.json: %s/%s has KAT status %s; run 'hashbench "
                       "kat' and fix the instance first", run_dir, cand, inst,
                       st ? st : "(none)");
    const char *label = build_algorithm_instance(e); /* variants share it */
    for (int k = 0; k < KAT_KIND_COUNT; k++) {
        if (kat_file_name((kat_kind)k, label, name, sizeof name, err) != 0)
            return -1;
        if (hb_path_join(path, sizeof path, dir, name, err) != 0)
            return -1;
        if (hb_is_file(path) && add_manifest_line(lines, path, label, err) != 0)
            return -1;
    }
    return 0;
}

int kat_manifest_write_run(const char *package, const char *run_dir, int *n_files,
                           hb_err *err)
{
    char bpath[PATH_MAX], kpath[PATH_MAX];
    json_t *build = NULL, *kat = NULL;
    strlist lines = {0};
    int rc = -1;
    if (rundir_path(bpath, sizeof bpath, run_dir, RUNDIR_BUILD_JSON, err) == 0 &&
        rundir_path(kpath, sizeof kpath, run_dir, RUNDIR_KAT_JSON, err) == 0 &&
        hb_json_load(bpath, &build, err) == 0 && hb_json_load(kpath, &kat, err) == 0) {
        size_t i;
        json_t *e;
        const json_t *all = json_object_get(build, "instances");
        int found = 0;
        char name[PATH_MAX];
        package_name(package, name, sizeof name);
        rc = 0;
        /* the instances built from PACKAGE; else, for a package moved or
         * copied since, those of the candidate its folder names */
        for (int by_name = 0; by_name < 2 && !found && rc == 0; by_name++)
            json_array_foreach(all, i, e) {
                const char *pkg = json_string_value(json_object_get(e, "package"));
                const char *cand = json_string_value(json_object_get(e, "candidate"));
                if (rc != 0 || !pkg || !cand || rundir_entry_builtin_baseline(e) ||
                    !(by_name ? strcmp(cand, name) == 0
                              : same_folder(pkg, package)))
                    continue;
                found++;
                rc = add_run_instance(run_dir, kat, e, &lines, err);
            }
        if (rc == 0 && !found)
            rc = none_built(bpath, all, package, name, err);
        if (rc == 0)
            rc = save_manifest(package, &lines, n_files, err);
    }
    json_decref(build);
    json_decref(kat);
    strlist_free(&lines);
    return rc;
}
