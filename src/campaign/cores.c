/* Measuring on several cores in one command (see cores.h): a driver over
 * campaign_run (one shard per core, in DIR/cores/cpu<C>) and merge_run.
 * The measuring children are forked, pinned to their core and die with
 * hashbench; each sends back its campaign result on a pipe. */
#include "campaign/cores.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "dataset/merge.h"
#include "campaign/progress.h"
#include "common/fs.h"
#include "common/json.h"
#include "common/walk.h"
#include "rundir/lock.h"
#include "rundir/rundir.h"

#define CORES_SUBDIR RUNDIR_CORES

int cores_parse(const char *list, int *cpus, hb_err *err)
{
    cpu_set_t allowed;
    int n = 0;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
        return hb_fail_errno(err, "--cpus: cannot read the cores this process may use");
    const char *p = list;
    while (*p) {
        char *end;
        long lo = strtol(p, &end, 10), hi = lo;
        if (end == p || lo < 0)
            return hb_fail(err, "--cpus '%s': expected core numbers such as 0,1 or 2-5",
                           list);
        if (*end == '-') {
            const char *q = end + 1;
            hi = strtol(q, &end, 10);
            if (end == q || hi < lo)
                return hb_fail(err, "--cpus '%s': a range is LOW-HIGH, e.g. 2-5", list);
        }
        if (*end && *end != ',')
            return hb_fail(err, "--cpus '%s': expected core numbers such as 0,1 or 2-5",
                           list);
        for (long c = lo; c <= hi; c++) {
            if (c >= CPU_SETSIZE || !CPU_ISSET((int)c, &allowed))
                return hb_fail(err, "--cpus: core %ld is not one this process may run "
                               "on (see nproc and taskset -p $$)", c);
            for (int i = 0; i < n; i++)
                if (cpus[i] == (int)c)
                    return hb_fail(err, "--cpus '%s': core %ld is given twice", list, c);
            if (n >= CORES_MAX)
                return hb_fail(err, "--cpus: at most %d cores", CORES_MAX);
            cpus[n++] = (int)c;
        }
        p = *end ? end + 1 : end;
    }
    if (n == 0)
        return hb_fail(err, "--cpus: give at least one core, e.g. 0,1");
    return n;
}

/* ---- the run directory ------------------------------------------------ */

/* DIR may hold an earlier --cpus campaign (its shards in DIR/cores), or
 * nothing that is a run directory. */
static int check_out(const char *dir, hb_err *err)
{
    char path[PATH_MAX], cores[PATH_MAX], records[PATH_MAX];
    if (rundir_path(cores, sizeof cores, dir, RUNDIR_CORES, err) != 0)
        return -1;
    if (hb_is_dir(cores))
        return 0;
    if (rundir_path(path, sizeof path, dir, RUNDIR_CAMPAIGN_JSON, err) != 0 ||
        rundir_path(records, sizeof records, dir, RUNDIR_RECORDS, err) != 0)
        return -1;
    if (hb_is_file(path) || hb_is_dir(records))
        return hb_fail(err, "%s: this run directory holds a campaign measured without "
                       "--cpus; give --cpus a new --run-dir (or resume it without "
                       "--cpus)", hb_is_file(path) ? path : records);
    return 0;
}

/* clear_merge's visitor: removes an entry of the run directory but cores/. */
static int clear_entry(const hb_walk_entry *e, void *ctx, hb_err *err)
{
    (void)ctx;
    if (!strcmp(e->name, CORES_SUBDIR) || !strcmp(e->name, RUNDIR_LOCK))
        return HB_WALK_SKIP;
    if (e->type == HB_WALK_DIR)
        return hb_remove_tree(e->path, err) == 0 ? HB_WALK_SKIP : -1;
    if (unlink(e->path) != 0)
        return hb_fail_errno(err, "%s: cannot remove the previous merge's file", e->path);
    return HB_WALK_CONTINUE;
}

/* Removes the previous merge from DIR: everything but DIR/cores. */
static int clear_merge(const char *dir, hb_err *err)
{
    return hb_walk(dir, 1, 0, clear_entry, NULL, err) == 0 ? 0 : -1;
}

/* The merged campaign.json says which cores measured: "cpus". */
static int note_cores(const char *dir, const int *cpus, int n, hb_err *err)
{
    char path[PATH_MAX];
    json_t *doc, *list = json_array();
    if (rundir_path(path, sizeof path, dir, RUNDIR_CAMPAIGN_JSON, err) != 0 ||
        hb_json_load(path, &doc, err) < 0) {
        json_decref(list);
        return -1;
    }
    for (int i = 0; i < n; i++)
        json_array_append_new(list, json_integer(cpus[i]));
    json_object_set_new(doc, "cpus", list);
    json_object_set_new(doc, "cpu", json_null());
    int rc = hb_json_save(path, doc, err);
    json_decref(doc);
    return rc;
}

