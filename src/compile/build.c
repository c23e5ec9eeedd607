/* The build stage: see build.h. build_run works in three steps: discover
 * and plan every instance (main thread: flags, source digests, resume
 * decision), compile the planned ones with a small pool of threads (each
 * worker only calls compile_instance, which forks the compiler), then
 * assemble and save build.json (main thread). */
#include "compile/build.h"
#include "common/untrusted.h"

#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compile/compile.h"
#include "compile/discover.h"
#include "compile/drivers.h"
#include "compile/profile.h"
#include "common/digest.h"
#include "common/fs.h"
#include "sandbox/check.h"
#include "common/json.h"
#include "rundir/baselines.h"

enum task_state { TASK_COMPILE, TASK_REUSE, TASK_REFUSED, TASK_SKIPPED };

typedef struct build_task {
    const discover_instance *in;
    strlist flags;
    char *flags_str;
    json_t *sources;              /* [{"path", "sha256"}] */
    char library_rel[PATH_MAX], log_rel[PATH_MAX];
    char library[PATH_MAX], log[PATH_MAX];
    enum task_state state;
    char reason[HB_ERR_MAX];      /* refusal or harness failure */
    compile_outcome out;
    int running;                  /* being compiled now */
} build_task;

typedef struct build_ctx {
    const build_options *opt;
    const char *profile;
    int plain_shared;             /* 1 or -1 (build_options), 0 until known */
    char run_dir[PATH_MAX];       /* absolute */
    compile_toolchain tc;
    int aarch64;
    json_t *old;                  /* previous build.json or NULL */
    discover_list found;
    build_task *tasks;
    int n_tasks;
    pthread_mutex_t lock;
    int next, done, total;        /* the counter: tasks compiled in this run */
} build_ctx;

/* A = DIR/REL into OUT (PATH_MAX bytes). */
static int under(char *out, const char *dir, const char *rel, hb_err *err)
{
    return hb_path_join(out, PATH_MAX, dir, rel, err);
}

static int load_old(build_ctx *c, hb_err *err)
{
    char path[PATH_MAX];
    if (under(path, c->run_dir, BUILD_JSON, err) != 0)
        return -1;
    if (!hb_is_file(path))
        return 0;
    if (hb_json_load(path, &c->old, err) != 0)
        return -1;
    const char *profile;
    if (hb_json_get_str(c->old, "profile", &profile, path, err) != 0)
        return -1;
    if (!c->profile)
        c->profile = json_string_value(json_object_get(c->old, "profile"));
    if (strcmp(profile, c->profile) != 0)
        return hb_fail(err, "%s: this run directory was built with profile %s; "
                       "use --profile %s or a new --run-dir", path, profile, profile);
    int plain = json_is_true(json_object_get(c->old, "plain_shared")) ? 1 : -1;
    if (!c->plain_shared)
        c->plain_shared = plain;
    if (plain != c->plain_shared)
        return hb_fail(err, "%s: this run directory was built %s --plain-shared; "
                       "%s --plain-shared or use a new --run-dir", path,
                       plain > 0 ? "with" : "without", plain > 0 ? "give" : "leave out");
    return 0;
}

/* The old entry of CANDIDATE/INSTANCE, or NULL. */
static json_t *old_entry(const build_ctx *c, const char *candidate,
                         const char *instance)
{
    json_t *arr = c->old ? json_object_get(c->old, "instances") : NULL;
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e) {
        const char *cand = json_string_value(json_object_get(e, "candidate"));
        const char *inst = json_string_value(json_object_get(e, "instance"));
        if (cand && inst && strcmp(cand, candidate) == 0 && strcmp(inst, instance) == 0)
            return e;
    }
    return NULL;
}

static int str_field_is(const json_t *e, const char *key, const char *want)
{
    const char *v = json_string_value(json_object_get(e, key));
    return v && strcmp(v, want) == 0;
}

/* Resume: reuse the old library when nothing that goes into it changed. */
static int can_reuse(const build_ctx *c, build_task *t)
{
    json_t *e = old_entry(c, t->in->candidate, t->in->instance);
    if (!e || !str_field_is(e, "status", "BUILT") ||
        !str_field_is(e, "flags", t->flags_str) ||
        !str_field_is(e, "compiler_version", c->tc.version) ||
        !str_field_is(e, "package", t->in->package) ||
        !str_field_is(e, "library", t->library_rel) ||
        !json_equal(json_object_get(e, "sources"), t->sources))
        return 0;
    hb_err ignored;
    if (!hb_is_file(t->library) || compile_inspect(t->library, &t->out, &ignored) != 0)
        return 0;
    return t->out.built && str_field_is(e, "library_sha256", t->out.library_sha256);
}

/* The sources with their SHA-256; NULL (ERR naming the file) when one
 * cannot be read or is larger than HB_LIMIT_TEXT. */
static json_t *source_list(const discover_instance *in, hb_err *err)
{
    json_t *arr = json_array();
    for (int i = 0; i < in->sources.n; i++) {
        char full[PATH_MAX], hex[HB_SHA256_HEX];
        if (under(full, in->package, in->sources.v[i], err) != 0 ||
            hb_sha256_file_limited(full, HB_LIMIT_TEXT, "a source file", hex, err) != 0) {
            json_decref(arr);
            return NULL;
        }
        json_array_append_new(arr, json_pack("{s:s, s:s}", "path", in->sources.v[i],
                                             "sha256", hex));
    }
    return arr;
}

