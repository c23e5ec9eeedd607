/* The command's marker and its watcher: see warden.h. The watcher holds
 * nothing of the command's (it is forked before any file, lock or staging
 * folder exists), sits in a process group of its own so that a Ctrl-C or a
 * kill of the command's group does not reach it, and learns of the end
 * from a pipe whose write end only the command and the processes forked
 * from it hold: the end of that pipe is the end of all of them, however
 * they ended. */
#include "sandbox/warden.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "common/fs.h"
#include "sandbox/memcg.h"
#include "sandbox/stage.h"

#define WARDEN_PREFIX_MAX 48
#define WARDEN_SWEEP_ROUNDS 60        /* at most 3 s of sweeps ... */
#define WARDEN_SWEEP_PAUSE_NS 50000000L /* ... 50 ms apart */
#define WARDEN_ENV_MAX (1u << 20)     /* the most of one environment read */
#define WARDEN_MEMCG_ROUNDS 100       /* a session's cgroup whose processes are
                                         still exiting (a large region takes its
                                         time on a loaded host): 5 s at most */

static char marker[96]; /* the marker as made here; marker.h publishes it */

int hb_warden_env_has(const char *env, size_t len, const char *m)
{
    size_t kl = strlen(HB_WARDEN_ENV), ml = strlen(m);
    if (!m[0])
        return 0;
    for (size_t i = 0; i < len;) {
        const char *e = env + i;
        const char *nul = memchr(e, '\0', len - i);
        size_t el = nul ? (size_t)(nul - e) : len - i;
        if (el == kl + 1 + ml && !strncmp(e, HB_WARDEN_ENV, kl) && e[kl] == '=' &&
            !memcmp(e + kl + 1, m, ml))
            return 1;
        i += el + 1;
    }
    return 0;
}

static int valid_prefix(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > WARDEN_PREFIX_MAX)
        return 0;
    return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

/* 1 when V is a marker this process made: [PREFIX.]PID-XXXXXXXX with PID
 * its own (the same after the new image). */
static int made_here(const char *v)
{
    char mine[32];
    const char *dot = strrchr(v, '.');
    const char *own = dot ? dot + 1 : v;
    int n = snprintf(mine, sizeof mine, "%ld-", (long)getpid());
    return strncmp(own, mine, (size_t)n) == 0 && strlen(own + n) == 8 &&
           strspn(own + n, "0123456789abcdef") == 8;
}

/* Reads /proc/PID/environ into BUF (size SZ); its length, or 0. */
static size_t read_environ(const char *pid, char *buf, size_t sz)
{
    char path[300];
    snprintf(path, sizeof path, "/proc/%.255s/environ", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    size_t n = 0;
    ssize_t r;
    while (n < sz && (r = read(fd, buf + n, sz - n)) != 0) {
        if (r < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        n += (size_t)r;
    }
    close(fd);
    return n;
}

/* Sends SIGKILL (which also ends a stopped process) to every process but
 * this one that carries the marker; how many there were. A process that
 * has ended and waits to be reaped shows no environment. */
static pid_t command_pid = -1; /* in the watcher: the command it watches */

static int sweep_once(char *buf, size_t sz)
{
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    int found = 0;
    pid_t self = getpid();
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        /* nor the command, which waits for this watcher at its normal end
         * (hb_warden_finish) and ends by itself */
        if (*end || pid <= 0 || pid == (long)self || pid == (long)command_pid)
            continue;
        size_t n = read_environ(e->d_name, buf, sz);
        if (n && hb_warden_env_has(buf, n, marker)) {
            kill((pid_t)pid, SIGKILL);
            found++;
        }
    }
    closedir(d);
    return found;
}

/* The sessions' memory cgroups (measure/session_probe.c) of hashbench
 * processes that are gone: "hashbench-PID-session-..." in hashbench's own
 * memory cgroup, with PID no longer running. The kernel refuses to remove
 * one that still holds a process (EBUSY: a killed probe not yet wholly
 * gone): what is in it is killed, and the number of the watched command's
 * own that were refused is returned (another command's watcher waits for
 * its own). */
static int remove_stale_memcgs(void)
{
    char *self = NULL, parent[PATH_MAX];
    int v2, busy = 0;
    if (hb_read_file("/proc/self/cgroup", &self, NULL, NULL) != 0)
        return 0;
    int rc = hb_memcg_parent("/sys/fs/cgroup", self, parent, sizeof parent, &v2);
    free(self);
    DIR *d = rc == 0 ? opendir(parent) : NULL;
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        long pid;
        int used = 0;
        char path[PATH_MAX + 256];
        if (sscanf(e->d_name, "hashbench-%ld-session-%*d%n", &pid, &used) != 1 ||
            e->d_name[used] || pid <= 0 ||
            (pid != (long)command_pid && hb_pid_running(pid)))
            continue;
        if (snprintf(path, sizeof path, "%s/%s", parent, e->d_name) >= (int)sizeof path ||
            rmdir(path) == 0 || errno != EBUSY)
            continue;
        busy += pid == (long)command_pid;
        /* what is still in it belongs to a session of a command that is
         * gone (a probe the sweep could not read, or one still exiting) */
        char procs[PATH_MAX + 300], *list = NULL;
        snprintf(procs, sizeof procs, "%s/cgroup.procs", path);
        if (hb_read_file(procs, &list, NULL, NULL) == 0) {
            for (char *q = list; *q;) {
                char *end;
                long p = strtol(q, &end, 10);
                if (end == q)
                    break;
                if (p > 1 && p != (long)getpid())
                    kill((pid_t)p, SIGKILL);
                q = end;
            }
        }
        free(list);
    }
    closedir(d);
    return busy;
}

