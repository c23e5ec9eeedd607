/* Every process that runs submitted code natively looks the same to the
 * library inside it (runner/start.h). The observer fixture stops its
 * process from its constructor; the test then reads from outside, where no
 * library can change what it reads, everything a library could observe of
 * its own process: its command line, environment, descriptors (numbers,
 * kinds, flags), resource limits, ids, capabilities, seccomp mode and
 * filter count, signal dispositions, allowed cores (how many), scheduling
 * priority, working and root folders, mounts, the names of its file-backed
 * mappings, cgroup, oom score and its parent's name. It does so for a KAT
 * runner (with the KAT's CPU-time limit), a runner recomputing a trial's
 * digests, a memory run and a timed session, and requires the four
 * readings to be byte for byte the same. A runner's CPU-time limit, which
 * no rlimit of its own shows, is enforced from outside (test_cpu_limit). */
#include <dirent.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/clock.h"
#include "common/fs.h"
#include "measure/procview.h"
#include "measure/session.h"
#include "measure/trial.h"
#include "measure_fixture.h"
#include "runner/client.h"

#define OBSERVER "libmfix_observer.so"
#define FP_MAX (1 << 16)

static char probe[4096], build_dir[4096], lib[4096];

/* ---- the reading from outside ---- */

typedef struct text {
    char s[FP_MAX];
    size_t n;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(t->s + t->n, sizeof t->s - t->n, fmt, ap);
    va_end(ap);
    if (w > 0)
        t->n = t->n + (size_t)w < sizeof t->s ? t->n + (size_t)w : sizeof t->s - 1;
}

/* The file at PATH, NULs as spaces, or "" */
static void put_file(text *t, const char *label, const char *path)
{
    char *buf = NULL;
    size_t n = 0;
    put(t, "%s:", label);
    if (hb_read_file(path, &buf, &n, NULL) == 0) {
        for (size_t i = 0; i < n; i++)
            put(t, "%c", buf[i] ? buf[i] : ' ');
        free(buf);
    }
    put(t, "\n");
}

static void put_proc(text *t, long pid, const char *label, const char *name)
{
    char path[128];
    snprintf(path, sizeof path, "/proc/%ld/%s", pid, name);
    put_file(t, label, path);
}

/* The lines of /proc/PID/status that a library reads about itself. */
static void put_status(text *t, long pid)
{
    static const char *const keys[] = {"Uid", "Gid", "Groups", "NoNewPrivs", "Seccomp",
                                       "Seccomp_filters", "SigBlk", "SigIgn", "SigCgt",
                                       "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb",
                                       "Threads", "Speculation_Store_Bypass"};
    char path[128], *buf = NULL;
    snprintf(path, sizeof path, "/proc/%ld/status", pid);
    if (hb_read_file(path, &buf, NULL, NULL) != 0)
        return;
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        for (char *l = buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
            size_t kl = strlen(keys[k]);
            if (!strncmp(l, keys[k], kl) && l[kl] == ':')
                put(t, "%.*s\n", (int)strcspn(l, "\n"), l);
        }
    /* how many cores it may run on, not which (each role is pinned to one) */
    const char *c = strstr(buf, "Cpus_allowed_list:");
    int cores = 0;
    if (c) {
        for (c += 18; *c && *c != '\n';) {
            while (*c == ' ' || *c == '\t' || *c == ',')
                c++;
            if (*c == '\n' || !*c)
                break;
            long a = strtol(c, (char **)&c, 10), b = a;
            if (*c == '-')
                b = strtol(c + 1, (char **)&c, 10);
            cores += (int)(b - a + 1);
        }
    }
    put(t, "cores:%d\n", cores);
    free(buf);
}

/* Its descriptors: number, kind (the link's target without inode numbers)
 * and open flags. */
