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
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/sandbox.h"
#include "common/clock.h"

void hb_proc_protect_self(void)
{
    int adj = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
    if (adj < 0)
        return;
    if (write(adj, "-1000", 5) != 5) {
        /* not allowed (not root): the kernel's own choice stays */
    }
    close(adj);
}

hb_proc_opts hb_proc_defaults(void)
{
    hb_proc_opts o;
    memset(&o, 0, sizeof o);
    o.cpu = -1;
    return o;
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

/* The sandboxed form of a command (see sandbox.h): the filter in a memory
 * file, the bound paths as descriptors. All are close-on-exec in the parent,
 * so that a child started by another thread never inherits them; the child
 * they belong to clears the flag on its own copies before it executes
 * bubblewrap. */
typedef struct sandbox_run {
    char **argv;
    int seccomp_fd;
    int fds[HB_SANDBOX_MAX_BINDS + 1];
    int nfds;
} sandbox_run;

/* bubblewrap's outer process ends without waiting for the sandbox's first
 * process, so a sandboxed step's CPU time would never reach hashbench's
 * wait4. The forked child therefore stays as a keeper: it becomes the
 * subreaper of everything below it, starts the step in a child of its own,
 * waits for every descendant and exits with the step's status, so that the
 * rusage hashbench reads of it covers the whole step. Returns in the step's
 * process only. */
static void keep_accounts(void)
{
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
        _exit(125);
    pid_t keeper = getpid();
    pid_t step = fork();
    if (step < 0)
        _exit(125);
    if (step == 0) {
        /* dies with the keeper (which dies with hashbench); bubblewrap is
         * not set-id, so the signal survives its execution */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != keeper)
            _exit(125);
        return;
    }
    close_range(0, ~0U, 0); /* the pipes' ends belong to the step */
    int st = 0, status = 0;
    pid_t w;
    while ((w = wait(&st)) != -1 || errno == EINTR)
        if (w == step)
            status = st;
    if (WIFEXITED(status))
        _exit(WEXITSTATUS(status));
    _exit(128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0));
}

/* Runs in the child between fork and the work: never returns on failure. */
static void child_setup(const hb_proc_opts *o, int capture_fd, int in_fd, pid_t parent,
                        const sandbox_run *sb)
{
    int sandboxed = sb->argv != NULL;
    if (o->fixed_layout)
        personality(ADDR_NO_RANDOMIZE);
    setpgid(0, 0);
    /* Its own group shields the child from a kill of ours: make it die with
     * hashbench instead, even when hashbench is killed without warning. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(125);
    int in = in_fd >= 0 ? in_fd : open("/dev/null", O_RDONLY);
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
    /* when memory runs out, the kernel kills the child, never hashbench
     * (which lowers its own score: hb_proc_protect_self) */
    int adj = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
    if (adj >= 0) {
        if (write(adj, "1000", 4) != 4) {
            /* the default score stays */
        }
        close(adj);
    }
    set_limit(RLIMIT_AS, o->as_bytes);
    if (o->cpu_s) {
        /* A soft limit below the hard one: running out of CPU time ends the
         * child with SIGXCPU, told apart from any other kill. */
        struct rlimit cpu = {(rlim_t)o->cpu_s, (rlim_t)o->cpu_s + 5};
        setrlimit(RLIMIT_CPU, &cpu);
    }
    set_limit(RLIMIT_FSIZE, o->fsize_bytes);
    if (o->cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(o->cpu, &set);
        if (sched_setaffinity(0, sizeof set, &set) != 0)
            _exit(125);
    }
    if (!sandboxed && o->cwd && chdir(o->cwd) != 0)
        _exit(126);
    if (sandboxed && hb_sandbox_drop_privileges() != 0)
        _exit(125);
    /* A change of uid clears the parent-death signal: set it again, and
     * see again that hashbench did not end in between. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(125);
    /* After the drop: RLIMIT_NPROC counts the processes of the uid the step
     * runs as (and means nothing to root); in a sandbox it is the host-wide
     * ceiling, each step's own limit is set inside (proc.h). */
    set_limit(RLIMIT_NPROC, o->nproc ? o->nproc : sandboxed ? HB_PROC_SANDBOX_NPROC_HOST : 0);
    set_limit(RLIMIT_NOFILE, o->nofile ? o->nofile : sandboxed ? HB_PROC_SANDBOX_NOFILE : 0);
    if (sandboxed) {
        for (int i = 0; i < sb->nfds; i++)
            fcntl(sb->fds[i], F_SETFD, 0);
        fcntl(sb->seccomp_fd, F_SETFD, 0);
        keep_accounts();
    }
}

