/* One instance's KAT: see kat_instance.h. The child reports through a
 * small shared mapping (which file, which Msg_Len, each finished file's
 * digest and time, or the library's fault), so the parent still knows where
 * a child that crashed or hung was. The library's own output goes to
 * /dev/null. */
#include "kat/kat_instance.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "common/digest.h"
#include "common/fs.h"
#include "common/json.h"
#include "common/proc.h"
#include "kat/kat_gen.h"
#include "kat/katfile.h"
#include "kat/manifest.h"

#define KAT_DEFAULT_TIMEOUT_S 600.0
#define KAT_AS_LIMIT (2ULL << 30)
#define KAT_AS_LIMIT_FULL (4ULL << 30)
#define KAT_FSIZE_LIMIT (256ULL << 20)

enum { CHILD_OK = 0, CHILD_FAULT = 10, CHILD_LOADFAIL = 11, CHILD_INTERNAL = 12 };

/* Written by the child, read by the parent after the child has ended. */
typedef struct child_report {
    long pid;
    int finished;
    int n_done;
    volatile unsigned long long cur_len;
    char sha256[KAT_KIND_COUNT][HB_SHA256_HEX];
    double seconds[KAT_KIND_COUNT];     /* wall clock */
    double cpu_seconds[KAT_KIND_COUNT]; /* the child's CPU time */
    kat_fault fault;
    char message[HB_ERR_MAX];
} child_report;

/* What the instance is asked to do. */
typedef struct plan {
    const char *cand, *inst;
    int digest_bits;
    char lib[PATH_MAX];
    int n;
    kat_kind kinds[KAT_KIND_COUNT];
    char names[KAT_KIND_COUNT][256];
    char paths[KAT_KIND_COUNT][PATH_MAX];
} plan;

typedef struct child_arg {
    const plan *p;
    child_report *rep;
    unsigned long cpu_s; /* CPU seconds before SIGXCPU */
} child_arg;

int kat_status_failed(const char *status)
{
    return strcmp(status, "PASS") != 0 && strcmp(status, "NOKAT") != 0 &&
           strcmp(status, "BASELINE") != 0;
}

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- child ---- */

static int child_main(void *arg)
{
    const child_arg *a = arg;
    child_report *rep = a->rep;
    hb_err err;
    rep->pid = (long)getpid();
    /* A soft limit below the hard one: running out of CPU time ends the
     * child with SIGXCPU, told apart from any other kill. */
    struct rlimit cpu = {(rlim_t)a->cpu_s, (rlim_t)a->cpu_s + 5};
    setrlimit(RLIMIT_CPU, &cpu);
    kat_gen_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    if (kat_child_load(a->p->lib, &ctx.hash, rep->message, sizeof rep->message) != 0)
        return CHILD_LOADFAIL;
    ctx.digest_bits = a->p->digest_bits;
    ctx.cur_len = &rep->cur_len;
    for (int i = 0; i < a->p->n; i++) {
        double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
        int rc = kat_generate(&ctx, a->p->kinds[i], a->p->paths[i], rep->sha256[i], &err);
        if (rc == 1) {
            rep->fault = ctx.fault;
            return CHILD_FAULT;
        }
        if (rc != 0) {
            snprintf(rep->message, sizeof rep->message, "%s", err.msg);
            return CHILD_INTERNAL;
        }
        rep->seconds[i] = clock_s(CLOCK_MONOTONIC) - t0;
        rep->cpu_seconds[i] = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
        rep->n_done = i + 1;
    }
    rep->finished = 1;
    return CHILD_OK;
}

/* ---- the plan ---- */