/* Records why task T is refused (printf-style). */
__attribute__((format(printf, 2, 3)))
static void set_reason(build_task *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->reason, sizeof t->reason, fmt, ap);
    va_end(ap);
}

/* The number of instances of L with the candidate and instance name of
 * L->v[I] (I included); *pos gets I's 1-based place among them. Their file
 * names (library, log) would be the same: the names are valid, so equal
 * names are exactly equal file names. */
static int name_twins(const discover_list *l, int i, int *pos)
{
    int n = 0;
    for (int j = 0; j < l->n; j++) {
        if (strcmp(l->v[j].candidate, l->v[i].candidate) != 0 ||
            strcmp(l->v[j].instance, l->v[i].instance) != 0)
            continue;
        n++;
        if (j == i)
            *pos = n;
    }
    return n;
}

/* The refusal of an instance whose name N_TWINS folders share: every one
 * of them is named, and none is built. */
static void set_twin_reason(build_task *t, const discover_list *l, int n_twins)
{
    char dirs[HB_ERR_MAX] = "";
    size_t used = 0;
    for (int j = 0; j < l->n && used < sizeof dirs; j++)
        if (strcmp(l->v[j].candidate, t->in->candidate) == 0 &&
            strcmp(l->v[j].instance, t->in->instance) == 0)
            used += (size_t)snprintf(dirs + used, sizeof dirs - used, "%s%s",
                                     used ? ", " : "", l->v[j].source_dir[0]
                                     ? l->v[j].source_dir : "(no folder)");
    set_reason(t, "instance %s of candidate %s is the name of %d folders (%s), "
               "whose libraries and logs would have the same names: none of them "
               "is built; give each its own name in hashbench.ini ([instance "
               "NAME] with dir = FOLDER)%s%s", t->in->instance, t->in->candidate,
               n_twins, dirs, t->in->error[0] ? "; also: " : "", t->in->error);
}

/* The library and log of task T; TWIN > 0 is its place among instances of
 * the same name, whose logs must not overwrite each other. */
static int plan_paths(build_ctx *c, build_task *t, int twin, hb_err *err)
{
    const discover_instance *in = t->in;
    char nth[16] = "";
    if (twin > 0)
        snprintf(nth, sizeof nth, "%d", twin);
    if (rundir_library_rel(t->library_rel, sizeof t->library_rel, in->candidate,
                           in->instance, NULL, err) != 0 ||
        rundir_build_log_rel(t->log_rel, sizeof t->log_rel, in->candidate, in->instance,
                             nth, err) != 0 ||
        under(t->library, c->run_dir, t->library_rel, err) != 0 ||
        under(t->log, c->run_dir, t->log_rel, err) != 0)
        return -1;
    return 0;
}

/* Decides what to do with instance I; fills its task. */
static int plan_task(build_ctx *c, int i, hb_err *err)
{
    build_task *t = &c->tasks[i];
    t->in = &c->found.v[i];
    const char *pflags = profile_flags(c->profile, c->aarch64);
    int pos = 0, twins = name_twins(&c->found, i, &pos);
    char export_prefix[PATH_MAX];
    if (plan_paths(c, t, twins > 1 ? pos : 0, err) != 0)
        return -1;
    compile_export_prefix(t->library, export_prefix, sizeof export_prefix);
    if (compile_make_flags(&c->tc, pflags, c->plain_shared > 0 ? COMPILE_ADDED_NONE
                           : COMPILE_ADDED_ALL, export_prefix, &t->in->defines,
                           &t->in->includes, &t->flags) != 0 ||
        !(t->flags_str = strlist_join(&t->flags, " ")))
        return err->msg[0] ? -1 : hb_fail(err, "out of memory");
    if (t->in->skip[0] && twins < 2) {
        t->state = TASK_SKIPPED;
        set_reason(t, "%s", t->in->skip);
        t->sources = json_array();
        return 0;
    }
    hb_err serr;
    t->sources = t->in->skip[0] ? NULL : source_list(t->in, &serr);
    if (twins > 1) {
        t->state = TASK_REFUSED;
        set_twin_reason(t, &c->found, twins);
    } else if (t->in->error[0]) {
        t->state = TASK_REFUSED;
        set_reason(t, "%s", t->in->error);
    } else if (!t->sources) {
        t->state = TASK_REFUSED;
        set_reason(t, "%s", serr.msg);
    } else if (t->in->sources.n == 0) {
        t->state = TASK_REFUSED;
        char *left = strlist_join(&t->in->excluded, ", ");
        set_reason(t, "%s: no library source (.c) left after leaving out %s; list "
                   "the sources with sources = in hashbench.ini",
                   t->in->source_dir, left && *left ? left : "nothing (no .c file)");
        free(left);
    } else {
        t->state = can_reuse(c, t) ? TASK_REUSE : TASK_COMPILE;
    }
    if (!t->sources)
        t->sources = json_array();
    return 0;
}

/* 1 when a failed compile's REASON is the package's own declaration of
 * CryptHash clashing with the visibility header (another return type, such
 * as an enum): hashbench's flags, not the package, made it fail. */
static int visibility_clash(const char *reason)
{
    return strstr(reason, "conflicting types") && strstr(reason, "CryptHash");
}

/* Compiles task T once more without hidden visibility and the header (the
 * version script and -fno-semantic-interposition stay); its outcome, log
 * and flags are then those of this compile. */
