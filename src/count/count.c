/* The instruction count of one library (count.h: count_library): the base
 * run and one run per size of hashbench-count under cachegrind, each in the
 * sandbox; the totals read from cachegrind's output file, the figures
 * derived per size, and the digests of each size's run recomputed natively
 * by hashbench-runner. The stage over a run directory is count_stage.c;
 * the record check, count_check.c. */
#include "count/count.h"
#include "common/untrusted.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fs.h"
#include "common/proc.h"
#include "common/vgreq.h"
#include "count/count_plan.h"
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
    static const char *const plain[] = {"--tool=cachegrind", "--cache-sim=no", NULL};
    static const char *const branches[] = {"--tool=cachegrind", "--cache-sim=no",
                                           "--branch-sim=yes", NULL};
    static const char *const memory[] = {"--tool=cachegrind", "--cache-sim=yes", NULL};
    static const char *const both[] = {"--tool=cachegrind", "--cache-sim=yes",
                                       "--branch-sim=yes", NULL};
    if (e && e->memory)
        return e->branches ? both : memory;
    return e && e->branches ? branches : plain;
}

/* What one run of the driver gave. */
typedef struct run_out {
    json_t *command;   /* as the record shows it */
    json_t *totals;    /* {"Ir": n, ...}, NULL when the run failed */
    int stopped;       /* the instance's wall budget ended it (why says so) */
    char folds[COUNT_MAX_SIZES][TM_FOLD_HEX];
    unsigned long errors[COUNT_MAX_SIZES];
    char version[64];  /* "Valgrind-3.19.0", or "" */
    char why[768];     /* why the run failed */
} run_out;

/* The totals of cachegrind's output file PATH: its "events:" names with
 * the numbers of its "summary:" line. NULL when the file lacks them. */
static json_t *read_totals(const char *path)
{
    char *text = NULL;
    size_t len = 0;
    hb_err ignored;
    if (hb_read_file_limited(path, COUNT_OUT_LIMIT, "cachegrind output", &text, &len,
                             &ignored) != 0)
        return NULL;
    char *ev = NULL, *sum = NULL;
    for (char *line = text; line && *line;) {
        char *next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (strncmp(line, "events: ", 8) == 0)
            ev = line + 8;
        else if (strncmp(line, "summary: ", 9) == 0)
            sum = line + 9;
        line = next;
    }
    json_t *out = ev && sum ? json_object() : NULL;
    char *se = NULL, *ss = NULL;
    char *name = ev ? strtok_r(ev, " ", &se) : NULL;
    char *num = sum ? strtok_r(sum, " ", &ss) : NULL;
    for (; out && name && num; name = strtok_r(NULL, " ", &se), num = strtok_r(NULL, " ", &ss)) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(num, &end, 10);
        if (*end || errno || v > (unsigned long long)LLONG_MAX) {
            json_decref(out);
            out = NULL;
            break;
        }
        json_object_set_new(out, name, json_integer((json_int_t)v));
    }
    if (out && (name || num || !json_object_get(out, "Ir"))) { /* counts disagree */
        json_decref(out);
        out = NULL;
    }
    free(text);
    return out;
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

/* The driver's answer CAP: the per-size lines and "done". 1 when complete. */
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

static int list_text(char *out, size_t cap, const unsigned *v, int n, int width)
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        int w = snprintf(out + used, cap - used, "%s%0*u", i ? "," : "", width, v[i]);
        if (w < 0 || (size_t)w >= cap - used)
            return -1;
        used += (size_t)w;
    }
    return 0;
}

/* One run of the driver under cachegrind with CALLS per size. Nothing of
 * the host's disks is writable in its sandbox (its scratch is a private
 * tmpfs): cachegrind writes its output file through its standard error
 * (/dev/fd/2), a file hashbench opens in SCRATCH, a folder of its own that
 * the step never sees, and Valgrind's log comes back on its standard
 * output with the driver's answer, captured. */