static int make_plan(const kat_instance_spec *s, plan *p, hb_err *err)
{
    const char *lib;
    long long bits;
    memset(p, 0, sizeof *p);
    if (hb_json_get_str(s->build, "candidate", &p->cand, "build.json", err) != 0 ||
        hb_json_get_str(s->build, "instance", &p->inst, "build.json", err) != 0 ||
        hb_json_get_str(s->build, "library", &lib, "build.json", err) != 0 ||
        hb_json_get_int(s->build, "digest_bits", &bits, "build.json", err) != 0)
        return -1;
    p->digest_bits = (int)bits;
    if (hb_path_join(p->lib, sizeof p->lib, s->run_dir, lib, err) != 0)
        return -1;
    p->kinds[p->n++] = KAT_2_12;
    p->kinds[p->n++] = KAT_2_23;
    if (s->loop)
        p->kinds[p->n++] = KAT_LOOP;
    if (s->full)
        p->kinds[p->n++] = KAT_2_33;
    for (int i = 0; i < p->n; i++) {
        char dir[PATH_MAX];
        if (kat_file_name(p->kinds[i], p->inst, p->names[i], sizeof p->names[i], err) != 0 ||
            hb_path_join(dir, sizeof dir, s->run_dir, s->texts_rel, err) != 0 ||
            hb_path_join(p->paths[i], sizeof p->paths[i], dir, p->names[i], err) != 0)
            return -1;
        unlink(p->paths[i]); /* a stale text must not outlive a failed run */
    }
    return 0;
}

/* ---- running the child and classifying ---- */

typedef struct outcome {
    const char *status; /* NULL: the child finished; compare the files */
    char reason[HB_ERR_MAX + 256];
} outcome;

static void classify(const plan *p, const child_report *rep, const hb_proc_result *res,
                     double timeout_s, outcome *o)
{
    char how[128], where[400] = "";
    if (rep->n_done < p->n)
        snprintf(where, sizeof where, " in %s at Msg_Len = %llu", p->names[rep->n_done],
                 rep->cur_len);
    o->status = NULL;
    if (res->timed_out) {
        o->status = "TIMEOUT";
        snprintf(o->reason, sizeof o->reason, "no result within %.0f s%s",
                 timeout_s, where);
    } else if (res->signaled && res->signo == SIGXCPU) {
        o->status = "TIMEOUT";
        snprintf(o->reason, sizeof o->reason, "no result within %.0f s of CPU time%s",
                 timeout_s, where);
    } else if (res->signaled) {
        o->status = "CRASH";
        snprintf(o->reason, sizeof o->reason, "%s%s",
                 hb_proc_describe(res, how, sizeof how), where);
    } else if (res->exit_code == CHILD_LOADFAIL) {
        o->status = "LOADFAIL";
        snprintf(o->reason, sizeof o->reason, "cannot load CryptHash: %s", rep->message);
    } else if (res->exit_code == CHILD_FAULT) {
        o->status = rep->fault.kind == KAT_FAULT_OVERFLOW ? "OVERFLOW" : "ERROR";
        snprintf(o->reason, sizeof o->reason, "%s%s", rep->fault.detail, where);
    } else if (res->exit_code == CHILD_INTERNAL) {
        o->status = "ERROR";
        snprintf(o->reason, sizeof o->reason, "the KAT run failed%s: %.850s", where,
                 rep->message);
    } else if (!rep->finished) {
        o->status = "ERROR";
        snprintf(o->reason, sizeof o->reason, "the library ended the process "
                 "(%s)%s", hb_proc_describe(res, how, sizeof how), where);
    }
}

static int run_child(const kat_instance_spec *s, const plan *p, child_report *rep,
                     outcome *o, hb_err *err)
{
    hb_proc_opts po = hb_proc_defaults();
    hb_proc_result res;
    double timeout = s->timeout_s > 0 ? s->timeout_s : KAT_DEFAULT_TIMEOUT_S;
    child_arg a = {p, rep, (unsigned long)timeout + 2};
    po.timeout_s = timeout;
    po.as_bytes = s->full ? KAT_AS_LIMIT_FULL : KAT_AS_LIMIT;
    po.fsize_bytes = KAT_FSIZE_LIMIT;
    if (hb_proc_fork(child_main, &a, &po, &res, err) != 0)
        return -1;
    for (int i = 0; i < p->n; i++) { /* what a killed child's hb_atomic left */
        char tmp[PATH_MAX + 32];
        snprintf(tmp, sizeof tmp, "%s.tmp.%ld", p->paths[i], rep->pid);
        unlink(tmp);
    }
    rep->message[sizeof rep->message - 1] = '\0';
    rep->fault.detail[sizeof rep->fault.detail - 1] = '\0';
    if (rep->n_done < 0 || rep->n_done > p->n)
        rep->n_done = 0;
    classify(p, rep, &res, timeout, o);
    return 0;
}