static void compile_without_header(build_ctx *c, build_task *t, hb_err *err)
{
    strlist flags = {0};
    char prefix[PATH_MAX], *str = NULL;
    compile_export_prefix(t->library, prefix, sizeof prefix);
    if (compile_make_flags(&c->tc, profile_flags(c->profile, c->aarch64),
                           COMPILE_ADDED_NO_HEADER, prefix,
                           &t->in->defines, &t->in->includes, &flags) != 0 ||
        !(str = strlist_join(&flags, " "))) {
        strlist_free(&flags);
        return;
    }
    compile_job job = {&c->tc, t->in->package, &flags, &t->in->sources,
                       &t->in->excluded, t->library, t->log, 0,
                       t->in->override_at[0] ? t->in->override_at : NULL, 0};
    compile_outcome again;
    if (compile_instance(&job, &again, err) != 0) {
        strlist_free(&flags);
        free(str);
        return;
    }
    t->out = again;
    strlist_free(&t->flags);
    t->flags = flags;
    free(t->flags_str);
    t->flags_str = str;
}

static void run_one(build_ctx *c, build_task *t)
{
    hb_err err = {{0}};
    if (t->state == TASK_REFUSED) {
        if (compile_write_refusal(t->log, t->reason, &err) != 0)
            fprintf(stderr, "hashbench build: %s\n", err.msg);
        return;
    }
    compile_job job = {&c->tc, t->in->package, &t->flags, &t->in->sources,
                       &t->in->excluded, t->library, t->log, 0,
                       t->in->override_at[0] ? t->in->override_at : NULL, 0};
    if (compile_instance(&job, &t->out, &err) != 0) {
        t->out.built = 0;
        snprintf(t->out.reason, sizeof t->out.reason, "%s", err.msg);
    } else if (!t->out.built && c->plain_shared < 0 && visibility_clash(t->out.reason)) {
        compile_without_header(c, t, &err);
    }
}

/* Shows the tasks being compiled, "build A/x, B/y", with the count of
 * those finished (C->lock held); nothing when none is under way. */
static void report(build_ctx *c)
{
    char step[400];
    size_t len = (size_t)snprintf(step, sizeof step, "build");
    int any = 0;
    if (!c->opt->progress)
        return;
    for (int i = 0; i < c->n_tasks && len < sizeof step; i++) {
        if (!c->tasks[i].running)
            continue;
        int n = snprintf(step + len, sizeof step - len, "%s%s/%s", any ? ", " : " ",
                         c->tasks[i].in->candidate, c->tasks[i].in->instance);
        len += n > 0 ? (size_t)n : 0;
        any = 1;
    }
    if (any)
        c->opt->progress(c->opt->progress_ctx, step, c->done, c->total);
}

static void *worker(void *arg)
{
    build_ctx *c = arg;
    for (;;) {
        pthread_mutex_lock(&c->lock);
        int i = c->next;
        while (i < c->n_tasks && (c->tasks[i].state == TASK_REUSE ||
                                  c->tasks[i].state == TASK_SKIPPED))
            i++;
        c->next = i + 1;
        if (i < c->n_tasks) {
            c->tasks[i].running = 1;
            report(c);
        }
        pthread_mutex_unlock(&c->lock);
        if (i >= c->n_tasks)
            return NULL;
        run_one(c, &c->tasks[i]);
        pthread_mutex_lock(&c->lock);
        c->done++;
        c->tasks[i].running = 0;
        report(c);
        pthread_mutex_unlock(&c->lock);
    }
}

static int pool_size(const build_ctx *c)
{
    long n = c->opt->jobs > 0 ? c->opt->jobs : sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}

