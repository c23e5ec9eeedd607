/* The constant-time methods on one library (see ct.h): the taint check
 * under Valgrind and the timing test, each in the sandbox through
 * hashbench-ct, and the figures and verdict of a record. The stage over a
 * run directory is ct_stage.c; the record check, ct_check.c. */
#include "ct/ct.h"
#include "common/untrusted.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fs.h"
#include "common/proc.h"
#include "common/vgreq.h"
#include "ct/ct_plan.h"
#include "ct/vgxml.h"
#include "sandbox/sandbox.h"
#include "sandbox/stage.h"

#define CT_VALGRIND "/usr/bin/valgrind"
#define CT_AS_BYTES (64ULL << 30)  /* memcheck reserves much address space */
#define CT_EXCERPT 120
#define CT_LOG_CAP (1u << 20) /* bytes of Valgrind's log (and the driver's lines) kept */

/* Removes the folder hashbench made for a step's output; a failure is an
 * error (into ERR, or on standard error when ERR is NULL). */
static int ct_scratch_remove(const char *dir, hb_err *err)
{
    hb_err e;
    if (hb_stage_scratch_remove(dir, &e) == 0)
        return 0;
    if (err)
        *err = e;
    else
        fprintf(stderr, "hashbench: %s\n", e.msg);
    return -1;
}

static char driver_exe[PATH_MAX];

const char *ct_driver_path(void)
{
    if (!driver_exe[0])
        hb_exe_sibling("hashbench-ct", driver_exe, sizeof driver_exe);
    return driver_exe;
}

/* A sandbox of the RUN profile (no new processes: Valgrind executes its
 * tool, it does not fork) with the driver and LIB read-only and a private
 * tmpfs as its scratch (nothing of the host's disks is writable). */
static int sandbox_for(hb_sandbox *sb, const char *lib, int perf, hb_err *err)
{
    memset(sb, 0, sizeof *sb);
    sb->profile = HB_SANDBOX_RUN;
    sb->allow_perf = perf;
    sb->tmpfs_scratch = 1;
    if (hb_sandbox_add_ro(sb, ct_driver_path(), err) != 0)
        return -1;
    if (hb_is_file(lib) && hb_sandbox_add_ro(sb, lib, err) != 0)
        return -1;
    return 0;
}

/* ---- the taint check ---- */

/* The first line of the Valgrind log TEXT that says why the guest could not
 * go on (an instruction it cannot run), or "" into OUT. */
void ct_valgrind_reason(const char *text, char *out, size_t cap, char *raw, size_t rawcap)
{
    out[0] = raw[0] = '\0';
    if (!text)
        return;
    static const char *const keys[] = {"unhandled instruction bytes", "Unrecognised instruction",
                                       "valgrind: ", "Fatal error"};
    static const char *const classes[] = {"Valgrind met an instruction it cannot run",
        "Valgrind met an instruction it cannot run", "Valgrind stopped",
        "Valgrind met a fatal error"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0] && !out[0]; k++) {
        char *hit = strstr(text, keys[k]);
        if (!hit)
            continue;
        char *start = hit;
        while (start > text && start[-1] != '\n')
            start--;
        size_t n = strcspn(start, "\n");
        snprintf(out, cap, "%s", classes[k]);
        snprintf(raw, rawcap, "%.*s", (int)(n > 200 ? 200 : n), start);
        hb_one_line(raw);
    }
}

/* PATH of a finding relative to ROOT (both absolute), or NULL. */
static const char *inside(const char *path, const char *root)
{
    size_t n = strlen(root);
    if (n && strncmp(path, root, n) == 0 && path[n] == '/')
        return path + n + 1;
    return NULL;
}

/* Line LINE of FILE (at most CT_EXCERPT characters, blanks trimmed) into
 * OUT, or "". */
static void excerpt(const char *file, long line, char *out, size_t cap)
{
    hb_err ignored;
    out[0] = '\0';
    FILE *fp = line > 0 ? hb_open_limited(file, 16ULL << 20, "source file", &ignored) : NULL;
    if (!fp)
        return;
    char buf[4096];
    long n = 0;
    while (fgets(buf, sizeof buf, fp)) {
        size_t len = strlen(buf);
        int whole = len > 0 && buf[len - 1] == '\n';
        if (++n == line) {
            buf[strcspn(buf, "\r\n")] = '\0';
            char *s = buf + strspn(buf, " \t");
            size_t k = strlen(s);
            while (k > 0 && (s[k - 1] == ' ' || s[k - 1] == '\t'))
                s[--k] = '\0';
            snprintf(out, cap, "%.*s%s", CT_EXCERPT, s, k > CT_EXCERPT ? "..." : "");
            hb_one_line(out);
            break;
        }
        while (!whole && fgets(buf, sizeof buf, fp)) { /* rest of a long line */
            len = strlen(buf);
            whole = len > 0 && buf[len - 1] == '\n';
        }
    }
    fclose(fp);
}

