/* The instruction count of one library (count.h: count_library): one run
 * of hashbench-count under callgrind in the sandbox, its plan written to the
 * driver's standard input, one part of callgrind's combined output file per
 * call (and per empty window); the parts read in order and checked against
 * the plan, the figures derived per entry, and the digests of every entry
 * recomputed natively by hashbench-probe (runner role). The stage over a run directory
 * is count_stage.c; the record check, count_check.c. */
#include "count/count.h"
#include "common/untrusted.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/digest.h"
#include "common/fdio.h"
#include "common/fs.h"
#include "common/proc.h"
#include "common/vgreq.h"
#include "count/count_fns.h"
#include "count/count_plan.h"
#include "count/count_syms.h"
#include "ct/ct.h"
#include "probe/trial_msg.h"
#include "rundir/ibudget.h"
#include "runner/client.h"
#include "sandbox/sandbox.h"
#include "sandbox/stage.h"

#define COUNT_VALGRIND "/usr/bin/valgrind"
#define COUNT_AS_BYTES (64ULL << 30) /* Valgrind reserves much address space */
#define COUNT_RUNNER_TIMEOUT_S 60.0

static char driver_exe[PATH_MAX];

const char *count_driver_path(void)
{
    if (!driver_exe[0])
        hb_exe_sibling("hashbench-count", driver_exe, sizeof driver_exe);
    return driver_exe;
}

const char *const *count_tool_options(const count_events *e)
{
#define CG_COMMON "--tool=callgrind", "--collect-atstart=no", "--combine-dumps=yes", \
    "--dump-line=no"
    static const char *const plain[] = {CG_COMMON, NULL};
    static const char *const branches[] = {CG_COMMON, "--branch-sim=yes", NULL};
    static const char *const memory[] = {CG_COMMON, "--cache-sim=yes", NULL};
    static const char *const both[] = {CG_COMMON, "--cache-sim=yes", "--branch-sim=yes",
                                       NULL};
#undef CG_COMMON
    if (e && e->memory)
        return e->branches ? both : memory;
    return e && e->branches ? branches : plain;
}

/* What the run of the driver gave. */
typedef struct run_out {
    json_t *command;   /* as the record shows it */
    json_t *empty;     /* {"Ir": [per empty window], ...}, NULL when the run failed */
    json_t *raw;       /* one {"Ir": [per call], ...} per entry, NULL when failed */
    uint64_t *seeds;   /* per call, in order */
    char (*folds)[TM_FOLD_HEX];
    unsigned char *errors;
    char version[64];  /* "Valgrind-3.19.0", or "" */
    char why[768];     /* why the run failed (raw text behind the mark) */
    int inconsistent;  /* the output file is not what the driver asked for */
    int stopped;       /* the instance's wall budget ended it (why says so) */
    cg_parser cg;      /* the file's functions, read with the parts */
    cg_tally *tallies; /* per entry: its calls' functions */
    int cg_bad;        /* a line the function reader did not take */
} run_out;

/* Appends the counts of one part, the numbers NUMS under the names EVENTS,
 * to the lists of INTO. 0, or -1 when they do not parse or the events
 * differ from those INTO already holds. */
static int add_counts(json_t *into, const char *events, char *nums)
{
    char ev[256], *se = NULL, *ss = NULL;
    size_t had = json_array_size(json_object_get(into, "Ir")), names = 0;
    snprintf(ev, sizeof ev, "%s", events);
    char *num = strtok_r(nums, " ", &ss);
    for (char *name = strtok_r(ev, " ", &se); name; name = strtok_r(NULL, " ", &se)) {
        char *end = NULL;
        errno = 0;
        /* callgrind leaves trailing zeros out */
        unsigned long long v = num ? strtoull(num, &end, 10) : 0;
        if (num && (*end || errno || v > (unsigned long long)LLONG_MAX))
            return -1;
        json_t *list = json_object_get(into, name);
        if (!list) {
            if (had)
                return -1;
            json_object_set_new(into, name, list = json_array());
        }
        if (json_array_size(list) != had)
            return -1;
        json_array_append_new(list, json_integer((json_int_t)v));
        num = num ? strtok_r(NULL, " ", &ss) : NULL;
        names++;
    }
    return !num && names == json_object_size(into) && json_object_get(into, "Ir") ? 0 : -1;
}

