/* Running the probe and reading its result: see trial.h. Every read on the
 * probe's pipe waits with poll() against the trial's deadline; a line is
 * taken only whole, and whatever arrives besides the lines the probe writes
 * (before the seed, after the result, or after the probe's exit) marks the
 * trial as tampered with. */
#include "measure/trial.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/digest.h"
#include "common/fs.h"
#include "common/proc.h"
#include "common/untrusted.h"
#include "probe/probe_codes.h"
#include "probe/probe_wire.h"
#include "sandbox/sandbox.h"
#include "sandbox/stage.h"
#include "common/clock.h"
#include "measure/procview.h"
#include "runner/start.h"

#define TRIAL_MAX_ARGS 24
#define TRIAL_ARG_LEN 64
#define TRIAL_EXIT_GRACE_S 2.0 /* for the probe to end once its input is closed */
#define TRIAL_SETTLE_S 0.05    /* for the probe to block before its CPU time is read */

typedef struct trial_argv {
    char *argv[TRIAL_MAX_ARGS];
    char num[8][TRIAL_ARG_LEN];
    char lib[PATH_MAX];
    int n;
} trial_argv;

static void add(trial_argv *a, const char *s)
{
    if (a->n < TRIAL_MAX_ARGS - 1)
        a->argv[a->n++] = (char *)s;
    a->argv[a->n] = NULL;
}

static void add_num(trial_argv *a, int slot, const char *key,
                    unsigned long long v)
{
    snprintf(a->num[slot], TRIAL_ARG_LEN, "%llu", v);
    add(a, key);
    add(a, a->num[slot]);
}

/* The probe's arguments with ARGV0 and the library at LIB. */
static void build_argv(const trial_request *rq, const char *argv0, const char *lib,
                       trial_argv *a)
{
    memset(a, 0, sizeof *a);
    add(a, argv0);
    /* dlopen searches the library path for a name without '/' */
    snprintf(a->lib, sizeof a->lib, "%s%s", strchr(lib, '/') ? "" : "./", lib);
    add(a, "--lib");
    add(a, a->lib);
    add_num(a, 0, "--size", rq->size);
    add_num(a, 1, rq->calibrate ? "--calibrate" : "--calls", rq->calls);
    add_num(a, 2, "--warmup", rq->warmup);
    if (rq->cpu >= 0)
        add_num(a, 3, "--cpu", (unsigned long long)rq->cpu);
    add(a, "--counter");
    add(a, counter_kind_name(rq->counter));
    add_num(a, 4, "--digest-bits", (unsigned long long)rq->digest_bits);
    if (rq->memory)
        add(a, "--memory");
}

json_t *trial_command_json(const trial_request *rq)
{
    trial_argv a;
    build_argv(rq, hb_basename(rq->probe_path), rq->lib, &a);
    json_t *arr = json_array();
    for (int i = 0; i < a.n; i++)
        json_array_append_new(arr, json_string(a.argv[i]));
    return arr;
}

/* Value of KEY= in LINE (space-separated pairs), copied into OUT. */
static int field(const char *line, const char *key, char *out, size_t outsz)
{
    size_t kl = strlen(key);
    for (const char *p = line; p && *p;) {
        if (!strncmp(p, key, kl) && p[kl] == '=') {
            const char *v = p + kl + 1;
            size_t n = strcspn(v, " \n");
            if (n >= outsz)
                return -1;
            memcpy(out, v, n);
            out[n] = '\0';
            return 0;
        }
        p = strchr(p, ' ');
        if (p)
            p++;
    }
    return -1;
}

static int field_ll(const char *line, const char *key, long long *out)
{
    char buf[32];
    char *end;
    if (field(line, key, buf, sizeof buf) != 0)
        return -1;
    *out = strtoll(buf, &end, 10);
    return *end ? -1 : 0;
}

