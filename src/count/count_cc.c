/* The instruction counts under other compilers (count_cc.h): each passed
 * instance rebuilt with every other compiler (compile/build.h:
 * build_rebuild_with) and counted at the stage's sizes (count.h:
 * count_library), one record per instance and compiler. Instances are
 * rebuilt and counted one at a time: the compiler and Valgrind each run in
 * the sandbox, and the stage's cost is stated in `help count`. */
#include "count/count_cc.h"

#include <ctype.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/random.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/digest.h"
#include "common/fs.h"
#include "common/json.h"
#include "common/untrusted.h"
#include "compile/build.h"
#include "compile/compile.h"
#include "compile/override.h"
#include "compile/profile.h"
#include "count/count_plan.h"
#include "kat/kat.h"
#include "rundir/rundir.h"

#define COUNT_CC_SCHEMA 2

void count_cc_label(const char *version, char *out, size_t outsz)
{
    const char *clang = strstr(version, "clang version ");
    char first[64] = "";
    if (clang) {
        int len = (int)strcspn(clang + 14, " \t\n(");
        snprintf(out, outsz, "clang %.*s", len > 40 ? 40 : len, clang + 14);
        return;
    }
    sscanf(version, "%63s", first);
    const char *last = strrchr(version, ' ');
    int gcc = strstr(version, "(GCC)") || strstr(version, "(Debian") ||
              strncmp(first, "gcc", 3) == 0 || strcmp(first, "cc") == 0;
    if (gcc && last && isdigit((unsigned char)last[1]))
        snprintf(out, outsz, "gcc %.40s", last + 1);
    else
        snprintf(out, outsz, "%s", first[0] ? first : "?");
}

/* 1 when NAME is gcc, clang, gcc-N or clang-N (N digits). */
static int compiler_name(const char *name)
{
    size_t n = strncmp(name, "gcc", 3) == 0 ? 3 : strncmp(name, "clang", 5) == 0 ? 5 : 0;
    if (!n)
        return 0;
    if (!name[n])
        return 1;
    if (name[n] != '-' || !name[n + 1])
        return 0;
    for (const char *p = name + n + 1; *p; p++)
        if (!isdigit((unsigned char)*p))
            return 0;
    return 1;
}

static int by_length(const void *a, const void *b)
{
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    size_t lx = strlen(x), ly = strlen(y);
    return lx != ly ? (lx < ly ? -1 : 1) : strcmp(x, y);
}

int count_cc_installed(strlist *out)
{
    const char *path = getenv("PATH");
    char *copy = strdup(path && *path ? path : "/usr/bin");
    strlist found = {0};
    if (!copy)
        return -1;
    int rc = 0;
    for (char *save = NULL, *dir = strtok_r(copy, ":", &save); dir && rc == 0;
         dir = strtok_r(NULL, ":", &save)) {
        DIR *d = dir[0] == '/' ? opendir(dir) : NULL;
        struct dirent *e;
        while (d && rc == 0 && (e = readdir(d)) != NULL) {
            char full[PATH_MAX];
            if (!compiler_name(e->d_name) || strlist_contains(&found, e->d_name) ||
                snprintf(full, sizeof full, "%s/%s", dir, e->d_name) >= (int)sizeof full ||
                access(full, X_OK) != 0)
                continue;
            rc = strlist_push(&found, e->d_name);
        }
        if (d)
            closedir(d);
    }
    free(copy);
    if (found.n > 1)
        qsort(found.v, (size_t)found.n, sizeof *found.v, by_length);
    int n = 0;
    for (int i = 0; rc == 0 && i < found.n && n < COUNT_CC_MAX; i++, n++)
        rc = strlist_push(out, found.v[i]);
    strlist_free(&found);
    return rc == 0 ? n : -1;
}

/* The tag of compiler NAME in file names: the last component of its name
 * with any character but letters, digits, '.', '-' and '_' replaced. */