/* The new text of callgrind's output file, TEXT: exactly the parts named
 * NAME (a printf format of one unsigned) with FIRST, FIRST + 1, ... (N
 * parts), each one "part:" line, one trigger, one "events:", one
 * "summary:" and last one "totals:" equal to it, nothing but blank lines
 * after; the file's header before the first part when HEADER. Their
 * counts go to INTO. 0, or -1. */
static int read_parts(char *text, int header, const char *what, unsigned first, unsigned n,
                      json_t *into, run_out *r, cg_tally *tally)
{
    char events[256] = "", trigger[128] = "", summary[512] = "";
    unsigned got = 0;
    int in_part = 0, done_part = 0, seen_summary = 0;
    for (char *line = text; line && *line;) {
        char *next = strchr(line, '\n');
        if (!next)
            return -1; /* a part ends with a whole line */
        *next++ = '\0';
        char why[128];
        /* the functions: every line, for the names compressed once */
        if (!r->cg_bad && cg_parser_line(&r->cg, line, why, sizeof why) != 0)
            r->cg_bad = 1;
        if (strncmp(line, "part: ", 6) == 0) {
            if (in_part || got == n)
                return -1;
            in_part = 1;
            done_part = seen_summary = 0;
            trigger[0] = events[0] = summary[0] = '\0';
        } else if (!in_part) {
            /* the header of the file, or blank lines after a part */
            if (line[0] && !(header && got == 0 && !done_part))
                return -1;
        } else if (strncmp(line, "desc: Trigger: ", 15) == 0) {
            if (trigger[0])
                return -1;
            snprintf(trigger, sizeof trigger, "%s", line + 15);
        } else if (strncmp(line, "events: ", 8) == 0) {
            if (events[0])
                return -1;
            snprintf(events, sizeof events, "%s", line + 8);
        } else if (strncmp(line, "summary: ", 9) == 0) {
            if (seen_summary++)
                return -1;
            snprintf(summary, sizeof summary, "%s", line + 9);
        } else if (strncmp(line, "totals: ", 8) == 0) {
            char expect[128];
            snprintf(expect, sizeof expect, "Client Request: %s %u 0", what, first + got);
            if (strcmp(what, "empty") == 0)
                snprintf(expect, sizeof expect, "Client Request: empty 0 %u", first + got);
            if (!seen_summary || strcmp(line + 8, summary) != 0 || strcmp(trigger, expect) ||
                !events[0] || add_counts(into, events, summary) != 0)
                return -1;
            if (tally) {
                const json_t *ir = json_object_get(into, "Ir");
                cg_tally_add(tally, &r->cg, (long long)json_integer_value(
                    json_array_get(ir, json_array_size(ir) - 1)));
            }
            in_part = 0;
            done_part = 1;
            got++;
        } else if (strncmp(line, "part", 4) == 0 || strncmp(line, "summary", 7) == 0 ||
                   strncmp(line, "totals", 6) == 0 || strncmp(line, "events", 6) == 0) {
            return -1;
        }
        line = next;
    }
    return !in_part && got == n ? 0 : -1;
}

/* "Valgrind-X.Y.Z" from Valgrind's log TEXT (may be NULL; "Using
 * Valgrind-X.Y.Z and LibVEX"). */
static void read_version(const char *text, char *out, size_t cap)
{
    const char *v = text ? strstr(text, "Using Valgrind-") : NULL;
    out[0] = '\0';
    if (v) {
        v += 6;
        snprintf(out, cap, "%.*s", (int)strcspn(v, " \n"), v);
    }
}

/* The child's standard output, read a line at a time: the driver's answers
 * and Valgrind's log (lines starting "==", kept in LOG). */
typedef struct child_lines {
    hb_proc_child *ch;
    double deadline;
    char buf[4096];
    size_t len;
    char *log;
    size_t log_len, log_cap;
} child_lines;

