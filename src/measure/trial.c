/* Running the probe and reading its result line: see trial.h. */
#include "measure/trial.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fs.h"
#include "common/proc.h"
#include "probe/probe_codes.h"

#define TRIAL_MAX_ARGS 24
#define TRIAL_ARG_LEN 64

typedef struct trial_argv {
    char *argv[TRIAL_MAX_ARGS];
    char num[8][TRIAL_ARG_LEN];
    char lib[4096];
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

static void build_argv(const trial_request *rq, const char *argv0, trial_argv *a)
{
    memset(a, 0, sizeof *a);
    add(a, argv0);
    /* dlopen searches the library path for a name without '/' */
    snprintf(a->lib, sizeof a->lib, "%s%s", strchr(rq->lib, '/') ? "" : "./", rq->lib);
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
    build_argv(rq, hb_basename(rq->probe_path), &a);
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
        const char *reason = strstr(line, "reason=");
        size_t n = reason ? strcspn(reason + 7, "\n") : 0;
        snprintf(res->failure, sizeof res->failure, "%s: %.*s", status,
                 (int)n, reason ? reason + 7 : "");
        return -1;
    }
    long long calls, ticks, ns, pid, cpu, base, peak;
    if (field_ll(line, "calls", &calls) || field_ll(line, "ticks", &ticks) ||
        field_ll(line, "ns", &ns) || field_ll(line, "pid", &pid) ||
        field_ll(line, "cpu", &cpu) || field_ll(line, "rss_baseline_kb", &base) ||
        field_ll(line, "rss_peak_kb", &peak) ||
        field(line, "digest", res->digest, sizeof res->digest)) {
        snprintf(res->failure, sizeof res->failure,
                 "probe result line lacks a timing field");
        return -1;
    }
    res->calls = (unsigned long long)calls;
    res->ticks = (unsigned long long)ticks;
    res->ns = (unsigned long long)ns;
    res->pid = (long)pid;
    res->cpu = (int)cpu;
    res->rss_baseline_kb = (long)base;
    res->rss_peak_kb = (long)peak;
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

/* The last line starting with "status=" in OUT (the probe prints one). */
static const char *result_line(const char *out)
{
    const char *found = NULL;
    for (const char *p = out; p && *p;) {
        if (!strncmp(p, "status=", 7))
            found = p;
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    return found;
}

int trial_run(const trial_request *rq, trial_result *res, hb_err *err)
{
    memset(res, 0, sizeof *res);
    trial_argv a;
    build_argv(rq, rq->probe_path, &a);
    char *out = NULL;
    hb_proc_opts o = hb_proc_defaults();
    o.timeout_s = rq->timeout_s;
    o.cpu = rq->cpu;
    o.cwd = rq->run_dir;
    o.capture = &out;
    o.capture_cap = 1 << 16;
    o.as_bytes = 4ull << 30;
    o.fsize_bytes = 1 << 20;
    o.cpu_s = (unsigned long)rq->timeout_s + 2;
    hb_proc_result pr;
    if (hb_proc_exec(a.argv, &o, &pr, err) != 0)
        return -1;
    const char *line = out ? result_line(out) : NULL;
    char how[128];
    if (line) {
        trial_parse_line(line, res);
    } else {
        snprintf(res->failure, sizeof res->failure, "probe %s without a result",
                 hb_proc_describe(&pr, how, sizeof how));
    }
    if (res->ok && !(pr.exited && pr.exit_code == 0)) {
        res->ok = 0;
        snprintf(res->failure, sizeof res->failure, "probe ended with %s after "
                 "its result", hb_proc_describe(&pr, how, sizeof how));
    }
    free(out);
    return 0;
}