static void tag_of(const char *name, char *out, size_t outsz)
{
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    size_t i = 0;
    for (; base[i] && i + 1 < outsz && i < 40; i++) {
        unsigned char c = (unsigned char)base[i];
        out[i] = isalnum(c) || c == '.' || c == '-' || c == '_' ? (char)c : '_';
    }
    out[i] = '\0';
    if (!out[0] || strcmp(out, ".") == 0 || strcmp(out, "..") == 0)
        snprintf(out, outsz, "cc");
}

static int record_rel(char *out, size_t cap, const char *cand, const char *inst,
                      const char *tag, hb_err *err)
{
    int w = snprintf(out, cap, "%s/%s/%s__count_" COUNT_CC_FLAVOUR_PREFIX "%s.json",
                     RUNDIR_COUNT, cand, inst, tag);
    if (w < 0 || (size_t)w >= cap)
        return hb_fail(err, "count: the compiler record's path of %s/%s is too long", cand,
                       inst);
    return 0;
}

/* 1 when the record at PATH is for the same library FROM_SHA, compiler
 * version, sizes and flags, and its rebuilt library (when built) is intact. */
static int kept(const char *run_dir, const char *path, const char *from_sha,
                const char *version, const json_t *sizes, const char *profile)
{
    json_t *r = NULL;
    hb_err ignored;
    if (!hb_is_file(path) || hb_json_load(path, &r, &ignored) != 0)
        return 0;
    int ok = json_integer_value(json_object_get(r, "schema")) == COUNT_CC_SCHEMA &&
             strcmp(hb_json_str(r, "from_library_sha256"), from_sha) == 0 &&
             strcmp(hb_json_str(r, "compiler_version"), version) == 0 &&
             strcmp(hb_json_str(r, "profile"), profile) == 0 &&
             json_equal(json_object_get(r, "sizes"), (json_t *)sizes) &&
             strcmp(hb_json_str(r, "status"), "COUNTED") == 0;
    char lib[PATH_MAX], sha[HB_SHA256_HEX];
    ok = ok && hb_path_join(lib, sizeof lib, run_dir, hb_json_str(r, "library"),
                            &ignored) == 0 &&
         hb_sha256_file_hex(lib, sha, &ignored) == 0 &&
         strcmp(sha, hb_json_str(r, "library_sha256")) == 0;
    json_decref(r);
    return ok;
}

/* The seed of the instance's own count at its first size (its messages,
 * hashed again), else a fresh one. */
static uint64_t seed_of(const char *run_dir, const char *cand, const char *inst,
                        unsigned first_size)
{
    char rel[PATH_MAX], path[PATH_MAX];
    hb_err ignored;
    json_t *r = NULL;
    uint64_t seed = 0;
    if (rundir_count_rel(rel, sizeof rel, cand, inst, first_size, &ignored) == 0 &&
        rundir_path(path, sizeof path, run_dir, rel, &ignored) == 0 && hb_is_file(path) &&
        hb_json_load(path, &r, &ignored) == 0) {
        const char *s = hb_json_str(json_object_get(r, "method"), "seed");
        char *end = NULL;
        if (strlen(s) == 16)
            seed = strtoull(s, &end, 16);
        if (!end || *end)
            seed = 0;
        json_decref(r);
    }
    if (!seed && getrandom(&seed, sizeof seed, 0) != sizeof seed)
        seed = (uint64_t)(hb_mono_s() * 1e9);
    return seed;
}

/* 1 when the `--version` lines A and B are of the same compiler: equal
 * after their first word, the name it was called by ("cc" and "gcc" of
 * one installation print the same line but that). */
static int same_compiler(const char *a, const char *b)
{
    const char *x = strchr(a, ' '), *y = strchr(b, ' ');
    return x && y ? strcmp(x, y) == 0 : strcmp(a, b) == 0;
}

