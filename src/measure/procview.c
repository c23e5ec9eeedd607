/* Reading a process from outside: see procview.h. Everything here reads
 * /proc, the process CPU clock or a perf event of hashbench's own; nothing
 * runs in the observed process. */
#include "measure/procview.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fs.h"

long procview_host_pid(long child, int sandboxed)
{
    long pid = child;
    for (int depth = 0; sandboxed && depth < 4; depth++) {
        char path[64], text[64];
        snprintf(path, sizeof path, "/proc/%ld/task/%ld/children", pid, pid);
        FILE *f = fopen(path, "r");
        long next = -1;
        if (f) {
            if (fgets(text, sizeof text, f))
                next = strtol(text, NULL, 10);
            fclose(f);
        }
        if (next <= 0)
            break;
        pid = next;
    }
    return pid;
}

long long procview_cpu_ns(long pid)
{
    clockid_t id;
    struct timespec ts;
    if (clock_getcpuclockid((pid_t)pid, &id) != 0 || clock_gettime(id, &ts) != 0)
        return -1;
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int procview_parse_stat(const char *stat, int field, char *out, size_t sz)
{
    const char *p = strrchr(stat, ')');
    for (int f = 2; p && f < field; f++)
        p = strchr(p + 1, ' ');
    if (!p)
        return -1;
    snprintf(out, sz, "%.*s", (int)strcspn(p + 1, " \n"), p + 1);
    return 0;
}

static int read_stat_field(const char *path, int field, char *out, size_t sz)
{
    char *stat = NULL;
    if (hb_read_file(path, &stat, NULL, NULL) != 0)
        return -1;
    int rc = procview_parse_stat(stat, field, out, sz);
    free(stat);
    return rc;
}

int procview_stat_field(long pid, int field, char *out, size_t sz)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    return read_stat_field(path, field, out, sz);
}

long long procview_parse_status(const char *status, const char *key)
{
    size_t k = strlen(key);
    for (const char *line = status; line && *line;) {
        if (!strncmp(line, key, k) && line[k] == ':') {
            char *end;
            long long v = strtoll(line + k + 1, &end, 10);
            return end == line + k + 1 ? -1 : v;
        }
        line = strchr(line, '\n');
        if (line)
            line++;
    }
    return -1;
}

long long procview_status_value(long pid, const char *key)
{
    char path[64], *text = NULL;
    snprintf(path, sizeof path, "/proc/%ld/status", pid);
    if (hb_read_file(path, &text, NULL, NULL) != 0)
        return -1;
    long long v = procview_parse_status(text, key);
    free(text);
    return v;
}

int procview_code_has(const procview_code_list *l, unsigned long long dev,
                      unsigned long long ino)
{
    for (int i = 0; i < l->n; i++)
        if (l->v[i].dev == dev && l->v[i].ino == ino)
            return 1;
    return 0;
}

int procview_code_add(procview_code_list *l, unsigned long long dev,
                      unsigned long long ino, const char *name)
{
    for (int i = 0; i < l->n; i++)
        if (l->v[i].dev == dev && l->v[i].ino == ino && !strcmp(l->v[i].name, name))
            return 0;
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 16;
        procview_code_map *v = realloc(l->v, (size_t)cap * sizeof *v);
        if (!v)
            return -1;
        l->v = v;
        l->cap = cap;
    }
    procview_code_map *m = &l->v[l->n++];
    m->dev = dev;
    m->ino = ino;
    snprintf(m->name, sizeof m->name, "%s", name);
    return 0;
}