static void keep_log(child_lines *c, const char *line, size_t n)
{
    if (c->log_len + n + 2 > c->log_cap) {
        size_t cap = c->log_cap ? 2 * c->log_cap : 4096;
        while (cap < c->log_len + n + 2)
            cap *= 2;
        if (cap > (1u << 20))
            return; /* the first MiB is kept */
        char *p = realloc(c->log, cap);
        if (!p)
            return;
        c->log = p;
        c->log_cap = cap;
    }
    memcpy(c->log + c->log_len, line, n);
    c->log_len += n;
    c->log[c->log_len++] = '\n';
    c->log[c->log_len] = '\0';
}

/* The driver's next answer into LINE (without the newline); Valgrind's log
 * lines are kept aside. 0, or -1 at the end of output, the deadline (*LATE
 * set) or a line too long. */
static int next_answer(child_lines *c, char *line, size_t cap, int *late)
{
    for (;;) {
        char *nl = memchr(c->buf, '\n', c->len);
        if (nl) {
            size_t n = (size_t)(nl - c->buf);
            /* "==PID==" and Valgrind's own warnings, "--PID--" (debug
             * information it cannot read, as in a library whose unloaded
             * sections the build zeroed) */
            int is_log = n >= 2 && ((c->buf[0] == '=' && c->buf[1] == '=') ||
                                    (c->buf[0] == '-' && c->buf[1] == '-'));
            if (is_log || n >= cap)
                keep_log(c, c->buf, n);
            else {
                memcpy(line, c->buf, n);
                line[n] = '\0';
            }
            memmove(c->buf, nl + 1, c->len - n - 1);
            c->len -= n + 1;
            if (is_log)
                continue;
            return n < cap ? 0 : -1;
        }
        if (c->len == sizeof c->buf) {
            keep_log(c, c->buf, c->len);
            c->len = 0;
        }
        double left = c->deadline - hb_mono_s();
        if (left <= 0) {
            *late = 1;
            return -1;
        }
        struct pollfd p = {c->ch->from_child, POLLIN, 0};
        int pr = poll(&p, 1, (int)(left * 1000) + 1);
        if (pr <= 0)
            continue;
        ssize_t got = read(c->ch->from_child, c->buf + c->len, sizeof c->buf - c->len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            if (c->len)
                keep_log(c, c->buf, c->len);
            c->len = 0;
            return -1;
        }
        c->len += (size_t)got;
    }
}

/* What callgrind's output file has gained since *OFF: read from FD into a
 * NUL-ended buffer (caller frees), NULL when it cannot be read, holds a NUL
 * byte or passes LIMIT in all. */
static char *file_news(int fd, off_t *off)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size < *off || (unsigned long long)st.st_size >
        COUNT_OUT_LIMIT)
        return NULL;
    size_t n = (size_t)(st.st_size - *off);
    char *t = malloc(n + 1);
    if (!t || hb_fd_pread_all(fd, t, n, *off) != 0 || memchr(t, '\0', n)) {
        free(t);
        return NULL;
    }
    t[n] = '\0';
    *off = st.st_size;
    return t;
}

/* The next call's seed: the first 16 hex digits of SHA-256("SEED:K:I"),
 * which no part of the driver's process can foresee. */
static uint64_t call_seed(uint64_t seed, int k, unsigned i)
{
    char in[64], hex[HB_SHA256_HEX];
    int n = snprintf(in, sizeof in, "%016" PRIx64 ":%d:%u", seed, k, i);
    hb_sha256_buf_hex(in, (size_t)n, hex);
    hex[16] = '\0';
    return strtoull(hex, NULL, 16);
}

/* The run of the driver under callgrind, fed its calls one at a time:
 * CALLS[k] calls of SIZES[k] bytes for each of the N entries, call i of
 * entry k on the message of call_seed(SEED, k, i). Nothing of the host's
 * disks is writable in its sandbox (its scratch is a private tmpfs):
 * callgrind writes its combined output file through its standard error
 * (/dev/fd/2), a file hashbench opens in SCRATCH, a folder of its own that
 * the step never sees, and hashbench reads each call's part before it sends
 * the next request; Valgrind's log comes back on its standard output with
 * the driver's answers. The run is given TIMEOUT_S seconds of wall time. */