/* Points NOT_COUNTABLE at every size with reason WHY (a failed build). */
static json_t *failed_points(const unsigned *sizes, int n, const char *why)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++) {
        json_t *p = json_pack("{s:I, s:i, s:s, s:s, s:n, s:n}", "size_bytes",
                              (json_int_t)sizes[i], "calls", COUNT_CALLS_SIZE, "status",
                              "NOT_COUNTABLE", "reason", "", "raw", "derived");
        hb_untrusted_set(p, "reason", why);
        json_array_append_new(a, p);
    }
    return a;
}

typedef struct cc_ctx {
    const count_options *o;
    const unsigned *sizes;
    int n;
    const char *profile;          /* build.json's */
    const char *build_version;    /* build.json's compiler_version */
} cc_ctx;

static int do_one(const cc_ctx *c, const json_t *k, const json_t *b,
                  const compile_toolchain *tc, int *counted, int *not, hb_err *err)
{
    const char *cand = hb_json_str(k, "candidate"), *inst = hb_json_str(k, "instance");
    rundir_library used;
    rundir_instance_library(b, k, &used);
    int bits = (int)json_integer_value(json_object_get(b, "digest_bits"));
    if (!override_name_valid(cand) || !override_name_valid(inst) || !used.library ||
        !used.library_sha256 || bits <= 0)
        return hb_fail(err, "%s: entry %.64s/%.64s has no usable name, library or digest "
                       "size; run hashbench kat again", RUNDIR_KAT_JSON, cand, inst);
    const char *profile = used.flags_kind && strcmp(used.flags_kind,
                                                    PROFILE_HARNESS_DEFAULT) == 0
                              ? PROFILE_HARNESS_DEFAULT : c->profile;
    char tag[48], flavour[64], rel[PATH_MAX], path[PATH_MAX];
    tag_of(tc->name, tag, sizeof tag);
    snprintf(flavour, sizeof flavour, COUNT_CC_FLAVOUR_PREFIX "%s", tag);
    json_t *sizes = count_sizes_json(c->sizes, c->n);
    if (record_rel(rel, sizeof rel, cand, inst, tag, err) != 0 ||
        rundir_path(path, sizeof path, c->o->run_dir, rel, err) != 0) {
        json_decref(sizes);
        return -1;
    }
    if (kept(c->o->run_dir, path, used.library_sha256, tc->version, sizes, profile)) {
        json_decref(sizes);
        (*counted)++;
        return 0;
    }
    double t0 = hb_mono_s();
    json_t *built = NULL;
    hb_err berr;
    if (build_rebuild_with(c->o->run_dir, b, profile, tc->name, flavour, &built, &berr) != 0) {
        /* an entry that cannot be rebuilt (its package moved, ...) is this
         * instance's record, not the end of the stage */
        built = json_pack("{s:s, s:s, s:s, s:s}", "status", "ERROR", "reason", "", "flags",
                          "", "flags_kind", "");
        if (!built) {
            json_decref(sizes);
            return hb_fail(err, "out of memory");
        }
        hb_untrusted_set(built, "reason", berr.msg);
    }
    double build_s = hb_mono_s() - t0;
    const char *lib_rel = hb_json_str(built, "library");
    int ok = strcmp(hb_json_str(built, "status"), "BUILT") == 0;
    json_t *res = NULL, *points = NULL;
    int rc = 0;
    if (ok) {
        unsigned calls[COUNT_MAX_SIZES];
        for (int i = 0; i < c->n; i++)
            calls[i] = COUNT_CALLS_SIZE;
        char lib[PATH_MAX];
        count_events ev = {0, 0};
        ibudget bu = {c->o->run_dir, cand, inst, c->o->instance_budget_s};
        rc = hb_path_join(lib, sizeof lib, c->o->run_dir, lib_rel, err) < 0 ? -1 :
             count_library(lib, lib_rel, bits, c->sizes, calls, c->n,
                           seed_of(c->o->run_dir, cand, inst, c->sizes[0]), &ev, &bu, &res,
                           err);
        if (rc == 0)
            points = json_deep_copy(json_object_get(res, "entries"));
    } else {
        char why[HB_ERR_MAX];
        snprintf(why, sizeof why, "the %s with %s failed: %s",
                 strcmp(hb_json_str(built, "status"), "ERROR") == 0 ? "rebuild" : "build",
                 tag, hb_json_str(built, "reason"));
        points = failed_points(c->sizes, c->n, why);
    }
    if (rc != 0) {
        json_decref(built);
        json_decref(sizes);
        return -1;
    }
    if (!res) /* not counted: the record's Valgrind fields stay empty */
        res = json_pack("{s:s, s:[], s:s, s:n, s:n}", "valgrind", "", "tool_options", "seed",
                        "", "command", "empty");
    const json_t *failed = NULL;
    size_t i;
    json_t *p;
    json_array_foreach(points, i, p)
        if (!failed && strcmp(hb_json_str(p, "status"), "COUNTED") != 0)
            failed = p;
    char label[64];
    count_cc_label(tc->version, label, sizeof label);
    json_t *r = json_pack(
        "{s:i, s:s, s:s, s:s, s:s, s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, "
        "s:s, s:s, s:s, s:O, s:O, s:O, s:O, s:O, s:s, s:s, s:o, s:f, s:f}",
        "schema", COUNT_CC_SCHEMA, "kind", COUNT_CC_KIND, "candidate", cand, "instance", inst,
        "algorithm_instance", build_algorithm_instance(b), "digest_bits", bits, "compiler",
        tag, "compiler_label", label, "compiler_version", tc->version,
        "build_compiler_version", c->build_version, "profile", profile, "flags_kind",
        hb_json_str(built, "flags_kind"), "flags", hb_json_str(built, "flags"),
        "from_library", used.library, "from_library_sha256", used.library_sha256,
        "library", lib_rel, "library_sha256", hb_json_str(built, "library_sha256"),
        "build_status", hb_json_str(built, "status"), "log", hb_json_str(built, "log"),
        "valgrind", json_object_get(res, "valgrind"),
        "tool_options", json_object_get(res, "tool_options"),
        "seed", json_object_get(res, "seed"),
        "command", json_object_get(res, "command"),
        "empty", json_object_get(res, "empty"),
        "status", failed ? hb_json_str(failed, "status") : "COUNTED", "reason", "",
        "sizes", sizes, "build_seconds", round(build_s * 100) / 100,
        "instance_seconds", round((hb_mono_s() - t0) * 100) / 100);
    if (r && failed)
        hb_untrusted_set(r, "reason", hb_json_str(failed, "reason"));
    if (r)
        json_object_set_new(r, "points", points);
    else
        json_decref(points);
    json_decref(res);
    json_decref(built);
    if (!r)
        return hb_fail(err, "out of memory for %s", rel);
    rc = hb_mkdirs_for(path, err) != 0 ? -1 : hb_json_save(path, r, err);
    json_decref(r);
    if (rc == 0)
        (*(failed ? not : counted))++;
    return rc;
}

