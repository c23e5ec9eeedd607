/* Starting a probe process for any role, alike for every role: see
 * start.h. The role's options travel in the configure line; the start
 * itself takes nothing from the role but the core it is pinned to and the
 * one descriptor a session inherits (which the probe closes before its
 * load). */
#include "runner/start.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fdio.h"
#include "common/fs.h"
#include "sandbox/sandbox.h"

#define PROBE_STOP_S 2.0 /* for the stopped probe's whole thread group */

/* 1 when the maps at PATH name a user-mode emulator (a process's maps read from
 * another process: an emulator answers its own process's /proc itself).
 * Only open, read and close, no allocation: it runs in a child forked from
 * a process that may have other threads. */
static int maps_emulator(const char *path)
{
    static char buf[1 << 16];
    static const char word[] = "/qemu-";
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return 0;
    size_t keep = 0, w = sizeof word - 1;
    int found = 0;
    for (;;) {
        ssize_t r = read(fd, buf + keep, sizeof buf - keep);
        if (r <= 0)
            break;
        size_t n = keep + (size_t)r;
        for (size_t i = 0; i + w <= n && !found; i++)
            found = memcmp(buf + i, word, w) == 0;
        if (found)
            break;
        keep = n < w ? n : w - 1; /* a word cut between two reads */
        memmove(buf, buf + n - keep, keep);
    }
    close(fd);
    return found;
}

int probe_emulated(void)
{
    static int known = -1;
    if (known >= 0)
        return known;
    /* hashbench and its probe are built for one machine: both emulated or
     * neither. A child reads hashbench's maps, from outside it. */
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/maps", (long)getpid());
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0)
        _exit(maps_emulator(path));
    int st = 0;
    while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    known = pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 1;
    return known;
}

/* The processes started on each core with probe_core_take, running: in
 * memory shared with every process hashbench forks (the KAT stage's
 * workers are processes, each starting its own runners), mapped when
 * hashbench starts, before any fork; a process-local table when it could
 * not be. Updated with atomic operations. */
static int core_load_local[CPU_SETSIZE];
static int *core_load = core_load_local;

__attribute__((constructor)) static void core_load_map(void)
{
    void *p = mmap(NULL, sizeof core_load_local, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p != MAP_FAILED)
        core_load = p;
}

int probe_core_take(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0 || CPU_COUNT(&set) == 0)
        return -1;
    int best = -1, best_load = 0;
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, &set))
            continue;
        int load = __atomic_load_n(&core_load[c], __ATOMIC_ACQUIRE);
        if (best < 0 || load < best_load) {
            best = c;
            best_load = load;
        }
    }
    if (best >= 0)
        __atomic_fetch_add(&core_load[best], 1, __ATOMIC_ACQ_REL);
    return best;
}

void probe_core_put(int core)
{
    if (core < 0 || core >= CPU_SETSIZE)
        return;
    int n = __atomic_load_n(&core_load[core], __ATOMIC_ACQUIRE);
    while (n > 0 && !__atomic_compare_exchange_n(&core_load[core], &n, n - 1, 0,
                                                 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        ;
}

int probe_start(const probe_start_rq *rq, hb_proc_child *c, hb_err *err)
{
    char *argv[] = {(char *)rq->probe, NULL};
    int sandboxed = hb_sandbox_enabled();
    hb_sandbox sb = {.profile = HB_SANDBOX_SESSION, .no_new_code = !probe_emulated(),
                     .allow_perf = rq->allow_perf, .tmpfs_scratch = 1};
    if (sandboxed && (hb_sandbox_add_ro(&sb, rq->probe, err) != 0 ||
                      (hb_is_file(rq->lib) && hb_sandbox_add_ro(&sb, rq->lib, err) != 0)))
        return -1;
    hb_proc_opts o = hb_proc_defaults();
    o.cpu = rq->cpu >= 0 ? rq->cpu : probe_core_take();
    o.as_bytes = PROBE_AS_BYTES;
    o.fsize_bytes = PROBE_FSIZE_BYTES;
    o.sandbox = sandboxed ? &sb : NULL;
    o.fixed_layout = 1;
    /* every role gets a region, a session's its own, any other one page it
     * does not use: the same descriptor and the same mapping's name */
    int region = rq->inherit_fd, own = -1;
    if (region < 0) {
        own = region = memfd_create(PROBE_REGION_NAME, MFD_CLOEXEC | MFD_ALLOW_SEALING);
        if (own < 0 || ftruncate(own, (off_t)sysconf(_SC_PAGESIZE)) != 0 ||
            fcntl(own, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
            if (own >= 0)
                close(own);
            return hb_fail_errno(err, "cannot create a probe's region");
        }
    }
    int flags = fcntl(region, F_GETFD);
    if (flags < 0 || fcntl(region, F_SETFD, flags & ~FD_CLOEXEC) != 0) {
        if (own >= 0)
            close(own);
        return hb_fail_errno(err, "cannot hand a region to a probe");
    }
    int rc = hb_proc_spawn(argv, &o, c, err);
    if (own >= 0)
        close(own);
    else
        fcntl(region, F_SETFD, flags | FD_CLOEXEC);
    if (rc != 0)
        return -1;
    size_t cap = strlen(rq->config) + strlen(rq->lib) + 128;
    char *line = malloc(cap);
    if (!line) {
        hb_proc_result gone;
        hb_proc_kill(c, 0);
        hb_proc_reap(c, 0, &gone);
        return hb_fail(err, "out of memory for a probe's configure line");
    }
    int n = snprintf(line, cap, "nonce %s %s%sfd=%d lib=%s\n", rq->nonce, rq->config,
                     rq->config[0] ? " " : "", region, rq->lib);
    /* one write: the probe takes its first line whole from one read; a
     * probe that died already is the caller's to see on its output */
    if (write(c->to_child, line, (size_t)n) != n) {
        /* nothing more to do here */
    }
    free(line);
    return 0;
}

void probe_preload(const hb_proc_child *c, double deadline, probe_preload_figures *out,
                   long *pid_out)
{
    int sandboxed = c->sandboxed;
    if (out) {
        out->rss_kb = -1;
        out->filters = -1;
        memset(&out->code, 0, sizeof out->code);
    }
    if (pid_out)
        *pid_out = -1;
    while (hb_mono_s() < deadline) {
        long pid = procview_host_pid(c->pid, sandboxed);
        if (pid_out)
            *pid_out = pid;
        struct pollfd p = {c->from_child, POLLIN, 0};
        if (poll(&p, 1, 0) != 0)
            return; /* it spoke or ended first */
        char state[8];
        if (pid > 0 && procview_stat_field(pid, 3, state, sizeof state) == 0 &&
            (state[0] == 'T' || state[0] == 't')) {
            if (out && procview_await_stop(pid, PROBE_STOP_S) == 0) {
                out->rss_kb = procview_status_value(pid, "VmRSS");
                out->filters = procview_status_value(pid, "Seccomp_filters");
                if (procview_code(pid, &out->code) != 0)
                    procview_code_free(&out->code);
            }
            procview_continue(pid);
            return;
        }
        struct timespec ts = {0, 100000};
        nanosleep(&ts, NULL);
    }
}