static int run_driver(const char *lib, const char *shown, int bits, const unsigned *sizes,
                      const unsigned *calls, int n, uint64_t seed, const count_events *ev,
                      const char *scratch, double timeout_s, run_out *r, hb_err *err)
{
    char out_file[PATH_MAX], bitstr[16], how[128];
    if (hb_path_join(out_file, sizeof out_file, scratch, "callgrind.out", err) < 0)
        return -1;
    snprintf(bitstr, sizeof bitstr, "%d", bits);
    const char *const *tool = count_tool_options(ev);
    char *argv[32];
    int a = 0;
    json_t *shownv = json_array();
    argv[a++] = COUNT_VALGRIND;
    json_array_append_new(shownv, json_string("valgrind"));
    for (int i = 0; tool[i]; i++) {
        argv[a++] = (char *)tool[i];
        json_array_append_new(shownv, json_string(tool[i]));
    }
    char *rest[] = {"--vgdb=no", "--log-fd=1", "--callgrind-out-file=/dev/fd/2",
                    (char *)count_driver_path(), "--lib", (char *)lib, "--digest-bits",
                    bitstr};
    const char *rest_shown[] = {"--vgdb=no", "--log-fd=1", "--callgrind-out-file=/dev/fd/2",
                                "hashbench-count", "--lib", shown, "--digest-bits", bitstr};
    for (size_t i = 0; i < sizeof rest / sizeof rest[0]; i++) {
        argv[a++] = rest[i];
        json_array_append_new(shownv, json_string(rest_shown[i]));
    }
    argv[a] = NULL;
    r->command = shownv;
    size_t total = 0;
    for (int k = 0; k < n; k++)
        total += calls[k];
    r->seeds = calloc(total, sizeof *r->seeds);
    r->folds = calloc(total, sizeof *r->folds);
    r->errors = calloc(total, sizeof *r->errors);
    r->tallies = calloc((size_t)n, sizeof *r->tallies);
    cg_parser_init(&r->cg);
    if (!r->seeds || !r->folds || !r->errors || !r->tallies)
        return hb_fail(err, "out of memory for the count's answers");
    unlink(out_file);
    /* callgrind opens it again through /dev/fd/2, as the sandbox's user:
     * it must be writable by that user (its folder, hashbench's own, is
     * not reachable by any path from inside) */
    int ofd = open(out_file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (ofd < 0 || fchmod(ofd, 0622) != 0) {
        if (ofd >= 0)
            close(ofd);
        return hb_fail_errno(err, "%s: cannot make callgrind's output file", out_file);
    }
    close(ofd);
    int rfd = open(out_file, O_RDONLY | O_CLOEXEC);
    if (rfd < 0)
        return hb_fail_errno(err, "%s: cannot read callgrind's output file", out_file);
    hb_sandbox sb;
    memset(&sb, 0, sizeof sb);
    sb.profile = HB_SANDBOX_RUN;
    sb.tmpfs_scratch = 1;
    if (hb_sandbox_add_ro(&sb, count_driver_path(), err) != 0 ||
        hb_sandbox_add_ro(&sb, lib, err) != 0) {
        close(rfd);
        return -1;
    }
    hb_proc_child ch;
    hb_proc_result res;
    hb_proc_opts o = hb_proc_defaults();
    o.timeout_s = timeout_s;
    o.cpu_s = (unsigned long)timeout_s + 2;
    o.as_bytes = COUNT_AS_BYTES;
    o.fsize_bytes = COUNT_OUT_LIMIT + (1 << 20);
    o.stderr_path = out_file;
    o.sandbox = hb_sandbox_enabled() ? &sb : NULL;
    if (hb_proc_spawn(argv, &o, &ch, err) != 0) {
        close(rfd);
        return -1;
    }
    child_lines cl;
    memset(&cl, 0, sizeof cl);
    cl.ch = &ch;
    cl.deadline = ch.start_s + timeout_s;
    char line[256];
    int late = 0, ok = 0, bad_parts = 0, loadfail = 0;
    off_t off = 0;
    r->empty = json_object();
    r->raw = json_array();
    /* "ready" after the empty windows, then one request per call */
    int first = next_answer(&cl, line, sizeof line, &late);
    loadfail = first == 0 && strncmp(line, "loadfail ", 9) == 0;
    if (first == 0 && strcmp(line, "ready") == 0) {
        char *news = file_news(rfd, &off);
        ok = news && read_parts(news, 1, "empty", 0, COUNT_EMPTY_WINDOWS, r->empty, r,
                                NULL) == 0;
        bad_parts = !ok;
        free(news);
    }
    size_t c = 0;
    for (int k = 0; ok && k < n; k++) {
        json_t *into = json_object();
        json_array_append_new(r->raw, into);
        for (unsigned i = 0; ok && i < calls[k]; i++, c++) {
            char req[64], fold[TM_FOLD_HEX];
            unsigned long num;
            int e;
            r->seeds[c] = call_seed(seed, k, i);
            int w = snprintf(req, sizeof req, "hash %u %016" PRIx64 "\n", sizes[k],
                             r->seeds[c]);
            ok = hb_fd_write_all(ch.to_child, req, (size_t)w) == 0 &&
                 next_answer(&cl, line, sizeof line, &late) == 0 &&
                 sscanf(line, "ok %lu %d %32s", &num, &e, fold) == 3 && num == c &&
                 strlen(fold) == 32;
            if (!ok)
                break;
            memcpy(r->folds[c], fold, TM_FOLD_HEX);
            r->errors[c] = e != 0;
            char *news = file_news(rfd, &off);
            ok = news && read_parts(news, 0, "call", (unsigned)c, 1, into, r,
                                    &r->tallies[k]) == 0;
            bad_parts = !ok;
            free(news);
        }
    }
    if (ok)
        ok = hb_fd_write_all(ch.to_child, "end\n", 4) == 0 &&
             next_answer(&cl, line, sizeof line, &late) == 0 && strcmp(line, "done") == 0;
    if (late)
        hb_proc_kill(&ch, 1);
    close(ch.to_child); /* a driver still waiting for a request ends */
    ch.to_child = -1;
    /* the rest of the log, up to the end */
    while (!late && next_answer(&cl, line, sizeof line, &late) == 0)
        ;
    hb_proc_reap(&ch, 2.0, &res);
    close(rfd);
    read_version(cl.log, r->version, sizeof r->version);
    ok = ok && res.exited && res.exit_code == 0;
    if (!ok) {
        char reason[512], raw[256];
        ct_valgrind_reason(cl.log, reason, sizeof reason, raw, sizeof raw);
        if (bad_parts) {
            snprintf(r->why, sizeof r->why, "Valgrind's output does not hold exactly one part "
                     "per call, in order (something else wrote into it, or asked Valgrind "
                     "for it)");
            r->inconsistent = 1;
        } else if (loadfail) {
            snprintf(r->why, sizeof r->why, "%s%sthe library did not load under Valgrind",
                     reason, reason[0] ? "; " : "");
        } else {
            snprintf(r->why, sizeof r->why, "%s%sValgrind ended with %s", reason,
                     reason[0] ? "; " : "", hb_proc_describe(&res, how, sizeof how));
        }
        hb_one_line(r->why);
        /* Valgrind's log line, which the guest can write into, apart */
        if (!bad_parts)
            hb_untrusted_append(r->why, sizeof r->why, raw, sizeof raw);
        json_decref(r->empty);
        json_decref(r->raw);
        r->empty = r->raw = NULL;
    }
    free(cl.log);
    return 0;
}

/* run_driver charged to the instance's wall budget B, whose rest limits it:
 * a spent budget starts nothing, and a run it ends is stopped, with the
 * budget's line as its reason. */
static int budgeted_run(const ibudget *b, const char *lib, const char *shown, int bits,
                        const unsigned *sizes, const unsigned *calls, int n, uint64_t seed,
                        const count_events *ev, const char *scratch, run_out *r,
                        hb_err *err)
{
    double timeout;
    int limited;
    int spent = ibudget_spent(b, err);
    if (spent < 0 || ibudget_step_timeout(b, COUNT_RUN_TIMEOUT_S, &timeout, &limited,
                                          err) != 0)
        return -1;
    if (spent) {
        r->stopped = 1;
        ibudget_reason(b, r->why, sizeof r->why);
        return 0;
    }
    double t0 = hb_mono_s();
    int rc = run_driver(lib, shown, bits, sizes, calls, n, seed, ev, scratch, timeout, r, err);
    double took = hb_mono_s() - t0;
    if (ibudget_charge(b, IBUDGET_COUNT, took, err) != 0)
        rc = -1;
    if (rc == 0 && !r->raw && limited && took >= timeout) {
        r->stopped = 1;
        r->inconsistent = 0;
        ibudget_reason(b, r->why, sizeof r->why);
    }
    return rc;
}

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* The median of the integers of LIST (the lower middle one of an even
 * count), or -1 when it is empty or holds something else. */
static long long median_of(const json_t *list, long long *min, long long *max)
{
    size_t n = json_array_size(list);
    if (n == 0)
        return -1;
    long long *v = malloc(n * sizeof *v);
    if (!v)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const json_t *x = json_array_get(list, i);
        if (!json_is_integer(x)) {
            free(v);
            return -1;
        }
        v[i] = (long long)json_integer_value(x);
    }
    qsort(v, n, sizeof *v, cmp_ll);
    long long m = v[(n - 1) / 2];
    if (min)
        *min = v[0];
    if (max)
        *max = v[n - 1];
    free(v);
    return m;
}