static void run_pool(build_ctx *c)
{
    /* the counter counts the tasks compiled now: libraries kept from an
     * earlier run and skipped instances are not among them */
    for (int i = 0; i < c->n_tasks; i++)
        if (c->tasks[i].state != TASK_REUSE && c->tasks[i].state != TASK_SKIPPED)
            c->total++;
    pthread_t threads[64];
    int n = pool_size(c), started = 0;
    pthread_mutex_init(&c->lock, NULL);
    for (int i = 0; i < n; i++)
        if (pthread_create(&threads[started], NULL, worker, c) == 0)
            started++;
    if (started == 0)
        worker(c);
    for (int i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    pthread_mutex_destroy(&c->lock);
}

static json_t *strlist_json(const strlist *l)
{
    json_t *arr = json_array();
    for (int i = 0; i < l->n; i++)
        json_array_append_new(arr, json_string(l->v[i]));
    return arr;
}

/* Sets the outcome fields (library ... log, log_sha256) of entry E, in
 * FORMATS order; LOG is the log's full path (NULL: no log). */
static void put_outcome(json_t *e, const compile_outcome *o, const char *status,
                        const char *reason, const char *library_rel,
                        const char *log_rel, const char *log)
{
    char log_sha[HB_SHA256_HEX];
    hb_err ignored;
    int have_log = log && hb_sha256_file_hex(log, log_sha, &ignored) == 0;
    if (strcmp(status, "BUILT") == 0) {
        json_object_set_new(e, "library", json_string(library_rel));
        json_object_set_new(e, "library_sha256", json_string(o->library_sha256));
        json_object_set_new(e, "static_size", json_pack(
            "{s:I, s:I, s:I, s:I, s:I}", "image", (json_int_t)o->size.image,
            "text", (json_int_t)o->size.text, "rodata", (json_int_t)o->size.rodata,
            "data", (json_int_t)o->size.data, "bss", (json_int_t)o->size.bss));
    }
    json_object_set_new(e, "status", json_string(status));
    hb_untrusted_set(e, "reason", reason); /* compiler text apart: compile/diag.h */
    json_object_set_new(e, "log", json_string(log_rel));
    json_object_set_new(e, "log_sha256", have_log ? json_string(log_sha) : json_null());
}

/* 1 when the package folder PKG (absolute) is one the evaluator named as
 * a baseline. */
static int is_baseline_package(const build_ctx *c, const char *pkg)
{
    char real[PATH_MAX];
    for (int i = 0; i < c->opt->n_baseline_packages; i++)
        if (realpath(c->opt->baseline_packages[i], real) && strcmp(real, pkg) == 0)
            return 1;
    return 0;
}

static json_t *task_entry(const build_ctx *c, const build_task *t)
{
    const discover_instance *in = t->in;
    json_t *e = json_pack("{s:s, s:s, s:s, s:s, s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:s,"
                          " s:s}",
        "candidate", in->candidate, "algorithm", in->algorithm,
        "instance", in->instance, "algorithm_instance", in->algorithm_instance,
        "digest_bits", in->digest_bits,
        "variant", in->variant, "package", in->package,
        "source_dir", in->source_dir, "profile", c->profile,
        "flags_kind", "guide", "flags", t->flags_str,
        "compiler", c->tc.name, "compiler_version", c->tc.version);
    json_object_set(e, "sources", t->sources);
    if (t->state == TASK_SKIPPED)
        put_outcome(e, &t->out, "SKIPPED", t->reason, "", "", NULL);
    else if (t->state == TASK_REFUSED)
        put_outcome(e, &t->out, "BUILDFAIL", t->reason, "", t->log_rel, t->log);
    else
        put_outcome(e, &t->out, t->out.built ? "BUILT" : "BUILDFAIL",
                    t->out.built ? "" : t->out.reason, t->library_rel, t->log_rel,
                    t->log);
    json_object_set_new(e, "exclude_timing", json_string(in->exclude_timing));
    json_object_set_new(e, "plain_shared", json_boolean(c->plain_shared > 0));
    int named = is_baseline_package(c, in->package);
    json_object_set_new(e, "baseline", json_boolean(named));
    json_object_set_new(e, "baseline_primary", json_false());
    json_object_set_new(e, "baseline_package", json_boolean(named));
    json_object_set_new(e, "defines", strlist_json(&in->defines));
    json_object_set_new(e, "includes", strlist_json(&in->includes));
    json_object_set_new(e, "excluded", strlist_json(&in->excluded));
    return e;
}

/* hashbench's built-in baselines (rundir/baselines.h): the primary's
 * library is build_options.baseline_lib, the others are found in the same
 * folder. */
typedef hb_baseline builtin_baseline;

/* The library of built-in baseline B: baseline_lib for the primary, else
 * B's file in baseline_lib's folder. */
static int builtin_path(const build_ctx *c, const builtin_baseline *b, char *out, size_t sz,
                        hb_err *err)
{
    if (b->primary) {
        snprintf(out, sz, "%s", c->opt->baseline_lib);
        return 0;
    }
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", c->opt->baseline_lib);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else
        *slash = '\0';
    return hb_path_join(out, sz, dir, b->file, err);
}

/* The entry of built-in baseline B (its library SRC), copied into the run. */
static json_t *baseline_entry(const build_ctx *c, const builtin_baseline *b, const char *src,
                              hb_err *err)
{
    char lib_rel[PATH_MAX], log_rel[PATH_MAX];
    char lib[PATH_MAX], log[PATH_MAX], text[PATH_MAX + 256];
    compile_outcome o;
    if (rundir_library_rel(lib_rel, sizeof lib_rel, RUNDIR_BASELINE_CANDIDATE,
                           b->instance, NULL, err) != 0 ||
        rundir_build_log_rel(log_rel, sizeof log_rel, RUNDIR_BASELINE_CANDIDATE,
                             b->instance, NULL, err) != 0 ||
        under(lib, c->run_dir, lib_rel, err) != 0 || under(log, c->run_dir, log_rel, err) != 0 ||
        hb_copy_file(src, lib, err) != 0 || compile_inspect(lib, &o, err) != 0)
        return NULL;
    /* the name only: the build folder is a path of this machine, and the
     * library's SHA-256 in build.json identifies the copy */
    int n = snprintf(text, sizeof text, "# copied from %s (built with hashbench %s)\n"
                     "# result: %s\n", hb_basename(src), HB_VERSION,
                     o.built ? "BUILT" : "BUILDFAIL");
    if (hb_write_atomic(log, text, (size_t)(n < (int)sizeof text ? n : 0), err) != 0)
        return NULL;
    json_t *e = json_pack("{s:s, s:s, s:s, s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:[]}",
        "candidate", RUNDIR_BASELINE_CANDIDATE, "algorithm", b->algorithm,
        "instance", b->instance,
        "digest_bits", b->digest_bits, "variant", "Baseline", "package", "", "source_dir", "",
        "profile", c->profile, "flags_kind", "hashbench", "flags", "",
        "compiler", "", "compiler_version", "", "sources");
    put_outcome(e, &o, o.built ? "BUILT" : "BUILDFAIL",
                o.built ? "" : "the baseline library does not export CryptHash",
                lib_rel, log_rel, log);
    json_object_set_new(e, "exclude_timing", json_string(""));
    json_object_set_new(e, "baseline", json_true());
    json_object_set_new(e, "baseline_primary", json_boolean(b->primary));
    json_object_set_new(e, "baseline_package", json_false());
    return e;
}

/* Appends the entry of every built-in baseline whose library exists to
 * ARR (a missing one is left out with a warning). */
static int add_builtin_baselines(const build_ctx *c, json_t *arr, hb_err *err)
{
    for (size_t i = 0; c->opt->baseline_lib && i < hb_n_baselines; i++) {
        const builtin_baseline *b = &hb_baselines[i];
        char src[PATH_MAX];
        if (builtin_path(c, b, src, sizeof src, err) != 0)
            return -1;
        if (!hb_is_file(src)) {
            fprintf(stderr, "hashbench build: warning: %s not found; the %s baseline "
                    "is left out (build hashbench's %.*s target)\n", src, b->instance,
                    (int)(strlen(b->file) - 3), b->file + 3);
            continue;
        }
        json_t *e = baseline_entry(c, b, src, err);
        if (!e)
            return -1;
        json_array_append_new(arr, e);
    }
    return 0;
}

/* E (returned) with the old entry's harness-default rebuild when it was
 * made from the same library. */
static json_t *keep_rebuild(const build_ctx *c, json_t *e)
{
    json_t *old = old_entry(c, json_string_value(json_object_get(e, "candidate")),
                            json_string_value(json_object_get(e, "instance")));
    json_t *hd = json_object_get(old, BUILD_HARNESS_DEFAULT_KEY);
    const char *sha = json_string_value(json_object_get(e, "library_sha256"));
    if (json_is_object(hd) && str_field_is(e, "status", "BUILT") && sha &&
        str_field_is(hd, "from_sha256", sha))
        json_object_set(e, BUILD_HARNESS_DEFAULT_KEY, hd);
    return e;
}

/* Keeps old entries of candidates that this run does not touch. */
static void keep_other_candidates(const build_ctx *c, json_t *arr)
{
    json_t *old = c->old ? json_object_get(c->old, "instances") : NULL;
    size_t i;
    json_t *e;
    json_array_foreach(old, i, e) {
        const char *cand = json_string_value(json_object_get(e, "candidate"));
        int ours = !cand || (c->opt->baseline_lib && strcmp(cand, "baseline") == 0);
        for (int k = 0; !ours && k < c->found.n; k++)
            ours = strcmp(c->found.v[k].candidate, cand) == 0;
        if (!ours)
            json_array_append(arr, e);
    }
}

static int save_json(build_ctx *c, int *n_failed, hb_err *err)
{
    json_t *arr = json_array();
    keep_other_candidates(c, arr);
    for (int i = 0; i < c->n_tasks; i++)
        json_array_append_new(arr, keep_rebuild(c, task_entry(c, &c->tasks[i])));
    if (add_builtin_baselines(c, arr, err) != 0) {
        json_decref(arr);
        return -1;
    }
    *n_failed = 0;
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e)
        *n_failed += str_field_is(e, "status", "BUILDFAIL");
    json_t *root = json_pack("{s:i, s:s, s:s, s:s, s:s, s:s, s:o}", "schema", 1,
        "tool", "hashbench " HB_VERSION, "arch", c->tc.arch, "profile", c->profile,
        "compiler", c->tc.name, "compiler_version", c->tc.version, "instances", arr);
    json_object_set_new(root, "plain_shared", json_boolean(c->plain_shared > 0));
    if (c->old)
        json_object_set(root, "sandbox", json_object_get(c->old, "sandbox"));
    hb_sandbox_record(root);
    char path[PATH_MAX];
    int rc = under(path, c->run_dir, BUILD_JSON, err);
    if (rc == 0)
        rc = hb_json_save(path, root, err);
    json_decref(root);
    return rc;
}