void procview_code_free(procview_code_list *l)
{
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* The next line of the text at *AT into BUF (CAP bytes, cut to fit),
 * *AT moved past it: 1, or 0 at the end of the text. */
static int next_line(const char **at, char *buf, size_t cap)
{
    const char *line = *at;
    if (!line || !*line)
        return 0;
    const char *end = strchr(line, '\n');
    size_t len = end ? (size_t)(end - line) : strlen(line);
    if (len >= cap)
        len = cap - 1;
    memcpy(buf, line, len);
    buf[len] = '\0';
    *at = end ? end + 1 : NULL;
    return 1;
}

int procview_parse_code(const char *maps, procview_code_list *out)
{
    char buf[4352];
    for (const char *at = maps; next_line(&at, buf, sizeof buf);) {
        /* address perms offset dev inode [path] */
        char perms[8] = "";
        unsigned maj, min;
        unsigned long long ino;
        int path_at = -1;
        if (sscanf(buf, "%*s %7s %*s %x:%x %llu %n", perms, &maj, &min, &ino, &path_at) < 4 ||
            strlen(perms) < 3 || perms[2] != 'x')
            continue;
        const char *name = path_at >= 0 && buf[path_at] ? buf + path_at : "[anonymous]";
        if (procview_code_add(out, (unsigned long long)makedev(maj, min), ino, name) != 0)
            return -1;
    }
    return 0;
}

int procview_exec_outside(const char *maps, unsigned long long dev, unsigned long long ino,
                          const unsigned long long (*ranges)[2], int n,
                          unsigned long long *offset)
{
    char buf[512];
    for (const char *at = maps; next_line(&at, buf, sizeof buf);) {
        /* address perms offset dev inode [path] */
        unsigned long long lo, hi, off, i;
        unsigned maj, min;
        char perms[8] = "";
        if (sscanf(buf, "%llx-%llx %7s %llx %x:%x %llu", &lo, &hi, perms, &off, &maj, &min,
                   &i) != 7 || strlen(perms) < 3 || perms[2] != 'x' || i != ino ||
            (unsigned long long)makedev(maj, min) != dev || hi < lo)
            continue;
        int inside = 0;
        for (int k = 0; k < n && !inside; k++)
            inside = off >= ranges[k][0] && off <= ranges[k][1] &&
                     hi - lo <= ranges[k][1] - off;
        if (!inside) {
            *offset = off;
            return 1;
        }
    }
    return 0;
}

int procview_code(long pid, procview_code_list *out)
{
    char path[64], *text = NULL;
    snprintf(path, sizeof path, "/proc/%ld/maps", pid);
    if (hb_read_file(path, &text, NULL, NULL) != 0)
        return -1;
    int rc = procview_parse_code(text, out);
    free(text);
    return rc;
}

int procview_file_id(const char *path, unsigned long long *dev, unsigned long long *ino)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    *dev = (unsigned long long)st.st_dev;
    *ino = (unsigned long long)st.st_ino;
    /* mapped, as /proc/PID/maps would show it: on a stacked file system
     * (overlayfs) a mapping is of the file below, whose device stat does
     * not give */
    void *p = st.st_size > 0 ? mmap(NULL, 1, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
    close(fd);
    if (p == MAP_FAILED)
        return 0;
    char *maps = NULL;
    if (hb_read_file("/proc/self/maps", &maps, NULL, NULL) == 0) {
        for (const char *line = maps; line && *line;) {
            unsigned long lo;
            unsigned maj, min;
            unsigned long long in;
            if (sscanf(line, "%lx-%*x %*s %*s %x:%x %llu", &lo, &maj, &min, &in) == 4 &&
                lo == (unsigned long)p) {
                *dev = (unsigned long long)makedev(maj, min);
                *ino = in;
                break;
            }
            line = strchr(line, '\n');
            if (line)
                line++;
        }
        free(maps);
    }
    munmap(p, 1);
    return 0;
}

long long procview_parse_file_rss(const char *smaps, unsigned dev_major,
                                  unsigned dev_minor, unsigned long long ino)
{
    long long kb = 0;
    int ours = 0;
    for (const char *line = smaps; line && *line;) {
        unsigned maj, min;
        unsigned long long in;
        long long v;
        /* a mapping's first line: address perms offset dev inode [path] */
        if (sscanf(line, "%*[0-9a-f]-%*[0-9a-f] %*s %*s %x:%x %llu", &maj, &min, &in) == 3)
            ours = maj == dev_major && min == dev_minor && in == ino;
        else if (ours && (sscanf(line, "Rss: %lld kB", &v) == 1 ||
                          sscanf(line, "Swap: %lld kB", &v) == 1))
            kb += v;
        line = strchr(line, '\n');
        if (line)
            line++;
    }
    return kb;
}

long long procview_file_rss(long pid, unsigned dev_major, unsigned dev_minor,
                            unsigned long long ino)
{
    char path[64], *text = NULL;
    snprintf(path, sizeof path, "/proc/%ld/smaps", pid);
    if (hb_read_file(path, &text, NULL, NULL) != 0)
        return -1;
    long long kb = procview_parse_file_rss(text, dev_major, dev_minor, ino);
    free(text);
    return kb;
}

long procview_threads(long pid)
{
    return (long)procview_status_value(pid, "Threads");
}

long long procview_voluntary_switches(long pid)
{
    return procview_status_value(pid, "voluntary_ctxt_switches");
}

/* 1 when every thread of PID is stopped, 0 when one is not, -1 when PID is
 * gone. The process is single-threaded in a session (its seccomp filter),
 * so the group leader's state usually says it all; the tasks are read
 * anyway, so that a thread that slipped through is seen. */
static int all_stopped(long pid)
{
    char path[64], state[8];
    if (procview_stat_field(pid, 3, state, sizeof state) != 0)
        return -1;
    if (state[0] != 'T' && state[0] != 't')
        return 0;
    long threads = procview_threads(pid);
    if (threads == 1)
        return 1;
    for (long tid = pid + 1; threads > 1 && tid < pid + 4096; tid++) {
        snprintf(path, sizeof path, "/proc/%ld/task/%ld/stat", pid, tid);
        if (read_stat_field(path, 3, state, sizeof state) != 0)
            continue;
        if (state[0] != 'T' && state[0] != 't')
            return 0;
    }
    return 1;
}

/* A task shows state T as soon as it has set it, before it has left the
 * CPU: until it has, its CPU time still grows. Reading /proc/PID/syscall
 * waits in the kernel until the task is off every CPU (wait_task_inactive);
 * where that file cannot be read, the CPU time is read until two readings
 * 20 us apart agree. Returns 0, or 1 when PID is gone. */
static int settled(long pid, double until)
{
    char path[64], buf[128];
    snprintf(path, sizeof path, "/proc/%ld/syscall", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n = read(fd, buf, sizeof buf);
        close(fd);
        if (n > 0)
            return 0;
    }
    long long last = procview_cpu_ns(pid);
    while (last >= 0 && hb_mono_s() < until) {
        struct timespec ts = {0, 20000};
        nanosleep(&ts, NULL);
        long long now = procview_cpu_ns(pid);
        if (now == last)
            return 0;
        last = now;
    }
    return last >= 0 ? 0 : 1;
}

int procview_stop(long pid, double timeout_s)
{
    if (kill((pid_t)pid, SIGSTOP) != 0)
        return errno == ESRCH ? 1 : -1;
    return procview_await_stop(pid, timeout_s);
}

int procview_await_stop(long pid, double timeout_s)
{
    double until = hb_mono_s() + timeout_s;
    for (;;) {
        int s = all_stopped(pid);
        if (s > 0)
            return settled(pid, until);
        if (s < 0)
            return 1;
        if (hb_mono_s() >= until)
            return 1;
        struct timespec ts = {0, 5000};
        nanosleep(&ts, NULL);
    }
}

int procview_continue(long pid)
{
    return kill((pid_t)pid, SIGCONT) == 0 ? 0 : -1;
}

int procview_cycles_open(procview_cycles *c, long pid)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_HARDWARE;
    a.config = PERF_COUNT_HW_CPU_CYCLES;
    a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    a.exclude_hv = 1; /* user and kernel cycles of the process */
    c->fd = (int)syscall(SYS_perf_event_open, &a, (pid_t)pid, -1, -1,
                         PERF_FLAG_FD_CLOEXEC);
    return c->fd >= 0 ? 0 : -1;
}

int procview_cycles_decode(const void *buf, size_t len, procview_cycles_reading *r)
{
    uint64_t v[3];
    if (len < sizeof v)
        return -1;
    memcpy(v, buf, sizeof v);
    r->value = v[0];
    r->enabled_ns = v[1];
    r->running_ns = v[2];
    return 0;
}

int procview_cycles_read(const procview_cycles *c, procview_cycles_reading *r)
{
    uint64_t v[3];
    ssize_t n = c->fd >= 0 ? read(c->fd, v, sizeof v) : -1;
    return n < 0 ? -1 : procview_cycles_decode(v, (size_t)n, r);
}

int procview_cycles_between(const procview_cycles_reading *a,
                            const procview_cycles_reading *b, uint64_t *cycles)
{
    if (b->value < a->value || b->enabled_ns < a->enabled_ns ||
        b->running_ns < a->running_ns)
        return -1;
    if (b->enabled_ns - a->enabled_ns != b->running_ns - a->running_ns)
        return -1; /* multiplexed: a scaled estimate, not a count */
    *cycles = b->value - a->value;
    return 0;
}

void procview_cycles_close(procview_cycles *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
}
