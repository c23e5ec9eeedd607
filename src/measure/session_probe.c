/* The persistent probe session (session.h): one sandboxed hashbench-probe
 * --session process per (library, size), spoken to through the lines of
 * probe/probe_wire.h ("Sessions") and a shared memory file that hashbench
 * creates, sizes and alone writes through the file (pwrite/pread: a
 * library that shrinks or seals it breaks its session, never hashbench).
 * The process is stopped (SIGSTOP, every thread) whenever hashbench is not
 * timing it: the raw messages are written then, and its CPU time is read
 * then, exactly, before and after each window. Where the kernel lets
 * hashbench make one, the process runs in a memory cgroup of its own
 * (sandbox/memcg.h), besides its rlimits. */
#include "measure/session.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/digest.h"
#include "common/fdio.h"
#include "common/fs.h"
#include "common/proc.h"
#include "compile/elfsize.h"
#include "measure/guard.h"
#include "measure/procview.h"
#include "common/untrusted.h"
#include "probe/probe_codes.h"
#include "probe/probe_wire.h"
#include "runner/start.h"
#include "sandbox/memcg.h"
#include "sandbox/sandbox.h"
#include "sandbox/stage.h"

#define SESSION_STOP_S 2.0    /* for the whole thread group to stop */
#define SESSION_EXIT_S 2.0    /* for the process to end after "end" */
#define SESSION_MEMORY_BYTES (4ULL << 30) /* its memory cgroup's limit */

typedef struct probe_session {
    hb_proc_child child;
    int started;
    long pid;                 /* the probe on the host */
    int shm;                  /* the shared memory file */
    struct stat shm_st;       /* its device and inode, as /proc shows its mappings */
    uint64_t draw;            /* which windows are followed by the residency
                                 check (a secret xorshift state) */
    unsigned long long size, msgs, bytes;
    size_t dbytes;
    double timeout_s;
    int broken;               /* no more windows */
    long long last_cpu;       /* CPU time when it was last stopped */
    procview_cycles cycles;
    hb_memcg memcg;           /* its own memory cgroup, where one can be made */
    long long pre_rss_kb;     /* VmRSS before it loaded the library; -1: not read */
    int own_code_only;        /* session_open_rq */
    int trusted;              /* session_open_rq */
    procview_code_list own_code; /* its code mappings before it loaded the library */
    procview_code_list allowed;  /* the files whose code it may map (code_allowed) */
    unsigned long long lib_dev, lib_ino; /* the library's file, as bound */
    unsigned long long lib_x[8][2]; /* its executable segments' file ranges */
    int lib_nx;                  /* how many; -1: not read (no check) */
    long long pre_filters;    /* its seccomp filters before the load; -1: unknown */
    unsigned long long used_calls; /* the longest window so far: the region
                                      beyond its messages and digests is
                                      still as created (zero) */
    unsigned long long touched_calls; /* the region's pages resident in the
                                         probe: those of this many calls
                                         (its windows and its touch) */
    long long peak_before_kb; /* its peak less the region, read before the
                                 region grew by a touch; -1: not read */
    char nonce[PROBE_WIRE_NONCE_HEX];
    unsigned char *digests;
    char line[PROBE_WIRE_SHORT_LINE * 4];
} probe_session;

static void set_failure(session_figure *f, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_failure(session_figure *f, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->failure, sizeof f->failure, fmt, ap);
    va_end(ap);
    hb_one_line(f->failure);
    f->status = status;
}

/* F failed by the guard's rule ID (measure/guard.h): its status and its
 * text, the rule's lead followed by DETAIL. */
static void rule_failure(session_figure *f, guard_id id, const char *detail)
{
    guard_text(f->failure, sizeof f->failure, id, "%s", detail);
    hb_one_line(f->failure);
    const char *st = guard_rules[id].status;
    f->status = !strcmp(st, "TIMEOUT") ? SESSION_TIMEOUT
                : !strcmp(st, "FAILED") ? SESSION_FAILED : SESSION_INCONSISTENT;
}

/* The next line from the probe, whole and alone in what it sent, before
 * DEADLINE: 0, 1 at the deadline (killed), 2 at the end of its output, 3
 * when it sent more than one line or a line too long. */