/* Refuses a package whose candidate id another package of the run has, or
 * the id of hashbench's own baseline (its library and log would take the
 * same names). */
static int check_candidate_unique(const discover_list *l, int from, hb_err *err)
{
    if (from < l->n && strcmp(l->v[from].candidate, "baseline") == 0)
        return hb_fail(err, "%s: the candidate id 'baseline' is hashbench's own "
                       "SM3 baseline; give the package another id in its "
                       "hashbench.ini ([candidate] id = ...)", l->v[from].package);
    for (int j = 0; from < l->n && j < from; j++)
        if (strcmp(l->v[j].candidate, l->v[from].candidate) == 0)
            return hb_fail(err, "%s and %s both have the candidate id %s; give one "
                           "another id in its hashbench.ini ([candidate] id = ...)",
                           l->v[j].package, l->v[from].package, l->v[from].candidate);
    return 0;
}

/* The compiler CC stands for: itself, else $CC, else cc. */
static const char *compiler_or_default(const char *cc)
{
    const char *env = getenv("CC");
    return cc ? cc : env && *env ? env : "cc";
}

int build_check_compiler(const char *cc, hb_err *err)
{
    compile_toolchain tc;
    return compile_toolchain_probe(compiler_or_default(cc), &tc, err);
}

static int prepare(build_ctx *c, hb_err *err)
{
    const build_options *opt = c->opt;
    const char *cc = compiler_or_default(opt->cc);
    if (!opt->run_dir || !*opt->run_dir)
        return hb_fail(err, "no run directory; give --run-dir DIR");
    if (opt->n_packages < 1 && opt->n_baseline_packages < 1)
        return hb_fail(err, "no submission package given; name at least one folder");
    /* The compiler before anything else: a wrong --cc is said at once, with
     * nothing read or written yet. */
    if (compile_toolchain_probe(cc, &c->tc, err) != 0)
        return -1;
    /* The packages first: a package that cannot be read leaves the run
     * directory as it was, not even created. */
    for (int i = 0; i < opt->n_packages; i++) {
        if (hb_is_file(opt->packages[i]))
            continue; /* a README or the like caught by a glob: not a package */
        int from = c->found.n;
        if (discover_package(opt->packages[i], &c->found, err) != 0 ||
            check_candidate_unique(&c->found, from, err) != 0 ||
            drivers_settle(&c->found, from, &c->tc, err) != 0)
            return -1;
        for (int k = 0; k < c->found.notes.n; k++)
            fprintf(stderr, "hashbench build: %s: %s\n", opt->packages[i],
                    c->found.notes.v[k]);
        strlist_free(&c->found.notes);
    }
    /* the baseline packages the evaluator named, unless among the others */
    for (int i = 0; i < opt->n_baseline_packages; i++) {
        const char *p = opt->baseline_packages[i];
        char real[PATH_MAX];
        if (!realpath(p, real) || !hb_is_dir(real))
            return hb_fail(err, "%s: the --baseline package is not a folder; name a "
                           "submission package", p);
        int listed = 0;
        for (int k = 0; k < c->found.n && !listed; k++)
            listed = strcmp(c->found.v[k].package, real) == 0;
        int from = c->found.n;
        if (!listed && (discover_package(p, &c->found, err) != 0 ||
                        check_candidate_unique(&c->found, from, err) != 0 ||
                        drivers_settle(&c->found, from, &c->tc, err) != 0))
            return -1;
    }
    if (hb_mkdirs(opt->run_dir, err) != 0)
        return -1;
    if (!realpath(opt->run_dir, c->run_dir))
        return hb_fail_errno(err, "%s: cannot resolve", opt->run_dir);
    if (hb_remove_stale_tmp(c->run_dir, NULL, err) != 0 || load_old(c, err) != 0)
        return -1;
    if (!c->profile)
        c->profile = "reference";
    if (!c->plain_shared)
        c->plain_shared = -1;
    if (!profile_is_known(c->profile))
        return hb_fail(err, "unknown profile '%s'; use reference, performance or "
                       "resource", c->profile);
    c->aarch64 = profile_target_is_aarch64(c->tc.target);
    c->n_tasks = c->found.n;
    c->tasks = calloc((size_t)c->n_tasks + 1, sizeof *c->tasks);
    if (!c->tasks)
        return hb_fail(err, "out of memory");
    for (int i = 0; i < c->n_tasks; i++)
        if (plan_task(c, i, err) != 0)
            return -1;
    return 0;
}