static int arch_mismatch(const char *cc, const char *has, const char *want, hb_err *err)
{
    return hb_fail(err, "compiler %s builds for %s, but the count runs the %s libraries of "
                   "the build; leave it out of --compilers", cc, has, want);
}

int count_cc_check(const char *run_dir, const char *main_cc, const char *const *cc, int n,
                   hb_err *err)
{
    char arch[64] = "", path[PATH_MAX];
    json_t *b = NULL;
    hb_err ignored;
    compile_toolchain tc;
    if (run_dir && rundir_path(path, sizeof path, run_dir, RUNDIR_BUILD_JSON, &ignored) == 0 &&
        hb_is_file(path) && hb_json_load(path, &b, &ignored) == 0) {
        snprintf(arch, sizeof arch, "%s", hb_json_str(b, "arch"));
        json_decref(b);
    }
    if (!arch[0]) {
        const char *env = getenv("CC");
        const char *name = main_cc ? main_cc : env && *env ? env : "cc";
        if (compile_toolchain_probe(name, &tc, err) != 0)
            return -1;
        snprintf(arch, sizeof arch, "%s", tc.arch);
    }
    for (int i = 0; i < n; i++) {
        if (compile_toolchain_probe(cc[i], &tc, err) != 0)
            return -1;
        if (strcmp(tc.arch, arch) != 0)
            return arch_mismatch(cc[i], tc.arch, arch, err);
    }
    return 0;
}

