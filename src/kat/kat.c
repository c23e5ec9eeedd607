/* The KAT stage over a run directory: see kat.h. Instances are tested in
 * forked workers, up to o->jobs at once; only the parent writes kat.json,
 * after every finished instance and in build.json order, so a killed run
 * loses at most the instances in flight and the file does not depend on
 * which worker finished first. */
#include "kat/kat.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <jansson.h>
#include "common/clock.h"
#include "common/fs.h"
#include "common/json.h"
#include "kat/kat_instance.h"
#include "kat/variants.h"
#include "rundir/ibudget.h"
#include "rundir/rundir.h"
#include "sandbox/check.h"

#define BASELINE_REASON "OpenSSL libcrypto baseline; the oracle, not KAT-checked"

static int safe_name(const char *s)
{
    return s[0] && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..");
}

/* What the entry's file list checked beyond KAT_2_12 and KAT_2_23. */
static void checked_extras(const json_t *entry, int *loop, int *full)
{
    size_t i;
    json_t *f;
    *loop = *full = 0;
    json_array_foreach(json_object_get(entry, "files"), i, f) {
        *loop |= strncmp(hb_json_str(f, "name"), "KAT_Loop_", 9) == 0;
        *full |= strncmp(hb_json_str(f, "name"), "KAT_2_33_", 9) == 0;
    }
}

/* 1 when the entry's file list is what the options ask for BUILD, and it
 * names the same submitted files as not checked; 2 when the entry checked
 * more than the options ask (KAT_Loop where they skip it, KAT_2_33 without
 * --full): a verdict a weaker check never replaces. */
static int files_match_options(const json_t *entry, const json_t *build,
                               const kat_options *o)
{
    int loop, full;
    checked_extras(entry, &loop, &full);
    int want_loop = kat_instance_runs_loop(build, o->loop), want_full = !!o->full;
    if (loop >= want_loop && full >= want_full && (loop > want_loop || full > want_full))
        return 2;
    json_t *unchecked = kat_instance_not_checked(build, o->loop, o->full);
    int same = json_equal(unchecked, json_object_get(entry, "not_checked"));
    json_decref(unchecked);
    return same && loop == want_loop && full == want_full;
}

/* 1 when the submitted vectors of every compared file of ENTRY are still
 * what they were (a manifest or text file added, changed or removed since
 * makes the result stale). */
static int vectors_unchanged(const json_t *entry, const json_t *build)
{
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(entry, "files"), i, f) {
        const char *verdict = hb_json_str(f, "verdict");
        const char *was = hb_json_str(f, "expected_sha256");
        char now[HB_SHA256_HEX];
        if (strcmp(verdict, "PASS") && strcmp(verdict, "MISMATCH") && strcmp(verdict, "NOKAT") &&
            strcmp(verdict, KAT_BADVECTORS))
            continue; /* not compared: the library failed first */
        int rc = kat_instance_expected(build, hb_json_str(f, "name"), now);
        if (rc < 0 || (rc == 0 && was[0]) || (rc == 1 && strcmp(now, was) != 0))
            return 0;
    }
    return 1;
}

/* 1 when OLD (kat.json) still stands for BUILD (build.json) under O; 2
 * when it stands and checked more than O asks (files_match_options). */
static int reusable(const json_t *old, const json_t *build, const kat_options *o)
{
    const char *want = hb_json_str(build, "library_sha256");
    const json_t *guide = json_object_get(old, "guide");
    if (!old || strcmp(hb_json_str(old, "status"), "BASELINE") == 0 || !want[0])
        return 0;
    const char *had = json_is_object(guide) ? hb_json_str(guide, "library_sha256")
                                            : hb_json_str(old, "library_sha256");
    int match = strcmp(had, want) == 0 ? files_match_options(old, build, o) : 0;
    return match && vectors_unchanged(old, build) ? match : 0;
}

/* Says (on O->log) that the verdict ENTRY of a stronger check is kept
 * although O asks for less, naming the run that made it. */
