/* The instruction count of one library (count.h: count_library): one run
 * of hashbench-count under callgrind in the sandbox, its plan written to the
 * driver's standard input, one part of callgrind's combined output file per
 * call (and per empty window); the parts read in order and checked against
 * the plan, the figures derived per entry, and the digests of every entry
 * recomputed natively by hashbench-runner. The stage over a run directory
 * is count_stage.c; the record check, count_check.c. */
#include "count/count.h"

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
#include "common/fdio.h"
#include "common/fs.h"
#include "common/proc.h"
#include "common/vgreq.h"
#include "count/count_plan.h"
#include "ct/ct.h"
#include "probe/trial_msg.h"
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
    char (*folds)[TM_FOLD_HEX];
    unsigned long *errors;
    char version[64];  /* "Valgrind-3.19.0", or "" */
    char why[768];     /* why the run failed */
    int inconsistent;  /* the output file is not what the plan asks for */
} run_out;

/* The parts of callgrind's combined output file TEXT, checked against the
 * plan (COUNT_EMPTY_WINDOWS empty windows, then CALLS[k] calls of entry k,
 * each part named by the driver's dump request, a last part at the
 * program's end) into R->empty and R->raw. 0, or -1 with R->why. */
static int read_parts(char *text, const unsigned *calls, int n, run_out *r)
{
    char events[256] = "", trigger[96] = "";
    json_t *cur = NULL;                /* {"Ir": [...], ...} the part goes to */
    int entry = -1;                    /* -1: the empty windows */
    unsigned got = 0, want = COUNT_EMPTY_WINDOWS;
    int ended = 0, in_part = 0;
    r->empty = json_object();
    r->raw = json_array();
    cur = r->empty;
    for (char *line = text; line && *line;) {
        char *next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (strncmp(line, "part: ", 6) == 0) {
            if (ended || in_part)
                goto bad;
            in_part = 1;
            trigger[0] = events[0] = '\0';
        } else if (in_part && strncmp(line, "desc: Trigger: ", 15) == 0) {
            snprintf(trigger, sizeof trigger, "%s", line + 15);
        } else if (in_part && strncmp(line, "events: ", 8) == 0) {
            snprintf(events, sizeof events, "%s", line + 8);
        } else if (in_part && strncmp(line, "summary: ", 9) == 0) {
            in_part = 0;
            if (strcmp(trigger, "Program termination") == 0) {
                ended = 1;
                line = next;
                continue;
            }
            while (entry < n && got == want) { /* the next entry with calls */
                entry++;
                got = 0;
                want = entry < n ? calls[entry] : 0;
                if (entry < n) {
                    cur = json_object();
                    json_array_append_new(r->raw, cur);
                }
            }
            char expect[96];
            snprintf(expect, sizeof expect, "Client Request: %s %d %u",
                     entry < 0 ? "empty" : "call", entry < 0 ? 0 : entry, got);
            if (entry >= n || strcmp(trigger, expect) != 0 || !events[0])
                goto bad;
            char ev[256], *se = NULL, *ss = NULL;
            snprintf(ev, sizeof ev, "%s", events);
            char *num = strtok_r(line + 9, " ", &ss);
            for (char *name = strtok_r(ev, " ", &se); name; name = strtok_r(NULL, " ", &se)) {
                char *end = NULL;
                errno = 0;
                unsigned long long v = num ? strtoull(num, &end, 10) : 0; /* trailing
                                                                             zeros omitted */
                if (num && (*end || errno || v > (unsigned long long)LLONG_MAX))
                    goto bad;
                json_t *list = json_object_get(cur, name);
                if (!list) {
                    if (got)
                        goto bad; /* events changed between parts */
                    json_object_set_new(cur, name, list = json_array());
                }
                json_array_append_new(list, json_integer((json_int_t)v));
                num = num ? strtok_r(NULL, " ", &ss) : NULL;
            }
            if (num || json_array_size(json_object_get(cur, "Ir")) != got + 1)
                goto bad;
            got++;
        }
        line = next;
    }
    if (ended && !in_part && entry == n - 1 && got == want)
        return 0;
bad:
    snprintf(r->why, sizeof r->why, "Valgrind's output does not hold one part per call of "
             "the plan, in order (the library wrote into it, or asked Valgrind itself)");
    r->inconsistent = 1;
    json_decref(r->empty);
    json_decref(r->raw);
    r->empty = r->raw = NULL;
    return -1;
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

/* The driver's answer CAP: the per-entry lines and "done". 1 when complete. */
static int read_answer(const char *cap, int n, run_out *r)
{
    int seen = 0;
    for (const char *p = cap; p && *p;) {
        unsigned long size, calls, errs;
        char fold[TM_FOLD_HEX];
        if (sscanf(p, "size %lu %lu %lu %32s", &size, &calls, &errs, fold) == 4 &&
            seen < n && strlen(fold) == 32) {
            memcpy(r->folds[seen], fold, TM_FOLD_HEX);
            r->errors[seen++] = errs;
        } else if (strncmp(p, "done\n", 5) == 0) {
            return seen == n;
        }
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    return 0;
}

/* Everything the child CH writes on its standard output until it ends, or
 * until DEADLINE (monotonic seconds): a NUL-ended buffer of at most CAP
 * bytes (the rest is read and dropped). *LATE is set at the deadline. */
static char *read_child(hb_proc_child *ch, double deadline, size_t cap, int *late)
{
    char *buf = malloc(cap + 1), sink[4096];
    size_t len = 0;
    *late = 0;
    for (;;) {
        double left = deadline - hb_mono_s();
        if (left <= 0) {
            *late = 1;
            break;
        }
        struct pollfd p = {ch->from_child, POLLIN, 0};
        int pr = poll(&p, 1, (int)(left * 1000) + 1);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr <= 0)
            continue;
        char *to = buf && len < cap ? buf + len : sink;
        size_t room = buf && len < cap ? cap - len : sizeof sink;
        ssize_t got = read(ch->from_child, to, room);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        if (to != sink)
            len += (size_t)got;
    }
    if (buf)
        buf[len] = '\0';
    return buf;
}

/* The run of the driver under callgrind with the plan (SIZES, CALLS, N
 * entries, SEED) on its standard input. Nothing of the host's disks is
 * writable in its sandbox (its scratch is a private tmpfs): callgrind
 * writes its combined output file through its standard error
 * (/dev/fd/2), a file hashbench opens in SCRATCH, a folder of its own that
 * the step never sees, and Valgrind's log comes back on its standard output
 * with the driver's answer. */
static int run_driver(const char *lib, const char *shown, int bits, const unsigned *sizes,
                      const unsigned *calls, int n, uint64_t seed, const count_events *ev,
                      const char *scratch, run_out *r, hb_err *err)
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
    /* the plan, all of it before the driver loads the library */
    size_t plan_cap = 64 + (size_t)n * 32, used = 0;
    char *plan = malloc(plan_cap);
    if (!plan)
        return hb_fail(err, "out of memory for the count plan");
    used += (size_t)snprintf(plan, plan_cap, "seed %016" PRIx64 "\n", seed);
    for (int k = 0; k < n; k++)
        used += (size_t)snprintf(plan + used, plan_cap - used, "size %u %u\n", sizes[k],
                                 calls[k]);
    used += (size_t)snprintf(plan + used, plan_cap - used, "end\n");
    unlink(out_file);
    /* callgrind opens it again through /dev/fd/2, as the sandbox's user:
     * it must be writable by that user (its folder, hashbench's own, is
     * not reachable by any path from inside) */
    int ofd = open(out_file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (ofd < 0 || fchmod(ofd, 0622) != 0) {
        if (ofd >= 0)
            close(ofd);
        free(plan);
        return hb_fail_errno(err, "%s: cannot make callgrind's output file", out_file);
    }
    close(ofd);
    hb_sandbox sb;
    memset(&sb, 0, sizeof sb);
    sb.profile = HB_SANDBOX_RUN;
    sb.tmpfs_scratch = 1;
    if (hb_sandbox_add_ro(&sb, count_driver_path(), err) != 0 ||
        hb_sandbox_add_ro(&sb, lib, err) != 0) {
        free(plan);
        return -1;
    }
    hb_proc_child ch;
    hb_proc_result res;
    hb_proc_opts o = hb_proc_defaults();
    o.timeout_s = COUNT_RUN_TIMEOUT_S;
    o.cpu_s = (unsigned long)COUNT_RUN_TIMEOUT_S + 2;
    o.as_bytes = COUNT_AS_BYTES;
    o.fsize_bytes = COUNT_OUT_LIMIT + (1 << 20);
    o.stderr_path = out_file;
    o.sandbox = hb_sandbox_enabled() ? &sb : NULL;
    if (hb_proc_spawn(argv, &o, &ch, err) != 0) {
        free(plan);
        return -1;
    }
    int wrote = hb_fd_write_all(ch.to_child, plan, used); /* within a pipe's buffer */
    free(plan);
    close(ch.to_child);
    ch.to_child = -1;
    int late = 0;
    char *captured = read_child(&ch, ch.start_s + COUNT_RUN_TIMEOUT_S, 1 << 18, &late);
    if (late)
        hb_proc_kill(&ch, 1);
    hb_proc_reap(&ch, 2.0, &res);
    read_version(captured, r->version, sizeof r->version);
    r->folds = calloc((size_t)n, sizeof *r->folds);
    r->errors = calloc((size_t)n, sizeof *r->errors);
    if (!r->folds || !r->errors) {
        free(captured);
        return hb_fail(err, "out of memory for the count's answers");
    }
    int complete = wrote == 0 && captured && read_answer(captured, n, r);
    int ok = complete && res.exited && res.exit_code == 0;
    if (ok) {
        char *text = NULL;
        size_t len = 0;
        hb_err ignored;
        if (hb_read_file_limited(out_file, COUNT_OUT_LIMIT, "callgrind output", &text, &len,
                                 &ignored) != 0) {
            snprintf(r->why, sizeof r->why, "callgrind's output file could not be read "
                     "(larger than %llu bytes?)", (unsigned long long)COUNT_OUT_LIMIT);
        } else if (strlen(text) != len) {
            snprintf(r->why, sizeof r->why, "callgrind's output file holds a NUL byte");
            r->inconsistent = 1;
        } else {
            read_parts(text, calls, n, r);
        }
        free(text);
    } else {
        char reason[512];
        ct_valgrind_reason(captured, reason, sizeof reason);
        if (captured && (strncmp(captured, "loadfail ", 9) == 0 ||
                         strstr(captured, "\nloadfail ")))
            snprintf(r->why, sizeof r->why, "%s%sthe library did not load under Valgrind",
                     reason, reason[0] ? "; " : "");
        else
            snprintf(r->why, sizeof r->why, "%s%sValgrind ended with %s", reason,
                     reason[0] ? "; " : "", hb_proc_describe(&res, how, sizeof how));
    }
    hb_one_line(r->why);
    free(captured);
    return 0;
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

/* The fold of entry K's CALLS calls, recomputed natively by the runner:
 * "" when it agrees with FOLD, else why not into WHY. */
static int check_fold(runner_session *s, int open, uint64_t seed, unsigned size,
                      unsigned calls, const char *fold, char *why, size_t cap, hb_err *err)
{
    char mine[TM_FOLD_HEX];
    kat_fault f;
    why[0] = '\0';
    if (!open) {
        snprintf(why, cap, "hashbench-runner could not load the library to check the "
                 "digests");
        return 0;
    }
    int rc = runner_fold(s, seed, size, calls, mine, &f, err);
    if (rc < 0)
        return -1;
    if (rc != RUNNER_CALL_OK)
        snprintf(why, cap, "hashbench-runner could not recompute the digests natively");
    else if (strcmp(mine, fold) != 0)
        snprintf(why, cap, "the digests computed under Valgrind differ from those the "
                 "library computes natively (fold %.32s, natively %.32s)", fold, mine);
    return 0;
}

/* Every entry NOT_COUNTABLE (or INCONSISTENT) with reason WHY. */
static void all_failed(json_t *list, const unsigned *sizes, const unsigned *calls, int n,
                       const char *status, const char *why)
{
    for (int i = 0; i < n; i++)
        json_array_append_new(list, json_pack("{s:I, s:I, s:s, s:s, s:n, s:n}",
            "size_bytes", (json_int_t)sizes[i], "calls", (json_int_t)calls[i], "status",
            status, "reason", why, "raw", "derived"));
}

int count_library(const char *lib, const char *shown, int digest_bits,
                  const unsigned *sizes, const unsigned *calls, int n, uint64_t seed,
                  const count_events *events, json_t **out, hb_err *err)
{
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
    memset(&r, 0, sizeof r);
    int rc = run_driver(real, shown, digest_bits, sizes, calls, n, seed, events, scratch, &r,
                        err);
    json_object_set_new(res, "valgrind", json_string(r.version));
    if (r.command)
        json_object_set(res, "command", r.command);
    if (rc == 0 && !r.raw) {
        all_failed(list, sizes, calls, n, r.inconsistent ? "INCONSISTENT" : "NOT_COUNTABLE",
                   r.why);
    } else if (rc == 0) {
        json_object_set(res, "empty", r.empty);
        runner_session rs;
        int opened = 0, runner_started = 0;
        for (int i = 0; rc == 0 && i < n; i++) {
            char reason[1024] = "";
            const char *status = "COUNTED";
            if (r.errors[i]) {
                status = "NOT_COUNTABLE";
                snprintf(reason, sizeof reason, "the library returned an error for a "
                         "%u-byte message", sizes[i]);
            } else {
                if (!runner_started) {
                    runner_target t = {real, digest_bits, COUNT_RUNNER_TIMEOUT_S, 0};
                    char loadfail[256];
                    int o = runner_open(&rs, &t, loadfail, sizeof loadfail, err);
                    if (o < 0)
                        rc = -1;
                    runner_started = o >= 0;
                    opened = o == 0;
                }
                if (rc == 0)
                    rc = check_fold(&rs, opened, seed + (uint64_t)i, sizes[i], calls[i],
                                    r.folds[i], reason, sizeof reason, err);
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
            json_array_append_new(list, json_pack("{s:I, s:I, s:s, s:s, s:O, s:o}",
                "size_bytes", (json_int_t)sizes[i], "calls", (json_int_t)calls[i], "status",
                status, "reason", reason, "raw", raw, "derived", d ? d : json_null()));
        }
        if (runner_started) {
            hb_proc_result ignored;
            runner_close(&rs, &ignored);
        }
    }
    json_decref(r.command);
    json_decref(r.empty);
    json_decref(r.raw);
    free(r.folds);
    free(r.errors);
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