static void put_fds(text *t, long pid)
{
    char path[128];
    snprintf(path, sizeof path, "/proc/%ld/fd", pid);
    DIR *d = opendir(path);
    int fds[256], n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) && n < 256)
        if (e->d_name[0] != '.')
            fds[n++] = atoi(e->d_name);
    if (d)
        closedir(d);
    for (int i = 0; i < n; i++) /* in order */
        for (int j = i + 1; j < n; j++)
            if (fds[j] < fds[i]) {
                int x = fds[i];
                fds[i] = fds[j];
                fds[j] = x;
            }
    for (int i = 0; i < n; i++) {
        char link[256], target[512] = "", *info = NULL;
        snprintf(link, sizeof link, "/proc/%ld/fd/%d", pid, fds[i]);
        ssize_t k = readlink(link, target, sizeof target - 1);
        target[k > 0 ? k : 0] = '\0';
        char *br = strchr(target, '[');
        if (br)
            *br = '\0';
        snprintf(link, sizeof link, "/proc/%ld/fdinfo/%d", pid, fds[i]);
        hb_read_file(link, &info, NULL, NULL);
        const char *fl = info ? strstr(info, "flags:") : NULL;
        put(t, "fd %d %s %.*s\n", fds[i], target, fl ? (int)strcspn(fl, "\n") : 0,
            fl ? fl : "");
        free(info);
    }
}

/* The names of its file-backed mappings, each once, in order of address. */
static void put_maps(text *t, long pid)
{
    char path[128], *buf = NULL, last[1024] = "";
    snprintf(path, sizeof path, "/proc/%ld/maps", pid);
    if (hb_read_file(path, &buf, NULL, NULL) != 0)
        return;
    for (char *l = buf; l && *l;) {
        char *nl = strchr(l, '\n');
        if (nl)
            *nl = '\0';
        char *name = strchr(l, '/');
        if (!name)
            name = strchr(l, '[');
        if (name && strcmp(name, last) != 0) {
            put(t, "map %s\n", name);
            snprintf(last, sizeof last, "%s", name);
        }
        l = nl ? nl + 1 : NULL;
    }
    free(buf);
}

/* Its mounts: mount point, options, file system type and its options. */
static void put_mounts(text *t, long pid)
{
    char path[128], *buf = NULL;
    snprintf(path, sizeof path, "/proc/%ld/mountinfo", pid);
    if (hb_read_file(path, &buf, NULL, NULL) != 0)
        return;
    for (char *l = buf; l && *l;) {
        char *nl = strchr(l, '\n');
        if (nl)
            *nl = '\0';
        char id[32], parent[32], devno[32], root[1024], point[1024], opts[256];
        const char *tail = strstr(l, " - ");
        if (sscanf(l, "%31s %31s %31s %1023s %1023s %255s", id, parent, devno, root, point,
                   opts) == 6)
            put(t, "mount %s %s %s%s\n", root, point, opts, tail ? tail : "");
        l = nl ? nl + 1 : NULL;
    }
    free(buf);
}

static void fingerprint(long pid, text *t)
{
    char path[128], target[1024], field[64];
    t->n = 0;
    t->s[0] = '\0';
    put_proc(t, pid, "cmdline", "cmdline");
    put_proc(t, pid, "environ", "environ");
    put_proc(t, pid, "limits", "limits");
    put_proc(t, pid, "cgroup", "cgroup");
    put_proc(t, pid, "oom_score_adj", "oom_score_adj");
    put_proc(t, pid, "personality", "personality");
    put_status(t, pid);
    put_fds(t, pid);
    const char *links[] = {"cwd", "root", "exe"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "/proc/%ld/%s", pid, links[i]);
        ssize_t k = readlink(path, target, sizeof target - 1);
        target[k > 0 ? k : 0] = '\0';
        put(t, "%s:%s\n", links[i], target);
    }
    for (int f = 18; f <= 19; f++) /* priority, nice */
        if (procview_stat_field(pid, f, field, sizeof field) == 0)
            put(t, "stat%d:%s\n", f, field);
    if (procview_stat_field(pid, 4, field, sizeof field) == 0) {
        snprintf(path, sizeof path, "/proc/%s/comm", field);
        put_file(t, "parent", path);
    }
    put_mounts(t, pid);
    put_maps(t, pid);
}