/* ---- comparison ---- */

typedef struct expectations {
    strlist files;          /* texts in Test_Vector(s) folders */
    kat_manifest manifest;
    int have_manifest;
    char manifest_error[HB_ERR_MAX];
    const char *package;
    const char *prefer;     /* the instance's source folder */
} expectations;

static void load_expectations(const json_t *build, expectations *x)
{
    hb_err err;
    char path[PATH_MAX];
    memset(x, 0, sizeof *x);
    x->package = json_string_value(json_object_get(build, "package"));
    x->prefer = json_string_value(json_object_get(build, "source_dir"));
    if (!x->package || !hb_is_dir(x->package))
        return;
    if (kat_vectors_list(x->package, &x->files, &err) != 0)
        snprintf(x->manifest_error, sizeof x->manifest_error, "%s", err.msg);
    snprintf(path, sizeof path, "%s/%s", x->package, KAT_MANIFEST_NAME);
    if (!hb_is_file(path))
        return;
    if (kat_manifest_load(path, &x->manifest, &err) == 0)
        x->have_manifest = 1;
    else
        snprintf(x->manifest_error, sizeof x->manifest_error, "%s", err.msg);
}

static void free_expectations(expectations *x)
{
    strlist_free(&x->files);
    kat_manifest_free(&x->manifest);
}

int kat_instance_expected(const json_t *build, const char *name, char sha[HB_SHA256_HEX])
{
    expectations x;
    hb_err err;
    const char *inst = json_string_value(json_object_get(build, "instance"));
    load_expectations(build, &x);
    const char *text = kat_vectors_match(&x.files, name, x.prefer);
    const kat_manifest_entry *m = x.have_manifest && inst ?
        kat_manifest_find(&x.manifest, inst, name) : NULL;
    int rc = 0;
    if (text)
        rc = kat_file_sha256(text, sha, &err) == 0 ? 1 : -1;
    else if (x.manifest_error[0])
        rc = -1;
    else if (m) {
        memcpy(sha, m->sha256, HB_SHA256_HEX);
        rc = 1;
    }
    free_expectations(&x);
    return rc;
}

typedef struct file_result {
    const char *verdict;
    char expected[HB_SHA256_HEX];
    const char *from;       /* "file", "manifest" or NULL */
    char source[PATH_MAX];  /* for the log */
    int has_diff;
    unsigned long long diff_len;
    char detail[HB_ERR_MAX + 64];
} file_result;

static void compare_one(const expectations *x, const plan *p, int i, const char *gen_sha,
                        file_result *f)
{
    hb_err err;
    const char *text = kat_vectors_match(&x->files, p->names[i], x->prefer);
    const kat_manifest_entry *m = x->have_manifest ?
        kat_manifest_find(&x->manifest, p->inst, p->names[i]) : NULL;
    memset(f, 0, sizeof f[0]);
    if (text) {
        kat_cmp c;
        f->from = "file";
        snprintf(f->source, sizeof f->source, "%s", text + strlen(x->package) + 1);
        if (kat_compare_files(p->paths[i], text, &c, &err) != 0) {
            f->verdict = "MISMATCH";
            snprintf(f->detail, sizeof f->detail, "%s", err.msg);
            return;
        }
        memcpy(f->expected, c.expected_sha256, sizeof f->expected);
        f->verdict = c.equal ? "PASS" : "MISMATCH";
        f->has_diff = c.has_diff_len;
        f->diff_len = c.first_diff_msg_len;
        snprintf(f->detail, sizeof f->detail, "%s", c.detail);
    } else if (x->manifest_error[0]) {
        f->verdict = "MISMATCH";
        snprintf(f->detail, sizeof f->detail, "%s", x->manifest_error);
    } else if (m) {
        f->from = "manifest";
        snprintf(f->source, sizeof f->source, "%s line %ld", KAT_MANIFEST_NAME, m->line);
        memcpy(f->expected, m->sha256, sizeof f->expected);
        f->verdict = strcmp(m->sha256, gen_sha) == 0 ? "PASS" : "MISMATCH";
        if (strcmp(f->verdict, "PASS") != 0)
            snprintf(f->detail, sizeof f->detail, "%s: canonical SHA-256 differs from "
                     "%s line %ld", p->names[i], KAT_MANIFEST_NAME, m->line);
    } else {
        f->verdict = "NOKAT";
    }
}