static int next_line(probe_session *s, double deadline)
{
    size_t n = 0;
    for (;;) {
        char *nl = memchr(s->line, '\n', n);
        if (nl) {
            *nl = '\0';
            return nl + 1 == s->line + n ? 0 : 3;
        }
        if (n == sizeof s->line - 1) {
            s->line[n] = '\0'; /* what came, as evidence */
            return 3;
        }
        double left = deadline - hb_mono_s();
        if (left <= 0) {
            hb_proc_kill(&s->child, 1);
            return 1;
        }
        struct pollfd p = {s->child.from_child, POLLIN, 0};
        int r = poll(&p, 1, left > 1.0 ? 1000 : (int)(left * 1000.0) + 1);
        if (r < 0 && errno != EINTR)
            return 2;
        if (r <= 0)
            continue;
        ssize_t got = read(s->child.from_child, s->line + n, sizeof s->line - 1 - n);
        if (got < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (got <= 0)
            return 2;
        n += (size_t)got;
    }
}

static int send_text(probe_session *s, const char *text)
{
    size_t n = strlen(text);
    return write(s->child.to_child, text, n) == (ssize_t)n ? 0 : -1;
}

/* "WORD nonce=<ours>" at the start of the line: what follows, or NULL. */
static const char *ours(const probe_session *s, const char *word)
{
    size_t w = strlen(word);
    if (strncmp(s->line, word, w) != 0 || strncmp(s->line + w, " nonce=", 7) != 0 ||
        strncmp(s->line + w + 7, s->nonce, PROBE_WIRE_NONCE_HEX - 1) != 0)
        return NULL;
    const char *rest = s->line + w + 7 + PROBE_WIRE_NONCE_HEX - 1;
    return *rest == ' ' || *rest == '\0' ? rest : NULL;
}

/* 1 when the probe says more after a failure line, within SESSION_EXIT_S:
 * its own failure line is its last word (it ends after it), so one followed
 * by more (its "ready", its "done") was written by the library. 0 when its
 * output ends, or nothing comes. */
static int more_after(probe_session *s)
{
    double until = hb_mono_s() + SESSION_EXIT_S;
    struct pollfd p = {s->child.from_child, POLLIN, 0};
    while (hb_mono_s() < until) {
        int r = poll(&p, 1, 50);
        if (r < 0 && errno != EINTR)
            return 0;
        if (r <= 0 || !(p.revents & (POLLIN | POLLHUP)))
            continue;
        char c;
        ssize_t got = read(s->child.from_child, &c, 1);
        if (got < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        return got > 0;
    }
    return 0;
}

/* What a line that is not the expected answer means: the probe's own
 * failure line ("result nonce=... status=WORD reason=..."), or tampering:
 * any other line, several lines at once, or a failure line the probe
 * follows with more (more_after). What came is kept as raw text. */
static void judge_line(probe_session *s, int got, const char *when, session_figure *f)
{
    s->broken = 1;
    const char *r = got == 0 ? ours(s, "result") : NULL;
    if (r && more_after(s))
        r = NULL;
    if (got == 1) {
        char d[160];
        snprintf(d, sizeof d, "%s within %.0f s", when, s->timeout_s);
        rule_failure(f, GUARD_ANSWER_TIMEOUT, d);
    } else if (got == 2) {
        hb_proc_result pr;
        char how[128];
        hb_proc_reap(&s->child, 0.5, &pr);
        s->started = 0;
        set_failure(f, SESSION_FAILED, "CRASH: the probe ended %s (%s)", when,
                    hb_proc_describe(&pr, how, sizeof how));
    } else if (r) {
        /* the line may be the library's own: only a known status word is
         * kept as hashbench's wording, the rest as raw text */
        const char *st = strstr(r, "status=");
        const char *why = strstr(r, "reason=");
        const char *word = st ? probe_known_word(st + 7, strcspn(st + 7, " ")) : "UNKNOWN";
        set_failure(f, SESSION_FAILED, "%s: the probe's failure line %s", word, when);
        hb_untrusted_append(f->failure, sizeof f->failure, why ? why + 7 : r,
                            sizeof f->failure);
    } else {
        char d[160];
        snprintf(d, sizeof d, "a line it does not write %s", when);
        rule_failure(f, GUARD_CHANNEL, d);
        hb_untrusted_append(f->failure, sizeof f->failure, s->line, strlen(s->line));
    }
}

static int make_region(probe_session *s, const session_open_rq *rq, hb_err *err)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (rq->size == 0 || rq->max_calls == 0 ||
        rq->max_calls > (1ULL << 34) / (rq->size + s->dbytes))
        return hb_fail(err, "a session of %llu calls of %llu bytes is too large",
                       rq->max_calls, rq->size);
    s->msgs = (rq->max_calls * rq->size + page - 1) / page * page;
    s->bytes = s->msgs + (rq->max_calls * s->dbytes + page - 1) / page * page;
    s->shm = memfd_create(PROBE_REGION_NAME, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (s->shm < 0 || ftruncate(s->shm, (off_t)s->bytes) != 0 ||
        fcntl(s->shm, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0 ||
        fstat(s->shm, &s->shm_st) != 0)
        return hb_fail_errno(err, "cannot create a session's shared memory");
    s->digests = malloc(rq->max_calls * s->dbytes);
    return s->digests ? 0 : hb_fail(err, "out of memory for a session's digests");
}

static int start(probe_session *s, const session_open_rq *rq, hb_err *err)
{
    char config[256];
    snprintf(config, sizeof config, "role=session bits=%d size=%llu counter=%s msgs=%llu "
             "bytes=%llu", rq->digest_bits, rq->size, counter_kind_name(rq->counter),
             s->msgs, s->bytes);
    /* the process every role has (runner/start.h); the shared file is the
     * one descriptor it inherits, closed before it loads the library */
    probe_start_rq start = {rq->probe_path, rq->lib, rq->cpu, s->shm, 0, s->nonce, config};
    if (probe_start(&start, &s->child, err) != 0)
        return -1;
    s->started = 1;
    s->pid = procview_host_pid(s->child.pid, hb_sandbox_enabled());
    return 0;
}

/* KiB of the shared region resident in the probe: the pages of the
 * messages and digest slots of its longest window or touch (a library
 * that makes more of it resident only raises its own figures; one that
 * drops some is found by region_dropped). */
static long long region_kb(const probe_session *s)
{
    unsigned long long page = (unsigned long long)sysconf(_SC_PAGESIZE);
    unsigned long long m = s->touched_calls * s->size, d = s->touched_calls * s->dbytes;
    return (long long)(((m + page - 1) / page + (d + page - 1) / page) * page / 1024);
}

/* F's resident memory of the stopped probe (session.h), the shared region
 * (region_kb) left out. The peak is the larger of the one read now and
 * the one read before the region last grew (VmHWM counts the region as it
 * was then, so taking today's region off it alone would understate a
 * peak the library reached before). */
static void read_rss(const probe_session *s, session_figure *f)
{
    char path[64], *status = NULL;
    long long rss = -1, hwm = -1;
    snprintf(path, sizeof path, "/proc/%ld/status", s->pid);
    if (hb_read_file(path, &status, NULL, NULL) == 0) { /* one reading, both figures */
        rss = procview_parse_status(status, "VmRSS");
        hwm = procview_parse_status(status, "VmHWM");
        free(status);
    }
    long long region = region_kb(s);
    f->rss_known = rss >= region && hwm >= region;
    f->rss_kb = f->rss_known ? rss - region : -1;
    f->rss_peak_kb = f->rss_known ? hwm - region : -1;
    if (f->rss_known && s->peak_before_kb > f->rss_peak_kb)
        f->rss_peak_kb = s->peak_before_kb;
    f->rss_preload_kb = s->pre_rss_kb;
}

/* Continues S's stopped probe and sends it MSG: the answer's line, with
 * next_line's codes (its deadline S's timeout from START), or 2 when the
 * probe could not be continued or told. */
static int ask(probe_session *s, const char *msg, double start)
{
    return procview_continue(s->pid) == 0 && send_text(s, msg) == 0
               ? next_line(s, start + s->timeout_s) : 2;
}

/* 0 once S's probe is stopped again; 1 with F failed by the rule that it
 * must stop (AFTER: when) and S broken. */
static int stop_again(probe_session *s, const char *after, session_figure *f)
{
    if (procview_stop(s->pid, SESSION_STOP_S) == 0)
        return 0;
    s->broken = 1;
    rule_failure(f, GUARD_NOT_STOPPED, after);
    return 1;
}

/* The probe stops itself once after its configure line, before it loads
 * the library (probe_wire.h): its resident memory, seccomp filters and
 * code then, which no library can have touched yet (runner/start.h). */
static void await_preload(probe_session *s, double deadline)
{
    probe_preload_figures pre;
    probe_preload(&s->child, deadline, &pre, NULL);
    s->pre_rss_kb = pre.rss_kb;
    s->pre_filters = pre.filters;
    s->own_code = pre.code;
}

/* A file the library names as needed (DT_NEEDED), NAME, as the loader
 * would find it on the host: in a folder the probe's own code came from
 * (the C library's), else in /lib or /usr/lib; its (device, inode) into
 * *DEV, *INO and its path into PATH. The library's own search paths
 * (RUNPATH) are not followed: a library found there is not one of the
 * system's. 0, or -1 when none is found. */
static int resolve_needed(const probe_session *s, const char *name, char *path,
                          size_t sz, unsigned long long *dev, unsigned long long *ino)
{
    if (strchr(name, '/'))
        return -1;
    for (int i = -2; i < s->own_code.n; i++) {
        const char *dir = i == -2 ? "/lib" : i == -1 ? "/usr/lib" : s->own_code.v[i].name;
        const char *slash = strrchr(dir, '/');
        size_t len = i < 0 ? strlen(dir) : slash ? (size_t)(slash - dir) : 0;
        if (i >= 0 && (dir[0] != '/' || len == 0))
            continue;
        struct stat st;
        if (snprintf(path, sz, "%.*s/%s", (int)len, dir, name) >= (int)sz ||
            stat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
            procview_file_id(path, dev, ino) != 0)
            continue;
        return 0;
    }
    return -1;
}

/* The files whose code the probe may map once it has loaded the library,
 * by (device, inode), never by name: its own code before the load (the
 * probe, the loader, the C library, the vDSO), the library's file (the
 * copy hashbench bound), and the libraries of the library's DT_NEEDED
 * closure as resolved on the host (bound read-only: /usr keeps the host's
 * devices and inodes inside the sandbox). A submitted library may need no
 * library the probe did not already have (hashbench's build links the C
 * library only): 1 with F failed (INCONSISTENT) when it names another,
 * whose code would then count in its figure; hashbench's baselines
 * (trusted) bring the system's libcrypto and need it. 0, or -1 on an
 * error. */
static int code_allowed(probe_session *s, const session_open_rq *rq, session_figure *f,
                        hb_err *err)
{
    for (int i = 0; i < s->own_code.n; i++)
        if (procview_code_add(&s->allowed, s->own_code.v[i].dev, s->own_code.v[i].ino,
                              s->own_code.v[i].name) != 0)
            return hb_fail(err, "out of memory");
    char bound[PATH_MAX];
    unsigned long long dev, ino;
    if (hb_sandbox_enabled() && hb_is_file(rq->lib)) {
        if (hb_stage_input(rq->lib, bound, sizeof bound, err) != 0)
            return -1;
    } else {
        snprintf(bound, sizeof bound, "%s", rq->lib);
    }
    if (procview_file_id(bound, &dev, &ino) == 0 &&
        procview_code_add(&s->allowed, dev, ino, rq->lib) != 0)
        return hb_fail(err, "out of memory");
    /* which of the library's bytes the loader maps as code: any other page
     * of its file mapped executable is data made code (foreign_code) */
    hb_err no_elf;
    s->lib_nx = -1;
    int nx = 0;
    if (procview_file_id(bound, &s->lib_dev, &s->lib_ino) == 0 &&
        elfsize_exec_ranges(bound, (unsigned long long)sysconf(_SC_PAGESIZE), s->lib_x,
                            (int)(sizeof s->lib_x / sizeof s->lib_x[0]), &nx, &no_elf) == 0)
        s->lib_nx = nx;
    /* the closure, breadth first: the library's names, then theirs */
    strlist todo = {0}, done = {0};
    hb_err ignored; /* a file libelf cannot read names nothing it needs */
    if (elfsize_needed(rq->lib, &todo, &ignored) != 0)
        strlist_free(&todo);
    int rc = 0;
    for (int i = 0; i < todo.n && rc == 0; i++) {
        char path[PATH_MAX];
        if (strlist_contains(&done, todo.v[i]) || strlist_push(&done, todo.v[i]) != 0 ||
            resolve_needed(s, todo.v[i], path, sizeof path, &dev, &ino) != 0)
            continue;
        if (!s->trusted && !procview_code_has(&s->own_code, dev, ino)) {
            s->broken = 1;
            char d[PATH_MAX + 200];
            snprintf(d, sizeof d, "%s as needed (DT_NEEDED), which hashbench's build links "
                     "into no submitted library (only the C library): its code would count "
                     "in the library's figure", todo.v[i]);
            rule_failure(f, GUARD_NEEDED_LIBRARY, d);
            rc = 1;
            break;
        }
        if (procview_code_add(&s->allowed, dev, ino, path) != 0)
            rc = hb_fail(err, "out of memory");
        else if (elfsize_needed(path, &todo, &ignored) != 0)
            continue; /* what libelf cannot read of a system library */
    }
    strlist_free(&todo);
    strlist_free(&done);
    return rc;
}

/* 1 with F failed (INCONSISTENT) when the stopped probe has code mapped
 * from a file that is not one of code_allowed's (by device and inode:
 * whatever its name and folder), or code backed by no file but the
 * kernel's vDSO: another library it loaded (a submission borrowing the
 * system's OpenSSL), a copy of another library's code in a file of its
 * own, code loaded from memory. Its figure would not be that of the
 * submitted code. */
static int foreign_code(probe_session *s, session_figure *f, const char *when)
{
    if (!s->own_code_only || s->own_code.n == 0)
        return 0;
    procview_code_list now = {0};
    int found = 0;
    char path[64], *maps = NULL;
    snprintf(path, sizeof path, "/proc/%ld/maps", (long)s->pid);
    if (hb_read_file(path, &maps, NULL, NULL) == 0 && procview_parse_code(maps, &now) == 0)
        for (int i = 0; i < now.n && !found; i++) {
            const procview_code_map *m = &now.v[i];
            if (m->ino ? procview_code_has(&s->allowed, m->dev, m->ino)
                       : m->dev == 0 && (!strcmp(m->name, "[vdso]") ||
                                         !strcmp(m->name, "[vsyscall]")))
                continue;
            found = 1;
            s->broken = 1;
            char d[400];
            snprintf(d, sizeof d, "%s that is neither its own nor the submitted library's: "
                     "a file (device %u:%u, inode %llu) is mapped executable that hashbench "
                     "did not bind for it (a figure must be the submitted code's own; the "
                     "library may use only the C library)", when, major((dev_t)m->dev),
                     minor((dev_t)m->dev), m->ino);
            rule_failure(f, GUARD_FOREIGN_CODE, d);
            /* its name is the library's choice: raw text (common/untrusted.h) */
            hb_untrusted_append(f->failure, sizeof f->failure, m->name, PATH_MAX);
        }
    procview_code_free(&now);
    unsigned long long off = 0;
    /* the same reading: the library's own file mapped executable where its
     * program headers hold no code */
    if (!found && maps && s->lib_nx >= 0 &&
        procview_exec_outside(maps, s->lib_dev, s->lib_ino,
                              (const unsigned long long (*)[2])s->lib_x, s->lib_nx, &off)) {
        found = 1;
        s->broken = 1;
        char d[400];
        snprintf(d, sizeof d, "%s that is not the submitted library's code: bytes of its "
                 "file at offset %llu, outside every segment the loader maps executable, "
                 "are mapped executable (data made code after the load: a figure must be "
                 "that of the code the library's segments hold)", when, off);
        rule_failure(f, GUARD_FOREIGN_CODE, d);
    }
    free(maps);
    return found;
}

/* 1 with F failed (INCONSISTENT) when the native probe does not have more
 * seccomp filters than before the load: its own, refusing every new
 * executable mapping from the load on (probe/probe_seccomp.c), is not in
 * place, so code could be made executable within a window and hidden
 * again before its end, where no reading of the mappings sees it. */
static int filter_missing(probe_session *s, session_figure *f)
{
    if (!s->own_code_only || s->pre_filters < 0 || !hb_sandbox_enabled())
        return 0;
    long long now = procview_status_value(s->pid, "Seccomp_filters");
    if (now > s->pre_filters)
        return 0;
    s->broken = 1;
    char d[200];
    snprintf(d, sizeof d, "after the load is not in place (%lld seccomp filters, %lld "
             "before the load)", now, s->pre_filters);
    rule_failure(f, GUARD_EXEC_FILTER, d);
    return 1;
}

static int open_session(void *state, const session_open_rq *rq, session_figure *f,
                        hb_err *err)
{
    probe_session *s = state;
    memset(f, 0, sizeof *f);
    s->shm = -1;
    s->pre_rss_kb = -1;
    s->cycles.fd = -1;
    s->size = rq->size;
    s->own_code_only = rq->own_code_only;
    s->trusted = rq->trusted;
    s->pre_filters = -1;
    s->peak_before_kb = -1;
    s->dbytes = (size_t)rq->digest_bits / 8;
    s->timeout_s = rq->timeout_s;
    unsigned char nonce[PROBE_WIRE_NONCE_BYTES];
    while (getrandom(nonce, sizeof nonce, 0) != (ssize_t)sizeof nonce)
        ;
    hb_hex_encode(nonce, sizeof nonce, s->nonce, 0);
    if (make_region(s, rq, err) != 0 || start(s, rq, err) != 0)
        return -1;
    double deadline = hb_mono_s() + rq->timeout_s;
    await_preload(s, deadline);
    int got = next_line(s, deadline);
    if (got != 0 || !ours(s, "ready")) {
        judge_line(s, got, "before it was ready", f);
        return 1;
    }
    s->pid = procview_host_pid(s->child.pid, hb_sandbox_enabled());
    f->pid = s->pid;
    if (procview_threads(s->pid) != 1) {
        s->broken = 1;
        char d[120];
        snprintf(d, sizeof d, "%ld threads where it may run one", procview_threads(s->pid));
        rule_failure(f, GUARD_THREADS, d);
        return 1;
    }
    if (rq->cycles)
        procview_cycles_open(&s->cycles, s->pid); /* else fd -1: CPU time */
    char name[64];
    snprintf(name, sizeof name, "hashbench-%ld-session-%ld", (long)getpid(), s->pid);
    hb_memcg_enter(&s->memcg, NULL, name, s->pid, SESSION_MEMORY_BYTES); /* best effort */
    if (stop_again(s, "after it was ready", f))
        return 1;
    s->last_cpu = procview_cpu_ns(s->pid);
    read_rss(s, f);
    if (s->own_code_only && s->own_code.n > 0) {
        int rc = code_allowed(s, rq, f, err);
        if (rc != 0)
            return rc;
    }
    return filter_missing(s, f) || foreign_code(s, f, "once open");
}

/* 1 with F failed (INCONSISTENT) when the stopped probe no longer has the
 * shared region mapped and resident as far as its windows and touch made
 * it (region_kb) (or swapped out by the host,
 * which a library cannot ask for: MADV_PAGEOUT is refused in a session):
 * the RSS figures leave that part of the region out, so pages of it dropped from
 * the probe's memory (MADV_DONTNEED, munmap: the file keeps its zeros)
 * would leave room for as much memory of the library's own that no figure
 * shows. Read after a window drawn in secret (residency_drawn) and at close. */
static int region_dropped(probe_session *s, session_figure *f)
{
    long long kb = procview_file_rss(s->pid, major(s->shm_st.st_dev),
                                     minor(s->shm_st.st_dev),
                                     (unsigned long long)s->shm_st.st_ino);
    long long want = region_kb(s);
    if (kb < 0 || kb >= want)
        return 0;
    s->broken = 1;
    char d[300];
    snprintf(d, sizeof d, "(%lld KiB): %lld KiB of it are no longer resident in the probe "
             "after a window; the RSS figures leave the whole area out, so memory the "
             "library holds in their place would be in no figure", want, want - kb);
    rule_failure(f, GUARD_REGION_RESIDENT, d);
    return 1;
}

/* 1 for about one window in RESIDENCY_EVERY, drawn from a secret state:
 * reading /proc/PID/smaps after every window cost a third of the demo's
 * measure stage (29 to 39 s). A library that holds memory in place of the
 * region needs it in every window it is fast in, so a check it cannot
 * foresee finds it within a few windows; and the check at close, always
 * made, finds it if it is still held then. */
#define RESIDENCY_EVERY 8
static int residency_drawn(probe_session *s)
{
    if (!s->draw)
        while (getrandom(&s->draw, sizeof s->draw, 0) != (ssize_t)sizeof s->draw || !s->draw)
            ;
    s->draw ^= s->draw << 13;
    s->draw ^= s->draw >> 7;
    s->draw ^= s->draw << 17;
    return s->draw % RESIDENCY_EVERY == 0;
}

/* The "done" line's figures; -1 when it is not one of ours. */
static int parse_done(const probe_session *s, session_figure *f)
{
    const char *r = ours(s, "done");
    unsigned long long ticks, ns;
    char tail;
    if (!r || sscanf(r, " ticks=%llu ns=%llu%c", &ticks, &ns, &tail) != 2)
        return -1;
    f->inside_ticks = ticks;
    f->inside_ns = ns;
    return 0;
}

/* F cleared for a request of CALLS calls (WHAT: "window", "touch") on S;
 * -1 with ERR when S is broken or CALLS is beyond its region. */
static int request_start(const probe_session *s, const char *what, unsigned long long calls,
                         session_figure *f, hb_err *err)
{
    memset(f, 0, sizeof *f);
    f->pid = s->pid;
    f->cpu = -1;
    f->waits = -1;
    if (s->broken)
        return hb_fail(err, "internal: a %s asked of a broken session", what);
    if (calls * s->size > s->msgs || calls * s->dbytes > s->bytes - s->msgs)
        return hb_fail(err, "internal: a %s of %llu calls is beyond its session", what,
                       calls);
    return 0;
}

static int window(void *state, const session_window_rq *w, session_figure *f, hb_err *err)
{
    probe_session *s = state;
    if (request_start(s, "window", w->calls, f, err) != 0)
        return -1;
    if (w->raw && hb_fd_pwrite_all(s->shm, w->raw, (size_t)(w->calls * s->size), 0) != 0) {
        s->broken = 1;
        rule_failure(f, GUARD_REGION_CHANGED, "no longer takes the messages");
        return 0;
    }
    long long c0 = procview_cpu_ns(s->pid);
    long long v0 = procview_voluntary_switches(s->pid);
    f->gained_ns = c0 - s->last_cpu;
    procview_cycles_reading p0, p1;
    int counting = s->cycles.fd >= 0 && procview_cycles_read(&s->cycles, &p0) == 0;
    char msg[64];
    snprintf(msg, sizeof msg, "window %llu\n", w->calls);
    double w0 = hb_mono_s();
    int got = ask(s, msg, w0);
    double w1 = hb_mono_s();
    if (got != 0 || parse_done(s, f) != 0) {
        judge_line(s, got, "in a window", f);
        return 0;
    }
    if (stop_again(s, "after its window", f))
        return 0;
    long long c1 = procview_cpu_ns(s->pid);
    long long v1 = procview_voluntary_switches(s->pid);
    if (residency_drawn(s) && region_dropped(s, f))
        return 0;
    f->waits = v0 >= 0 && v1 >= v0 ? v1 - v0 : -1;
    s->last_cpu = c1;
    if (c0 < 0 || c1 < c0) {
        s->broken = 1;
        set_failure(f, SESSION_FAILED, "the probe's CPU time could not be read");
        return 0;
    }
    f->cpu_ns = (unsigned long long)(c1 - c0);
    f->wall_ns = (unsigned long long)((w1 - w0) * 1e9);
    uint64_t cyc;
    if (counting && procview_cycles_read(&s->cycles, &p1) == 0 &&
        procview_cycles_between(&p0, &p1, &cyc) == 0) {
        f->cycles_known = 1;
        f->cycles = cyc;
    }
    char cpu[16];
    if (procview_stat_field(s->pid, 39, cpu, sizeof cpu) == 0)
        f->cpu = (int)strtol(cpu, NULL, 10);
    if (hb_fd_pread_all(s->shm, s->digests, (size_t)w->calls * s->dbytes, (off_t)s->msgs) != 0) {
        s->broken = 1;
        rule_failure(f, GUARD_SAME_DIGESTS, "cannot be read back");
        return 0;
    }
    f->digests = s->digests;
    if (w->calls > s->used_calls)
        s->used_calls = w->calls;
    if (w->calls > s->touched_calls)
        s->touched_calls = w->calls;
    return 0;
}

static int touch(void *state, unsigned long long calls, session_figure *f, hb_err *err)
{
    probe_session *s = state;
    if (request_start(s, "touch", calls, f, err) != 0)
        return -1;
    if (calls <= s->touched_calls)
        return 0;
    session_figure now;
    memset(&now, 0, sizeof now);
    read_rss(s, &now);
    if (now.rss_known)
        s->peak_before_kb = now.rss_peak_kb;
    long long c0 = procview_cpu_ns(s->pid);
    f->gained_ns = c0 - s->last_cpu;
    char msg[64];
    snprintf(msg, sizeof msg, "touch %llu\n", calls);
    int got = ask(s, msg, hb_mono_s());
    if (got != 0 || !ours(s, "touched")) {
        judge_line(s, got, "while it touched its region", f);
        return 0;
    }
    if (stop_again(s, "after it touched its region", f))
        return 0;
    s->last_cpu = procview_cpu_ns(s->pid);
    s->touched_calls = calls;
    return 0;
}

/* 1 with F failed (INCONSISTENT) when the region holds anything beyond what
 * the windows used (the messages and digest slots of the longest window):
 * the library kept data in hashbench's message area, which the RSS figures
 * leave out. Read while the probe is stopped after its last window. */
static int region_written(probe_session *s, session_figure *f)
{
    unsigned char buf[65536];
    unsigned long long spans[2][2] = {
        {s->used_calls * s->size, s->msgs},
        {s->msgs + s->used_calls * s->dbytes, s->bytes}};
    for (int k = 0; k < 2; k++)
        for (unsigned long long off = spans[k][0]; off < spans[k][1];) {
            size_t n = spans[k][1] - off < sizeof buf ? (size_t)(spans[k][1] - off)
                                                      : sizeof buf;
            if (hb_fd_pread_all(s->shm, buf, n, (off_t)off) != 0)
                return 0; /* unreadable: the windows' own checks said so */
            static const unsigned char zero[sizeof buf];
            if (memcmp(buf, zero, n) == 0) {
                off += n;
                continue;
            }
            for (size_t i = 0; i < n; i++)
                if (buf[i]) {
                    char d[200];
                    snprintf(d, sizeof d, "hashbench's message area beyond what its "
                             "windows used (byte %llu of %llu), memory the RSS figures "
                             "leave out", off + i, s->bytes);
                    rule_failure(f, GUARD_REGION_WRITTEN, d);
                    return 1;
                }
            off += n;
        }
    return 0;
}

static void close_session(void *state, session_figure *f)
{
    probe_session *s = state;
    if (s->started) {
        hb_proc_result pr;
        if (!s->broken && s->pid > 0) {
            if (f) { /* still stopped after its last window */
                read_rss(s, f);
                if (f->status == SESSION_OK && !foreign_code(s, f, "after its windows") &&
                    !region_dropped(s, f))
                    region_written(s, f);
            }
            procview_continue(s->pid);
            send_text(s, "end\n");
        } else if (s->broken) {
            /* a broken session may be stopped, and would never end by
             * itself: killed now (SIGKILL ends a stopped process), not
             * after the grace below */
            hb_proc_kill(&s->child, 0);
        }
        /* its input ends here: a probe reads it to the end before it exits,
         * and the sandbox's own process keeps the output pipe open until
         * then, so no end of output could be seen before this */
        if (s->child.to_child >= 0) {
            close(s->child.to_child);
            s->child.to_child = -1;
        }
        char buf[256];
        /* anything it says after "end" is tampering */
        struct pollfd p = {s->child.from_child, POLLIN, 0};
        ssize_t extra = 0;
        double until = hb_mono_s() + SESSION_EXIT_S;
        while (!s->broken && hb_mono_s() < until &&
               poll(&p, 1, 50) >= 0) {
            if (!(p.revents & (POLLIN | POLLHUP)))
                continue;
            ssize_t r = read(s->child.from_child, buf, sizeof buf);
            if (r <= 0)
                break;
            extra += r;
        }
        hb_proc_reap(&s->child, SESSION_EXIT_S, &pr);
        if (f && !s->broken && f->status == SESSION_OK) {
            char how[128];
            char d[120];
            snprintf(d, sizeof d, "%zd bytes after the end of its session", extra);
            if (extra)
                rule_failure(f, GUARD_OUTPUT_AFTER_END, d);
            else if (!(pr.exited && pr.exit_code == 0))
                set_failure(f, SESSION_FAILED, "the probe ended with %s after its "
                            "session", hb_proc_describe(&pr, how, sizeof how));
        }
    }
    procview_cycles_close(&s->cycles);
    procview_code_free(&s->own_code);
    procview_code_free(&s->allowed);
    hb_memcg_remove(&s->memcg);
    if (s->shm >= 0)
        close(s->shm);
    free(s->digests);
    memset(s, 0, sizeof *s);
    s->shm = -1;
    s->cycles.fd = -1;
}

const session_class session_probe = {
    "probe-session", sizeof(probe_session), open_session, window, close_session, touch,
};