static void say_kept(const kat_options *o, const json_t *entry)
{
    int loop, full;
    checked_extras(entry, &loop, &full);
    const char *utc = hb_json_str(entry, "tested_utc");
    if (!o->log)
        return;
    if (o->progress)
        o->progress(o->progress_ctx, NULL, 0, 0);
    fprintf(o->log, "kat %s/%s: kept the verdict %s of the run of %s, which also "
            "checked %s%s%s; this run asks for less (%s), and a weaker check never "
            "replaces a verdict (it is checked again when the library or its "
            "vectors change)\n",
            hb_json_str(entry, "candidate"), hb_json_str(entry, "instance"),
            hb_json_str(entry, "status"), utc[0] ? utc : "an earlier session",
            loop ? "KAT_Loop" : "", loop && full ? " and " : "", full ? "KAT_2_33" : "",
            loop && o->loop == KAT_LOOP_NEVER ? "--no-loop" : loop ? "no KAT_Loop"
                                                                  : "no --full");
    fflush(o->log);
}

static json_t *baseline_entry(const json_t *b)
{
    return json_pack("{s:s, s:s, s:s, s:n, s:n, s:s, s:s, s:s, s:s, s:n, s:[], s:s}",
        "candidate", hb_json_str(b, "candidate"), "instance", hb_json_str(b, "instance"),
        "status", "BASELINE", "log", "log_sha256",
        "library", hb_json_str(b, "library"),
        "library_sha256", hb_json_str(b, "library_sha256"),
        "flags_kind", hb_json_str(b, "flags_kind"), "flags", hb_json_str(b, "flags"),
        "guide", "files", "reason", BASELINE_REASON);
}

static int run_one(const kat_options *o, const json_t *build, const char *suffix,
                   json_t **out, hb_err *err)
{
    char log_rel[PATH_MAX], texts_rel[PATH_MAX];
    const char *cand = hb_json_str(build, "candidate"), *inst = hb_json_str(build, "instance");
    if (rundir_kat_log_rel(log_rel, sizeof log_rel, cand, inst, suffix, err) != 0 ||
        rundir_kat_texts_rel(texts_rel, sizeof texts_rel, cand, inst, suffix, err) != 0)
        return -1;
    /* a rebuild is tested only because its guide build failed: its first
     * failing file settles it, the files after it are not run */
    kat_instance_spec s = {o->run_dir, build, log_rel, texts_rel, o->loop, o->full,
                           o->timeout_s, o->instance_budget_s, suffix != NULL};
    return kat_instance_run(&s, out, err);
}

static void append_reason(json_t *entry, const char *more)
{
    char buf[2 * HB_ERR_MAX];
    const char *old = hb_json_str(entry, "reason");
    snprintf(buf, sizeof buf, "%s%s%s", old, old[0] ? "; " : "", more);
    json_object_set_new(entry, "reason", json_string(buf));
}

/* The guide result kept inside the fallback's entry. */
static json_t *guide_summary(const json_t *g)
{
    return json_pack("{s:O, s:O, s:O, s:O, s:O, s:O}",
        "status", json_object_get(g, "status"), "log", json_object_get(g, "log"),
        "log_sha256", json_object_get(g, "log_sha256"),
        "library", json_object_get(g, "library"),
        "library_sha256", json_object_get(g, "library_sha256"),
        "flags", json_object_get(g, "flags"));
}

/* 1 when the KAT result FIRST of guide build B calls for the fallback of
 * SPEC §2: a guide build that neither passes nor lacks vectors is rebuilt
 * once with the harness-default flags and tested again; not for
 * BADVECTORS (other flags cannot repair a malformed submitted file), nor
 * when the instance's wall budget stopped it (rundir/ibudget.h): nothing
 * is left to test the rebuild with. */
static int wants_fallback(const json_t *b, const json_t *first)
{
    return first && kat_status_failed(hb_json_str(first, "status")) &&
           strcmp(hb_json_str(first, "status"), KAT_BADVECTORS) != 0 &&
           !ibudget_stopped(hb_json_str(first, "reason")) &&
           !json_is_object(json_object_get(first, "guide")) &&
           strcmp(hb_json_str(b, "status"), "BUILT") == 0 &&
           strcmp(hb_json_str(b, "flags_kind"), "guide") == 0 &&
           !rundir_entry_builtin_baseline(b);
}

/* The rebuild build.json records for guide build B (build_harness_default
 * in compile/build.h), when made from B's current library; else NULL. */
