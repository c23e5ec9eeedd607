/* The measurement stage driver: see measure.h. It reads build.json and
 * kat.json (their paths, the record paths and the library of each instance
 * come from rundir/), selects the counter and measures its rate once on
 * the pinned core, then lays out a cell for every instance and size whose
 * record is not current, groups the cells with the baselines their
 * planner asks for, and hands them to the planner's row (planners.h),
 * writing each record atomically as the planner hands its cell back. */
#include "measure/measure.h"

#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "common/clock.h"

#include "common/fs.h"
#include "common/json.h"
#include "common/proc.h"
#include "kat/kat_instance.h"
#include "measure/counter.h"
#include "measure/guard.h"
#include "measure/harness.h"
#include "measure/host.h"
#include "measure/outside.h"
#include "rundir/baselines.h"
#include "measure/plan.h"
#include "measure/planners.h"
#include "measure/record.h"
#include "measure/verify.h"
#include "measure/windows.h"
#include "measure/xcheck.h"
#include "rundir/ibudget.h"
#include "rundir/rundir.h"

#define MEMORY_TIMEOUT_S 120.0
#define WINDOWS_TIMEOUT_S 60.0 /* for a session to open, or a window to end */

typedef struct measure_ctx {
    const measure_options *o;
    measure_settings given;   /* o->settings with the defaults filled in */
    plan_settings settings;
    counter_kind counter;
    double rate_hz;
    char probe[PATH_MAX];
    int cpu;
    int done, total, failed;
    double exchange_ns;       /* the outside rules' fixed allowance, in every
                                 one-shot trial's request (outside.h) */
    int emulated;             /* the probes run under a user-mode emulator */
} measure_ctx;

int measure_default_cpu(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return -1;
    for (int c = CPU_SETSIZE - 1; c >= 0; c--)
        if (CPU_ISSET(c, &set))
            return c;
    return -1;
}

typedef struct rate_job {
    counter_kind kind;
} rate_job;

static int rate_child(void *arg)
{
    const rate_job *j = arg;
    double rate;
    if (counter_measure_rate(j->kind, 0.2, &rate, NULL) != 0)
        return 1;
    printf("%.17g\n", rate);
    return 0;
}

/* The counter's rate measured in a child pinned to the measuring core. */
static int host_rate(measure_ctx *c, hb_err *err)
{
    rate_job j = {c->counter};
    char *out = NULL;
    hb_proc_opts po = hb_proc_defaults();
    po.cpu = c->cpu;
    po.timeout_s = 10;
    po.capture = &out;
    hb_proc_result pr;
    if (hb_proc_fork(rate_child, &j, &po, &pr, err) != 0)
        return -1;
    c->rate_hz = out ? strtod(out, NULL) : 0;
    free(out);
    if (!(pr.exited && pr.exit_code == 0) || !(c->rate_hz > 0))
        return hb_fail(err, "cannot measure the rate of the counter %s on cpu %d",
                       counter_name(c->counter), c->cpu);
    return 0;
}

#define EXCHANGE_TRIALS 5

/* The exchange's share of the outside rules' allowance on this host
 * (outside.h), and whether the probes run under an emulator, from a few
 * short trials of hashbench's own OpenSSL SM3 library (beside the probe):
 * trusted code, so whatever CPU time their windows show beyond the loop and
 * the modelled work is the host's. Without that library the defaults
 * stay. */
static int calibrate_exchange(measure_ctx *c, hb_err *err)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", c->probe);
    char *slash = strrchr(dir, '/');
    if (!slash)
        return 0;
    *slash = '\0';
    trial_request rq;
    memset(&rq, 0, sizeof rq);
    rq.probe_path = c->probe;
    rq.run_dir = dir;
    rq.lib = hb_baseline_primary()->file;
    rq.size = 64;
    rq.calls = 8;
    rq.warmup = 2;
    rq.cpu = c->cpu;
    rq.counter = c->counter;
    rq.digest_bits = 256;
    rq.timeout_s = 30;
    char path[PATH_MAX];
    if (hb_path_join(path, sizeof path, dir, rq.lib, err) != 0)
        return -1;
    if (!hb_is_file(path))
        return 0;
    double untimed[EXCHANGE_TRIALS];
    size_t n = 0;
    int emulated = 0;
    for (int i = 0; i < EXCHANGE_TRIALS; i++) {
        trial_result r;
        if (trial_run(&rq, &r, err) != 0)
            return -1;
        emulated |= r.emulator;
        if (r.outside.known && r.calls == rq.calls)
            untimed[n++] = (double)r.outside.window_cpu_ns - (double)r.ns -
                           ((double)r.outside.allowance_ns - OUTSIDE_EXCHANGE_NS);
    }
    c->exchange_ns = outside_exchange_of(untimed, n);
    c->emulated = emulated;
    return 0;
}