int trial_parse_line(const char *line, trial_result *res)
{
    char status[32];
    if (field(line, "status", status, sizeof status) != 0) {
        snprintf(res->failure, sizeof res->failure, "probe printed no result");
        return -1;
    }
    if (strcmp(status, "ok") != 0) {
        /* the line may be the library's own: a known status word is kept
         * as hashbench's wording, the rest as raw text */
        const char *reason = strstr(line, "reason=");
        size_t n = reason ? strcspn(reason + 7, "\n") : 0;
        snprintf(res->failure, sizeof res->failure, "%s: the probe's failure line",
                 probe_known_word(status, strlen(status)));
        hb_untrusted_append(res->failure, sizeof res->failure, reason ? reason + 7 : "", n);
        return -1;
    }
    long long calls, ticks, ns, base;
    if (field_ll(line, "calls", &calls) || field_ll(line, "ticks", &ticks) ||
        field_ll(line, "ns", &ns) || field_ll(line, "rss_baseline_kb", &base) ||
        field(line, "digest", res->digest, sizeof res->digest) ||
        field(line, "fold", res->fold, sizeof res->fold) ||
        strlen(res->fold) != TM_FOLD_HEX - 1 || calls < 0 || ticks < 0 || ns < 0) {
        snprintf(res->failure, sizeof res->failure,
                 "probe result line lacks a timing field");
        return -1;
    }
    res->calls = (unsigned long long)calls;
    res->ticks = (unsigned long long)ticks;
    res->ns = (unsigned long long)ns;
    res->rss_baseline_kb = (long)base;
    res->stack_peak_bytes = res->heap_peak_bytes = res->heap_allocs = -1;
    field_ll(line, "stack_peak_bytes", &res->stack_peak_bytes);
    field_ll(line, "heap_peak_bytes", &res->heap_peak_bytes);
    field_ll(line, "heap_allocs", &res->heap_allocs);
    long long cpu_ns, vcsw, ivcsw;
    res->sched_known = 0;
    res->vcsw = res->ivcsw = -1;
    if (field_ll(line, "cpu_ns", &cpu_ns) == 0 && field_ll(line, "vcsw", &vcsw) == 0 &&
        field_ll(line, "ivcsw", &ivcsw) == 0 && cpu_ns >= 0 && vcsw >= 0 && ivcsw >= 0) {
        res->sched_known = 1;
        res->cpu_ns = (unsigned long long)cpu_ns;
        res->vcsw = vcsw;
        res->ivcsw = ivcsw;
    }
    res->ok = 1;
    return 0;
}

/* ---- the exchange ---- */

typedef struct probe_link {
    hb_proc_child child;
    double deadline;
    char nonce[PROBE_WIRE_NONCE_HEX];
    char line[PROBE_WIRE_MAX_LINE + 1];
    size_t extra;       /* bytes the probe does not write */
    char tamper[256];   /* the first of them, described */
} probe_link;

static void tampered(probe_link *l, const char *what)
{
    if (!l->tamper[0])
        snprintf(l->tamper, sizeof l->tamper, "%s", what);
}

/* Waits until the probe's output is readable; -1 at the deadline (the probe
 * is then killed and reported as timed out). */
static int wait_readable(probe_link *l, double until)
{
    for (;;) {
        double left = until - hb_mono_s();
        if (left <= 0)
            return -1;
        struct pollfd p = {l->child.from_child, POLLIN, 0};
        int r = poll(&p, 1, left > 1.0 ? 1000 : (int)(left * 1000.0) + 1);
        if (r > 0)
            return 0;
        if (r < 0 && errno != EINTR)
            return -1;
    }
}

/* The next line into l->line (NUL-ended, without its newline). Returns 0,
 * or 1 when the probe's output ended, the deadline passed (the probe is
 * killed) or the line does not fit. Bytes after the line in the same read
 * are counted as extra. */