json_t *count_derive(const json_t *raw, const json_t *empty, long long size)
{
    if (!json_is_object(raw) || !json_is_object(empty) || size < 0)
        return NULL;
    json_t *d = json_object();
    const char *name;
    json_t *list;
    json_object_foreach((json_t *)raw, name, list) {
        long long lo, hi;
        long long win = median_of(json_object_get(empty, name), NULL, NULL);
        long long med = median_of(list, &lo, &hi);
        if (win < 0 || med < 0)
            continue;
        double per_call = (double)(med - win);
        json_t *e = json_object();
        json_object_set_new(e, "per_call", json_real(per_call));
        json_object_set_new(e, "per_byte", size > 0 ? json_real(per_call / (double)size)
                                                    : json_null());
        json_object_set_new(e, "min", json_real((double)(lo - win)));
        json_object_set_new(e, "max", json_real((double)(hi - win)));
        json_object_set_new(e, "spread", json_real(per_call > 0 ? (double)(hi - lo) /
                                                   per_call : 0.0));
        json_object_set_new(d, name, e);
    }
    const json_t *ir = json_object_get(d, "Ir");
    if (!ir) {
        json_decref(d);
        return NULL;
    }
    json_object_set_new(d, "spread_flagged", json_boolean(
        json_real_value(json_object_get(ir, "spread")) > COUNT_SPREAD_LIMIT));
    return d;
}