static const json_t *find_kat(const json_t *kat, const char *cand, const char *inst)
{
    const json_t *arr = kat ? json_object_get(kat, "instances") : NULL;
    for (size_t i = 0; i < json_array_size(arr); i++) {
        const json_t *e = json_array_get(arr, i);
        const char *c = json_string_value(json_object_get(e, "candidate"));
        const char *n = json_string_value(json_object_get(e, "instance"));
        if (c && n && !strcmp(c, cand) && !strcmp(n, inst))
            return e;
    }
    return NULL;
}

static int selected(const measure_options *o, const char *cand, const char *inst)
{
    if (!o->instances || o->n_instances == 0)
        return 1;
    char full[512];
    snprintf(full, sizeof full, "%s/%s", cand, inst);
    for (int i = 0; i < o->n_instances; i++)
        if (!strcmp(o->instances[i], inst) || !strcmp(o->instances[i], full))
            return 1;
    return 0;
}

static int safe_name(const char *s)
{
    if (!s || !*s || s[0] == '.')
        return 0;
    return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                     "0123456789_-.+") == strlen(s);
}

/* 1 for a KAT status that says the library misbehaved under test (it
 * crashed, hung, did not load, wrote out of bounds or failed a call): such
 * an instance is not timed, whatever the planner's budget. Another failed
 * status (a MISMATCH) is timed only with time_failed, its records flagged. */
static int kat_misbehaved(const char *status)
{
    static const char *const bad[] = {"CRASH", "TIMEOUT", "LOADFAIL", "OVERFLOW", "ERROR"};
    for (size_t i = 0; status && i < sizeof bad / sizeof bad[0]; i++)
        if (strcmp(status, bad[i]) == 0)
            return 1;
    return 0;
}

/* The instance of build.json entry B that will be timed, or NULL. */
typedef struct measure_target {
    const json_t *build, *kat;
    const char *cand, *inst, *lib, *lib_sha, *flags_kind, *flags;
    int digest_bits;
    int baseline;        /* a baseline of build.json ("baseline") */
    int primary;         /* the primary baseline (OpenSSL SM3) */
    int package;         /* a package named as a baseline ("baseline_package") */
} measure_target;

static int target_of(const json_t *b, const json_t *kat, int time_failed,
                     measure_target *t, const char *file, size_t idx, hb_err *err)
{
    memset(t, 0, sizeof *t);
    t->build = b;
    t->cand = json_string_value(json_object_get(b, "candidate"));
    t->inst = json_string_value(json_object_get(b, "instance"));
    if (!safe_name(t->cand) || !safe_name(t->inst))
        return hb_fail_at(err, file, 0, "instances[%zu]: candidate or instance "
                          "name missing or not usable as a file name; rebuild", idx);
    const char *status = json_string_value(json_object_get(b, "status"));
    const char *excl = json_string_value(json_object_get(b, "exclude_timing"));
    if (!status || strcmp(status, "BUILT") != 0 || (excl && *excl))
        return 0;
    t->kat = find_kat(kat, t->cand, t->inst);
    const char *kat_status = json_string_value(json_object_get(t->kat, "status"));
    if (kat_misbehaved(kat_status) ||
        (!time_failed && kat_status && kat_status_failed(kat_status)))
        return 0;
    rundir_library lib;
    rundir_instance_library(b, t->kat, &lib);
    t->lib = lib.library;
    t->lib_sha = lib.library_sha256;
    t->flags_kind = lib.flags_kind;
    t->flags = lib.flags;
    t->digest_bits = (int)json_integer_value(json_object_get(b, "digest_bits"));
    t->baseline = json_is_true(json_object_get(b, "baseline"));
    t->package = t->baseline && json_is_true(json_object_get(b, "baseline_package"));
    /* build.json before "baseline_primary": its only baseline, OpenSSL SM3 */
    const json_t *prim = json_object_get(b, "baseline_primary");
    t->primary = t->baseline && !t->package &&
                 (json_is_boolean(prim) ? json_is_true(prim)
                                        : rundir_is_baseline(t->cand, t->inst));
    if (!t->lib || t->digest_bits <= 0)
        return hb_fail_at(err, file, 0, "instances[%zu] (%s/%s): library or "
                          "digest_bits missing; rebuild", idx, t->cand, t->inst);
    return 1;
}

static void read_host(int cpu, host_info *h)
{
    hb_err e;
    if (host_read("/", cpu, h, &e) != 0) {
        memset(h, 0, sizeof *h);
        h->turbo = h->smt = -1;
        h->perf_event_paranoid = -99;
        h->loadavg1 = -1;
    }
}