static const json_t *recorded_rebuild(const json_t *b)
{
    const json_t *hd = json_object_get(b, RUNDIR_HARNESS_DEFAULT_KEY);
    const char *sha = hb_json_str(b, "library_sha256");
    return json_is_object(hd) && sha[0] && strcmp(hb_json_str(hd, "from_sha256"), sha) == 0
               ? hd : NULL;
}

/* The build.json entry of B's rebuild HD: B with the rebuild's fields. */
static json_t *rebuilt_entry(const json_t *b, const json_t *hd)
{
    json_t *e = json_deep_copy(b);
    const char *key;
    json_t *v;
    if (!e)
        return NULL;
    json_object_del(e, RUNDIR_HARNESS_DEFAULT_KEY);
    json_object_foreach((json_t *)hd, key, v)
        if (strcmp(key, "from_sha256") != 0)
            json_object_set(e, key, v);
    return e;
}

/* The note FIRST gets when B's rebuild HD did not compile, or "" when it did. */
static void rebuild_failure(const json_t *hd, char *note, size_t sz)
{
    if (strcmp(hb_json_str(hd, "status"), "ERROR") == 0)
        snprintf(note, sz, "harness-default rebuild failed: %s", hb_json_str(hd, "reason"));
    else if (strcmp(hb_json_str(hd, "status"), "BUILT") != 0)
        snprintf(note, sz, "the harness-default rebuild did not compile either "
                 "(see its build log)");
    else
        note[0] = '\0';
}

/* Tests the rebuild HD of guide build B whose result was FIRST; *entry
 * gets the rebuild's result with the guide's kept inside it. */
static int test_rebuild(const kat_options *o, const json_t *b, const json_t *hd,
                        const json_t *first, json_t **entry, hb_err *err)
{
    json_t *rebuilt = rebuilt_entry(b, hd), *second = NULL;
    if (!rebuilt)
        return hb_fail(err, "out of memory");
    int rc = run_one(o, rebuilt, RUNDIR_HARNESS_DEFAULT, &second, err);
    json_decref(rebuilt);
    if (rc != 0)
        return -1;
    json_object_set_new(second, "guide", guide_summary(first));
    char msg[HB_ERR_MAX + 64];
    snprintf(msg, sizeof msg, "guide flags gave %s; rebuilt with harness-default flags",
             hb_json_str(first, "status"));
    json_t *r = json_string(hb_json_str(second, "reason"));
    json_object_set_new(second, "reason", json_string(msg));
    if (json_string_length(r))
        append_reason(second, json_string_value(r));
    json_decref(r);
    *entry = second;
    return 0;
}

/* A worker's test: guide build B, or (FIRST set) its recorded rebuild. */
static int test_instance(const kat_options *o, const json_t *build, const json_t *first,
                         json_t **out, hb_err *err)
{
    if (first)
        return test_rebuild(o, build, recorded_rebuild(build), first, out, err);
    return run_one(o, build, NULL, out, err);
}

static int load_kat_json(const char *path, json_t **kat, hb_err *err)
{
    if (!hb_is_file(path)) {
        *kat = json_pack("{s:i, s:[]}", "schema", 1, "instances");
        return 0;
    }
    if (hb_json_load(path, kat, err) != 0)
        return -1;
    if (!json_is_array(json_object_get(*kat, "instances"))) {
        json_decref(*kat);
        return hb_fail(err, "%s: no 'instances' array; remove the file to start "
                       "the KAT stage again", path);
    }
    return 0;
}

/* Puts ENTRY (stolen) in place of the old one or at the end. */
static void store(json_t *arr, json_t *entry)
{
    size_t idx;
    if (kat_find_entry(arr, hb_json_str(entry, "candidate"), hb_json_str(entry, "instance"),
                       &idx))
        json_array_set_new(arr, idx, entry);
    else
        json_array_append_new(arr, entry);
}

static int count_selected(const kat_options *o, const json_t *list)
{
    size_t i;
    json_t *b;
    int n = 0;
    json_array_foreach(list, i, b)
        n += kat_selected(o, hb_json_str(b, "candidate"), hb_json_str(b, "instance"));
    return n;
}