static void release(build_ctx *c)
{
    for (int i = 0; c->tasks && i < c->n_tasks; i++) {
        strlist_free(&c->tasks[i].flags);
        free(c->tasks[i].flags_str);
        json_decref(c->tasks[i].sources);
    }
    free(c->tasks);
    discover_free(&c->found);
    json_decref(c->old);
}

int build_run(const build_options *opt, int *n_failed, hb_err *err)
{
    build_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return hb_fail(err, "out of memory");
    c->opt = opt;
    c->profile = opt->profile; /* NULL: the run directory's, else reference */
    c->plain_shared = opt->plain_shared; /* 0: likewise, else -1 */
    *n_failed = 0;
    hb_err_clear(err);
    int rc = prepare(c, err);
    if (rc == 0) {
        run_pool(c);
        rc = save_json(c, n_failed, err);
    }
    release(c);
    free(c);
    return rc;
}

/* What build_rebuild_default needs from a build.json entry. */
typedef struct rebuild_input {
    const char *candidate, *instance, *package, *compiler;
    strlist sources, defines, includes;
} rebuild_input;

static int strings_of(const json_t *e, const char *key, strlist *out)
{
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(e, key), i, v) {
        const char *s = json_is_object(v) ? json_string_value(json_object_get(v, "path"))
                                          : json_string_value(v);
        if (!s || strlist_push(out, s) != 0)
            return -1;
    }
    return 0;
}

static int read_rebuild_input(const json_t *e, rebuild_input *r, hb_err *err)
{
    memset(r, 0, sizeof *r);
    if (hb_json_get_str(e, "candidate", &r->candidate, BUILD_JSON, err) != 0 ||
        hb_json_get_str(e, "instance", &r->instance, BUILD_JSON, err) != 0 ||
        hb_json_get_str(e, "package", &r->package, BUILD_JSON, err) != 0)
        return -1;
    r->compiler = json_string_value(json_object_get(e, "compiler"));
    if (!override_name_valid(r->candidate) || !override_name_valid(r->instance) ||
        !*r->package)
        return hb_fail(err, "%s: entry %.64s/%.64s cannot be rebuilt (bad name or "
                       "no package); run hashbench build again", BUILD_JSON,
                       r->candidate, r->instance);
    if (strings_of(e, "sources", &r->sources) != 0 ||
        strings_of(e, "defines", &r->defines) != 0 ||
        strings_of(e, "includes", &r->includes) != 0)
        return hb_fail(err, "%s: entry %s/%s has malformed sources, defines or "
                       "includes; run hashbench build again", BUILD_JSON,
                       r->candidate, r->instance);
    for (int i = 0; i < r->sources.n; i++) {
        char norm[1024];
        if (override_inside(r->package, r->sources.v[i], 0, norm, sizeof norm) != 0)
            return hb_fail(err, "%s: source %.200s of %s/%s is not a file inside "
                           "%s; run hashbench build again", BUILD_JSON,
                           r->sources.v[i], r->candidate, r->instance, r->package);
    }
    return 0;
}