/* The wall budget of target T's instance (rundir/ibudget.h); hashbench's
 * own baseline has none. */
static ibudget target_budget(const measure_ctx *c, const measure_target *t)
{
    ibudget b = {c->o->run_dir, t->cand, t->inst,
                 t->baseline ? 0 : c->o->instance_budget_s};
    return b;
}

/* The failure of a cell whose instance's budget B is spent. */
static void budget_failure(const ibudget *b, char *failure, size_t sz)
{
    char r[480];
    ibudget_reason(b, r, sizeof r);
    snprintf(failure, sz, "TIMEOUT: %s", r);
}

/* A process of T's that runs submitted code, STEP_S seconds at most on its
 * own: its wall-clock limit into *TIMEOUT_S, the smaller of STEP_S and
 * what is left of the instance's budget. 1 when the budget is spent (the
 * process is not started: FAILURE says so), 0, or -1. */
static int budget_step(const measure_ctx *c, const measure_target *t, double step_s,
                       double *timeout_s, int *limited, char *failure, size_t sz,
                       hb_err *err)
{
    ibudget b = target_budget(c, t);
    *timeout_s = step_s;
    *limited = 0;
    if (b.budget_s <= 0)
        return 0;
    int spent = ibudget_spent(&b, err);
    if (spent < 0 || ibudget_step_timeout(&b, step_s, timeout_s, limited, err) != 0)
        return -1;
    if (spent)
        budget_failure(&b, failure, sz);
    return spent;
}

/* Charges SECONDS of wall time to T's instance's budget. */
static int budget_pay(const measure_ctx *c, const measure_target *t, double seconds,
                      hb_err *err)
{
    ibudget b = target_budget(c, t);
    return b.budget_s > 0 ? ibudget_charge(&b, IBUDGET_MEASURE, seconds, err) : 0;
}

/* The memory run of a cell whose trials went well: one call with
 * --memory, charged to the instance's budget, whose rest limits it.
 * Returns 0 (FAILURE/INCONSISTENT set when it did not go well) or -1. */
static int memory_run(const measure_ctx *c, const measure_target *t,
                      const trial_request *rq, trial_result *mem, char *failure,
                      size_t sz, int *inconsistent, hb_err *err)
{
    trial_request mq = *rq;
    mq.memory = 1;
    mq.calls = 1;
    mq.warmup = 0;
    mq.budget.budget_s = 0; /* charged here, its time-out named so */
    int limited, spent = budget_step(c, t, MEMORY_TIMEOUT_S, &mq.timeout_s, &limited,
                                     failure, sz, err);
    if (spent != 0)
        return spent < 0 ? -1 : 0;
    double t0 = hb_mono_s();
    if (trial_run(&mq, mem, err) != 0)
        return -1;
    double took = hb_mono_s() - t0;
    if (budget_pay(c, t, took, err) != 0)
        return -1;
    if (!mem->ok && limited && took >= mq.timeout_s) {
        ibudget b = target_budget(c, t);
        budget_failure(&b, failure, sz);
    } else if (!mem->ok) {
        snprintf(failure, sz, "memory run: %s", mem->failure);
        *inconsistent = mem->inconsistent;
    }
    return 0;
}

/* The loaded image of the library of build entry B (build.json
 * static_size.image), -1 unknown. */
static long long static_image_bytes(const json_t *b)
{
    const json_t *v = json_object_get(json_object_get(b, "static_size"), "image");
    return json_is_integer(v) ? (long long)json_integer_value(v) : -1;
}

/* KiB a timed session of messages of SIZE bytes may grow, from before it
 * loaded the library to its peak, beyond the library's loaded image and the
 * stack and heap its memory run found: what loading costs the dynamic
 * linker (its own allocations, relocated pages, each segment rounded to
 * pages) and the pages of the library's code and of the probe's check
 * buffers first touched. The examples grow by 25 to 181 KiB beyond their
 * image, stack and heap up to 16 KiB messages, 145 to 289 KiB at 64 KiB:
 * 384 KiB and twice the message leave about 1.8 times that. */
static long long memory_slack_kb(unsigned long long size)
{
    return 384 + (long long)(2 * size / 1024);
}

/* 1 with WHY when the timed session PO grew by more than the memory run MEM
 * found the library to use (its stack and heap) and its loaded image
 * (IMAGE_BYTES) account for, with memory_slack_kb(SIZE): its memory figures would not describe the
 * code that was timed (a library that saves its memory for the run that
 * measures it, that grows with the calls made, or that takes memory the
 * memory run does not count). The growth is counted from the session's
 * reading before the library was loaded, which no library can lower, else
 * from its open. Not applied to hashbench's own baselines (OpenSSL's
 * libcrypto comes with them) nor to an emulated probe, whose emulator grows
 * its own code cache as it runs. */