/* How a child ended, from its wait status. bubblewrap (and the keeper)
 * report a step killed by signal N as exit status 128 + N. */
static void decode_status(int status, int timed_out, int sandboxed, hb_proc_result *res)
{
    res->timed_out = timed_out;
    if (WIFEXITED(status) && !timed_out) {
        int code = WEXITSTATUS(status);
        if (sandboxed && code > 128 && code < 128 + 65) {
            res->signaled = 1;
            res->signo = code - 128;
        } else {
            res->exited = 1;
            res->exit_code = code;
        }
    } else if (WIFSIGNALED(status)) {
        res->signaled = !timed_out;
        res->signo = WTERMSIG(status);
    }
}

static double ru_cpu_s(const struct rusage *ru)
{
    return (double)ru->ru_utime.tv_sec + (double)ru->ru_utime.tv_usec * 1e-6 +
           (double)ru->ru_stime.tv_sec + (double)ru->ru_stime.tv_usec * 1e-6;
}

static int wait_child(pid_t pid, int pipe_fd, int sandboxed, const hb_proc_opts *o,
                      hb_proc_result *res, hb_err *err)
{
    double start = hb_mono_s();
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
    int status = 0, done = 0, timed_out = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    int nap_ms = 1; /* without a pipe to wait on: 1 ms, doubling to 50 */
    while (!done) {
        double left = o->timeout_s > 0 ? o->timeout_s - (hb_mono_s() - start) : 1.0;
        if (left <= 0) {
            timed_out = 1;
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            wait4(pid, &status, 0, &ru);
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
            if (nap_ms < ms)
                ms = nap_ms;
            nap_ms = nap_ms * 2 > 50 ? 50 : nap_ms * 2;
            struct timespec ts = {0, (long)ms * 1000000L};
            nanosleep(&ts, NULL);
        }
        pid_t w = wait4(pid, &status, WNOHANG, &ru);
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
    res->wall_s = hb_mono_s() - start;
    res->cpu_s = ru_cpu_s(&ru);
    decode_status(status, timed_out, sandboxed, res);
    if (o->capture) {
        buf[n] = '\0';
        *o->capture = buf;
        res->captured = n;
    }
    return 0;
}

/* The sandboxed form of ARGV (see sandbox.h): the filter in a memory file
 * the child inherits, and the bound paths opened. Nothing to do (0, *OUT
 * NULL) without a sandbox or with --no-sandbox. */

static void sandbox_release(sandbox_run *s)
{
    hb_sandbox_argv_free(s->argv);
    s->argv = NULL;
    if (s->seccomp_fd >= 0)
        close(s->seccomp_fd);
    s->seccomp_fd = -1;
    hb_sandbox_close_fds(s->fds, s->nfds);
    s->nfds = 0;
}

static int sandbox_prepare(const hb_proc_opts *o, char *const argv[], sandbox_run *s,
                           hb_err *err)
{
    const void *bpf;
    size_t len;
    memset(s, 0, sizeof *s);
    s->seccomp_fd = -1;
    if (!o->sandbox || !hb_sandbox_enabled())
        return 0;
    if (!argv)
        return hb_fail(err, "internal: a sandboxed child must execute a program");
    if (hb_sandbox_filter(o->sandbox, &bpf, &len, err) != 0)
        return -1;
    s->seccomp_fd = memfd_create("hb-seccomp", MFD_CLOEXEC);
    if (s->seccomp_fd < 0)
        return hb_fail_errno(err, "sandbox: cannot create a memory file");
    if (write(s->seccomp_fd, bpf, len) != (ssize_t)len || lseek(s->seccomp_fd, 0, SEEK_SET) != 0) {
        sandbox_release(s);
        return hb_fail_errno(err, "sandbox: cannot write the seccomp filter");
    }
    if (hb_sandbox_argv(o->sandbox, argv, s->seccomp_fd, &s->argv, s->fds, &s->nfds, err) != 0) {
        sandbox_release(s);
        return -1;
    }
    return 0;
}

static int start(int (*fn)(void *), void *arg, char *const argv[],
                 const hb_proc_opts *o, hb_proc_result *res, hb_err *err)
{
    memset(res, 0, sizeof *res);
    if (o->capture)
        *o->capture = NULL;
    sandbox_run sb;
    if (sandbox_prepare(o, argv, &sb, err) != 0)
        return -1;
    if (sb.argv)
        argv = sb.argv;
    int fds[2] = {-1, -1};
    if (o->capture && pipe2(fds, O_CLOEXEC) != 0) {
        sandbox_release(&sb);
        return hb_fail_errno(err, "cannot create a pipe");
    }
    fflush(stdout);
    fflush(stderr);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        if (fds[0] >= 0) {
            close(fds[0]);
            close(fds[1]);
        }
        sandbox_release(&sb);
        return hb_fail_errno(err, "cannot fork");
    }
    if (pid == 0) {
        if (fds[0] >= 0)
            close(fds[0]);
        child_setup(o, fds[1], -1, parent, &sb);
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
    int sandboxed = sb.argv != NULL;
    sandbox_release(&sb);
    if (fds[1] >= 0) {
        close(fds[1]);
        fcntl(fds[0], F_SETFL, O_NONBLOCK);
    }
    return wait_child(pid, fds[0], sandboxed, o, res, err);
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

/* ---- interactive children ---- */

int hb_proc_spawn(char *const argv[], const hb_proc_opts *o, hb_proc_child *c, hb_err *err)
{
    memset(c, 0, sizeof *c);
    c->pid = -1;
    c->to_child = c->from_child = -1;
    sandbox_run sb;
    if (sandbox_prepare(o, argv, &sb, err) != 0)
        return -1;
    if (sb.argv)
        argv = sb.argv;
    int in[2] = {-1, -1}, out[2] = {-1, -1};
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) {
        int e = errno;
        for (int i = 0; i < 2; i++) {
            if (in[i] >= 0)
                close(in[i]);
            if (out[i] >= 0)
                close(out[i]);
        }
        sandbox_release(&sb);
        errno = e;
        return hb_fail_errno(err, "cannot create a pipe");
    }
    fflush(stdout);
    fflush(stderr);
    pid_t parent = getpid();
    c->start_s = hb_mono_s();
    pid_t pid = fork();
    if (pid < 0) {
        close(in[0]);
        close(in[1]);
        close(out[0]);
        close(out[1]);
        sandbox_release(&sb);
        return hb_fail_errno(err, "cannot fork");
    }
    if (pid == 0) {
        close(in[1]);
        close(out[0]);
        child_setup(o, out[1], in[0], parent, &sb);
        execv(argv[0], argv);
        _exit(127);
    }
    setpgid(pid, pid);
    c->sandboxed = sb.argv != NULL;
    sandbox_release(&sb);
    close(in[0]);
    close(out[1]);
    /* A child that dies must not kill us with SIGPIPE on our next write. */
    signal(SIGPIPE, SIG_IGN);
    c->pid = pid;
    c->to_child = in[1];
    c->from_child = out[0];
    return 0;
}

int hb_proc_reap(hb_proc_child *c, double grace_s, hb_proc_result *res)
{
    memset(res, 0, sizeof *res);
    if (c->to_child >= 0)
        close(c->to_child);
    if (c->from_child >= 0)
        close(c->from_child);
    c->to_child = c->from_child = -1;
    if (c->pid <= 0)
        return -1;
    int status = 0;
    struct rusage ru;
    double end = hb_mono_s() + grace_s;
    pid_t w;
    while ((w = wait4(c->pid, &status, WNOHANG, &ru)) == 0 && hb_mono_s() < end) {
        struct timespec ts = {0, 2000000L};
        nanosleep(&ts, NULL);
    }
    if (w != c->pid) { /* did not end when asked: killed (not a timeout) */
        kill(-c->pid, SIGKILL);
        kill(c->pid, SIGKILL);
        wait4(c->pid, &status, 0, &ru);
    }
    kill(-c->pid, SIGKILL); /* anything left in its group */
    res->wall_s = hb_mono_s() - c->start_s;
    res->cpu_s = ru_cpu_s(&ru);
    decode_status(status, c->timed_out, c->sandboxed, res);
    c->pid = -1;
    return 0;
}

void hb_proc_kill(hb_proc_child *c, int timed_out)
{
    if (c->pid > 0) {
        kill(-c->pid, SIGKILL);
        kill(c->pid, SIGKILL);
        if (timed_out)
            c->timed_out = 1;
    }
}