/* The instance status from the file verdicts (the child finished). */
static const char *aggregate(const plan *p, const file_result *f, char *reason, size_t rsz)
{
    int pass = 0;
    for (int i = 0; i < p->n; i++) {
        if (strcmp(f[i].verdict, "MISMATCH") == 0) {
            snprintf(reason, rsz, "%s", f[i].detail);
            return "MISMATCH";
        }
        pass += strcmp(f[i].verdict, "PASS") == 0;
    }
    if (pass == 0) {
        snprintf(reason, rsz, "no submitted vectors for this instance (Test_Vector "
                 "folder or %s); texts generated, nothing compared", KAT_MANIFEST_NAME);
        return "NOKAT";
    }
    for (int i = 0; i < p->n; i++)
        if (strcmp(f[i].verdict, "NOKAT") == 0) {
            snprintf(reason, rsz, "%s: no submitted vector to compare with", p->names[i]);
            break;
        }
    return "PASS";
}

/* ---- log and entry ---- */

static const char *str_or(const json_t *o, const char *k, const char *dflt)
{
    const char *v = json_string_value(json_object_get(o, k));
    return v ? v : dflt;
}

static void log_header(FILE *fp, const kat_instance_spec *s, const plan *p,
                       const char *lib_sha)
{
    fprintf(fp, "hashbench %s KAT log\n", HB_VERSION);
    fprintf(fp, "candidate: %s\ninstance: %s\n", p->cand, p->inst);
    fprintf(fp, "library: %s\nlibrary_sha256: %s\n", str_or(s->build, "library", ""), lib_sha);
    fprintf(fp, "digest_bits: %d\nvariant: %s\n", p->digest_bits,
            str_or(s->build, "variant", ""));
    fprintf(fp, "flags_kind: %s\nflags: %s\n", str_or(s->build, "flags_kind", ""),
            str_or(s->build, "flags", ""));
    fprintf(fp, "compiler: %s\n", str_or(s->build, "compiler_version",
                                         str_or(s->build, "compiler", "")));
    fprintf(fp, "procedure: SPEC 3 official KAT (");
    for (int i = 0; i < p->n; i++)
        fprintf(fp, "%s%s", i ? " " : "", kat_kind_prefix(p->kinds[i]));
    fprintf(fp, "), timeout %.0f s\n",
            s->timeout_s > 0 ? s->timeout_s : KAT_DEFAULT_TIMEOUT_S);
}

static void log_file_line(FILE *fp, const plan *p, int i, const child_report *rep,
                          const file_result *f)
{
    if (i < rep->n_done)
        fprintf(fp, "%s %.3f s (cpu %.3f s) generated %s expected %s%s%s%s %s\n",
                p->names[i], rep->seconds[i], rep->cpu_seconds[i], rep->sha256[i],
                f->expected[0] ? f->expected : "none",
                f->from ? " (" : "", f->from ? f->source : "", f->from ? ")" : "",
                f->verdict);
    else
        fprintf(fp, "%s - generated none expected none %s\n", p->names[i], f->verdict);
    if (f->detail[0])
        fprintf(fp, "  %s\n", f->detail);
}

static json_t *file_json(const plan *p, int i, const child_report *rep, const file_result *f)
{
    int done = i < rep->n_done;
    return json_pack("{s:s, s:o, s:o, s:o, s:s, s:o, s:o, s:o}",
        "name", p->names[i],
        "generated_sha256", done ? json_string(rep->sha256[i]) : json_null(),
        "expected_sha256", f->expected[0] ? json_string(f->expected) : json_null(),
        "expected_from", f->from ? json_string(f->from) : json_null(),
        "verdict", f->verdict,
        "seconds", done ? json_real((double)(long long)(rep->seconds[i] * 1e4) / 1e4)
                        : json_null(),
        "cpu_seconds", done ? json_real((double)(long long)(rep->cpu_seconds[i] * 1e4)
                                        / 1e4) : json_null(),
        "first_diff_msg_len", f->has_diff ? json_integer((json_int_t)f->diff_len)
                                          : json_null());
}