static int memory_inconsistent(const plan_outcome *po, const trial_result *mem,
                               unsigned long long size, long long image_bytes,
                               int trusted, int emulated, char *why, size_t n)
{
    if (!po->session || !po->rss_known || trusted || emulated || !mem->ok ||
        mem->stack_peak_bytes < 0 || mem->heap_peak_bytes < 0)
        return 0;
    int preload = po->rss_preload_kb > 0;
    long long from = preload ? po->rss_preload_kb : po->rss_open_kb;
    long long grew = po->rss_peak_kb - from;
    long long found = (mem->stack_peak_bytes + mem->heap_peak_bytes + 1023) / 1024;
    long long image = preload && image_bytes > 0 ? (image_bytes + 1023) / 1024 : 0;
    long long slack = memory_slack_kb(size);
    return guard_growth(grew, from, preload, po->rss_peak_kb, image, found, slack, why, n);
}

/* The runner's check of the trials' digests (verify.h). */
static int check_digests(const measure_ctx *c, const measure_target *t, unsigned size,
                         const plan_outcome *po, verify_report *vr, char *failure,
                         size_t sz, int *inconsistent, hb_err *err)
{
    char rel[PATH_MAX], lib[PATH_MAX], why[512];
    if (hb_path_join(rel, sizeof rel, c->o->run_dir, t->lib, err) != 0)
        return -1;
    if (!realpath(rel, lib))
        return hb_fail_errno(err, "%s: the library went missing during measurement", rel);
    double limit;
    int limited, spent = budget_step(c, t, VERIFY_MAX_TIMEOUT_S, &limit, &limited, failure,
                                     sz, err);
    if (spent != 0)
        return spent < 0 ? -1 : 0;
    double t0 = hb_mono_s();
    int rc = verify_outcome(lib, t->digest_bits, size, po, limit, vr, why, sizeof why, err);
    double took = hb_mono_s() - t0;
    if (rc >= 0 && budget_pay(c, t, took, err) != 0)
        return -1;
    if (rc == 1 && limited && took >= limit) {
        ibudget b = target_budget(c, t);
        budget_failure(&b, failure, sz);
    } else if (rc == 1) {
        guard_text(failure, sz, GUARD_DIGESTS, "%s", why);
        *inconsistent = 1;
    }
    return rc < 0 ? -1 : 0;
}

/* The request of target T at SIZE, before the planner sets its calls. */
static void request_of(const measure_ctx *c, const measure_target *t, unsigned size,
                       trial_request *rq)
{
    memset(rq, 0, sizeof *rq);
    rq->probe_path = c->probe;
    rq->run_dir = c->o->run_dir;
    rq->lib = t->lib;
    rq->size = size;
    rq->cpu = c->cpu;
    rq->counter = c->counter;
    rq->digest_bits = t->digest_bits;
    rq->exchange_ns = c->exchange_ns;
    rq->emulated = c->emulated;
    rq->budget = target_budget(c, t); /* every trial process is charged */
}

/* The record of target T at SIZE from its planned trials PO (taken under
 * host facts BEFORE): the memory run and the digests' check when the
 * trials went well, then the record written atomically to PATH. */
static int finish_cell(measure_ctx *c, const measure_target *t, unsigned size,
                       const char *path, const host_info *before, plan_outcome *po,
                       hb_err *err)
{
    trial_request rq;
    request_of(c, t, size, &rq);
    trial_result mem;
    memset(&mem, 0, sizeof mem);
    verify_report vr = {0, -1, 0};
    char failure[640] = "";
    int inconsistent = po->inconsistent, rc = 0;
    if (!po->ok)
        snprintf(failure, sizeof failure, "%s", po->failure);
    else
        rc = memory_run(c, t, &rq, &mem, failure, sizeof failure, &inconsistent, err);
    if (rc == 0 && !failure[0] &&
        memory_inconsistent(po, &mem, size, static_image_bytes(t->build),
                            t->baseline && !t->package, c->emulated, failure,
                            sizeof failure))
        inconsistent = 1;
    if (rc == 0 && !failure[0] && !po->session)
        rc = check_digests(c, t, size, po, &vr, failure, sizeof failure, &inconsistent,
                           err);
    if (rc != 0)
        return -1;
    host_info after;
    read_host(c->cpu, &after);
    rq.calls = po->calls_per_trial;
    rq.warmup = po->warmup_calls;
    json_t *cmd = trial_command_json(&rq);
    json_t *env = record_environment(before, &after,
        json_string_value(json_object_get(t->build, "compiler_version")),
        c->counter, c->rate_hz);
    json_object_set_new(env, "cpu", json_integer(c->cpu)); /* the measuring core */
    record_input in = {t->build, t->kat, t->lib, t->lib_sha, t->flags_kind,
                       t->flags, size, cmd, env, &c->settings, po, &mem, failure,
                       inconsistent, &vr, c->exchange_ns};
    json_t *rec = record_build(&in, err);
    rc = rec ? hb_json_save(path, rec, err) : -1;
    json_decref(rec);
    json_decref(cmd);
    json_decref(env);
    if (rc == 0 && failure[0])
        c->failed++;
    return rc;
}