/* Another entry of LIST with the candidate and instance of B, or NULL. */
static const json_t *name_twin(const json_t *list, const json_t *b)
{
    size_t i;
    json_t *e;
    json_array_foreach(list, i, e)
        if (e != b && strcmp(hb_json_str(e, "candidate"), hb_json_str(b, "candidate")) == 0 &&
            strcmp(hb_json_str(e, "instance"), hb_json_str(b, "instance")) == 0)
            return e;
    return NULL;
}

/* What the first pass decides for one build.json entry. */
enum { ENTRY_DONE, ENTRY_TEST };

/* Handles one build.json entry without testing it: a baseline gets its
 * entry, an entry that did not build has any older result dropped, a
 * result still valid is kept (*entry_out borrowed from ARR, NULL when the
 * instance has no library to test). ENTRY_TEST when the library must be
 * tested (test_instance, run by a worker). */
static int prepare_instance(const kat_options *o, const json_t *list, const json_t *b,
                            json_t *arr, json_t **entry_out, hb_err *err)
{
    const char *cand = hb_json_str(b, "candidate"), *inst = hb_json_str(b, "instance");
    size_t idx;
    int kept;
    *entry_out = NULL;
    if (!safe_name(cand) || !safe_name(inst))
        return hb_fail(err, "%s/build.json: candidate '%s' / instance '%s' is not "
                       "a plain name; rebuild the run directory", o->run_dir, cand, inst);
    const json_t *twin = strcmp(hb_json_str(b, "status"), "BUILT") == 0 ? name_twin(list, b)
                                                                   : NULL;
    if (twin) /* one kat.json entry per name: one verdict would replace the other */
        return hb_fail(err, "%s/build.json: %s/%s is listed for both %s and %s, and "
                       "one of them is built; run 'hashbench build' again (instances "
                       "sharing a name are not built)", o->run_dir, cand, inst,
                       hb_json_str(b, "source_dir"), hb_json_str(twin, "source_dir"));
    if (rundir_entry_builtin_baseline(b)) {
        json_t *entry = baseline_entry(b);
        if (!entry)
            return hb_fail(err, "out of memory");
        store(arr, entry);
        *entry_out = entry;
    } else if (strcmp(hb_json_str(b, "status"), "BUILT") != 0) {
        if (kat_find_entry(arr, cand, inst, &idx)) /* an older library's result */
            json_array_remove(arr, idx);
    } else if ((kept = reusable(kat_find_entry(arr, cand, inst, &idx), b, o)) != 0) {
        *entry_out = json_array_get(arr, idx);
        if (kept == 2)
            say_kept(o, *entry_out);
    } else {
        return ENTRY_TEST;
    }
    return ENTRY_DONE;
}

/* Puts the entries of ARR in the order of their instances in LIST
 * (build.json); entries of instances LIST does not hold keep their order
 * after them. The order kat.json is written in therefore does not depend on
 * which instance finished first. */
static void order_like_build(json_t *arr, const json_t *list)
{
    json_t *sorted = json_array();
    size_t i, idx;
    json_t *b;
    json_array_foreach(list, i, b) {
        json_t *e = kat_find_entry(arr, hb_json_str(b, "candidate"),
                                   hb_json_str(b, "instance"), &idx);
        if (e && !kat_find_entry(sorted, hb_json_str(b, "candidate"),
                                 hb_json_str(b, "instance"), &idx))
            json_array_append(sorted, e);
    }
    json_array_foreach(arr, i, b)
        if (!kat_find_entry(sorted, hb_json_str(b, "candidate"), hb_json_str(b, "instance"),
                            &idx))
            json_array_append(sorted, b);
    json_array_clear(arr);
    json_array_extend(arr, sorted);
    json_decref(sorted);
}

/* ---- the workers ------------------------------------------------------ */

/* One instance being tested in a forked worker. The worker runs the
 * instance's KATs (each file in its own sandboxed runner, kat_instance.h)
 * and the fallback, then writes {"entry": ...} or {"error": "..."} on its
 * pipe and exits; the parent alone writes kat.json. */