/* The fold of CALLS calls of SEED's messages, recomputed natively by the
 * runner:
 * "" when it agrees with FOLD, else why not into WHY. */
static int check_fold(runner_session *s, int open, uint64_t seed, unsigned size,
                      unsigned calls, const char *fold, char *why, size_t cap, hb_err *err)
{
    char mine[TM_FOLD_HEX];
    kat_fault f;
    why[0] = '\0';
    if (!open) {
        snprintf(why, cap, "the probe (runner role) could not load the library to check the "
                 "digests");
        return 0;
    }
    int rc = runner_fold(s, seed, size, calls, mine, &f, err);
    if (rc < 0)
        return -1;
    if (rc != RUNNER_CALL_OK)
        snprintf(why, cap, "the probe (runner role) could not recompute the digests natively");
    else if (strcmp(mine, fold) != 0) {
        /* the folds are the library's bytes: raw text (common/untrusted.h) */
        char folds[2 * TM_FOLD_HEX + 32];
        snprintf(why, cap, "the digests computed under Valgrind differ from those the "
                 "library computes natively");
        snprintf(folds, sizeof folds, "fold %.32s, natively %.32s", fold, mine);
        hb_untrusted_append(why, cap, folds, sizeof folds);
    }
    return 0;
}

/* One entry of the list: its reason WHY as hashbench's wording, raw text
 * after the mark apart (common/untrusted.h). */