/* The record path of target T at SIZE. */
static int record_path(const measure_ctx *c, const measure_target *t, unsigned size,
                       char *path, size_t sz, hb_err *err)
{
    char rel[1024];
    if (rundir_record_rel(rel, sizeof rel, t->cand, t->inst, size, err) != 0)
        return -1;
    return rundir_path(path, sz, c->o->run_dir, rel, err);
}

/* ---- the stage, as its planner (planners.h) sees it ---- */

/* One cell of the stage: its target, size and record; WRITE 0 for a
 * baseline cell that only pairs (its record is current, or not
 * selected). */
typedef struct ilv_slot {
    const measure_target *t;
    unsigned size;
    int write;
    char path[PATH_MAX];
    char key[PATH_MAX + 80]; /* the journal's: the path and the library's SHA-256 */
    int written;             /* its record is written (or it has none) */
} ilv_slot;

typedef struct ilv_stage {
    measure_ctx *c;
    ilv_slot *slots;
    ilv_cell *cells;
    size_t n;
    char journal[PATH_MAX];
    host_info before;         /* the host before the stage's trials, or
                                 before the cell's when cells are taken one
                                 after another */
    const measure_target **checked; /* instances whose verifier is chosen ... */
    xcheck_plan *plans;              /* ... and their verifiers */
    size_t n_checked;
} ilv_stage;

static void round_done(void *ctx, int round, size_t active)
{
    ilv_stage *st = ctx;
    if (st->c->o->progress) {
        char step[128];
        snprintf(step, sizeof step, "measure round %d: %zu cells still taking trials",
                 round + 1, active);
        size_t ended = 0;
        for (size_t i = 0; i < st->n; i++)
            ended += st->slots[i].write && !st->cells[i].active;
        st->c->o->progress(st->c->o->progress_ctx, step, st->c->done + (int)ended,
                           st->c->total);
    }
}

/* plan_stage: cell I's trials start now (cells taken one after another). */
static int cell_start(void *ctx, size_t i, hb_err *err)
{
    (void)err;
    ilv_stage *st = ctx;
    if (st->c->o->progress) {
        char step[600];
        snprintf(step, sizeof step, "measure %s/%s %u B", st->slots[i].t->cand,
                 st->slots[i].t->inst, st->slots[i].size);
        st->c->o->progress(st->c->o->progress_ctx, step, st->c->done, st->c->total);
    }
    read_host(st->c->cpu, &st->before);
    return 0;
}

/* The index of the baseline's cell at SIZE in ST, added as a pairing-only
 * cell when it is not there; -1 when there is no baseline. */
static long baseline_cell(ilv_stage *st, const measure_target *base, unsigned size,
                          hb_err *err)
{
    if (!base)
        return -1;
    for (size_t i = 0; i < st->n; i++)
        if (st->slots[i].t == base && st->slots[i].size == size)
            return (long)i;
    ilv_slot *sl = &st->slots[st->n];
    sl->t = base;
    sl->size = size;
    sl->write = 0;
    if (record_path(st->c, base, size, sl->path, sizeof sl->path, err) != 0)
        return -2;
    snprintf(sl->key, sizeof sl->key, "%s %s", sl->path, base->lib_sha ? base->lib_sha : "");
    request_of(st->c, base, size, &st->cells[st->n].tmpl);
    st->cells[st->n].baseline = -1;
    st->cells[st->n].trusted = base->baseline && !base->package;
    st->cells[st->n].pair_only = 1; /* sessions: windows in others' groups only */
    return (long)st->n++;
}

/* The wall budget of a cell's instance (rundir/ibudget.h); hashbench's own
 * baseline has none. */
static ibudget budget_of(const ilv_stage *st, size_t cell)
{
    return target_budget(st->c, st->slots[cell].t);
}

static int budget_left(void *ctx, size_t cell, double *left, hb_err *err)
{
    ibudget b = budget_of(ctx, cell);
    *left = HUGE_VAL;
    return b.budget_s > 0 ? ibudget_left(&b, left, err) : 0;
}

/* The independent check of one cell's sampled digests (windows.h): the
 * verifier xcheck_choose picks for its instance (OpenSSL, another variant,
 * or its own library in a fresh runner; only the last with
 * --no-independent-check), each sampled message rebuilt from its window's
 * key and the digest before it. */