typedef struct kat_worker {
    pid_t pid;
    int fd;                 /* read end of the result pipe; -1 once read */
    const json_t *build;    /* its build.json entry */
    const json_t *first;    /* NULL, or the guide's result whose rebuild is tested */
    char *text;             /* what the worker wrote */
    size_t len, cap;
} kat_worker;

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        p += w;
        n -= (size_t)w;
    }
}

static void worker_main(const kat_options *o, const json_t *b, const json_t *first, int fd)
{
    json_t *entry = NULL, *msg;
    hb_err err;
    memset(&err, 0, sizeof err);
    if (test_instance(o, b, first, &entry, &err) == 0 && entry)
        msg = json_pack("{s:o}", "entry", entry);
    else
        msg = json_pack("{s:s}", "error", err.msg[0] ? err.msg : "out of memory");
    char *text = msg ? json_dumps(msg, JSON_COMPACT) : NULL;
    if (text)
        write_all(fd, text, strlen(text));
    _exit(text ? 0 : 1);
}

static int start_worker(const kat_options *o, const json_t *b, const json_t *first,
                        kat_worker *w, hb_err *err)
{
    int p[2];
    memset(w, 0, sizeof *w);
    w->fd = -1;
    w->build = b;
    w->first = first;
    if (pipe2(p, O_CLOEXEC) != 0)
        return hb_fail_errno(err, "cannot make a pipe for a KAT worker");
    fflush(NULL);
    pid_t parent = getpid();
    w->pid = fork();
    if (w->pid < 0) {
        close(p[0]);
        close(p[1]);
        return hb_fail_errno(err, "cannot start a KAT worker");
    }
    if (w->pid == 0) {
        /* dies with hashbench, so that a killed campaign leaves no worker
         * writing into the run directory its resumption uses */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(1);
        close(p[0]);
        worker_main(o, b, first, p[1]);
    }
    close(p[1]);
    w->fd = p[0];
    return 0;
}

/* Reads what is there; 1 at the end of the worker's output. */
static int read_some(kat_worker *w)
{
    if (w->cap - w->len < 4096) {
        size_t cap = w->cap ? 2 * w->cap : 16384;
        char *t = realloc(w->text, cap);
        if (!t)
            return 1;
        w->text = t;
        w->cap = cap;
    }
    ssize_t n = read(w->fd, w->text + w->len, w->cap - w->len - 1);
    if (n < 0 && errno == EINTR)
        return 0;
    if (n <= 0)
        return 1;
    w->len += (size_t)n;
    return 0;
}

/* Reaps a worker whose output has ended; *entry gets its new entry. */
static int finish_worker(const kat_options *o, kat_worker *w, json_t **entry, hb_err *err)
{
    int st = 0;
    close(w->fd);
    w->fd = -1;
    while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR)
        ;
    *entry = NULL;
    json_t *msg = NULL;
    if (w->text) {
        w->text[w->len] = '\0';
        msg = json_loads(w->text, 0, NULL);
    }
    free(w->text);
    w->text = NULL;
    const char *cand = hb_json_str(w->build, "candidate");
    const char *inst = hb_json_str(w->build, "instance");
    int rc;
    if (json_is_object(json_object_get(msg, "entry"))) {
        *entry = json_incref(json_object_get(msg, "entry"));
        rc = 0;
    } else if (json_is_string(json_object_get(msg, "error"))) {
        rc = hb_fail(err, "%s", json_string_value(json_object_get(msg, "error")));
    } else {
        rc = hb_fail(err, "%s: the KAT worker of %s/%s ended without a result (%s %d); "
                     "this is not the instance's fault (its library runs in a runner "
                     "of its own): run the KAT stage again", o->run_dir, cand, inst,
                     WIFSIGNALED(st) ? "signal" : "exit",
                     WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
    }
    json_decref(msg);
    return rc;
}

/* The step the progress line shows: the instances under way. */
static void running_step(const kat_worker *w, int n, char *step, size_t sz)
{
    size_t off = (size_t)snprintf(step, sz, "kat");
    for (int i = 0; i < n && off < sz; i++)
        off += (size_t)snprintf(step + off, sz - off, "%s%s/%s", i ? ", " : " ",
                                hb_json_str(w[i].build, "candidate"),
                                hb_json_str(w[i].build, "instance"));
}