static int run_once(const char *lib, const char *shown, int bits, const unsigned *sizes,
                    const unsigned *calls, int n, uint64_t seed, const count_events *ev,
                    const char *scratch, double timeout_s, run_out *r, hb_err *err)
{
    char out_file[PATH_MAX];
    char bitstr[16], seedstr[24], sizestr[COUNT_MAX_SIZES * 12], callstr[COUNT_MAX_SIZES * 8];
    char how[128];
    memset(r, 0, sizeof *r);
    if (hb_path_join(out_file, sizeof out_file, scratch, "cachegrind.out", err) < 0)
        return -1;
    snprintf(bitstr, sizeof bitstr, "%d", bits);
    snprintf(seedstr, sizeof seedstr, "%016" PRIx64, seed);
    if (list_text(sizestr, sizeof sizestr, sizes, n, 0) != 0 ||
        list_text(callstr, sizeof callstr, calls, n, COUNT_CALLS_WIDTH) != 0)
        return hb_fail(err, "count: too many sizes for one run");
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
    char *rest[] = {"--vgdb=no", "--log-fd=1", "--cachegrind-out-file=/dev/fd/2",
                    (char *)count_driver_path(), "--lib", (char *)lib,
                    "--digest-bits", bitstr, "--seed", seedstr, "--sizes", sizestr,
                    "--calls", callstr};
    const char *rest_shown[] = {"--vgdb=no", "--log-fd=1", "--cachegrind-out-file=/dev/fd/2",
                                "hashbench-count", "--lib", shown, "--digest-bits", bitstr,
                                "--seed", seedstr, "--sizes", sizestr, "--calls", callstr};
    for (size_t i = 0; i < sizeof rest / sizeof rest[0]; i++) {
        argv[a++] = rest[i];
        json_array_append_new(shownv, json_string(rest_shown[i]));
    }
    argv[a] = NULL;
    r->command = shownv;
    unlink(out_file);
    /* cachegrind opens it again through /dev/fd/2, as the sandbox's user:
     * it must be writable by that user (its folder, hashbench's own, is
     * not reachable by any path from inside) */
    int ofd = open(out_file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (ofd < 0 || fchmod(ofd, 0622) != 0) {
        if (ofd >= 0)
            close(ofd);
        return hb_fail_errno(err, "%s: cannot make cachegrind's output file", out_file);
    }
    close(ofd);
    hb_sandbox sb;
    memset(&sb, 0, sizeof sb);
    sb.profile = HB_SANDBOX_RUN;
    sb.tmpfs_scratch = 1;
    if (hb_sandbox_add_ro(&sb, count_driver_path(), err) != 0 ||
        hb_sandbox_add_ro(&sb, lib, err) != 0)
        return -1;
    char *captured = NULL;
    hb_proc_result res;
    hb_proc_opts o = hb_proc_defaults();
    o.timeout_s = timeout_s;
    o.cpu_s = (unsigned long)timeout_s + 2;
    o.as_bytes = COUNT_AS_BYTES;
    o.fsize_bytes = COUNT_OUT_LIMIT + (1 << 20);
    o.stderr_path = out_file;
    o.capture = &captured;
    o.capture_cap = 1 << 16;
    o.sandbox = hb_sandbox_enabled() ? &sb : NULL;
    if (hb_proc_exec(argv, &o, &res, err) != 0) {
        free(captured);
        return -1;
    }
    read_version(captured, r->version, sizeof r->version);
    int complete = captured && read_answer(captured, n, r);
    if (complete && res.exited && res.exit_code == 0)
        r->totals = read_totals(out_file);
    if (!r->totals) {
        char reason[512], raw[256];
        ct_valgrind_reason(captured, reason, sizeof reason, raw, sizeof raw);
        if (captured && (strncmp(captured, "loadfail ", 9) == 0 ||
                         strstr(captured, "\nloadfail ")))
            snprintf(r->why, sizeof r->why, "%s%sthe library did not load under Valgrind",
                     reason, reason[0] ? "; " : "");
        else if (complete && res.exited && res.exit_code == 0)
            snprintf(r->why, sizeof r->why, "cachegrind's output file has no totals");
        else
            snprintf(r->why, sizeof r->why, "%s%sValgrind ended with %s", reason,
                     reason[0] ? "; " : "", hb_proc_describe(&res, how, sizeof how));
        hb_one_line(r->why);
        hb_untrusted_append(r->why, sizeof r->why, raw, sizeof raw);
    }
    free(captured);
    return 0;
}

/* run_once charged to the instance's wall budget B, whose rest limits it:
 * a spent budget starts nothing, and a run it ends is STOPPED, with the
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
        memset(r, 0, sizeof *r);
        r->stopped = 1;
        ibudget_reason(b, r->why, sizeof r->why);
        return 0;
    }
    double t0 = hb_mono_s();
    int rc = run_once(lib, shown, bits, sizes, calls, n, seed, ev, scratch, timeout, r, err);
    double took = hb_mono_s() - t0;
    if (ibudget_charge(b, IBUDGET_COUNT, took, err) != 0)
        rc = -1;
    if (rc == 0 && !r->totals && limited && took >= timeout) {
        r->stopped = 1;
        ibudget_reason(b, r->why, sizeof r->why);
    }
    return rc;
}

json_t *count_derive(const json_t *base, const json_t *more, long long size)
{
    const json_t *tb = json_object_get(base, "totals"), *tm = json_object_get(more, "totals");
    const json_t *cb = json_object_get(base, "calls"), *cm = json_object_get(more, "calls");
    if (!json_is_object(tb) || !json_is_object(tm) || !json_is_integer(cb) ||
        !json_is_integer(cm) || json_integer_value(cm) <= json_integer_value(cb))
        return NULL;
    double calls = (double)(json_integer_value(cm) - json_integer_value(cb));
    json_t *d = json_object();
    const char *name;
    json_t *v;
    json_object_foreach((json_t *)tm, name, v) {
        const json_t *w = json_object_get(tb, name);
        if (!json_is_integer(v) || !json_is_integer(w))
            continue;
        double per_call = (double)(json_integer_value(v) - json_integer_value(w)) / calls;
        json_t *e = json_object();
        json_object_set_new(e, "per_call", json_real(per_call));
        json_object_set_new(e, "per_byte", size > 0 ? json_real(per_call / (double)size)
                                                    : json_null());
        json_object_set_new(d, name, e);
    }
    if (!json_object_get(d, "Ir")) {
        json_decref(d);
        return NULL;
    }
    return d;
}

static json_t *run_json(const run_out *r, unsigned calls)
{
    return json_pack("{s:O, s:I, s:O}", "command", r->command, "calls", (json_int_t)calls,
                     "totals", r->totals ? r->totals : json_null());
}

/* The fold of SIZE's COUNT_N2 calls, recomputed natively by the runner:
 * "" when it agrees with FOLD, else why not into WHY. */
static int check_fold(runner_session *s, int open, uint64_t seed, unsigned size,
                      const char *fold, char *why, size_t cap, hb_err *err)
{
    char mine[TM_FOLD_HEX];
    kat_fault f;
    why[0] = '\0';
    if (!open) {
        snprintf(why, cap, "hashbench-runner could not load the library to check the "
                 "digests");
        return 0;
    }
    int rc = runner_fold(s, seed, size, COUNT_N2, mine, &f, err);
    if (rc < 0)
        return -1;
    if (rc != RUNNER_CALL_OK)
        snprintf(why, cap, "hashbench-runner could not recompute the digests natively");
    else if (strcmp(mine, fold) != 0)
        snprintf(why, cap, "the digests computed under Valgrind differ from those the "
                 "library computes natively (fold %.32s, natively %.32s)", fold, mine);
    return 0;
}

int count_library(const char *lib, const char *shown, int digest_bits,
                  const unsigned *sizes, int n_sizes, uint64_t seed,
                  const count_events *events, const ibudget *budget, json_t **out,
                  hb_err *err)
{
    const ibudget none = {NULL, NULL, NULL, 0};
    const ibudget *b = budget ? budget : &none;
    char real[PATH_MAX], scratch[PATH_MAX], seedstr[24];
    *out = NULL;
    if (n_sizes < 1 || n_sizes > COUNT_MAX_SIZES)
        return hb_fail(err, "count: give 1 to %d sizes", COUNT_MAX_SIZES);
    for (int i = 0; i < n_sizes; i++)
        if (sizes[i] > COUNT_MAX_BYTES)
            return hb_fail(err, "count: size %u is above the stage's limit of %u bytes",
                           sizes[i], COUNT_MAX_BYTES);
    if (access(count_driver_path(), X_OK) != 0)
        return hb_fail(err, "%s is missing: build hashbench again (it builds the "
                       "instruction-count driver beside it)", count_driver_path());
    snprintf(seedstr, sizeof seedstr, "%016" PRIx64, seed);
    json_t *res = json_pack("{s:s, s:o, s:s, s:[]}", "valgrind", "", "tool_options",
                            json_array(), "seed", seedstr, "sizes");
    const char *const *tool = count_tool_options(events);
    for (int i = 0; tool[i]; i++)
        json_array_append_new(json_object_get(res, "tool_options"), json_string(tool[i]));
    json_t *list = json_object_get(res, "sizes");
    const char *global = NULL;
    char why[1024];
    if (access(COUNT_VALGRIND, X_OK) != 0)
        global = COUNT_VALGRIND " is not installed (Debian package valgrind; scripts/deps.sh)";
    else if (!realpath(lib, real)) {
        snprintf(why, sizeof why, "%s: %s", shown, strerror(errno));
        global = why;
    } else {
        /* a library that asks Valgrind whether it runs there can take a
         * leaner path only when it does */
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
        for (int i = 0; i < n_sizes; i++)
            json_array_append_new(list, json_pack("{s:I, s:s, s:s, s:n, s:n, s:n}",
                "size_bytes", (json_int_t)sizes[i], "status", "NOT_COUNTABLE", "reason",
                global, "base", "more", "derived"));
        *out = res;
        return 0;
    }
    if (hb_stage_scratch(scratch, sizeof scratch, err) != 0) {
        json_decref(res);
        return -1;
    }
    unsigned calls[COUNT_MAX_SIZES];
    for (int i = 0; i < n_sizes; i++)
        calls[i] = COUNT_N1;
    run_out base;
    int rc = budgeted_run(b, real, shown, digest_bits, sizes, calls, n_sizes, seed, events,
                          scratch, &base, err);
    json_object_set_new(res, "valgrind", json_string(base.version));
    runner_session rs;
    int opened = 0, runner_started = 0;
    double runner_t0 = 0;
    for (int i = 0; rc == 0 && i < n_sizes; i++) {
        run_out more;
        memset(&more, 0, sizeof more);
        json_t *e = json_pack("{s:I}", "size_bytes", (json_int_t)sizes[i]);
        const char *status = "COUNTED";
        char reason[1024] = "";
        if (!base.totals) {
            status = base.stopped ? "TIMEOUT" : "NOT_COUNTABLE";
            snprintf(reason, sizeof reason, "%s", base.why);
        } else {
            calls[i] = COUNT_N2;
            rc = budgeted_run(b, real, shown, digest_bits, sizes, calls, n_sizes, seed,
                              events, scratch, &more, err);
            calls[i] = COUNT_N1;
            if (rc == 0 && !more.totals) {
                status = more.stopped ? "TIMEOUT" : "NOT_COUNTABLE";
                snprintf(reason, sizeof reason, "%s", more.why);
            } else if (rc == 0 && (more.errors[i] || base.errors[i])) {
                status = "NOT_COUNTABLE";
                snprintf(reason, sizeof reason, "the library returned an error for a "
                         "%u-byte message", sizes[i]);
            } else if (rc == 0) {
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
                if (rc == 0)
                    rc = check_fold(&rs, opened, seed + (uint64_t)i, sizes[i], more.folds[i],
                                    reason, sizeof reason, err);
                if (reason[0])
                    status = "INCONSISTENT";
            }
        }
        json_object_set_new(e, "status", json_string(status));
        hb_untrusted_set(e, "reason", reason); /* Valgrind's line apart */
        json_object_set_new(e, "base", base.command ? run_json(&base, COUNT_N1) : json_null());
        json_object_set_new(e, "more", more.command ? run_json(&more, COUNT_N2) : json_null());
        json_t *d = strcmp(status, "COUNTED") == 0
                        ? count_derive(json_object_get(e, "base"), json_object_get(e, "more"),
                                       (long long)sizes[i]) : NULL;
        json_object_set_new(e, "derived", d ? d : json_null());
        if (!d && strcmp(status, "COUNTED") == 0) {
            json_object_set_new(e, "status", json_string("NOT_COUNTABLE"));
            json_object_set_new(e, "reason", json_string("the runs gave no instruction "
                                                         "totals to subtract"));
        }
        json_array_append_new(list, e);
        json_decref(more.command);
        json_decref(more.totals);
    }
    if (runner_started) {
        hb_proc_result ignored;
        hb_err cerr;
        runner_close(&rs, &ignored);
        if (ibudget_charge(b, IBUDGET_COUNT, hb_mono_s() - runner_t0, &cerr) != 0 && rc == 0) {
            *err = cerr;
            rc = -1;
        }
    }
    json_decref(base.command);
    json_decref(base.totals);
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