/* Rewrites the findings for the record: "file" relative to SOURCE_ROOT with
 * an excerpt when the file is inside it, else its last component only (no
 * host path is kept, and no file outside the package is read); "object"
 * the library's file name; "dir" dropped. */
static void finish_findings(json_t *findings, const char *source_root)
{
    size_t i;
    json_t *f;
    char root[PATH_MAX] = "";
    if (source_root && !realpath(source_root, root))
        root[0] = '\0';
    json_array_foreach(findings, i, f) {
        const char *dir = json_string_value(json_object_get(f, "dir"));
        const char *file = json_string_value(json_object_get(f, "file"));
        const char *obj = json_string_value(json_object_get(f, "object"));
        long line = (long)json_integer_value(json_object_get(f, "line"));
        char full[PATH_MAX * 2], real[PATH_MAX], text[CT_EXCERPT + 8] = "";
        const char *rel = NULL;
        if (file && file[0]) {
            snprintf(full, sizeof full, "%s%s%s", file[0] == '/' ? "" : dir ? dir : "",
                     file[0] == '/' || !dir || !dir[0] ? "" : "/", file);
            if (root[0] && realpath(full, real) && (rel = inside(real, root)) != NULL)
                excerpt(real, line, text, sizeof text);
        }
        json_object_set_new(f, "file", json_string(rel ? rel : file ? hb_basename(file) : ""));
        json_object_set_new(f, "excerpt", json_string(text));
        json_object_set_new(f, "object", json_string(obj ? hb_basename(obj) : ""));
        json_object_del(f, "dir");
    }
}

static json_t *lengths_json(void)
{
    json_t *a = json_array();
    for (int i = 0; i < CT_TAINT_LENGTHS; i++)
        json_array_append_new(a, json_integer((json_int_t)ct_taint_bits[i]));
    return a;
}

static json_t *taint_object(const char *tool, const char *status, const char *reason,
                            json_t *findings, long other)
{
    json_t *o = json_pack("{s:s, s:o, s:s, s:s, s:o, s:I}", "tool", tool, "lengths_bits",
                          lengths_json(), "status", status, "reason", "", "findings",
                          findings ? findings : json_array(), "other_errors",
                          (json_int_t)other);
    if (o) /* the Valgrind log's line apart: common/untrusted.h */
        hb_untrusted_set(o, "reason", reason);
    return o;
}