/* Writes the log and returns its SHA-256; FILES gets the per-file JSON. */
static int write_log(const kat_instance_spec *s, const plan *p, const char *lib_sha,
                     const child_report *rep, const file_result *f,
                     const char *status, const char *reason, char log_sha[HB_SHA256_HEX],
                     json_t *files, hb_err *err)
{
    char *text = NULL, path[PATH_MAX];
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    if (!fp)
        return hb_fail(err, "out of memory for the KAT log");
    log_header(fp, s, p, lib_sha);
    for (int i = 0; i < p->n; i++) {
        log_file_line(fp, p, i, rep, &f[i]);
        json_array_append_new(files, file_json(p, i, rep, &f[i]));
    }
    if (reason[0])
        fprintf(fp, "NOTE %s\n", reason);
    fprintf(fp, "RESULT %s %s %s\n", p->cand, p->inst, status);
    fclose(fp);
    int rc = hb_path_join(path, sizeof path, s->run_dir, s->log_rel, err);
    if (rc == 0)
        rc = hb_write_atomic(path, text, len, err);
    hb_sha256_buf_hex(text, len, log_sha);
    free(text);
    return rc;
}

/* Verdicts for every planned file after the child ended as O says. */
static const char *judge(const plan *p, const child_report *rep, const json_t *build,
                         const outcome *o, file_result *f, char *reason, size_t rsz)
{
    expectations x;
    load_expectations(build, &x);
    for (int i = 0; i < p->n; i++) {
        if (i < rep->n_done) {
            compare_one(&x, p, i, rep->sha256[i], &f[i]);
        } else {
            memset(&f[i], 0, sizeof f[i]);
            f[i].verdict = i == rep->n_done && o->status ? o->status : "NOTRUN";
        }
    }
    free_expectations(&x);
    if (o->status) {
        snprintf(reason, rsz, "%s", o->reason);
        return o->status;
    }
    return aggregate(p, f, reason, rsz);
}

int kat_instance_run(const kat_instance_spec *s, json_t **out, hb_err *err)
{
    plan p;
    outcome o;
    file_result f[KAT_KIND_COUNT];
    char lib_sha[HB_SHA256_HEX] = "", log_sha[HB_SHA256_HEX], reason[HB_ERR_MAX + 256];
    *out = NULL;
    if (make_plan(s, &p, err) != 0)
        return -1;
    if (hb_sha256_file_hex(p.lib, lib_sha, err) != 0)
        snprintf(lib_sha, sizeof lib_sha, "%s", "none");
    child_report *rep = mmap(NULL, sizeof *rep, PROT_READ | PROT_WRITE,
                             MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (rep == MAP_FAILED)
        return hb_fail_errno(err, "cannot map the KAT report area");
    memset(rep, 0, sizeof *rep);
    int rc = run_child(s, &p, rep, &o, err);
    json_t *files = json_array();
    if (rc == 0) {
        const char *status = judge(&p, rep, s->build, &o, f, reason, sizeof reason);
        rc = write_log(s, &p, lib_sha, rep, f, status, reason, log_sha, files, err);
        if (rc == 0)
            *out = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:n, s:O, s:s}",
                "candidate", p.cand, "instance", p.inst, "status", status,
                "log", s->log_rel, "log_sha256", log_sha,
                "library", str_or(s->build, "library", ""), "library_sha256", lib_sha,
                "flags_kind", str_or(s->build, "flags_kind", "guide"),
                "flags", str_or(s->build, "flags", ""), "guide",
                "files", files, "reason", reason);
        if (rc == 0 && !*out)
            rc = hb_fail(err, "out of memory for the kat.json entry");
    }
    json_decref(files);
    munmap(rep, sizeof *rep);
    return rc;
}