static int verify_cell(void *ctx, size_t cell, const windows_sample *s, size_t n,
                       unsigned long long size, int digest_bits, char *by, size_t bysz,
                       char *why, size_t whysz, hb_err *err)
{
    ilv_stage *st = ctx;
    const measure_target *t = st->slots[cell].t;
    int allow = st->c->o->no_independent_check ? XCHECK_SELF : XCHECK_ALL;
    /* the choice reads the instance's vectors back: once per instance */
    size_t at = 0;
    while (at < st->n_checked && st->checked[at] != t)
        at++;
    if (at == st->n_checked) {
        const measure_target **ck = realloc(st->checked, (at + 1) * sizeof *ck);
        if (ck)
            st->checked = ck;
        xcheck_plan *pl = realloc(st->plans, (at + 1) * sizeof *pl);
        if (pl)
            st->plans = pl;
        if (!ck || !pl)
            return hb_fail(err, "out of memory for the digests' check");
        if (xcheck_choose(st->c->o->run_dir, t->cand, t->inst, allow, &st->plans[at],
                          err) != 0)
            return -1;
        st->checked[at] = t;
        st->n_checked++;
    }
    const xcheck_plan plan = st->plans[at];
    snprintf(by, bysz, "%s", plan.by);
    size_t d = (size_t)digest_bits / 8;
    unsigned char *msgs = malloc(n * size + 1);
    xcheck_call *calls = calloc(n ? n : 1, sizeof *calls);
    int rc = msgs && calls ? 0 : hb_fail(err, "out of memory for the digests' check");
    for (size_t i = 0; rc == 0 && i < n; i++) {
        rc = xcheck_window_message(&s[i].key, 0, size, s[i].j, s[i].prev, d,
                                   msgs + i * size, err);
        calls[i] = (xcheck_call){msgs + i * size, size, s[i].digest};
    }
    /* a runner of the instance's own code gets no more than its budget's
     * rest (windows.c charges the check with its cell's session time) */
    size_t checked = 0;
    double left = HUGE_VAL;
    if (rc == 0)
        rc = budget_left(st, cell, &left, err);
    if (rc == 0)
        rc = xcheck_calls_within(&plan, calls, n, left < XCHECK_RUNNER_TIMEOUT_S ?
                                 (left > IBUDGET_MIN_STEP_S ? left : IBUDGET_MIN_STEP_S) : 0,
                                 &checked, why, whysz, err);
    free(msgs);
    free(calls);
    return rc;
}

static void budget_reason(void *ctx, size_t cell, char *out, size_t sz)
{
    ibudget b = budget_of(ctx, cell);
    ibudget_reason(&b, out, sz);
}

static int budget_charge(void *ctx, size_t cell, double seconds, hb_err *err)
{
    ibudget b = budget_of(ctx, cell);
    return b.budget_s > 0 ? ibudget_charge(&b, IBUDGET_MEASURE, seconds, err) : 0;
}

/* Writes the record of slot I of ST (when it is to be written). */
static int write_slot(ilv_stage *st, size_t i, hb_err *err)
{
    measure_ctx *c = st->c;
    st->slots[i].written = 1;
    if (!st->slots[i].write)
        return 0;
    plan_outcome *po = &st->cells[i].out;
    if (st->cells[i].baseline >= 0)
        snprintf(po->pair_instance, sizeof po->pair_instance, "%s/%s",
                 st->slots[st->cells[i].baseline].t->cand,
                 st->slots[st->cells[i].baseline].t->inst);
    for (int k = 0; k < st->cells[i].n_baselines; k++) {
        const measure_target *b = st->slots[st->cells[i].baselines[k]].t;
        snprintf(po->pairs_instance[k], sizeof po->pairs_instance[k], "%s/%s", b->cand,
                 b->inst);
    }
    if (c->o->progress) {
        char step[600];
        snprintf(step, sizeof step, "record %s/%s %u B", st->slots[i].t->cand,
                 st->slots[i].t->inst, st->slots[i].size);
        c->o->progress(c->o->progress_ctx, step, c->done, c->total);
    }
    int rc = finish_cell(c, st->slots[i].t, st->slots[i].size, st->slots[i].path,
                         &st->before, po, err);
    c->done++;
    return rc;
}

/* plan_stage: the N CELLS are final; their records are written now, so
 * that a killed stage keeps every finished one. */
static int cells_done(void *ctx, const size_t *cells, size_t n, hb_err *err)
{
    ilv_stage *st = ctx;
    for (size_t k = 0; k < n; k++)
        if (write_slot(st, cells[k], err) != 0)
            return -1;
    return 0;
}