static int read_line(probe_link *l)
{
    size_t n = 0;
    for (;;) {
        char *nl = memchr(l->line, '\n', n);
        if (nl) {
            *nl = '\0';
            size_t rest = n - (size_t)(nl - l->line) - 1;
            if (rest) {
                l->extra += rest;
                tampered(l, "bytes after a line in the same write");
            }
            return 0;
        }
        if (n == sizeof l->line - 1) {
            tampered(l, "a line longer than any the probe writes");
            return 1;
        }
        if (wait_readable(l, l->deadline) != 0) {
            hb_proc_kill(&l->child, 1);
            return 1;
        }
        ssize_t r = read(l->child.from_child, l->line + n, sizeof l->line - 1 - n);
        if (r < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (r <= 0) {
            if (n) {
                l->extra += n;
                tampered(l, "output that ended without a newline");
            }
            return 1;
        }
        n += (size_t)r;
    }
}

static int send_line(probe_link *l, const char *text)
{
    size_t n = strlen(text);
    return write(l->child.to_child, text, n) == (ssize_t)n ? 0 : -1;
}

/* 1 once the child has ended (it stays to be reaped). */
static int child_ended(const probe_link *l)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    return waitid(P_PID, (id_t)l->child.pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
           si.si_pid == l->child.pid;
}

/* After the result: closes the probe's input (its signal to end) and
 * counts whatever else arrives until its output ends or it has ended. */
static void drain(probe_link *l)
{
    char buf[4096];
    close(l->child.to_child);
    l->child.to_child = -1;
    double until = hb_mono_s() + TRIAL_EXIT_GRACE_S;
    if (until > l->deadline)
        until = l->deadline;
    for (;;) {
        int ended = child_ended(l);
        struct pollfd p = {l->child.from_child, POLLIN, 0};
        if (poll(&p, 1, ended ? 0 : 20) > 0) {
            ssize_t r = read(l->child.from_child, buf, sizeof buf);
            if (r > 0) {
                l->extra += (size_t)r;
                tampered(l, "output after the result");
                continue;
            }
            if (r == 0)
                return;
        }
        if (ended || hb_mono_s() >= until)
            return;
    }
}

/* 1 when process PID maps a user-mode emulator (qemu-aarch64 and the like
 * run a foreign probe: read from outside, where the emulator cannot hide). */
static int maps_emulator(long pid)
{
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/%ld/maps", pid);
    FILE *f = fopen(path, "r");
    int found = 0;
    while (f && !found && fgets(line, sizeof line, f)) {
        const char *base = strrchr(line, '/');
        found = base && strncmp(base + 1, "qemu-", 5) == 0;
    }
    if (f)
        fclose(f);
    return found;
}

/* Waits (up to TRIAL_SETTLE_S) until the probe is no longer running, so
 * that the kernel has accounted all its CPU time so far: with a CPU limit
 * armed the process clock of a running process lags by up to a tick. */
static void settle(long pid)
{
    double until = hb_mono_s() + TRIAL_SETTLE_S;
    for (;;) {
        char state[8];
        if (procview_stat_field(pid, 3, state, sizeof state) != 0 || state[0] != 'R' ||
            hb_mono_s() >= until)
            return;
        struct timespec ts = {0, 20000};
        nanosleep(&ts, NULL);
    }
}

/* VmHWM of PID and the core it last ran on, read from outside. */
static void read_process(long pid, trial_result *res)
{
    char cpu[16];
    res->rss_peak_kb = (long)procview_status_value(pid, "VmHWM");
    res->cpu = procview_stat_field(pid, 39, cpu, sizeof cpu) == 0 ? (int)strtol(cpu, NULL, 10) : -1;
}

/* N random bytes from the kernel (getrandom waits only for its pool to be
 * ready at boot, and fails for so few bytes only when interrupted). */
static void random_bytes(void *out, size_t n)
{
    while (getrandom(out, n, 0) != (ssize_t)n && errno == EINTR)
        ;
}

/* A line "result nonce=<ours> FIELDS": FIELDS, or NULL. */
static const char *our_result(const probe_link *l)
{
    size_t p = strlen("result nonce=");
    if (strncmp(l->line, "result nonce=", p) != 0 ||
        strncmp(l->line + p, l->nonce, PROBE_WIRE_NONCE_HEX - 1) != 0 ||
        l->line[p + PROBE_WIRE_NONCE_HEX - 1] != ' ')
        return NULL;
    return l->line + p + PROBE_WIRE_NONCE_HEX;
}

static int is_our_ready(const probe_link *l)
{
    return strncmp(l->line, "ready nonce=", 12) == 0 &&
           strcmp(l->line + 12, l->nonce) == 0;
}

/* The exchange with a started probe. Fills RES from what it says and from
 * outside; leaves tampering in L. */
static void converse(probe_link *l, const trial_request *rq, int sandboxed,
                     trial_result *res, const char **fields)
{
    char msg[PROBE_WIRE_SHORT_LINE];
    *fields = NULL;
    probe_preload(&l->child, l->deadline, NULL, NULL); /* its stop before the load */
    if (read_line(l) != 0)
        return;
    if (strncmp(l->line, "result ", 7) == 0) {
        /* a failure before the window */
        if (!(*fields = our_result(l)))
            tampered(l, "a result line without the probe's nonce");
        return;
    }
    if (!is_our_ready(l)) {
        tampered(l, "a line the probe does not write, before the seed");
        return;
    }
    if (l->extra)
        return;
    long pid = procview_host_pid(l->child.pid, sandboxed);
    res->pid = pid;
    res->emulator = maps_emulator(pid);
    settle(pid);
    long long cpu0 = procview_cpu_ns(pid);
    double w0 = hb_mono_s();
    snprintf(msg, sizeof msg, "seed %016llx\n", (unsigned long long)res->seed);
    if (send_line(l, msg) != 0 || read_line(l) != 0)
        return;
    double w1 = hb_mono_s();
    long long cpu1 = procview_cpu_ns(pid); /* in case it ends (it should wait) */
    settle(pid);
    long long settled = procview_cpu_ns(pid);
    if (settled > cpu1)
        cpu1 = settled;
    read_process(pid, res);
    if (!(*fields = our_result(l))) {
        tampered(l, "a line the probe does not write, after the seed");
        return;
    }
    if (cpu0 >= 0 && cpu1 < 0) {
        /* gone already: a genuine probe waits for the end of its input */
        tampered(l, "an end of the probe before hashbench closed its input");
        return;
    }
    if (cpu0 >= 0 && cpu1 >= cpu0) {
        res->outside.known = 1;
        res->outside.window_ns = (unsigned long long)((w1 - w0) * 1e9);
        res->outside.window_cpu_ns = (unsigned long long)(cpu1 - cpu0);
        res->outside.allowance_ns = outside_allowance_ns(
            rq->size, rq->calls, (size_t)rq->digest_bits / 8, rq->exchange_ns);
        res->outside.emulated = rq->emulated;
    }
}

/* Turns what the exchange gave into the verdict of RES. */
static void judge(const trial_request *rq, probe_link *l, const char *fields,
                  const hb_proc_result *pr, trial_result *res)
{
    char how[128];
    res->outside.process_wall_ns = (unsigned long long)(pr->wall_s * 1e9);
    res->outside.process_cpu_ns = (unsigned long long)(pr->cpu_s * 1e9);
    if (l->tamper[0]) {
        res->ok = 0;
        res->inconsistent = 1;
        snprintf(res->failure, sizeof res->failure, "INCONSISTENT: the probe's result "
                 "channel carried %s (%zu bytes the probe does not write)",
                 l->tamper, l->extra);
        return;
    }
    if (!fields) {
        snprintf(res->failure, sizeof res->failure, "probe %s without a result",
                 hb_proc_describe(pr, how, sizeof how));
        return;
    }
    if (trial_parse_line(fields, res) != 0)
        return;
    char why[400];
    if (res->calls != rq->calls) {
        res->inconsistent = 1;
        /* the number reported is the library's to choose: raw text */
        char got[32];
        snprintf(why, sizeof why, "the probe reports another number of calls than the "
                 "%llu asked", rq->calls);
        snprintf(got, sizeof got, "%llu", res->calls);
        hb_untrusted_append(why, sizeof why, got, sizeof got);
    } else if (!res->outside.known) {
        snprintf(res->failure, sizeof res->failure, "the probe's CPU time could not be "
                 "read from outside (process %ld)", res->pid);
        res->ok = 0;
        return;
    } else if (!rq->memory) { /* the memory run's one call is no figure */
        int verdict = outside_check(&res->outside, res->ns, why, sizeof why);
        res->inconsistent = verdict == OUTSIDE_INCONSISTENT;
        res->outside_excess = verdict == OUTSIDE_EXCESS;
    }
    if (res->inconsistent) {
        res->ok = 0;
        snprintf(res->failure, sizeof res->failure, "INCONSISTENT: %s", why);
    } else if (!(pr->exited && pr->exit_code == 0)) {
        res->ok = 0;
        snprintf(res->failure, sizeof res->failure, "probe ended with %s after "
                 "its result", hb_proc_describe(pr, how, sizeof how));
    }
}

/* One probe process for RQ (trial_run without the budget). */
static int run_probe(const trial_request *rq, trial_result *res, hb_err *err)
{
    memset(res, 0, sizeof *res);
    res->cpu = -1;
    res->rss_peak_kb = -1;
    char lib[PATH_MAX], libpath[PATH_MAX];
    if (hb_path_join(libpath, sizeof libpath, rq->run_dir, rq->lib, err) != 0)
        return -1;
    if (!realpath(libpath, lib)) /* a missing library: the probe says LOADFAIL */
        snprintf(lib, sizeof lib, "%s", libpath);
    int sandboxed = hb_sandbox_enabled();
    /* the memory run's counter reads nothing it reports: the one every
     * process can open */
    counter_kind counter = rq->memory ? counter_arch_kind() : rq->counter;
    char config[256];
    snprintf(config, sizeof config, "role=trial bits=%d size=%llu calls=%llu warmup=%llu "
             "counter=%s memory=%d", rq->digest_bits, rq->size, rq->calls, rq->warmup,
             counter_kind_name(counter), rq->memory ? 1 : 0);
    probe_link *l = calloc(1, sizeof *l);
    if (!l)
        return hb_fail(err, "out of memory for a probe's result");
    unsigned char nonce[PROBE_WIRE_NONCE_BYTES];
    random_bytes(&res->seed, sizeof res->seed);
    random_bytes(nonce, sizeof nonce);
    hb_hex_encode(nonce, sizeof nonce, l->nonce, 0);
    probe_start_rq start = {rq->probe_path, lib, rq->cpu, -1,
                             counter == COUNTER_PERF_CYCLES, l->nonce, config};
    int rc = probe_start(&start, &l->child, err);
    if (rc == 0) {
        const char *fields;
        hb_proc_result pr;
        l->deadline = l->child.start_s + rq->timeout_s;
        converse(l, rq, sandboxed, res, &fields);
        drain(l);
        hb_proc_reap(&l->child, TRIAL_EXIT_GRACE_S, &pr);
        judge(rq, l, fields, &pr, res);
    }
    free(l);
    return rc;
}

/* RES of a probe the instance's budget B ended or did not start. */
static void budget_timeout(const ibudget *b, trial_result *res)
{
    char r[480];
    ibudget_reason(b, r, sizeof r);
    res->ok = 0;
    res->inconsistent = 0;
    snprintf(res->failure, sizeof res->failure, "TIMEOUT: %s", r);
}

int trial_run(const trial_request *rq, trial_result *res, hb_err *err)
{
    const ibudget *b = &rq->budget;
    if (!(b->budget_s > 0))
        return run_probe(rq, res, err);
    trial_request cut = *rq;
    int limited = 0, spent = ibudget_spent(b, err);
    if (spent < 0 || ibudget_step_timeout(b, rq->timeout_s, &cut.timeout_s, &limited, err) != 0)
        return -1;
    if (spent) {
        memset(res, 0, sizeof *res);
        res->cpu = -1;
        res->rss_peak_kb = -1;
        budget_timeout(b, res);
        return 0;
    }
    double t0 = hb_mono_s();
    int rc = run_probe(&cut, res, err);
    double took = hb_mono_s() - t0;
    hb_err cerr;
    if (ibudget_charge(b, IBUDGET_MEASURE, took, &cerr) != 0 && rc == 0) {
        *err = cerr;
        return -1;
    }
    if (rc == 0 && !res->ok && limited && took >= cut.timeout_s)
        budget_timeout(b, res);
    return rc;
}