static void add_entry(json_t *list, unsigned size, unsigned calls, const char *status,
                      const char *why, const json_t *raw, json_t *derived, json_t *fns)
{
    json_t *e = json_pack("{s:I, s:I, s:s}", "size_bytes", (json_int_t)size, "calls",
                          (json_int_t)calls, "status", status);
    hb_untrusted_set(e, "reason", why);
    json_object_set(e, "raw", raw ? (json_t *)raw : json_null());
    json_object_set_new(e, "derived", derived ? derived : json_null());
    if (derived)
        json_object_set_new(e, "functions", fns ? fns : json_null());
    else
        json_decref(fns);
    json_array_append_new(list, e);
}

/* Every entry NOT_COUNTABLE, INCONSISTENT or TIMEOUT with reason WHY. */
static void all_failed(json_t *list, const unsigned *sizes, const unsigned *calls, int n,
                       const char *status, const char *why)
{
    for (int i = 0; i < n; i++)
        add_entry(list, sizes[i], calls[i], status, why, NULL, NULL, NULL);
}

int count_library(const char *lib, const char *shown, int digest_bits,
                  const unsigned *sizes, const unsigned *calls, int n, uint64_t seed,
                  const count_events *events, const ibudget *budget, json_t **out,
                  hb_err *err)
{
    const ibudget none = {NULL, NULL, NULL, 0};
    const ibudget *b = budget ? budget : &none;
    char real[PATH_MAX], scratch[PATH_MAX], seedstr[24];
    *out = NULL;
    if (n < 1 || n > COUNT_MAX_ENTRIES)
        return hb_fail(err, "count: give 1 to %d lengths", COUNT_MAX_ENTRIES);
    for (int i = 0; i < n; i++)
        if (sizes[i] > COUNT_MAX_BYTES || calls[i] < 1 || calls[i] > COUNT_MAX_CALLS)
            return hb_fail(err, "count: length %u (%u calls) is outside the stage's limits "
                           "(%u bytes, 1 to %d calls)", sizes[i], calls[i], COUNT_MAX_BYTES,
                           COUNT_MAX_CALLS);
    if (access(count_driver_path(), X_OK) != 0)
        return hb_fail(err, "%s is missing: build hashbench again (it builds the "
                       "instruction-count driver beside it)", count_driver_path());
    snprintf(seedstr, sizeof seedstr, "%016" PRIx64, seed);
    json_t *res = json_pack("{s:s, s:o, s:s, s:n, s:n, s:[]}", "valgrind", "",
                            "tool_options", json_array(), "seed", seedstr, "command",
                            "empty", "entries");
    const char *const *tool = count_tool_options(events);
    for (int i = 0; tool[i]; i++)
        json_array_append_new(json_object_get(res, "tool_options"), json_string(tool[i]));
    json_t *list = json_object_get(res, "entries");
    const char *global = NULL;
    char why[1024];
    if (access(COUNT_VALGRIND, X_OK) != 0)
        global = COUNT_VALGRIND " is not installed (Debian package valgrind; scripts/deps.sh)";
    else if (!realpath(lib, real)) {
        snprintf(why, sizeof why, "%s: %s", shown, strerror(errno));
        global = why;
    } else {
        /* a library that could ask Valgrind itself could turn the count
         * off inside its calls, or take a leaner path only there */
        long long vgreq;
        if (hb_valgrind_request_file(real, &vgreq, err) != 0) {
            json_decref(res);
            return -1;
        }
        if (vgreq >= 0) {
            hb_valgrind_request_reason(why, sizeof why, vgreq, "the instruction count");
            global = why;
        }
    }
    if (global) {
        all_failed(list, sizes, calls, n, "NOT_COUNTABLE", global);
        *out = res;
        return 0;
    }
    if (hb_stage_scratch(scratch, sizeof scratch, err) != 0) {
        json_decref(res);
        return -1;
    }
    run_out r;
    json_t *syms = NULL;
    memset(&r, 0, sizeof r);
    int rc = budgeted_run(b, real, shown, digest_bits, sizes, calls, n, seed, events, scratch,
                          &r, err);
    json_object_set_new(res, "valgrind", json_string(r.version));
    if (r.command)
        json_object_set(res, "command", r.command);
    if (rc == 0 && !r.raw) {
        all_failed(list, sizes, calls, n, r.stopped ? "TIMEOUT" : r.inconsistent
                   ? "INCONSISTENT" : "NOT_COUNTABLE", r.why);
    } else if (rc == 0) {
        json_object_set(res, "empty", r.empty);
        /* the names of the library's functions, kept by its build */
        char lib_sha[HB_SHA256_HEX];
        hb_err ignored;
        syms = hb_sha256_file_hex(real, lib_sha, &ignored) == 0 ? count_syms_load(real, lib_sha)
                                                                : NULL;
        runner_session rs;
        int opened = 0, runner_started = 0;
        double runner_t0 = 0;
        size_t c = 0;
        for (int i = 0; rc == 0 && i < n; c += calls[i], i++) {
            char reason[1024] = "";
            const char *status = "COUNTED";
            unsigned failed = 0;
            for (unsigned j = 0; j < calls[i]; j++)
                failed += r.errors[c + j];
            if (failed) {
                status = "NOT_COUNTABLE";
                snprintf(reason, sizeof reason, "the library returned an error for a "
                         "%u-byte message", sizes[i]);
            } else {
                if (!runner_started) {
                    /* the runner too is the instance's code: limited by,
                     * and charged to, its budget */
                    runner_target t = {real, digest_bits, COUNT_RUNNER_TIMEOUT_S, 0};
                    char loadfail[256];
                    if (ibudget_step_timeout(b, COUNT_RUNNER_TIMEOUT_S, &t.timeout_s, NULL,
                                             err) != 0)
                        rc = -1;
                    runner_t0 = hb_mono_s();
                    int o = rc == 0 ? runner_open(&rs, &t, loadfail, sizeof loadfail, err)
                                    : -1;
                    if (o < 0)
                        rc = -1;
                    runner_started = o >= 0;
                    opened = o == 0;
                }
                /* every call's digest, recomputed natively */
                for (unsigned j = 0; rc == 0 && !reason[0] && j < calls[i]; j++)
                    rc = check_fold(&rs, opened, r.seeds[c + j], sizes[i], 1, r.folds[c + j],
                                    reason, sizeof reason, err);
                if (reason[0])
                    status = "INCONSISTENT";
            }
            const json_t *raw = json_array_get(r.raw, (size_t)i);
            json_t *d = strcmp(status, "COUNTED") == 0
                            ? count_derive(raw, r.empty, (long long)sizes[i]) : NULL;
            if (!d && strcmp(status, "COUNTED") == 0) {
                status = "NOT_COUNTABLE";
                snprintf(reason, sizeof reason, "callgrind gave no instruction counts");
            }
            json_t *fns = d && !r.cg_bad ? cg_tally_json(&r.tallies[i], &r.cg, real,
                                                         count_driver_path(), syms) : NULL;
            add_entry(list, sizes[i], calls[i], status, reason, raw, d, fns);
        }
        if (runner_started) {
            hb_proc_result ignored;
            hb_err cerr;
            runner_close(&rs, &ignored);
            if (ibudget_charge(b, IBUDGET_COUNT, hb_mono_s() - runner_t0, &cerr) != 0 &&
                rc == 0) {
                *err = cerr;
                rc = -1;
            }
        }
    }
    json_decref(r.command);
    json_decref(r.empty);
    json_decref(r.raw);
    free(r.seeds);
    free(r.folds);
    free(r.errors);
    for (int i = 0; r.tallies && i < n; i++)
        cg_tally_free(&r.tallies[i]);
    free(r.tallies);
    cg_parser_free(&r.cg);
    json_decref(syms);
    hb_err rm;
    if (hb_stage_scratch_remove(scratch, &rm) != 0 && rc == 0)
        rc = hb_fail(err, "%s", rm.msg); /* a failed removal is an error */
    if (rc != 0) {
        json_decref(res);
        return -1;
    }
    *out = res;
    return 0;
}