/* The usable cores: this process's affinity mask (at least 1). */
int kat_default_jobs(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 1;
    int n = CPU_COUNT(&set);
    return n > 0 ? n : 1;
}

/* The state of one kat_run. */
typedef struct kat_pass {
    const kat_options *o;
    const json_t *list;
    json_t *kat;
    const char *kpath;
    int *n_failed;
    int done, total;
} kat_pass;

/* Says (on O->log) how a harness-default rebuild's KAT ended and how long
 * its files took (the sum of their wall times), so that a logged run shows
 * what the rebuild cost: "kat Cand/Inst: harness-default rebuild: MISMATCH
 * in 1.4 s (2 of 3 files not run: stopped at its first failing file)". */
static void say_rebuild(const kat_options *o, const json_t *entry)
{
    size_t i;
    json_t *f;
    double secs = 0;
    int n = 0, notrun = 0;
    if (!o->log || !json_is_object(json_object_get(entry, "guide")))
        return;
    json_array_foreach(json_object_get(entry, "files"), i, f) {
        n++;
        secs += json_number_value(json_object_get(f, "seconds"));
        notrun += strcmp(hb_json_str(f, "verdict"), "NOTRUN") == 0;
    }
    if (o->progress)
        o->progress(o->progress_ctx, NULL, 0, 0);
    fprintf(o->log, "kat %s/%s: harness-default rebuild: %s in %.1f s", hb_json_str(entry,
            "candidate"), hb_json_str(entry, "instance"), hb_json_str(entry, "status"), secs);
    if (notrun)
        fprintf(o->log, " (%d of %d files not run: %s)", notrun, n,
                strstr(hb_json_str(entry, "reason"), "stopped at its first failing file")
                    ? "stopped at its first failing file" : "the library failed first");
    fputc('\n', o->log);
    fflush(o->log);
}

/* Stores a finished instance's entry and saves kat.json. */
static int settle(kat_pass *p, json_t *entry, int stored, hb_err *err)
{
    json_t *arr = json_object_get(p->kat, "instances");
    if (entry && !stored) {
        char now[32];
        hb_utc_now(now, sizeof now); /* which run made the verdict */
        json_object_set_new(entry, "tested_utc", json_string(now));
        store(arr, json_incref(entry));
        say_rebuild(p->o, entry);
    }
    order_like_build(arr, p->list);
    hb_sandbox_record(p->kat);
    if (entry && kat_status_failed(hb_json_str(entry, "status")))
        (*p->n_failed)++;
    p->done++;
    return hb_json_save(p->kpath, p->kat, err);
}

/* Tests the instances of TODO (build.json entries; with FIRST, may be NULL,
 * FIRST[i] the guide result whose rebuild is tested), up to JOBS at once,
 * saving kat.json as each finishes. On a harness error no new instance is
 * started; those under way are finished and kept. */
static int run_workers(kat_pass *p, const json_t **todo, const json_t **first, int n_todo,
                       hb_err *err)
{
    int jobs = p->o->jobs > 0 ? p->o->jobs : kat_default_jobs();
    kat_worker *w = calloc((size_t)(jobs < n_todo ? jobs : n_todo) + 1, sizeof *w);
    struct pollfd *pfd = calloc((size_t)jobs + 1, sizeof *pfd);
    int running = 0, next = 0, rc = 0, changed = 0;
    if (!w || !pfd) {
        free(w);
        free(pfd);
        return hb_fail(err, "out of memory");
    }
    while (running > 0 || (rc == 0 && next < n_todo)) {
        while (rc == 0 && next < n_todo && running < jobs) {
            if (start_worker(p->o, todo[next], first ? first[next] : NULL, &w[running],
                             err) != 0) {
                rc = -1;
                break;
            }
            next++;
            running++;
            changed = 1;
        }
        if (running == 0)
            break;
        if (changed && p->o->progress) {
            /* once per change, after the refill: the line names every
             * instance under way, which the time left counts on */
            char step[400];
            running_step(w, running, step, sizeof step);
            p->o->progress(p->o->progress_ctx, step, p->done, p->total);
        }
        changed = 0;
        for (int i = 0; i < running; i++)
            pfd[i] = (struct pollfd){.fd = w[i].fd, .events = POLLIN};
        if (poll(pfd, (nfds_t)running, -1) < 0 && errno != EINTR) {
            rc = rc ? rc : hb_fail_errno(err, "waiting for the KAT workers");
            for (int i = 0; i < running; i++)
                kill(w[i].pid, SIGKILL);
        }
        for (int i = running - 1; i >= 0; i--) {
            if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)) || !read_some(&w[i]))
                continue;
            json_t *entry = NULL;
            hb_err werr;
            int wrc = finish_worker(p->o, &w[i], &entry, &werr);
            if (wrc == 0)
                wrc = settle(p, entry, 0, &werr);
            json_decref(entry);
            if (wrc != 0 && rc == 0) {
                *err = werr;
                rc = -1;
            }
            w[i] = w[--running];
            pfd[i] = pfd[running];
            changed = 1;
        }
    }
    free(w);
    free(pfd);
    return rc;
}