static void free_rebuild_input(rebuild_input *r)
{
    strlist_free(&r->sources);
    strlist_free(&r->defines);
    strlist_free(&r->includes);
}

/* A copy of ENTRY with the fields of the rebuild, keeping the key order. */
static json_t *rebuilt_entry(const json_t *entry, const compile_toolchain *tc,
                             const char *flags_kind, const char *flags, json_t *sources,
                             const compile_outcome *o, const char *lib_rel,
                             const char *log_rel, const char *log)
{
    static const char *const outcome_keys[] = {"library", "library_sha256",
        "static_size", "status", "reason", "raw_reason_untrusted", "log", "log_sha256"};
    json_t *e = json_object();
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)entry, key, v) {
        int skip = 0;
        for (size_t k = 0; k < sizeof outcome_keys / sizeof outcome_keys[0]; k++)
            skip |= strcmp(key, outcome_keys[k]) == 0;
        if (skip)
            continue;
        if (strcmp(key, "sources") == 0) {
            json_object_set(e, "sources", sources);
            put_outcome(e, o, o->built ? "BUILT" : "BUILDFAIL", o->built ? "" : o->reason,
                        lib_rel, log_rel, log);
        } else {
            json_object_set(e, key, v);
        }
    }
    json_object_set_new(e, "flags_kind", json_string(flags_kind));
    json_object_set_new(e, "flags", json_string(flags));
    json_object_set_new(e, "compiler", json_string(tc->name));
    json_object_set_new(e, "compiler_version", json_string(tc->version));
    return e;
}

/* How a rebuild is made: with which compiler (NULL: the entry's), which
 * flags (a profile name, or PROFILE_HARNESS_DEFAULT), into which flavour
 * of the library's folder, and the entry's flags_kind. */
typedef struct rebuild_how {
    const char *cc, *profile, *flavour, *flags_kind;
} rebuild_how;

static int rebuild(const char *run_dir, const json_t *entry, rebuild_input *r,
                   const rebuild_how *how, json_t **out, hb_err *err)
{
    compile_toolchain tc;
    const char *cc = how->cc ? how->cc : r->compiler && *r->compiler ? r->compiler : "cc";
    if (compile_toolchain_probe(cc, &tc, err) != 0)
        return -1;
    const char *pflags = profile_flags(how->profile, profile_target_is_aarch64(tc.target));
    if (!pflags)
        return hb_fail(err, "%s: unknown build profile '%s'; run hashbench build again",
                       BUILD_JSON, how->profile);
    int hidden = strcmp(how->profile, PROFILE_HARNESS_DEFAULT) != 0;
    char lib_rel[PATH_MAX], log_rel[PATH_MAX], lib[PATH_MAX], log[PATH_MAX];
    if (rundir_library_rel(lib_rel, sizeof lib_rel, r->candidate, r->instance,
                           how->flavour, err) != 0 ||
        rundir_build_log_rel(log_rel, sizeof log_rel, r->candidate, r->instance,
                             how->flavour, err) != 0 ||
        under(lib, run_dir, lib_rel, err) != 0 || under(log, run_dir, log_rel, err) != 0)
        return -1;
    strlist flags = {0};
    char *flags_str = NULL;
    discover_instance in = {0};
    snprintf(in.package, sizeof in.package, "%s", r->package);
    in.sources = r->sources;
    json_t *sources = NULL;
    char export_prefix[PATH_MAX];
    compile_export_prefix(lib, export_prefix, sizeof export_prefix);
    enum compile_added added = json_is_true(json_object_get(entry, "plain_shared"))
                              ? COMPILE_ADDED_NONE
                              : hidden ? COMPILE_ADDED_ALL : COMPILE_ADDED_NO_HEADER;
    int rc = compile_make_flags(&tc, pflags, added, export_prefix, &r->defines,
                                &r->includes, &flags);
    if (rc != 0 || !(flags_str = strlist_join(&flags, " ")))
        rc = hb_fail(err, "out of memory");
    if (rc == 0 && !(sources = source_list(&in, err)))
        rc = -1;
    compile_outcome o;
    compile_job job = {&tc, r->package, &flags, &r->sources, NULL, lib, log, 0, NULL, 0};
    if (rc == 0)
        rc = compile_instance(&job, &o, err);
    if (rc == 0)
        *out = rebuilt_entry(entry, &tc, how->flags_kind, flags_str, sources, &o, lib_rel,
                             log_rel, log);
    json_decref(sources);
    free(flags_str);
    strlist_free(&flags);
    return rc;
}

