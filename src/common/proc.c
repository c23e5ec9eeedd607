/* Child processes with limits and timeouts: see proc.h. The child sets its
 * own limits after fork, so a hostile library can only hurt itself; the
 * parent reads any captured output with poll() so a child that prints
 * megabytes never blocks, and kills the process group at the end. */
#include "common/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

hb_proc_opts hb_proc_defaults(void)
{
    hb_proc_opts o;
    memset(&o, 0, sizeof o);
    o.cpu = -1;
    return o;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void set_limit(int resource, unsigned long long v)
{
    if (v) {
        struct rlimit rl = {(rlim_t)v, (rlim_t)v};
        setrlimit(resource, &rl);
    }
}

static int open_out(const char *path)
{
    if (!path)
        return open("/dev/null", O_WRONLY);
    return open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
}

/* Runs in the child between fork and the work: never returns on failure. */
static void child_setup(const hb_proc_opts *o, int capture_fd, pid_t parent)
{
    setpgid(0, 0);
    /* Its own group shields the child from a kill of ours: make it die with
     * hashbench instead, even when hashbench is killed without warning. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(125);
    int in = open("/dev/null", O_RDONLY);
    if (in >= 0) {
        dup2(in, 0);
        close(in);
    }
    int out = capture_fd >= 0 ? capture_fd : open_out(o->stdout_path);
    if (out < 0)
        _exit(126);
    dup2(out, 1);
    if (o->stderr_to_stdout) {
        dup2(out, 2);
    } else {
        int e = open_out(o->stderr_path);
        if (e < 0)
            _exit(126);
        dup2(e, 2);
        if (e > 2)
            close(e);
    }
    if (out > 2)
        close(out);
    struct rlimit core = {0, 0};
    setrlimit(RLIMIT_CORE, &core);
    set_limit(RLIMIT_AS, o->as_bytes);
    set_limit(RLIMIT_CPU, o->cpu_s);
    set_limit(RLIMIT_FSIZE, o->fsize_bytes);
    if (o->cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(o->cpu, &set);
        if (sched_setaffinity(0, sizeof set, &set) != 0)
            _exit(125);
    }
    if (o->cwd && chdir(o->cwd) != 0)
        _exit(126);
}

static int wait_child(pid_t pid, int pipe_fd, const hb_proc_opts *o,
                      hb_proc_result *res, hb_err *err)
{
    double start = now_s();
    size_t cap = o->capture_cap ? o->capture_cap : (1u << 20);
    char *buf = NULL;
    size_t n = 0;
    if (o->capture) {
        buf = malloc(cap + 1);
        if (!buf) {
            kill(-pid, SIGKILL);
            waitpid(pid, NULL, 0);
            return hb_fail(err, "out of memory for child output");
        }
    }
    int status = 0, done = 0;
    while (!done) {
        double left = o->timeout_s > 0 ? o->timeout_s - (now_s() - start) : 1.0;
        if (left <= 0) {
            res->timed_out = 1;
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            break;
        }
        int ms = (int)(left * 1000.0);
        if (ms > 50)
            ms = 50;
        if (ms < 1)
            ms = 1;
        if (pipe_fd >= 0) {
            struct pollfd p = {pipe_fd, POLLIN, 0};
            if (poll(&p, 1, ms) > 0) {
                char tmp[65536];
                ssize_t r = read(pipe_fd, tmp, sizeof tmp);
                if (r > 0) {
                    size_t keep = (size_t)r;
                    if (n + keep > cap) {
                        keep = cap - n;
                        res->truncated = 1;
                    }
                    memcpy(buf + n, tmp, keep);
                    n += keep;
                } else if (r == 0) {
                    close(pipe_fd);
                    pipe_fd = -1;
                }
            }
        } else {
            struct timespec ts = {0, (long)ms * 1000000L};
            nanosleep(&ts, NULL);
        }
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid)
            done = 1;
    }
    /* Drain what is left in the pipe after exit (never blocks: nonblocking). */
    if (pipe_fd >= 0) {
        char tmp[65536];
        ssize_t r;
        while ((r = read(pipe_fd, tmp, sizeof tmp)) > 0) {
            size_t keep = (size_t)r;
            if (n + keep > cap) {
                keep = cap - n;
                res->truncated = 1;
            }
            memcpy(buf + n, tmp, keep);
            n += keep;
        }
        close(pipe_fd);
    }
    kill(-pid, SIGKILL); /* anything the child left behind in its group */
    res->wall_s = now_s() - start;
    if (WIFEXITED(status) && !res->timed_out) {
        res->exited = 1;
        res->exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        res->signaled = !res->timed_out;
        res->signo = WTERMSIG(status);
    }
    if (o->capture) {
        buf[n] = '\0';
        *o->capture = buf;
        res->captured = n;
    }
    return 0;
}

static int start(int (*fn)(void *), void *arg, char *const argv[],
                 const hb_proc_opts *o, hb_proc_result *res, hb_err *err)
{
    memset(res, 0, sizeof *res);
    if (o->capture)
        *o->capture = NULL;
    int fds[2] = {-1, -1};
    if (o->capture && pipe2(fds, O_CLOEXEC) != 0)
        return hb_fail_errno(err, "cannot create a pipe");
    fflush(stdout);
    fflush(stderr);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        if (fds[0] >= 0) {
            close(fds[0]);
            close(fds[1]);
        }
        return hb_fail_errno(err, "cannot fork");
    }
    if (pid == 0) {
        if (fds[0] >= 0)
            close(fds[0]);
        child_setup(o, fds[1], parent);
        if (fn) {
            int rc = fn(arg);
            fflush(stdout);
            _exit(rc & 255);
        }
        execv(argv[0], argv);
        fprintf(stderr, "cannot execute %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid); /* also from the parent, so killpg works at once */
    if (fds[1] >= 0) {
        close(fds[1]);
        fcntl(fds[0], F_SETFL, O_NONBLOCK);
    }
    return wait_child(pid, fds[0], o, res, err);
}

int hb_proc_fork(int (*fn)(void *), void *arg, const hb_proc_opts *opts,
                 hb_proc_result *res, hb_err *err)
{
    return start(fn, arg, NULL, opts, res, err);
}

int hb_proc_exec(char *const argv[], const hb_proc_opts *opts,
                 hb_proc_result *res, hb_err *err)
{
    return start(NULL, NULL, argv, opts, res, err);
}

const char *hb_proc_describe(const hb_proc_result *res, char *buf, size_t bufsz)
{
    if (res->timed_out)
        snprintf(buf, bufsz, "timeout after %.1f s", res->wall_s);
    else if (res->signaled)
        snprintf(buf, bufsz, "signal %d (SIG%s)", res->signo,
                 sigabbrev_np(res->signo) ? sigabbrev_np(res->signo) : "?");
    else
        snprintf(buf, bufsz, "exit %d", res->exit_code);
    return buf;
}