/* 1 when cell target T is grouped with baseline B: a built-in baseline
 * pairs every cell that is not one, a package baseline the cells of its
 * own digest length that are neither built-in nor package baselines. */
static int pairs_with(const measure_target *t, const measure_target *b)
{
    if (t == b || (t->baseline && !t->package))
        return 0;
    if (!b->package)
        return 1;
    return !t->baseline && t->digest_bits == b->digest_bits;
}

/* The stage: a cell for every selected target at every size whose record
 * is not current, each grouped with as many of the baselines at its size
 * as the planner asks for (pairs_with), then the planner's run. */
static int measure_stage(measure_ctx *c, measure_target *targets, size_t nt,
                         const measure_target *const *bases, size_t nb,
                         const unsigned *sizes, int n_sizes, hb_err *err)
{
    const plan_planner *p = plan_planner_of(&c->settings);
    size_t cap = (nt + nb) * (size_t)n_sizes + 1;
    ilv_stage st = {.c = c, .slots = calloc(cap, sizeof(ilv_slot)),
                    .cells = calloc(cap, sizeof(ilv_cell))};
    int rc = st.slots && st.cells ? 0 : hb_fail(err, "out of memory");
    if (rc == 0)
        rc = rundir_path(st.journal, sizeof st.journal, c->o->run_dir, RUNDIR_JOURNAL,
                         err);
    for (size_t i = 0; rc == 0 && i < nt; i++)
        for (int k = 0; rc == 0 && k < n_sizes; k++) {
            ilv_slot *sl = &st.slots[st.n];
            sl->t = &targets[i];
            sl->size = sizes[k];
            sl->write = 1;
            int failed = 0;
            if (record_path(c, sl->t, sizes[k], sl->path, sizeof sl->path, err) != 0)
                rc = -1;
            else if (!c->o->force &&
                     record_is_current(sl->path, &c->settings, sl->t->lib_sha, &failed)) {
                c->failed += failed;
                c->done++;
            } else {
                snprintf(sl->key, sizeof sl->key, "%s %s", sl->path,
                         sl->t->lib_sha ? sl->t->lib_sha : "");
                request_of(c, sl->t, sizes[k], &st.cells[st.n].tmpl);
                st.cells[st.n].trusted = sl->t->baseline && !sl->t->package;
                st.cells[st.n++].baseline = -1;
            }
        }
    /* every cell is grouped with the baselines at its size (pairs_with),
     * the primary's alone where the planner takes one; its pair is the
     * primary's */
    size_t own = st.n;
    for (size_t i = 0; rc == 0 && p->pairs > 0 && i < own; i++)
        for (size_t k = 0; rc == 0 && k < nb; k++) {
            if (!pairs_with(st.slots[i].t, bases[k]) || (p->pairs == 1 && !bases[k]->primary))
                continue;
            long b = baseline_cell(&st, bases[k], st.slots[i].size, err);
            if (b < -1)
                rc = -1;
            else if (st.cells[i].n_baselines == PLAN_MAX_PAIRS)
                rc = hb_fail(err, "%s/%s: more than %d baselines to pair with; name "
                             "fewer --baseline packages", st.slots[i].t->cand,
                             st.slots[i].t->inst, PLAN_MAX_PAIRS);
            else {
                st.cells[i].baselines[st.cells[i].n_baselines++] = (int)b;
                if (bases[k]->primary)
                    st.cells[i].baseline = (int)b;
            }
        }
    read_host(c->cpu, &st.before);
    const char *keys[st.n ? st.n : 1];
    for (size_t i = 0; i < st.n; i++)
        keys[i] = st.slots[i].key;
    plan_stage ps = {.cells = st.cells, .n = st.n, .s = &c->settings, .probe_path = c->probe,
                     .rate_hz = c->rate_hz, .timeout_s = WINDOWS_TIMEOUT_S,
                     .journal = st.journal, .keys = keys, .ctx = &st,
                     .cell_start = cell_start, .cells_done = cells_done,
                     .round_done = round_done, .verify = verify_cell,
                     .budget_left = budget_left, .budget_reason = budget_reason,
                     .budget_charge = budget_charge};
    /* the null library beside the probe: the harness cost (harness.h) */
    char null_lib[PATH_MAX];
    snprintf(null_lib, sizeof null_lib, "%s", c->probe);
    char *slash = strrchr(null_lib, '/');
    if (slash && (size_t)(slash + 1 - null_lib) + sizeof HARNESS_LIBRARY <= sizeof null_lib) {
        memcpy(slash + 1, HARNESS_LIBRARY, sizeof HARNESS_LIBRARY);
        ps.harness_lib = hb_is_file(null_lib) ? null_lib : NULL;
    }
    if (rc == 0)
        rc = p->run(&ps, err);
    for (size_t i = 0; i < st.n; i++) {
        if (rc == 0 && !st.slots[i].written)
            rc = write_slot(&st, i, err);
        plan_outcome_free(&st.cells[i].out);
    }
    free(st.slots);
    free(st.cells);
    free(st.checked);
    free(st.plans);
    return rc;
}