/* A stopped process (not this one) that has the observer mapped: the
 * observer's constructor stopped it. */
static long find_observed(void)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    long found = -1;
    while (d && found < 0 && (e = readdir(d))) {
        long pid = strtol(e->d_name, NULL, 10);
        char state[8], path[64], *maps = NULL;
        if (pid <= 0 || pid == (long)getpid() ||
            procview_stat_field(pid, 3, state, sizeof state) != 0 || state[0] != 'T')
            continue;
        snprintf(path, sizeof path, "/proc/%ld/maps", pid);
        if (hb_read_file(path, &maps, NULL, NULL) == 0 && strstr(maps, OBSERVER))
            found = pid;
        free(maps);
    }
    if (d)
        closedir(d);
    return found;
}

/* ---- the roles, each in a thread of its own while the test reads ---- */

typedef struct role {
    const char *name;
    void (*run)(struct role *);
    int ok;
    char why[600];
} role;

static void kat_run(role *r)
{
    runner_session s;
    runner_target t = {lib, 256, 60, 0};
    char loadfail[512] = "";
    unsigned char d[32];
    kat_fault f;
    hb_err err;
    /* the KAT's own limit: CPU time scaled to the instance */
    int rc = runner_open_cpu(&s, &t, 30, loadfail, sizeof loadfail, &err);
    r->ok = rc == 0 && runner_hash(&s, (const unsigned char *)"", 0, d, &f, &err) ==
                           RUNNER_CALL_OK;
    snprintf(r->why, sizeof r->why, "%s %s", loadfail, s.why);
    hb_proc_result res;
    runner_close(&s, &res);
}

static void recompute_run(role *r)
{
    runner_session s;
    runner_target t = {lib, 256, 60, 0};
    char loadfail[512] = "", fold[TM_FOLD_HEX];
    kat_fault f;
    hb_err err;
    int rc = runner_open(&s, &t, loadfail, sizeof loadfail, &err);
    r->ok = rc == 0 && runner_fold(&s, 42, 64, 10, fold, &f, &err) == RUNNER_CALL_OK;
    snprintf(r->why, sizeof r->why, "%s %s", loadfail, s.why);
    hb_proc_result res;
    runner_close(&s, &res);
}

static void memory_run(role *r)
{
    trial_request rq;
    trial_result res;
    hb_err err;
    memset(&rq, 0, sizeof rq);
    rq.probe_path = probe;
    rq.run_dir = build_dir;
    rq.lib = OBSERVER;
    rq.size = 64;
    rq.calls = 1;
    rq.cpu = -1;
    rq.counter = counter_arch_kind();
    rq.digest_bits = 256;
    rq.timeout_s = 60;
    rq.memory = 1;
    r->ok = trial_run(&rq, &res, &err) == 0 && res.ok;
    snprintf(r->why, sizeof r->why, "%s", res.failure);
}

static void session_run(role *r)
{
    void *state = calloc(1, session_probe.state_size);
    session_open_rq rq = {probe, lib, 64, 256, 0, counter_arch_kind(), 0, 1000, 60, 1, 0};
    session_figure f;
    hb_err err;
    unsigned char raw[64 * 4];
    memset(raw, 7, sizeof raw);
    session_window_rq w = {4, raw};
    r->ok = session_probe.open(state, &rq, &f, &err) == 0 && f.status == SESSION_OK &&
            session_probe.window(state, &w, &f, &err) == 0 && f.status == SESSION_OK;
    snprintf(r->why, sizeof r->why, "%s", f.failure);
    session_probe.close(state, NULL);
    free(state);
}

static void *role_thread(void *arg)
{
    role *r = arg;
    r->run(r);
    return NULL;
}

/* Runs R, reads its process from outside once the observer stopped it. */
static void observe(role *r, text *t)
{
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, role_thread, r), 0);
    long pid = -1;
    double until = hb_mono_s() + 30;
    while (pid < 0 && hb_mono_s() < until) {
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
        pid = find_observed();
    }
    if (pid > 0) {
        procview_await_stop(pid, 2.0);
        fingerprint(pid, t);
        kill((pid_t)pid, SIGCONT);
    }
    pthread_join(th, NULL);
    if (pid < 0)
        fail_msg("%s: no process stopped by the observer", r->name);
    if (!r->ok)
        fail_msg("%s did not go well: %s", r->name, r->why);
}