/* The second pass: each guide build whose KAT result calls for the
 * fallback and whose rebuild build.json records gets that rebuild tested
 * (or, when it did not compile, the note saying so). Those without a
 * recorded rebuild are left for kat_rebuilds_wanted. */
static int run_fallbacks(kat_pass *p, hb_err *err)
{
    size_t n = json_array_size(p->list), i;
    const json_t **todo = calloc(n + 1, sizeof *todo), **first = calloc(n + 1, sizeof *first);
    json_t *arr = json_object_get(p->kat, "instances"), *b;
    int n_todo = 0, rc = todo && first ? 0 : hb_fail(err, "out of memory"), noted = 0;
    json_array_foreach(p->list, i, b) {
        size_t idx;
        const char *cand = hb_json_str(b, "candidate"), *inst = hb_json_str(b, "instance");
        json_t *e = rc == 0 && kat_selected(p->o, cand, inst)
                        ? kat_find_entry(arr, cand, inst, &idx) : NULL;
        const json_t *hd = wants_fallback(b, e) ? recorded_rebuild(b) : NULL;
        char note[HB_ERR_MAX + 64];
        if (!hd)
            continue;
        rebuild_failure(hd, note, sizeof note);
        if (!note[0]) {
            todo[n_todo] = b;
            first[n_todo++] = e;
        } else if (!strstr(hb_json_str(e, "reason"), note)) {
            append_reason(e, note);
            noted = 1;
        }
    }
    if (rc == 0 && noted)
        rc = hb_json_save(p->kpath, p->kat, err);
    p->total += n_todo;
    if (rc == 0 && n_todo > 0)
        rc = run_workers(p, todo, first, n_todo, err);
    free(todo);
    free(first);
    return rc;
}

/* The failed KAT results among the selected instances of LIST in KAT. */
static int count_failed(const kat_options *o, const json_t *list, const json_t *kat)
{
    size_t i, idx;
    json_t *b;
    int n = 0;
    json_array_foreach(list, i, b) {
        const char *cand = hb_json_str(b, "candidate"), *inst = hb_json_str(b, "instance");
        const json_t *e = kat_selected(o, cand, inst)
            ? kat_find_entry(json_object_get(kat, "instances"), cand, inst, &idx) : NULL;
        n += e && kat_status_failed(hb_json_str(e, "status"));
    }
    return n;
}

int kat_rebuilds_wanted(const kat_options *o, strlist *out, hb_err *err)
{
    char bpath[PATH_MAX], kpath[PATH_MAX];
    json_t *build = NULL, *kat = NULL;
    if (rundir_path(bpath, sizeof bpath, o->run_dir, RUNDIR_BUILD_JSON, err) != 0 ||
        rundir_path(kpath, sizeof kpath, o->run_dir, RUNDIR_KAT_JSON, err) != 0 ||
        hb_json_load(bpath, &build, err) != 0)
        return -1;
    int rc = hb_is_file(kpath) ? hb_json_load(kpath, &kat, err) : 0;
    size_t i, idx;
    json_t *b;
    json_array_foreach(json_object_get(build, "instances"), i, b) {
        const char *cand = hb_json_str(b, "candidate"), *inst = hb_json_str(b, "instance");
        char key[600];
        if (rc != 0 || !kat_selected(o, cand, inst))
            continue;
        const json_t *e = kat_find_entry(json_object_get(kat, "instances"), cand, inst, &idx);
        snprintf(key, sizeof key, "%.290s/%.290s", cand, inst);
        if (wants_fallback(b, e) && strlist_push(out, key) != 0)
            rc = hb_fail(err, "out of memory");
    }
    json_decref(build);
    json_decref(kat);
    return rc;
}