static int setup(measure_ctx *c, const measure_options *o, hb_err *err)
{
    memset(c, 0, sizeof *c);
    c->o = o;
    if (measure_settings_validate(&o->settings, NULL, NULL, err) < 0)
        return -1;
    c->given = o->settings;
    measure_settings_resolve(&c->given);
    c->settings.planner = c->given.planner;
    c->settings.min_trials = c->given.trials;
    c->settings.target_ci_percent = c->given.target_ci;
    /* no --budget: the budget rule (plan_adaptive_budget) */
    c->settings.budget_explicit = c->given.budget_s > 0;
    c->settings.budget_s = c->given.budget_s;
    c->settings.max_retries = 2;
    c->settings.max_trials = PLAN_MAX_TRIALS;
    c->cpu = o->cpu >= 0 ? o->cpu : measure_default_cpu();
    if (!o->probe_path || !realpath(o->probe_path, c->probe) ||
        access(c->probe, X_OK) != 0)
        return hb_fail(err, "%s: the probe executable is missing; build "
                       "hashbench-probe next to hashbench", o->probe_path ? o->probe_path : "(none)");
    counter_state cs;
    counter_select(&cs, NULL, NULL, err);
    c->counter = cs.kind;
    const plan_planner *p = plan_planner_of(&c->settings);
    if (p->counter)
        c->counter = p->counter(c->counter);
    if (host_rate(c, err) != 0 || calibrate_exchange(c, err) != 0)
        return -1;
    c->settings.host_rate_hz = c->rate_hz;
    c->settings.stage_start = hb_mono_s();
    uint64_t seed = 0;
    while (getrandom(&seed, sizeof seed, 0) != (ssize_t)sizeof seed)
        ;
    c->settings.seed = seed; /* a resumed stage takes its journal's */
    return 0;
}

int measure_run(const measure_options *o, int *n_failed, hb_err *err)
{
    measure_ctx c;
    if (setup(&c, o, err) != 0 || hb_remove_stale_tmp(o->run_dir, NULL, err) != 0)
        return -1;
    char path[PATH_MAX];
    json_t *build = NULL, *kat = NULL;
    if (rundir_path(path, sizeof path, o->run_dir, RUNDIR_BUILD_JSON, err) != 0 ||
        hb_json_load(path, &build, err) != 0)
        return -1;
    char katpath[PATH_MAX];
    if (rundir_path(katpath, sizeof katpath, o->run_dir, RUNDIR_KAT_JSON, err) != 0 ||
        (hb_is_file(katpath) && hb_json_load(katpath, &kat, err) != 0)) {
        json_decref(build);
        return -1;
    }
    const unsigned *sizes = c.given.sizes;
    int n_sizes = c.given.n_sizes;
    json_t *arr = json_object_get(build, "instances");
    int rc = json_is_array(arr) ? 0
             : hb_fail_at(err, path, 0, "no 'instances' array; run hashbench build");
    size_t na = json_array_size(arr);
    measure_target *targets = calloc(na + 2, sizeof *targets);
    /* the baselines, selected or not: a selected one is its target, another
     * is kept in OTHERS (every cell is paired with them all) */
    measure_target *others = calloc(na + 2, sizeof *others);
    const measure_target **bases = calloc(na + 2, sizeof *bases);
    size_t nt = 0, nb = 0, no = 0;
    if (rc == 0 && (!targets || !others || !bases))
        rc = hb_fail(err, "out of memory");
    for (size_t i = 0; rc == 0 && i < na; i++) {
        int t = target_of(json_array_get(arr, i), kat, o->time_failed, &targets[nt],
                          path, i, err);
        if (t < 0)
            rc = -1;
        else if (t > 0 && selected(o, targets[nt].cand, targets[nt].inst)) {
            if (targets[nt].baseline)
                bases[nb++] = &targets[nt];
            nt++;
        } else if (t > 0 && targets[nt].baseline) {
            others[no] = targets[nt];
            bases[nb++] = &others[no++];
        }
    }
    c.total = (int)nt * n_sizes;
    if (rc == 0)
        rc = measure_stage(&c, targets, nt, bases, nb, sizes, n_sizes, err);
    if (rc == 0 && o->progress)
        o->progress(o->progress_ctx, "measure", c.done, c.total);
    free(targets);
    free(others);
    free(bases);
    json_decref(build);
    json_decref(kat);
    if (n_failed)
        *n_failed = c.failed;
    return rc;
}