/* The calls the driver reported ("call BITS RC" lines, then "done"). */
static int driver_done(const char *out, int *calls)
{
    *calls = 0;
    for (const char *p = out; p && *p;) {
        if (strncmp(p, "call ", 5) == 0)
            (*calls)++;
        if (strncmp(p, "done\n", 5) == 0)
            return 1;
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    return 0;
}

int ct_taint(const char *lib, int digest_bits, const char *source_root,
             const char *keep_prefix, json_t **out, hb_err *err)
{
    return ct_taint_within(lib, digest_bits, source_root, keep_prefix, 0, NULL, out, err);
}

int ct_taint_within(const char *lib, int digest_bits, const char *source_root,
                    const char *keep_prefix, double timeout_s, const char *timeout_reason,
                    json_t **out, hb_err *err)
{
    char real[PATH_MAX], scratch[PATH_MAX], xml[PATH_MAX + 16];
    char bits[16], reason[512] = "", how[128];
    *out = NULL;
    if (access(ct_driver_path(), X_OK) != 0)
        return hb_fail(err, "%s is missing: build hashbench again (it builds the "
                       "constant-time driver beside it)", ct_driver_path());
    if (access(CT_VALGRIND, X_OK) != 0) {
        *out = taint_object("memcheck", "NOT_ANALYSABLE", CT_VALGRIND " is not installed "
                            "(Debian package valgrind; scripts/deps.sh)", NULL, 0);
        return 0;
    }
    if (!realpath(lib, real)) {
        snprintf(reason, sizeof reason, "%s: %s", lib, strerror(errno));
        *out = taint_object("memcheck", "NOT_ANALYSABLE", reason, NULL, 0);
        return 0;
    }
    /* a library that can mark its own secrets defined is never clean */
    long long vgreq;
    if (hb_valgrind_request_file(real, &vgreq, err) != 0)
        return -1;
    if (vgreq >= 0) {
        hb_valgrind_request_reason(reason, sizeof reason, vgreq, "the taint check");
        *out = taint_object("memcheck", "NOT_ANALYSABLE", reason, NULL, 0);
        return 0;
    }
    /* The XML comes back on the step's standard error, a file hashbench
     * opens in a folder of its own that the step never sees (Valgrind
     * keeps its copy of the descriptor; the driver sends its own standard
     * error to /dev/null before it loads the library), and the log on its
     * standard output, captured: the step writes nothing else on the host. */
    if (hb_stage_scratch(scratch, sizeof scratch, err) != 0)
        return -1;
    if (hb_path_join(xml, sizeof xml, scratch, "vg.xml", err) < 0) {
        ct_scratch_remove(scratch, NULL);
        return -1;
    }
    snprintf(bits, sizeof bits, "%d", digest_bits);
    char *argv[] = {CT_VALGRIND, "--tool=memcheck", "--xml=yes", "--xml-fd=2",
                    "--log-fd=1", "--vgdb=no", "--error-limit=yes", "--num-callers=12",
                    "--leak-check=no", "--track-origins=no", "--read-inline-info=yes",
                    (char *)ct_driver_path(), "--lib", real, "--digest-bits", bits,
                    "--taint", NULL};
    hb_sandbox sb;
    char *captured = NULL;
    hb_proc_result res;
    int rc = sandbox_for(&sb, real, 0, err);
    hb_proc_opts o = hb_proc_defaults();
    o.timeout_s = timeout_s > 0 ? timeout_s : CT_TAINT_TIMEOUT_S;
    o.cpu_s = (unsigned long)o.timeout_s + 2;
    o.as_bytes = CT_AS_BYTES;
    o.fsize_bytes = CT_XML_LIMIT + (1 << 20);
    o.stderr_path = xml;
    o.capture = &captured;
    o.capture_cap = CT_LOG_CAP;
    o.sandbox = hb_sandbox_enabled() ? &sb : NULL;
    if (rc == 0)
        rc = hb_proc_exec(argv, &o, &res, err);
    if (rc != 0) {
        ct_scratch_remove(scratch, NULL);
        free(captured);
        return -1;
    }
    if (keep_prefix) {
        char dst[PATH_MAX + 32];
        hb_err ignored;
        snprintf(dst, sizeof dst, "%s.valgrind.xml", keep_prefix);
        if (hb_is_file(xml))
            hb_copy_file(xml, dst, &ignored);
        snprintf(dst, sizeof dst, "%s.valgrind.log", keep_prefix);
        hb_write_atomic(dst, captured ? captured : "", res.captured, &ignored);
    }
    int calls = 0, done = driver_done(captured, &calls);
    ct_vgxml x = {0};
    hb_err xerr;
    int parsed = hb_is_file(xml) && ct_vgxml_parse(xml, real, CT_XML_LIMIT, &x, &xerr) == 0;
    char tool[96];
    snprintf(tool, sizeof tool, "%s memcheck", parsed && x.valgrind[0] ? x.valgrind :
             "Valgrind");
    if (timeout_reason && (res.timed_out || (res.signaled && res.signo == SIGXCPU))) {
        *out = taint_object(tool, "NOT_ANALYSABLE", timeout_reason, NULL, 0);
    } else if (done && res.exited && res.exit_code == 0 && parsed && !x.fatal_signal) {
        finish_findings(x.findings, source_root);
        *out = taint_object(tool, "ANALYSED", "", json_incref(x.findings), x.other_errors);
    } else {
        char raw[256];
        ct_valgrind_reason(captured, reason, sizeof reason, raw, sizeof raw);
        char *r = reason + strlen(reason);
        size_t room = sizeof reason - strlen(reason);
        if (captured && strstr(captured, "loadfail "))
            snprintf(r, room, "%sthe library did not load under Valgrind", reason[0] ? "; " : "");
        else if (parsed && x.fatal_signal)
            snprintf(r, room, "%sthe library died of %s under Valgrind after %d of %d calls",
                     reason[0] ? "; " : "", x.signame[0] ? x.signame : "a signal", calls,
                     CT_TAINT_LENGTHS);
        else if (!parsed && done)
            snprintf(r, room, "%sValgrind's XML output could not be read (%.200s)",
                     reason[0] ? "; " : "", hb_is_file(xml) ? xerr.msg : "none written");
        else
            snprintf(r, room, "%sValgrind ended with %s after %d of %d calls",
                     reason[0] ? "; " : "", hb_proc_describe(&res, how, sizeof how), calls,
                     CT_TAINT_LENGTHS);
        hb_one_line(reason);
        hb_untrusted_append(reason, sizeof reason, raw, sizeof raw);
        *out = taint_object(tool, "NOT_ANALYSABLE", reason, NULL, 0);
    }
    if (parsed)
        ct_vgxml_free(&x);
    free(captured);
    if (ct_scratch_remove(scratch, err) != 0) {
        json_decref(*out);
        *out = NULL;
        return -1;
    }
    return *out ? 0 : hb_fail(err, "out of memory for the taint check's result");
}

/* ---- the timing test ---- */

double ct_welch_t(double n0, double m0, double v0, double n1, double m1, double v1)
{
    if (!(n0 >= 2) || !(n1 >= 2))
        return NAN;
    double se = sqrt(v0 / n0 + v1 / n1);
    if (!(se > 0))
        return m0 == m1 ? 0.0 : NAN;
    return (m0 - m1) / se;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* One test over the measurements at or below LIMIT (UINT64_MAX: all). */
static json_t *one_test(const uint64_t *m, size_t n, uint64_t limit, int percentile)
{
    double cnt[2] = {0, 0}, mean[2] = {0, 0}, m2[2] = {0, 0};
    for (size_t i = 0; i < n; i++) { /* Welford, per class */
        int c = (int)(m[i] >> 63);
        uint64_t v = m[i] & ~(1ull << 63);
        if (v > limit)
            continue;
        cnt[c] += 1;
        double d = (double)v - mean[c];
        mean[c] += d / cnt[c];
        m2[c] += d * ((double)v - mean[c]);
    }
    double var[2];
    for (int c = 0; c < 2; c++)
        var[c] = cnt[c] > 1 ? m2[c] / (cnt[c] - 1) : NAN;
    double t = ct_welch_t(cnt[0], mean[0], var[0], cnt[1], mean[1], var[1]);
    json_t *o = json_object();
    json_object_set_new(o, "crop_percentile", percentile ? json_integer(percentile) : json_null());
    json_object_set_new(o, "crop_ticks", limit == UINT64_MAX ? json_null()
                                                            : json_integer((json_int_t)limit));
    json_object_set_new(o, "n", json_pack("[I, I]", (json_int_t)cnt[0], (json_int_t)cnt[1]));
    json_object_set_new(o, "mean_ticks", json_pack("[f, f]", mean[0], mean[1]));
    json_object_set_new(o, "var_ticks", json_pack("[o, o]",
        isfinite(var[0]) ? json_real(var[0]) : json_null(),
        isfinite(var[1]) ? json_real(var[1]) : json_null()));
    json_object_set_new(o, "t", isfinite(t) ? json_real(t) : json_null());
    return o;
}

static json_t *timing_failed(const ct_time_opts *o, const char *counter, const char *why)
{
    return json_pack("{s:s, s:I, s:s, s:I, s:s, s:s}", "counter", counter, "message_bytes",
                     (json_int_t)o->bytes, "fixed_message", "all zero bytes",
                     "measurements", (json_int_t)0, "status", "FAILED", "reason", why);
}

int ct_timing(const char *lib, int digest_bits, const ct_time_opts *opt, json_t **out,
              hb_err *err)
{
    ct_time_opts o = *opt;
    if (!o.bytes)
        o.bytes = CT_DEFAULT_BYTES;
    if (!o.measurements)
        o.measurements = CT_DEFAULT_MEASUREMENTS;
    if (o.timeout_s <= 0)
        o.timeout_s = 120.0;
    *out = NULL;
    if (o.bytes > CT_MAX_TIME_BYTES || o.measurements < 100 ||
        o.measurements > CT_MAX_MEASUREMENTS)
        return hb_fail(err, "timing test: give 1 to %d message bytes and 100 to %ld "
                       "measurements", CT_MAX_TIME_BYTES, CT_MAX_MEASUREMENTS);
    const char *counter = counter_kind_name(o.counter);
    char real[PATH_MAX], bits[16], bytes[24], count[24], how[128];
    if (!realpath(lib, real)) {
        char why[PATH_MAX + 64];
        snprintf(why, sizeof why, "%s: %s", lib, strerror(errno));
        *out = timing_failed(&o, counter, why);
        return 0;
    }
    snprintf(bits, sizeof bits, "%d", digest_bits);
    snprintf(bytes, sizeof bytes, "%zu", o.bytes);
    snprintf(count, sizeof count, "%ld", o.measurements);
    char *argv[] = {(char *)ct_driver_path(), "--lib", real, "--digest-bits", bits,
                    "--time", (char *)counter, bytes, count, NULL};
    hb_sandbox sb;
    char *captured = NULL;
    hb_proc_result res;
    int rc = sandbox_for(&sb, real, o.counter == COUNTER_PERF_CYCLES, err);
    hb_proc_opts po = hb_proc_defaults();
    po.timeout_s = o.timeout_s;
    po.cpu_s = (unsigned long)o.timeout_s + 2;
    po.as_bytes = 2ULL << 30;
    po.fsize_bytes = 1 << 20;
    po.capture = &captured;
    po.capture_cap = (size_t)o.measurements * 8 + 8;
    po.sandbox = hb_sandbox_enabled() ? &sb : NULL;
    if (rc == 0)
        rc = hb_proc_exec(argv, &po, &res, err);
    if (rc != 0) {
        free(captured);
        return -1;
    }
    size_t want = (size_t)o.measurements * 8;
    if (o.timeout_reason && (res.timed_out || (res.signaled && res.signo == SIGXCPU))) {
        free(captured);
        *out = timing_failed(&o, counter, o.timeout_reason);
        return 0;
    }
    if (!(res.exited && res.exit_code == 0) || res.captured != want) {
        char why[256];
        snprintf(why, sizeof why, "the timing driver ended with %s after %zu of %ld "
                 "measurements", hb_proc_describe(&res, how, sizeof how),
                 res.captured / 8, o.measurements);
        free(captured);
        *out = timing_failed(&o, counter, why);
        return 0;
    }
    size_t n = (size_t)o.measurements;
    uint64_t *m = malloc(n * sizeof *m), *sorted = malloc(n * sizeof *m);
    if (!m || !sorted) {
        free(m);
        free(sorted);
        free(captured);
        return hb_fail(err, "out of memory for the timing test");
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t v = 0;
        for (int b = 7; b >= 0; b--)
            v = v << 8 | (unsigned char)captured[i * 8 + (size_t)b];
        m[i] = v;
        sorted[i] = v & ~(1ull << 63);
    }
    free(captured);
    qsort(sorted, n, sizeof *sorted, cmp_u64);
    uint64_t crop = sorted[(n - 1) * CT_CROP_PERCENTILE / 100];
    json_t *tests = json_pack("[o, o]", one_test(m, n, UINT64_MAX, 0),
                              one_test(m, n, crop, CT_CROP_PERCENTILE));
    free(m);
    free(sorted);
    double t = NAN;
    size_t i;
    json_t *x;
    json_array_foreach(tests, i, x) {
        double ti = json_number_value(json_object_get(x, "t"));
        if (json_is_number(json_object_get(x, "t")) && (isnan(t) || fabs(ti) > fabs(t)))
            t = ti;
    }
    *out = json_pack("{s:s, s:I, s:s, s:I, s:s, s:s, s:o, s:o, s:f, s:s}", "counter", counter,
                     "message_bytes", (json_int_t)o.bytes, "fixed_message", "all zero bytes",
                     "measurements", (json_int_t)n, "status", "MEASURED", "reason", "",
                     "tests", tests, "t", isfinite(t) ? json_real(t) : json_null(),
                     "threshold", CT_T_THRESHOLD, "verdict",
                     isfinite(t) && fabs(t) > CT_T_THRESHOLD ? "DIFFERENCE" : "NOT_DETECTED");
    return *out ? 0 : hb_fail(err, "out of memory for the timing test's result");
}

const char *ct_verdict(const json_t *taint, const json_t *timing)
{
    const char *ts = json_string_value(json_object_get(taint, "status"));
    const char *ms = json_string_value(json_object_get(timing, "status"));
    const char *mv = json_string_value(json_object_get(timing, "verdict"));
    if (json_array_size(json_object_get(taint, "findings")) > 0 ||
        (mv && strcmp(mv, "DIFFERENCE") == 0))
        return "FOUND";
    if (!ts || strcmp(ts, "ANALYSED") != 0 || !ms || strcmp(ms, "MEASURED") != 0)
        return "NOT_ANALYSABLE";
    return "NONE_FOUND";
}