int count_cc_run(const count_options *o, const char *const *cc, int n, int *n_counted,
                 int *n_not, int *n_same, hb_err *err)
{
    *n_counted = *n_not = *n_same = 0;
    if (n > COUNT_CC_MAX)
        return hb_fail(err, "count: give at most %d compilers to --compilers", COUNT_CC_MAX);
    compile_toolchain *tcs = calloc((size_t)(n > 0 ? n : 1), sizeof *tcs);
    if (!tcs)
        return hb_fail(err, "out of memory");
    unsigned sizes[COUNT_MAX_SIZES];
    int nsizes = 0;
    kat_passed passed;
    memset(&passed, 0, sizeof passed);
    int rc = count_stage_sizes(o, sizes, &nsizes, err);
    if (rc == 0)
        rc = kat_passed_load_nokat(o->run_dir, o->instances, o->n_instances, o->nokat,
                                   &passed, err);
    const char *profile = hb_json_str(passed.build_doc, "profile");
    const char *bver = hb_json_str(passed.build_doc, "compiler_version");
    if (rc == 0 && !profile_is_known(profile))
        rc = hb_fail(err, "%s/%s: no known build profile ('%s'); run hashbench build again",
                     o->run_dir, RUNDIR_BUILD_JSON, profile);
    /* every compiler before any work: a wrong name is said at once */
    int m = 0;
    for (int j = 0; rc == 0 && j < n; j++) {
        if (compile_toolchain_probe(cc[j], &tcs[m], err) != 0) {
            rc = -1;
            break;
        }
        const char *arch = hb_json_str(passed.build_doc, "arch");
        if (arch[0] && strcmp(tcs[m].arch, arch) != 0) {
            rc = arch_mismatch(cc[j], tcs[m].arch, arch, err);
            break;
        }
        int dup = same_compiler(tcs[m].version, bver);
        char tag[48], other[48];
        tag_of(tcs[m].name, tag, sizeof tag);
        for (int q = 0; q < m; q++) {
            dup |= same_compiler(tcs[q].version, tcs[m].version);
            tag_of(tcs[q].name, other, sizeof other);
            if (!dup && strcmp(tag, other) == 0) {
                rc = hb_fail(err, "count: --compilers names two different compilers "
                             "called '%s' (%s, %s), whose records would share a name; "
                             "give one of them under another name (a symbolic link)",
                             tag, tcs[q].name, tcs[m].name);
                break;
            }
        }
        if (rc != 0)
            break;
        if (dup)
            (*n_same)++;
        else
            m++;
    }
    cc_ctx c = {o, sizes, nsizes, profile, bver};
    size_t done = 0, total = passed.n * (size_t)m;
    for (size_t i = 0; rc == 0 && i < passed.n; i++) {
        if (rundir_entry_builtin_baseline(passed.build[i]) ||
            strcmp(hb_json_str(passed.kat[i], "status"), "BASELINE") == 0) {
            done += (size_t)m;
            continue;
        }
        for (int j = 0; rc == 0 && j < m; j++) {
            if (o->progress) {
                char step[400];
                snprintf(step, sizeof step, "count %.128s/%.128s with %.64s",
                         hb_json_str(passed.kat[i], "candidate"),
                         hb_json_str(passed.kat[i], "instance"), tcs[j].name);
                o->progress(o->progress_ctx, step, (int)done, (int)total);
            }
            rc = do_one(&c, passed.kat[i], passed.build[i], &tcs[j], n_counted, n_not, err);
            done++;
        }
    }
    if (rc == 0 && o->progress)
        o->progress(o->progress_ctx, "count with other compilers", (int)total, (int)total);
    kat_passed_free(&passed);
    free(tcs);
    return rc;
}
