/* Helpers for the robustness tests: see rb_util.h. */
#include "rb_util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/digest.h"
#include "common/fs.h"
#include "common/proc.h"

#define SNAPSHOT_HASH_LIMIT (16LL << 20)
#define GREP_READ_LIMIT ((size_t)256 << 20)

static const char *env_or(const char *name, const char *fallback)
{
    const char *v = getenv(name);
    return v && *v ? v : fallback;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void rb_appendf(char **buf, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    size_t old = *buf ? strlen(*buf) : 0;
    char *r = realloc(*buf, old + (size_t)n + 1);
    if (!r)
        return;
    va_start(ap, fmt);
    vsnprintf(r + old, (size_t)n + 1, fmt, ap);
    va_end(ap);
    *buf = r;
}

const char *rb_hashbench(void)
{
    static char path[4096];
    if (!path[0])
        snprintf(path, sizeof path, "%s/hashbench", env_or("HB_BUILD_DIR", "."));
    return path;
}

const char *rb_source_dir(void)
{
    return env_or("HB_SOURCE_DIR", HB_SOURCE_DIR);
}

char *rb_tempdir(const char *tag)
{
    char base[4096], *path = malloc(4200);
    hb_err err;
    if (!path)
        return NULL;
    snprintf(base, sizeof base, "%s/robustness-tmp", env_or("HB_BUILD_DIR", "/tmp"));
    if (hb_mkdirs(base, &err) != 0) {
        free(path);
        return NULL;
    }
    snprintf(path, 4200, "%s/%s.XXXXXX", base, tag);
    if (!mkdtemp(path)) {
        free(path);
        return NULL;
    }
    return path;
}

int rb_hashbench_run(const char *const *args, double timeout_s, char **output)
{
    const char *argv[64];
    size_t n = 0;
    argv[n++] = rb_hashbench();
    for (; args[n - 1] && n < 63; n++)
        argv[n] = args[n - 1];
    argv[n] = NULL;
    hb_proc_opts o = hb_proc_defaults();
    o.timeout_s = timeout_s;
    o.stderr_to_stdout = 1;
    o.capture = output;
    o.capture_cap = 1u << 20;
    hb_proc_result res;
    hb_err err;
    *output = NULL;
    if (hb_proc_exec((char *const *)argv, &o, &res, &err) != 0) {
        *output = strdup(err.msg);
        return -1;
    }
    if (res.exited)
        return res.exit_code;
    char how[128];
    rb_appendf(output, "\n[hashbench ended by %s]",
               hb_proc_describe(&res, how, sizeof how));
    return -1;
}

/* ---- contained runs ---- */

enum { MSG_FAIL = 1, MSG_INIT, MSG_DONE };

/* What the namespace's processes tell the test, one write each. */
typedef struct contained_msg {
    int kind;
    int status;       /* MSG_DONE: wait status of hashbench; -1: not started */
    int err;          /* MSG_FAIL: errno */
    long pid;         /* MSG_INIT: the init's pid as the test sees it */
    long maxrss_kb;
    double seconds;
} contained_msg;

static void send_msg(int fd, const contained_msg *m)
{
    if (write(fd, m, sizeof *m) != (ssize_t)sizeof *m)
        _exit(125);
}

static int write_proc_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    close(fd);
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* Makes the next child the init of a new pid namespace, with a mount
 * namespace for its own /proc: directly as root, else inside a user
 * namespace that maps our own uid and gid only. */
static int enter_pid_namespace(void)
{
    if (unshare(CLONE_NEWPID | CLONE_NEWNS) == 0)
        return 0;
    unsigned uid = (unsigned)getuid(), gid = (unsigned)getgid();
    char map[64];
    if (unshare(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS) != 0)
        return -1;
    write_proc_file("/proc/self/setgroups", "deny");
    snprintf(map, sizeof map, "%u %u 1", uid, uid);
    if (write_proc_file("/proc/self/uid_map", map) != 0)
        return -1;
    snprintf(map, sizeof map, "%u %u 1", gid, gid);
    return write_proc_file("/proc/self/gid_map", map);
}

/* The init of the namespace: starts hashbench, reaps every process that
 * ends (hashbench's orphans are re-parented here), reports hashbench's end
 * and the largest resident set among the reaped, kills hashbench on 'K'
 * and exits (ending the namespace) when the test closes CTL. */
static void init_main(char *const argv[], const char *cwd, const char *out_path,
                      unsigned long long as_net, int info, int ctl)
{
    double t0 = now_s();
    /* The namespace's own /proc: what hashbench reads there by pid must be
     * its own processes, as on a host (mounts stay private to it). */
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
        mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0) {
        contained_msg m = {MSG_DONE, -1, errno, 0, 0, 0};
        send_msg(info, &m);
        _exit(0);
    }
    pid_t hb = fork();
    if (hb == 0) {
        int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (out < 0 || in < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0 || dup2(in, 0) < 0 ||
            chdir(cwd) != 0)
            _exit(126);
        if (as_net) {
            struct rlimit rl;
            getrlimit(RLIMIT_AS, &rl);
            if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= as_net)
                rl.rlim_cur = as_net;
            setrlimit(RLIMIT_AS, &rl);
        }
        execv(argv[0], argv);
        _exit(127);
    }
    contained_msg done = {MSG_DONE, -1, 0, 0, 0, 0};
    int reported = hb < 0;
    if (hb < 0)
        send_msg(info, &done);
    fcntl(ctl, F_SETFL, O_NONBLOCK);
    for (;;) {
        int st;
        pid_t p;
        while ((p = waitpid(-1, &st, WNOHANG)) > 0) {
            if (p == hb && !reported) {
                struct rusage ru;
                getrusage(RUSAGE_CHILDREN, &ru);
                done.status = st;
                done.seconds = now_s() - t0;
                done.maxrss_kb = ru.ru_maxrss;
                send_msg(info, &done);
                reported = 1;
            }
        }
        char c;
        ssize_t n = read(ctl, &c, 1);
        if (n == 1 && c == 'K' && !reported)
            kill(hb, SIGKILL);
        else if (n == 0)
            _exit(0);
        usleep(10 * 1000);
    }
}