int kat_run(const kat_options *o, int *n_failed, hb_err *err)
{
    char bpath[PATH_MAX], kpath[PATH_MAX];
    json_t *build = NULL, *kat = NULL;
    *n_failed = 0;
    if (o->variants_seed && !variants_seed_valid(o->variants_seed))
        return hb_fail(err, "variant seed '%.40s': give %d hex digits (the seed a "
                       "variants result records)", o->variants_seed, VARIANTS_SEED_DIGITS);
    if (rundir_path(bpath, sizeof bpath, o->run_dir, RUNDIR_BUILD_JSON, err) != 0 ||
        rundir_path(kpath, sizeof kpath, o->run_dir, RUNDIR_KAT_JSON, err) != 0)
        return -1;
    if (!hb_is_file(bpath))
        return hb_fail(err, "%s: not found; run 'hashbench build' on this run "
                       "directory first", bpath);
    if (hb_remove_stale_tmp(o->run_dir, NULL, err) != 0 ||
        hb_json_load(bpath, &build, err) != 0)
        return -1;
    json_t *list = json_object_get(build, "instances");
    int rc = json_is_array(list) ? 0
                                 : hb_fail(err, "%s: no 'instances' array; run "
                                           "'hashbench build' again", bpath);
    if (rc == 0)
        rc = load_kat_json(kpath, &kat, err);
    kat_pass p = {o, list, kat, kpath, n_failed, 0, rc == 0 ? count_selected(o, list) : 0};
    const json_t **todo = rc == 0 ? calloc(json_array_size(list) + 1, sizeof *todo) : NULL;
    int n_todo = 0;
    if (rc == 0 && !todo)
        rc = hb_fail(err, "out of memory");
    size_t i;
    json_t *b;
    /* First the instances that need no test (baselines, unbuilt, results
     * still valid), then the others, up to o->jobs at once. */
    json_array_foreach(list, i, b) {
        json_t *entry;
        if (rc != 0 ||
            !kat_selected(o, hb_json_str(b, "candidate"), hb_json_str(b, "instance")))
            continue;
        int what = prepare_instance(o, list, b, json_object_get(kat, "instances"), &entry, err);
        if (what < 0)
            rc = -1;
        else if (what == ENTRY_TEST)
            todo[n_todo++] = b;
        else
            rc = settle(&p, entry, 1, err);
    }
    /* the counter shown counts the instances tested now: baselines and
     * results kept are not among them */
    p.total -= p.done;
    p.done = 0;
    if (rc == 0 && n_todo > 0)
        rc = run_workers(&p, todo, NULL, n_todo, err);
    free(todo);
    if (rc == 0)
        rc = run_fallbacks(&p, err);
    if (rc == 0)
        *n_failed = count_failed(o, list, kat);
    int done = p.done, total = p.total;
    if (rc == 0)
        rc = variants_run(o, list, kat, kpath, n_failed, err);
    if (rc == 0 && o->progress)
        o->progress(o->progress_ctx, "kat", done, total);
    json_decref(build);
    json_decref(kat);
    return rc;
}

int kat_nothing_compared(const char *run_dir, int *n_nokat)
{
    char path[PATH_MAX];
    json_t *kat = NULL, *e;
    hb_err ignored;
    size_t i;
    int tested = 0, nokat = 0;
    *n_nokat = 0;
    if (rundir_path(path, sizeof path, run_dir, KAT_JSON, &ignored) != 0 ||
        !hb_is_file(path) || hb_json_load(path, &kat, &ignored) != 0)
        return 0;
    json_array_foreach(json_object_get(kat, "instances"), i, e) {
        const char *st = hb_json_str(e, "status");
        if (strcmp(st, "BASELINE") == 0)
            continue;
        tested++;
        nokat += strcmp(st, "NOKAT") == 0;
    }
    json_decref(kat);
    *n_nokat = nokat;
    return tested > 0 && nokat == tested;
}