/* ---- one shard -------------------------------------------------------- */

typedef struct core_shard {
    campaign_options o;
    char dir[PATH_MAX];
} core_shard;

static int shard_options(const campaign_options *base, const int *cpus, int n, int i,
                         core_shard *s, hb_err *err)
{
    s->o = *base;
    char name[32], rel[64];
    snprintf(name, sizeof name, "cpu%d", cpus[i]);
    if (rundir_core_rel(rel, sizeof rel, name, err) != 0 ||
        rundir_path(s->dir, sizeof s->dir, base->run_dir, rel, err) != 0)
        return -1;
    s->o.run_dir = s->dir;
    s->o.cpu = cpus[i];
    s->o.settings.shard.k = i + 1;
    s->o.settings.shard.n = n;
    return 0;
}

/* A shard's progress: its measurement steps only, as plain lines naming
 * the core (the children write side by side). */
typedef struct core_progress {
    campaign_progress p;
    int cpu;
} core_progress;

static void core_progress_fn(void *ctx, const char *step, int done, int total)
{
    core_progress *cp = ctx;
    char buf[700];
    if (!step || strncmp(step, "measure", 7) != 0)
        return;
    snprintf(buf, sizeof buf, "%s [CPU %d]", step, cp->cpu);
    campaign_progress_fn(&cp->p, buf, done, total);
}

/* What a measuring child sends back. */
typedef struct child_msg {
    int rc;
    campaign_result res;
    char msg[HB_ERR_MAX];
} child_msg;

static void measuring_child(core_shard *s, int fd)
{
    child_msg m;
    core_progress cp;
    cpu_set_t one;
    memset(&m, 0, sizeof m);
    CPU_ZERO(&one);
    CPU_SET(s->o.cpu, &one);
    /* the child's own work (its runners, its verification) stays on its
     * core and off the other cores' measurements */
    sched_setaffinity(0, sizeof one, &one);
    campaign_progress_init(&cp.p, stderr, 0);
    cp.cpu = s->o.cpu;
    s->o.log = NULL;
    s->o.progress = s->o.progress ? core_progress_fn : NULL;
    s->o.progress_ctx = &cp;
    s->o.stop_before_measure = 0;
    hb_err err;
    memset(&err, 0, sizeof err);
    m.rc = campaign_run(&s->o, &m.res, &err);
    snprintf(m.msg, sizeof m.msg, "%s", err.msg);
    const char *p = (const char *)&m;
    size_t left = sizeof m;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            _exit(2);
        p += w;
        left -= (size_t)w;
    }
    _exit(0);
}

static int start_child(core_shard *s, pid_t *pid, int *fd, hb_err *err)
{
    int p[2];
    if (pipe(p) != 0)
        return hb_fail_errno(err, "cannot make a pipe for the measuring child of CPU %d",
                             s->o.cpu);
    fflush(NULL);
    pid_t parent = getpid();
    *pid = fork();
    if (*pid < 0) {
        close(p[0]);
        close(p[1]);
        return hb_fail_errno(err, "cannot start the measuring child of CPU %d", s->o.cpu);
    }
    if (*pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(2);
        close(p[0]);
        measuring_child(s, p[1]);
    }
    close(p[1]);
    *fd = p[0];
    return 0;
}