/* Reads one message, waiting at most TIMEOUT_S; 0 or -1. */
static int read_msg(int fd, contained_msg *m, double timeout_s)
{
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, (int)(timeout_s * 1000)) <= 0)
        return -1;
    return read(fd, m, sizeof *m) == (ssize_t)sizeof *m ? 0 : -1;
}

typedef struct proc_entry {
    long pid, ppid;
    char state;
} proc_entry;

/* Every process of /proc with its parent and state; *n of them. */
static proc_entry *list_processes(size_t *n)
{
    DIR *d = opendir("/proc");
    struct dirent *de;
    proc_entry *v = NULL;
    size_t cap = 0;
    *n = 0;
    if (!d)
        return NULL;
    while ((de = readdir(d)) != NULL) {
        char path[300], stat[1024];
        if (!isdigit((unsigned char)de->d_name[0]))
            continue;
        snprintf(path, sizeof path, "/proc/%s/stat", de->d_name);
        FILE *fp = fopen(path, "r");
        if (!fp)
            continue;
        size_t len = fread(stat, 1, sizeof stat - 1, fp);
        fclose(fp);
        stat[len] = '\0';
        const char *close_paren = strrchr(stat, ')');
        proc_entry e;
        if (!close_paren || sscanf(close_paren + 1, " %c %ld", &e.state, &e.ppid) != 2)
            continue;
        e.pid = atol(de->d_name);
        if (*n == cap) {
            cap = cap ? 2 * cap : 256;
            proc_entry *r = realloc(v, cap * sizeof *v);
            if (!r)
                break;
            v = r;
        }
        v[(*n)++] = e;
    }
    closedir(d);
    return v;
}

static void append_cmdline(char **report, long pid)
{
    char path[64], cmd[512];
    snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
    FILE *fp = fopen(path, "rb");
    size_t n = fp ? fread(cmd, 1, sizeof cmd - 1, fp) : 0;
    if (fp)
        fclose(fp);
    for (size_t i = 0; i < n; i++)
        if (cmd[i] == '\0')
            cmd[i] = ' ';
    cmd[n] = '\0';
    rb_appendf(report, "pid %ld: %s\n", pid, cmd);
}