int build_rebuild_default(const char *run_dir, const json_t *entry, json_t **out,
                          hb_err *err)
{
    *out = NULL;
    rebuild_input r;
    char abs[PATH_MAX];
    if (!realpath(run_dir, abs))
        return hb_fail_errno(err, "%s: cannot resolve the run directory", run_dir);
    int rc = read_rebuild_input(entry, &r, err);
    rebuild_how how = {NULL, PROFILE_HARNESS_DEFAULT, PROFILE_HARNESS_DEFAULT,
                       PROFILE_HARNESS_DEFAULT};
    if (rc == 0)
        rc = rebuild(abs, entry, &r, &how, out, err);
    free_rebuild_input(&r);
    return rc;
}

int build_rebuild_with(const char *run_dir, const json_t *entry, const char *profile,
                       const char *cc, const char *flavour, json_t **out, hb_err *err)
{
    *out = NULL;
    rebuild_input r;
    char abs[PATH_MAX];
    if (!realpath(run_dir, abs))
        return hb_fail_errno(err, "%s: cannot resolve the run directory", run_dir);
    int rc = read_rebuild_input(entry, &r, err);
    const char *kind = strcmp(profile, PROFILE_HARNESS_DEFAULT) == 0 ? PROFILE_HARNESS_DEFAULT
                                                                     : "guide";
    rebuild_how how = {cc, profile, flavour, kind};
    if (rc == 0)
        rc = rebuild(abs, entry, &r, &how, out, err);
    free_rebuild_input(&r);
    return rc;
}

const char *build_algorithm_instance(const json_t *entry)
{
    const char *n = json_string_value(json_object_get(entry, "algorithm_instance"));
    if (!n || !n[0])
        n = json_string_value(json_object_get(entry, "instance"));
    return n ? n : "";
}

/* ---- the harness-default rebuilds ----------------------------------- */

/* The record of a rebuild of the entry whose guide library is FROM_SHA:
 * the fields of the rebuilt entry that differ from the guide build's. */
static json_t *rebuild_record(const char *from_sha, const json_t *rebuilt)
{
    static const char *const keys[] = {"flags_kind", "flags", "compiler",
        "compiler_version", "sources", "library", "library_sha256", "static_size",
        "status", "reason", "raw_reason_untrusted", "log", "log_sha256"};
    json_t *hd = json_pack("{s:s}", "from_sha256", from_sha);
    for (size_t i = 0; hd && i < sizeof keys / sizeof keys[0]; i++) {
        json_t *v = json_object_get(rebuilt, keys[i]);
        if (v)
            json_object_set(hd, keys[i], v);
    }
    return hd;
}

/* 1 when ENTRY's rebuild is recorded for its current library and, when it
 * compiled, its library is still the one recorded. */
static int rebuild_current(const char *run_dir, const json_t *entry)
{
    const json_t *hd = json_object_get(entry, BUILD_HARNESS_DEFAULT_KEY);
    const char *sha = json_string_value(json_object_get(entry, "library_sha256"));
    if (!json_is_object(hd) || !sha || !str_field_is(hd, "from_sha256", sha))
        return 0;
    if (!str_field_is(hd, "status", "BUILT"))
        return 1;
    char lib[PATH_MAX], now[HB_SHA256_HEX];
    const char *rel = json_string_value(json_object_get(hd, "library"));
    hb_err ignored;
    return rel && under(lib, run_dir, rel, &ignored) == 0 &&
           hb_sha256_file_hex(lib, now, &ignored) == 0 &&
           str_field_is(hd, "library_sha256", now);
}

int build_harness_default(const char *run_dir, const char *const *keys, int n_keys,
                          int *n_rebuilt, hb_err *err)
{
    char path[PATH_MAX];
    json_t *doc = NULL;
    *n_rebuilt = 0;
    if (under(path, run_dir, BUILD_JSON, err) != 0 || hb_json_load(path, &doc, err) != 0)
        return -1;
    size_t i;
    json_t *e;
    int rc = 0;
    json_array_foreach(json_object_get(doc, "instances"), i, e) {
        char key[600];
        const char *sha = json_string_value(json_object_get(e, "library_sha256"));
        snprintf(key, sizeof key, "%.290s/%.290s",
                 hb_json_str(e, "candidate"), hb_json_str(e, "instance"));
        int wanted = 0;
        for (int k = 0; k < n_keys && !wanted; k++)
            wanted = strcmp(keys[k], key) == 0;
        if (rc != 0 || !wanted || !sha || !str_field_is(e, "status", "BUILT") ||
            !str_field_is(e, "flags_kind", "guide") ||
            rundir_entry_builtin_baseline(e) || rebuild_current(run_dir, e))
            continue;
        json_t *rebuilt = NULL, *hd;
        hb_err berr;
        if (build_rebuild_default(run_dir, e, &rebuilt, &berr) != 0)
        {
            hd = json_pack("{s:s, s:s, s:s}", "from_sha256", sha, "status", "ERROR",
                           "reason", "");
            if (hd)
                hb_untrusted_set(hd, "reason", berr.msg);
        }
        else
            hd = rebuild_record(sha, rebuilt);
        json_decref(rebuilt);
        if (!hd) {
            rc = hb_fail(err, "out of memory");
            break;
        }
        json_object_set_new(e, BUILD_HARNESS_DEFAULT_KEY, hd);
        (*n_rebuilt)++;
        rc = hb_json_save(path, doc, err); /* after each: a killed run keeps its rebuilds */
    }
    json_decref(doc);
    return rc;
}