static int read_child(int fd, pid_t pid, child_msg *m)
{
    char *p = (char *)m;
    size_t got = 0;
    while (got < sizeof *m) {
        ssize_t r = read(fd, p + got, sizeof *m - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    return got == sizeof *m ? 0 : -1;
}

/* Every shard measured at once, one pinned child per core. */
static int measure_side_by_side(core_shard *s, int n, campaign_result *res, hb_err *err)
{
    pid_t *pid = calloc((size_t)n, sizeof *pid);
    int *fd = calloc((size_t)n, sizeof *fd);
    int started = 0, rc = 0;
    if (!pid || !fd)
        rc = hb_fail(err, "out of memory");
    for (; rc == 0 && started < n; started++)
        if (start_child(&s[started], &pid[started], &fd[started], err) != 0)
            rc = -1;
    if (rc != 0) /* the children already started still finish their records */
        started--;
    for (int i = 0; i < started; i++) {
        child_msg m;
        if (read_child(fd[i], pid[i], &m) != 0) {
            if (rc == 0)
                rc = hb_fail(err, "the measuring child of CPU %d ended without a result; "
                             "run the same command again to resume", s[i].o.cpu);
            continue;
        }
        if (m.rc != 0 && rc == 0)
            rc = hb_fail(err, "CPU %d (shard %d/%d): %s", s[i].o.cpu, i + 1, n, m.msg);
        res->measure_failed += m.res.measure_failed;
        if (m.res.host_problems > res->host_problems)
            res->host_problems = m.res.host_problems;
    }
    free(pid);
    free(fd);
    return rc;
}

static int count_buildfail(const char *dir)
{
    char path[PATH_MAX];
    json_t *doc, *e;
    hb_err ignored;
    size_t i;
    int n = 0;
    if (rundir_path(path, sizeof path, dir, RUNDIR_BUILD_JSON, &ignored) != 0 ||
        hb_json_load(path, &doc, &ignored) < 0)
        return 0;
    json_array_foreach(json_object_get(doc, "instances"), i, e) {
        const char *st = json_string_value(json_object_get(e, "status"));
        n += st && strcmp(st, "BUILDFAIL") == 0;
    }
    json_decref(doc);
    return n;
}

/* A line on the campaign's log, after any progress line. */
static void say(const campaign_options *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void say(const campaign_options *o, const char *fmt, ...)
{
    va_list ap;
    if (!o->log)
        return;
    if (o->progress)
        o->progress(o->progress_ctx, NULL, 0, 0);
    va_start(ap, fmt);
    vfprintf(o->log, fmt, ap);
    va_end(ap);
    fputc('\n', o->log);
    fflush(o->log);
}

int cores_run(const campaign_options *o, const int *cpus, int n, campaign_result *res,
              hb_err *err)
{
    memset(res, 0, sizeof *res);
    hb_lock lock = HB_LOCK_NONE;
    if (settings_validate(&o->settings, NULL, NULL, err) < 0 ||
        check_out(o->run_dir, err) < 0 || hb_mkdirs(o->run_dir, err) < 0 ||
        rundir_lock(o->run_dir, "run --cpus", o->log, &lock, err) < 0)
        return -1;
    core_shard *s = calloc((size_t)n, sizeof *s);
    const char **dirs = calloc((size_t)n, sizeof *dirs);
    int rc = s && dirs ? 0 : hb_fail(err, "out of memory");
    for (int i = 0; rc == 0 && i < n; i++) {
        rc = shard_options(o, cpus, n, i, &s[i], err);
        dirs[i] = s[i].dir;
    }
    /* The whole campaign built and KAT-tested once, on every usable core,
     * in DIR/cores/all; then each shard, one after another: host check of
     * its core, build and KAT copied from there (seed.h), split. */
    core_shard all;
    if (rc == 0) {
        all.o = *o;
        char rel[64];
        if (rundir_core_rel(rel, sizeof rel, "all", err) != 0 ||
            rundir_path(all.dir, sizeof all.dir, o->run_dir, rel, err) != 0)
            rc = -1;
        all.o.run_dir = all.dir;
        all.o.cpu = cpus[0];
        all.o.settings.shard.k = all.o.settings.shard.n = 0;
        all.o.shard_costs = NULL;
        all.o.stop_before_measure = 1;
    }
    if (rc == 0) {
        campaign_result r;
        say(o, "build and KAT of every instance: %s", all.dir);
        if (campaign_run(&all.o, &r, err) < 0)
            rc = -1;
        res->kat_failed = r.kat_failed;
    }
    for (int i = 0; rc == 0 && i < n; i++) {
        campaign_options so = s[i].o;
        campaign_result r;
        so.stop_before_measure = 1;
        so.seed_dir = all.dir;
        say(o, "shard %d/%d, CPU %d: %s", i + 1, n, cpus[i], s[i].dir);
        if (campaign_run(&so, &r, err) < 0) {
            char msg[HB_ERR_MAX];
            snprintf(msg, sizeof msg, "%s", err->msg);
            rc = hb_fail(err, "CPU %d (shard %d/%d): %s", cpus[i], i + 1, n, msg);
        }
        if (r.host_problems > res->host_problems)
            res->host_problems = r.host_problems;
    }
    if (rc == 0)
        say(o, "measuring on %d core%s side by side", n, n == 1 ? "" : "s");
    if (rc == 0)
        rc = measure_side_by_side(s, n, res, err);
    if (rc == 0)
        rc = clear_merge(o->run_dir, err);
    merge_counts counts;
    if (rc == 0)
        rc = merge_run(o->run_dir, dirs, n, &counts, err);
    if (rc == 0)
        rc = note_cores(o->run_dir, cpus, n, err);
    if (rc == 0) {
        res->build_failed = count_buildfail(o->run_dir);
        res->measured = 1;
    }
    free(s);
    free(dirs);
    hb_unlock(&lock);
    return rc;
}