/* 1 when process PID's name (/proc/PID/comm) is NAME. */
static int comm_is(long pid, const char *name)
{
    char path[64], comm[64];
    snprintf(path, sizeof path, "/proc/%ld/comm", pid);
    FILE *fp = fopen(path, "r");
    size_t n = fp ? fread(comm, 1, sizeof comm - 1, fp) : 0;
    if (fp)
        fclose(fp);
    comm[n] = '\0';
    comm[strcspn(comm, "\n")] = '\0';
    return strcmp(comm, name) == 0;
}

/* Live processes (not zombies) descending from ROOT, ROOT excluded, each
 * named in REPORT (may be NULL); *WARDENS (may be NULL) gets how many of
 * them are hashbench's watcher. */
static int count_descendants_of(long root, char **report, int *wardens)
{
    size_t n;
    proc_entry *v = list_processes(&n);
    int count = 0;
    if (wardens)
        *wardens = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i].pid == root || v[i].state == 'Z' || v[i].state == 'X')
            continue;
        long up = v[i].ppid;
        for (int depth = 0; depth < 64 && up > 1 && up != root; depth++) {
            long next = 0;
            for (size_t j = 0; j < n; j++)
                if (v[j].pid == up)
                    next = v[j].ppid;
            up = next;
        }
        if (up == root) {
            count++;
            if (wardens)
                *wardens += comm_is(v[i].pid, "hb-warden");
            if (report)
                append_cmdline(report, v[i].pid);
        }
    }
    free(v);
    return count;
}

static int count_descendants(long root, char **report)
{
    return count_descendants_of(root, report, NULL);
}

/* hashbench's watcher (src/sandbox/warden.h) outlives the command by design
 * for as long as its clear-up takes (sweeps of /proc and of the session
 * memory cgroups, up to 3 s each, then the staging folders): while it is
 * all that is left under ROOT, it is given up to RB_WARDEN_GRACE_S to end
 * before anything left counts. */
#define RB_WARDEN_GRACE_S 8.0
static void wait_for_wardens(long root)
{
    double t0 = now_s();
    int w, left;
    while ((left = count_descendants_of(root, NULL, &w)) > 0 && w == left &&
           now_s() - t0 < RB_WARDEN_GRACE_S)
        usleep(50000);
}