/* The watcher: waits for the end of the pipe FD, then clears up. ARGV
 * (the command's, shared with it until the fork) is overwritten, so that
 * ps and pgrep show "hb-warden" and not a second copy of the command. */
static void watch(int fd, char **argv)
{
    command_pid = getppid();
    if (argv[0]) {
        char *end = argv[0];
        for (int i = 0; argv[i]; i++)
            if (argv[i] == end)
                end += strlen(argv[i]) + 1;
        memset(argv[0], 0, (size_t)(end - argv[0]));
        snprintf(argv[0], (size_t)(end - argv[0]), "hb-warden");
    }
    static const int quiet[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGTTIN,
                                SIGTTOU, SIGPIPE, SIGUSR1, SIGUSR2};
    for (size_t i = 0; i < sizeof quiet / sizeof quiet[0]; i++)
        signal(quiet[i], SIG_IGN);
    setpgid(0, 0);
    prctl(PR_SET_NAME, "hb-warden");
    if (chdir("/") != 0) {
        /* the command's folder stays its own; nothing depends on it */
    }
    if (fd < 3) { /* started with a standard stream closed: keep it clear of them */
        int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        if (moved < 0)
            _exit(1);
        fd = moved;
    }
    int nul = open("/dev/null", O_RDWR);
    if (nul >= 0) {
        dup2(nul, 0);
        dup2(nul, 1);
    }
    if (fd > 3)
        close_range(3, (unsigned)fd - 1, 0);
    close_range((unsigned)fd + 1, ~0U, 0);
    char c;
    for (;;) {
        ssize_t r = read(fd, &c, 1);
        if (r == 0 || (r < 0 && errno != EINTR))
            break;
    }
    char *buf = malloc(WARDEN_ENV_MAX);
    for (int round = 0; buf && round < WARDEN_SWEEP_ROUNDS; round++) {
        if (sweep_once(buf, WARDEN_ENV_MAX) == 0)
            break;
        struct timespec ts = {0, WARDEN_SWEEP_PAUSE_NS};
        nanosleep(&ts, NULL);
    }
    free(buf);
    hb_stage_cleanup(); /* the staging folders whose owners are all gone */
    for (int round = 0; round < WARDEN_MEMCG_ROUNDS && remove_stale_memcgs() > 0; round++) {
        struct timespec ts = {0, WARDEN_SWEEP_PAUSE_NS};
        nanosleep(&ts, NULL);
    }
    _exit(0);
}

static pid_t watcher_pid = -1; /* the watcher, a child of this process */
static int watcher_fd = -1;     /* this process's end of its pipe */

void hb_warden_start(char **argv)
{
    const char *given = getenv(HB_WARDEN_ENV);
    if (given && made_here(given)) {
        snprintf(marker, sizeof marker, "%s", given);
        hb_warden_set_marker(marker);
    } else {
        unsigned r = 0;
        if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
            r = (unsigned)time(NULL) ^ ((unsigned)getpid() << 16);
        int prefixed = given && valid_prefix(given);
        snprintf(marker, sizeof marker, "%s%s%ld-%08x", prefixed ? given : "",
                 prefixed ? "." : "", (long)getpid(), r);
        if (setenv(HB_WARDEN_ENV, marker, 1) != 0) {
            marker[0] = '\0';
            return;
        }
        hb_warden_set_marker(marker);
        /* the same program again (by its own name, which ps and pgrep
         * show), now with the marker in the environment block every forked
         * process shows in /proc */
        char exe[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (n > 0) {
            exe[n] = '\0';
            execv(exe, argv);
        }
    }
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0)
        return;
    fflush(NULL);
    pid_t w = fork();
    if (w < 0) {
        close(p[0]);
        close(p[1]);
        return;
    }
    if (w == 0) {
        close(p[1]);
        watch(p[0], argv);
    }
    close(p[0]);
    /* p[1] stays open for the life of this process and of every process
     * forked from it (close-on-exec: nothing it executes holds it) */
    watcher_pid = w;
    watcher_fd = p[1];
}

void hb_warden_finish(void)
{
    if (watcher_pid <= 0)
        return;
    close(watcher_fd);
    watcher_fd = -1;
    /* the watcher sees the pipe's end once nothing forked from this
     * process holds it either, clears up and exits */
    for (int i = 0; i < 500; i++) {
        pid_t r = waitpid(watcher_pid, NULL, WNOHANG);
        if (r == watcher_pid)
            break;
        /* SIGCHLD ignored: no zombie to reap, the pid is gone once it ended */
        if (r < 0 && errno == ECHILD && kill(watcher_pid, 0) != 0 && errno == ESRCH)
            break;
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    watcher_pid = -1;
}