/* The first line where A and B differ, into a failure. */
static void same(const role *ra, const text *a, const role *rb, const text *b)
{
    if (a->n == b->n && memcmp(a->s, b->s, a->n) == 0)
        return;
    const char *p = a->s, *q = b->s;
    while (*p && *q) {
        size_t lp = strcspn(p, "\n"), lq = strcspn(q, "\n");
        if (lp != lq || memcmp(p, q, lp) != 0)
            fail_msg("%s and %s differ:\n  %.*s\n  %.*s", ra->name, rb->name, (int)lp, p,
                     (int)lq, q);
        p += lp + (p[lp] ? 1 : 0);
        q += lq + (q[lq] ? 1 : 0);
    }
    fail_msg("%s and %s differ in length", ra->name, rb->name);
}

static void test_one_kind_of_process(void **state)
{
    (void)state;
    role roles[] = {{"a KAT runner", kat_run, 0, ""},
                    {"a recomputing runner", recompute_run, 0, ""},
                    {"a memory run", memory_run, 0, ""},
                    {"a timed session", session_run, 0, ""}};
    enum { N = sizeof roles / sizeof roles[0] };
    static text seen[N];
    for (int i = 0; i < N; i++) {
        observe(&roles[i], &seen[i]);
        printf("# %s: %zu bytes of what it can observe read from outside\n", roles[i].name,
               seen[i].n);
    }
    /* the reading holds what it should (a reading of nothing would match) */
    assert_non_null(strstr(seen[0].s, "cmdline:"));
    assert_non_null(strstr(seen[0].s, "hashbench-probe"));
    assert_non_null(strstr(seen[0].s, "Max cpu time"));
    assert_non_null(strstr(seen[0].s, "Seccomp:\t2"));
    assert_non_null(strstr(seen[0].s, "fd 3 pipe:"));
    assert_non_null(strstr(seen[0].s, OBSERVER));
    for (int i = 1; i < N; i++)
        same(&roles[0], &seen[0], &roles[i], &seen[i]);
}

/* A runner whose library spins is ended by its CPU-time limit, read from
 * outside, long before its wall limit, and reported as the kernel's
 * limit was (SIGXCPU, TIMEOUT). */
static void test_cpu_limit(void **state)
{
    (void)state;
    char hang[4200];
    snprintf(hang, sizeof hang, "%s/tests/kat/fixtures/libkatfx_hang.so", build_dir);
    runner_session s;
    runner_target t = {hang, 256, 60, 0};
    char loadfail[512] = "";
    unsigned char msg[25] = {0}, d[32];
    kat_fault f;
    hb_err err;
    hb_proc_result res;
    double t0 = hb_mono_s();
    assert_int_equal(runner_open_cpu(&s, &t, 1.0, loadfail, sizeof loadfail, &err), 0);
    int rc = runner_hash(&s, msg, 200, d, &f, &err); /* the fixture spins at 200 bits */
    runner_close(&s, &res);
    double took = hb_mono_s() - t0;
    printf("# a spinning runner with 1 s of CPU time (+1 s): ended after %.1f s\n", took);
    assert_int_equal(rc, RUNNER_CALL_GONE);
    assert_true(res.signaled && res.signo == SIGXCPU);
    assert_string_equal(runner_gone_status(&s, &res), "TIMEOUT");
    assert_true(took < 10);
}

int main(void)
{
    char rel[4200], given[4096];
    if (fixture_env(build_dir, sizeof build_dir, given, sizeof given) != 0)
        return 1;
    snprintf(rel, sizeof rel, "%s/%s", build_dir, OBSERVER);
    if (!realpath(rel, lib) || !realpath(given, probe))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_kind_of_process),
        cmocka_unit_test(test_cpu_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