int rb_contained_run(const char *const *args, const char *cwd, const char *out_path,
                     double limit_s, unsigned long long as_net, double settle_s,
                     int (*kill_when)(void *), void *kill_arg, rb_contained *res)
{
    char *argv[64];
    size_t n = 0;
    int info[2], ctl[2];
    memset(res, 0, sizeof *res);
    argv[n++] = (char *)rb_hashbench();
    for (; args[n - 1] && n < 63; n++)
        argv[n] = (char *)args[n - 1];
    argv[n] = NULL;
    if (pipe2(info, O_CLOEXEC) != 0)
        return -1;
    if (pipe2(ctl, O_CLOEXEC) != 0) {
        close(info[0]);
        close(info[1]);
        return -1;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t c1 = fork();
    if (c1 == 0) {
        close(info[0]);
        close(ctl[1]);
        if (enter_pid_namespace() != 0) {
            contained_msg m = {MSG_FAIL, 0, errno, 0, 0, 0};
            send_msg(info[1], &m);
            _exit(0);
        }
        pid_t c2 = fork();
        if (c2 == 0)
            init_main(argv, cwd, out_path, as_net, info[1], ctl[0]);
        contained_msg m = {c2 > 0 ? MSG_INIT : MSG_FAIL, 0, errno, (long)c2, 0, 0};
        send_msg(info[1], &m);
        close(info[1]);
        close(ctl[0]);
        if (c2 > 0)
            waitpid(c2, NULL, 0);
        _exit(0);
    }
    close(info[1]);
    close(ctl[0]);
    contained_msg m = {0, 0, 0, 0, 0, 0};
    int rc = -1;
    if (c1 < 0 || read_msg(info[0], &m, 10) != 0 || m.kind != MSG_INIT) {
        rb_appendf(&res->report, "cannot make a pid namespace: %s",
                   c1 >= 0 && m.kind == MSG_FAIL ? strerror(m.err) : "no answer");
        goto out;
    }
    long init = m.pid;
    double t0 = now_s();
    rc = 0;
    res->started = 1;
    for (;;) {
        if (read_msg(info[0], &m, 0.02) == 0 && m.kind == MSG_DONE)
            break;
        if (now_s() - t0 > limit_s) {
            res->timed_out = 1;
            res->seconds = now_s() - t0;
            res->leftovers = count_descendants(init, &res->report);
            kill((pid_t)init, SIGKILL);
            goto out;
        }
        if (kill_when && !res->killed && kill_when(kill_arg)) {
            res->killed = write(ctl[1], "K", 1) == 1;
        }
    }
    if (m.status == -1) {
        rb_appendf(&res->report, "cannot start hashbench in the namespace: %s",
                   strerror(m.err));
    } else if (WIFEXITED(m.status)) {
        res->exited = 1;
        res->exit_code = WEXITSTATUS(m.status);
    } else if (WIFSIGNALED(m.status)) {
        res->signo = WTERMSIG(m.status);
    }
    res->seconds = m.seconds;
    res->maxrss_kb = m.maxrss_kb;
    usleep((useconds_t)(settle_s * 1e6));
    wait_for_wardens(init);
    res->leftovers = count_descendants(init, &res->report);
out:
    close(ctl[1]); /* the init exits, and the namespace with it */
    if (c1 > 0)
        waitpid(c1, NULL, 0);
    close(info[0]);
    return rc;
}

/* ---- folders ---- */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char *rb_snapshot(const char *dir)
{
    char *const roots[] = {(char *)dir, NULL};
    FTS *fts = fts_open(roots, FTS_PHYSICAL | FTS_NOCHDIR, NULL);
    char **lines = NULL;
    size_t n = 0, cap = 0, total = 1, root_len = strlen(dir);
    FTSENT *e;
    if (!fts)
        return strdup("(cannot read folder)");
    while ((e = fts_read(fts)) != NULL) {
        char line[8600], hex[HB_SHA256_HEX], target[4096];
        hb_err err;
        const char *rel = e->fts_path + root_len;
        if (e->fts_info == FTS_D && e->fts_level > 0) {
            snprintf(line, sizeof line, "%s/ dir\n", rel);
        } else if (e->fts_info == FTS_F && e->fts_statp->st_size > SNAPSHOT_HASH_LIMIT) {
            snprintf(line, sizeof line, "%s size %lld mtime %lld.%09ld\n", rel,
                     (long long)e->fts_statp->st_size,
                     (long long)e->fts_statp->st_mtim.tv_sec,
                     e->fts_statp->st_mtim.tv_nsec);
        } else if (e->fts_info == FTS_F) {
            snprintf(line, sizeof line, "%s %s\n", rel,
                     hb_sha256_file_hex(e->fts_path, hex, &err) == 0 ? hex : "unreadable");
        } else if (e->fts_info == FTS_SL || e->fts_info == FTS_SLNONE) {
            ssize_t t = readlink(e->fts_path, target, sizeof target - 1);
            target[t > 0 ? t : 0] = '\0';
            snprintf(line, sizeof line, "%s -> %s\n", rel, target);
        } else {
            continue;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            lines = realloc(lines, cap * sizeof *lines);
        }
        lines[n++] = strdup(line);
        total += strlen(line);
    }
    fts_close(fts);
    if (n)
        qsort(lines, n, sizeof *lines, cmp_str);
    char *out = malloc(total);
    out[0] = '\0';
    for (size_t i = 0, at = 0; i < n; i++) {
        size_t l = strlen(lines[i]);
        memcpy(out + at, lines[i], l + 1);
        at += l;
        free(lines[i]);
    }
    free(lines);
    return out;
}

/* 1 when the line starting at LINE (up to its newline) is one of TEXT's. */
static int has_line(const char *text, const char *line, size_t len)
{
    for (const char *p = text; *p;) {
        size_t l = strcspn(p, "\n");
        if (l == len && memcmp(p, line, len) == 0)
            return 1;
        p += l + (p[l] == '\n');
    }
    return 0;
}

static void diff_side(const char *from, const char *other, char sign, int *left,
                      char **out)
{
    for (const char *p = from; *p && *left > 0;) {
        size_t l = strcspn(p, "\n");
        if (!has_line(other, p, l)) {
            rb_appendf(out, "%c %.*s\n", sign, (int)l, p);
            (*left)--;
        }
        p += l + (p[l] == '\n');
    }
}

char *rb_snapshot_diff(const char *a, const char *b, int max)
{
    char *out = NULL;
    diff_side(a, b, '-', &max, &out);
    diff_side(b, a, '+', &max, &out);
    return out;
}

/* Case-insensitive search of NEEDLE (lowercase) in the lowercased HAY. */
static int contains_lower(const char *hay, size_t len, const char *needle)
{
    size_t nl = strlen(needle);
    return nl && memmem(hay, len, needle, nl) != NULL;
}

int rb_tree_grep(const char *dir, const char *const *needles, const char *const *names,
                 int n, char **report)
{
    char *const roots[] = {(char *)dir, NULL};
    FTS *fts = fts_open(roots, FTS_PHYSICAL | FTS_NOCHDIR, NULL);
    FTSENT *e;
    int hits = 0;
    char **lower = calloc((size_t)n, sizeof *lower);
    if (!fts || !lower) {
        if (fts)
            fts_close(fts);
        free(lower);
        return 0;
    }
    for (int i = 0; i < n; i++) {
        lower[i] = strdup(needles[i]);
        for (char *c = lower[i]; *c; c++)
            *c = (char)tolower((unsigned char)*c);
    }
    while ((e = fts_read(fts)) != NULL) {
        if (e->fts_info != FTS_F)
            continue;
        FILE *fp = fopen(e->fts_path, "rb");
        if (!fp)
            continue;
        size_t cap = (size_t)e->fts_statp->st_size < GREP_READ_LIMIT ?
                     (size_t)e->fts_statp->st_size : GREP_READ_LIMIT;
        char *buf = malloc(cap + 1);
        size_t len = buf ? fread(buf, 1, cap, fp) : 0;
        fclose(fp);
        if (!buf)
            continue;
        for (size_t i = 0; i < len; i++)
            buf[i] = (char)tolower((unsigned char)buf[i]);
        for (int i = 0; i < n; i++)
            if (contains_lower(buf, len, lower[i])) {
                hits++;
                rb_appendf(report, "%s: %s\n", e->fts_path, names[i]);
            }
        free(buf);
    }
    fts_close(fts);
    for (int i = 0; i < n; i++)
        free(lower[i]);
    free(lower);
    return hits;
}

char *rb_find_names(const char *dir, const char *part)
{
    char *const roots[] = {(char *)dir, NULL};
    FTS *fts = fts_open(roots, FTS_PHYSICAL | FTS_NOCHDIR, NULL);
    FTSENT *e;
    char *out = NULL;
    if (!fts)
        return NULL;
    while ((e = fts_read(fts)) != NULL)
        if (e->fts_info != FTS_DP && strstr(e->fts_name, part))
            rb_appendf(&out, "%s\n", e->fts_path + strlen(dir));
    fts_close(fts);
    return out;
}

void rb_rmtree(const char *dir)
{
    char *const roots[] = {(char *)dir, NULL};
    FTS *fts = fts_open(roots, FTS_PHYSICAL | FTS_NOCHDIR, NULL);
    FTSENT *e;
    if (!fts)
        return;
    while ((e = fts_read(fts)) != NULL) {
        if (e->fts_info == FTS_DP)
            rmdir(e->fts_accpath);
        else if (e->fts_info != FTS_D)
            unlink(e->fts_accpath);
    }
    fts_close(fts);
}

int rb_copy(const char *src, const char *dst)
{
    hb_err err;
    return hb_copy_file(src, dst, &err);
}

int rb_copy_tree(const char *src, const char *dst)
{
    char *const roots[] = {(char *)src, NULL};
    FTS *fts = fts_open(roots, FTS_PHYSICAL | FTS_NOCHDIR, NULL);
    FTSENT *e;
    int rc = 0;
    hb_err err;
    size_t root_len = strlen(src);
    if (!fts)
        return -1;
    while (rc == 0 && (e = fts_read(fts)) != NULL) {
        char to[8192], target[4096];
        snprintf(to, sizeof to, "%s%s", dst, e->fts_path + root_len);
        if (e->fts_info == FTS_D) {
            rc = hb_mkdirs(to, &err);
        } else if (e->fts_info == FTS_F) {
            rc = hb_copy_file(e->fts_path, to, &err);
        } else if (e->fts_info == FTS_SL || e->fts_info == FTS_SLNONE) {
            ssize_t t = readlink(e->fts_path, target, sizeof target - 1);
            target[t > 0 ? t : 0] = '\0';
            rc = t > 0 ? symlink(target, to) : -1;
        }
    }
    fts_close(fts);
    return rc;
}

int rb_write(const char *path, const char *text)
{
    hb_err err;
    return hb_write_atomic(path, text, strlen(text), &err);
}

char *rb_read(const char *path)
{
    char *text = NULL;
    hb_err err;
    return hb_read_file(path, &text, NULL, &err) == 0 ? text : NULL;
}

/* ---- processes ---- */

/* Reads /proc/PID/NAME (NUL-separated fields) into buf; returns its length. */
static size_t read_proc(const char *pid, const char *name, char *buf, size_t cap)
{
    char path[300];
    snprintf(path, sizeof path, "/proc/%s/%s", pid, name);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return 0;
    size_t n = fread(buf, 1, cap - 1, fp);
    fclose(fp);
    buf[n] = '\0';
    return n;
}

static int has_entry(const char *buf, size_t len, const char *entry)
{
    for (size_t i = 0; i < len; i += strlen(buf + i) + 1)
        if (strcmp(buf + i, entry) == 0)
            return 1;
    return 0;
}

static int is_zombie(const char *pid)
{
    char stat[512];
    if (!read_proc(pid, "stat", stat, sizeof stat))
        return 1;
    const char *p = strrchr(stat, ')');
    return !p || p[1] == '\0' || p[2] == 'Z' || p[2] == 'X';
}

int rb_leftover_processes(const char *entry, const char *path, char **report)
{
    DIR *d = opendir("/proc");
    struct dirent *de;
    int count = 0;
    static char env[1 << 20];
    char cmd[8192], cwd[4096], link[300], self[32];
    snprintf(self, sizeof self, "%ld", (long)getpid());
    if (!d)
        return 0;
    while ((de = readdir(d)) != NULL) {
        if (!isdigit((unsigned char)de->d_name[0]) || strcmp(de->d_name, self) == 0 ||
            is_zombie(de->d_name))
            continue;
        size_t elen = entry ? read_proc(de->d_name, "environ", env, sizeof env) : 0;
        size_t clen = read_proc(de->d_name, "cmdline", cmd, sizeof cmd);
        for (size_t i = 0; i + 1 < clen; i++)
            if (cmd[i] == '\0')
                cmd[i] = ' ';
        snprintf(link, sizeof link, "/proc/%s/cwd", de->d_name);
        ssize_t wl = readlink(link, cwd, sizeof cwd - 1);
        cwd[wl > 0 ? wl : 0] = '\0';
        int hit = (entry && has_entry(env, elen, entry)) ||
                  (path && (strstr(cmd, path) || strncmp(cwd, path, strlen(path)) == 0));
        /* a probe's command line is its path alone (every process that
         * runs submitted code is started alike): its library, mapped from
         * under PATH, says whose it is */
        if (!hit && path) {
            static char maps[1 << 20];
            size_t ml = read_proc(de->d_name, "maps", maps, sizeof maps);
            hit = ml && strstr(maps, path) != NULL;
        }
        if (!hit)
            continue;
        count++;
        if (report)
            rb_appendf(report, "pid %s: %s\n", de->d_name, cmd);
    }
    closedir(d);
    return count;
}

int rb_pid_alive(long pid)
{
    char s[32];
    snprintf(s, sizeof s, "%ld", pid);
    char path[64];
    snprintf(path, sizeof path, "/proc/%s", s);
    return access(path, F_OK) == 0 && !is_zombie(s);
}

int rb_count_lines(const char *text)
{
    int n = 0;
    for (const char *p = text; *p; p++)
        if (*p == '\n')
            n++;
    if (*text && text[strlen(text) - 1] != '\n')
        n++;
    return n;
}

/* ---- JSON ---- */

const char *rb_str(const json_t *obj, const char *name)
{
    const char *s = json_string_value(json_object_get(obj, name));
    return s ? s : "";
}

json_t *rb_find_instance(const json_t *arr, const char *cand, const char *inst)
{
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e) {
        if (strcmp(rb_str(e, "instance"), inst) == 0 &&
            (!cand || strcmp(rb_str(e, "candidate"), cand) == 0))
            return e;
    }
    return NULL;
}

json_t *rb_load_json(const char *dir, const char *rel)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    return json_load_file(path, 0, NULL);
}
