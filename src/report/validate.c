/* report_validate: re-derives every published figure from the raw evidence
 * of a dataset (record statistics from raw trials, KAT log digests, the
 * message lengths and verdict of each comparison of variants) and reports
 * every difference as one line naming the file and the field; optionally
 * regenerates the site and compares it byte for byte (report_site, so this
 * file uses report.c, which does not use it). See validate.h for the
 * contract. */
#include "report/validate.h"

#include <sys/stat.h>
#include <unistd.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "common/digest.h"
#include "common/fs.h"
#include "common/json.h"
#include "common/untrusted.h"
#include "compile/diag.h"
#include "common/walk.h"
#include "count/count.h"
#include "ct/ct.h"
#include "kat/variants.h"
#include "rundir/rundir.h"
#include "measure/outside.h"
#include "measure/plan.h"
#include "measure/planners.h"
#include "measure/record.h"
#include "measure/stats.h"
#include "dataset/dataset.h"
#include "dataset/hostdata.h"
#include "dataset/paths.h"
#include "report/ratiodrift.h"
#include "report/report.h"
#include "report/site_compare.h"

typedef struct vctx {
    const char *root;
    FILE *out;
    report_validate_stats *st;
    hb_err *first; /* when set, keeps the first problem instead of printing */
    int bad_paths; /* path fields refused: the site cannot be regenerated */
    int bad_notes; /* a notes file report refuses: likewise */
} vctx;

/* The path of NAME (a file or folder of the run directory's layout) in the
 * system folder of S, relative to the dataset's root; "" when too long. */
static void system_file(char *out, size_t sz, const report_system *s, const char *name)
{
    if (hb_path_join(out, sz, s->name, name, NULL) != 0)
        out[0] = '\0';
}

static void problem(vctx *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints one problem as one line: control characters quoted from the data
 * (a path holding a newline) become '?'. With V->first, keeps the first
 * problem there (hb_fail makes it one line) and prints nothing. */
static void problem(vctx *v, const char *fmt, ...)
{
    char *line = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&line, fmt, ap);
    va_end(ap);
    if (v->first) {
        if (!v->first->msg[0])
            hb_fail(v->first, "%s", n < 0 ? "out of memory while reporting a problem"
                                          : line);
        if (n >= 0)
            free(line);
    } else if (n < 0) {
        fputs("(out of memory while reporting a problem)\n", v->out);
    } else {
        hb_one_line(line);
        fputs(line, v->out);
        fputc('\n', v->out);
        free(line);
    }
    v->st->problems++;
}

/* Two figures agree when both are null, or both numbers equal to 1e-12
 * relative (the text form keeps 17 digits; this absorbs the last one). */
/* A recorded derived value against the recomputed one: numbers within
 * rounding, names equal, objects (the paired ratio) field by field. */
static int same_number(const json_t *a, const json_t *b)
{
    if (json_is_null(a) || json_is_null(b))
        return json_is_null(a) && json_is_null(b);
    if (json_is_string(a) || json_is_string(b))
        return json_is_string(a) && json_is_string(b) &&
               !strcmp(json_string_value(a), json_string_value(b));
    if (json_is_object(a) || json_is_object(b)) {
        const char *k;
        json_t *w;
        if (!json_is_object(a) || !json_is_object(b) || json_object_size(a) != json_object_size(b))
            return 0;
        json_object_foreach((json_t *)b, k, w) {
            const json_t *g = json_object_get(a, k);
            if (!g || !same_number(g, w))
                return 0;
        }
        return 1;
    }
    if (!json_is_number(a) || !json_is_number(b))
        return 0;
    double x = json_number_value(a), y = json_number_value(b);
    return x == y || fabs(x - y) <= 1e-12 * fmax(fabs(x), fabs(y));
}

static void print_value(char *buf, size_t sz, const json_t *v)
{
    if (!v)
        snprintf(buf, sz, "(missing)");
    else if (json_is_integer(v))
        snprintf(buf, sz, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        snprintf(buf, sz, "%.17g", json_real_value(v));
    else if (json_is_null(v))
        snprintf(buf, sz, "null");
    else if (json_is_string(v))
        snprintf(buf, sz, "'%.40s'", json_string_value(v));
    else if (json_is_object(v))
        snprintf(buf, sz, "(an object that differs)");
    else
        snprintf(buf, sz, "(not a number)");
}

/* Each field of the recomputed object WANT against the recorded GOT: one
 * problem per field that differs, named by its path (PREFIX, then the key);
 * two objects (the paired ratio) are compared field by field, a
 * recorded field the recomputation lacks is named too. */
static void check_derived(vctx *v, const char *file, const char *prefix, const json_t *got,
                          const json_t *want)
{
    const char *key;
    json_t *w;
    json_object_foreach((json_t *)want, key, w) {
        const json_t *g = json_object_get(got, key);
        char path[256];
        snprintf(path, sizeof path, "%s%s", prefix, key);
        if (g && json_is_object(g) && json_is_object(w)) {
            char sub[260];
            snprintf(sub, sizeof sub, "%s.", path);
            check_derived(v, file, sub, g, w);
            continue;
        }
        if (g && same_number(g, w))
            continue;
        char a[64], b[64];
        print_value(a, sizeof a, g);
        print_value(b, sizeof b, w);
        problem(v, "%s: field %s: recorded %s, recomputed %s", file, path, a, b);
    }
    if (!*prefix)
        return; /* the top level may hold fields of older versions */
    json_object_foreach((json_t *)got, key, w)
        if (!json_object_get(want, key))
            problem(v, "%s: field %s%s: recorded, but not a figure of this estimator", file,
                    prefix, key);
}

/* The outside timing rules (measure/outside.h) again on each trial of an
 * OK record: none may break them, and a trial short of the window's CPU
 * time by more than its allowance must be marked disturbed for it. */
static void check_outside(vctx *v, const report_record *r)
{
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(r->json, "trials"), i, t) {
        trial_outside o;
        unsigned long long ns;
        char why[400];
        if (record_trial_outside(t, &o, &ns) != 0)
            continue; /* measured before hashbench read its own figures */
        int verdict = outside_check(&o, ns, why, sizeof why);
        int marked = 0;
        size_t k;
        json_t *reason;
        json_array_foreach(json_object_get(t, "disturbed_reasons"), k, reason)
            marked |= strcmp(json_string_value(reason) ? json_string_value(reason) : "",
                             "outside_cpu") == 0;
        if (verdict == OUTSIDE_INCONSISTENT)
            problem(v, "%s: trials[%zu]: %s, in a record with status OK", r->file, i, why);
        else if ((verdict == OUTSIDE_EXCESS) != marked)
            problem(v, "%s: trials[%zu]: disturbed_reasons %s outside_cpu, but the outside "
                    "figures say otherwise", r->file, i, marked ? "has" : "lacks");
    }
}

/* A session window's figure again from what hashbench read (windows.h):
 * ns is the window's CPU time less the record's exchange (at least 1 ns),
 * and with the figure cpu_time its ticks are ns at the counter's rate;
 * every window has its messages' key. */
static void check_windows(vctx *v, const report_record *r)
{
    const json_t *ver = json_object_get(r->json, "verification");
    const char *figure = report_str(r->json, "figure", "");
    if (strcmp(report_str(ver, "protocol", ""), "session") != 0)
        return;
    double exchange = json_number_value(json_object_get(ver, "exchange_ns"));
    double rate = json_number_value(json_object_get(
        json_object_get(json_object_get(r->json, "environment"), "counter"), "rate_hz"));
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(r->json, "trials"), i, t) {
        const json_t *w = json_object_get(t, "window");
        long long cpu, ns, ticks;
        const char *key = report_str(t, "key", "");
        if (!json_is_object(w) || hb_json_get_int(w, "cpu_ns", &cpu, NULL, NULL) != 0 ||
            hb_json_get_int(t, "ns", &ns, NULL, NULL) != 0 ||
            hb_json_get_int(t, "ticks", &ticks, NULL, NULL) != 0 || strlen(key) != 64 ||
            strspn(key, "0123456789abcdef") != 64) {
            problem(v, "%s: trials[%zu]: a session window needs window.cpu_ns, ns, ticks "
                    "and its 64-hex-digit key", r->file, i);
            continue;
        }
        double net = (double)cpu - exchange;
        long long want = net > 1 ? llround(net) : 1;
        if (ns != want)
            problem(v, "%s: trials[%zu]: ns %lld, but window.cpu_ns %lld less the exchange "
                    "%.0f ns is %lld", r->file, i, ns, cpu, exchange, want);
        else if (strcmp(figure, "cpu_time") == 0 &&
                 ticks != llround((double)ns * rate / 1e9))
            problem(v, "%s: trials[%zu]: ticks %lld, but %lld ns at the counter's %.0f Hz "
                    "is %lld", r->file, i, ticks, ns, rate, llround((double)ns * rate / 1e9));
    }
}

/* One plan figure against the value the raw trials give. */
static void plan_field(vctx *v, const report_record *r, const char *key, const json_t *want,
                       const char *why)
{
    const json_t *got = json_object_get(json_object_get(r->json, "plan"), key);
    if (got && same_number(got, want))
        return;
    char a[64], b[64];
    print_value(a, sizeof a, got);
    print_value(b, sizeof b, want);
    problem(v, "%s: field plan.%s: recorded %s, recomputed %s (%s)", r->file, key, a, b,
            why);
}

/* The plan figures the raw trials fix, again from them (no key needed):
 * the trials kept (those not disturbed); the calls per trial, which every
 * trial of a process-per-trial planner took and which a trial session
 * records as 0, its windows differing (as its warm-up calls: a session
 * warms up inside its windows); the processes of a session record, one
 * per probe pid; the round seed, which only an interleaved planner has. */
static void check_plan(vctx *v, const report_record *r)
{
    const json_t *plan = json_object_get(r->json, "plan"), *trials =
        json_object_get(r->json, "trials");
    if (!json_is_object(plan)) {
        problem(v, "%s: field plan: missing in a record with status OK", r->file);
        return;
    }
    int session = strcmp(report_str(json_object_get(r->json, "verification"), "protocol", ""),
                         "session") == 0;
    long long kept = 0, calls = -1;
    int same = 1;
    json_t *pids = json_object(), *t;
    size_t i;
    json_array_foreach(trials, i, t) {
        kept += !json_is_true(json_object_get(t, "disturbed"));
        long long c = json_integer_value(json_object_get(t, "calls"));
        same &= calls < 0 || c == calls;
        calls = c;
        char pid[32];
        snprintf(pid, sizeof pid, "%lld", json_integer_value(json_object_get(t, "pid")));
        json_object_set_new(pids, pid, json_true());
    }
    json_t *n = json_integer(kept);
    plan_field(v, r, "trials", n, "the trials not disturbed");
    json_decref(n);
    if (session) {
        json_t *zero = json_integer(0);
        plan_field(v, r, "calls_per_trial", zero, "a trial session's windows differ");
        plan_field(v, r, "warmup_calls", zero, "a trial session warms up in its windows");
        json_decref(zero);
        n = json_integer((json_int_t)json_object_size(pids));
        plan_field(v, r, "processes", n, "the session's probe processes");
        json_decref(n);
    } else if (calls >= 0) {
        n = same ? json_integer(calls) : json_string("(trials of different calls)");
        plan_field(v, r, "calls_per_trial", n, "the calls each trial took");
        json_decref(n);
    }
    json_decref(pids);
    const char *planner = report_str(plan, "planner", "");
    plan_settings ps = {.planner = planner};
    int seeded = plan_planner_of(&ps)->seeded;
    const json_t *seed = json_object_get(plan, "round_seed");
    if (seeded != (json_is_string(seed) &&
                                     strlen(json_string_value(seed)) == 16))
        problem(v, "%s: field plan.round_seed: %s, but the planner '%s' %s", r->file,
                json_is_string(seed) ? "recorded" : "missing", planner,
                seeded ? "draws a 16-hex-digit seed for its rounds"
                                         : "has no rounds");
}

static void check_record(vctx *v, const report_record *r)
{
    hb_err err = {{0}};
    json_t *re = NULL;
    v->st->records++;
    const char *status = report_str(r->json, "status", "OK");
    if (!record_status_known(status)) {
        problem(v, "%s: field status: '%s' is none of OK, FAILED, INCONSISTENT",
                r->file, status);
        return;
    }
    if (strcmp(status, "OK") != 0) {
        if (!report_str(r->json, "failure", "")[0])
            problem(v, "%s: field failure: a%s %s record needs its reason", r->file,
                    status[0] == 'I' ? "n" : "", status);
        if (json_object_get(r->json, "derived"))
            problem(v, "%s: field derived: a%s %s record has no figures", r->file,
                    status[0] == 'I' ? "n" : "", status);
        return;
    }
    check_outside(v, r);
    check_windows(v, r);
    check_plan(v, r);
    const json_t *rec = json_object_get(r->json, "derived");
    if (!json_is_object(rec)) {
        problem(v, "%s: field derived: missing in a record with status %s", r->file, status);
        return;
    }
    if (stats_derive_record(r->json, r->file, &re, &err) < 0) {
        problem(v, "%s", err.msg);
        return;
    }
    check_derived(v, r->file, "", rec, re);
    json_decref(re);
}

/* The log's SHA-256 and RESULT line against the kat.json entry. */
static void check_log(vctx *v, const char *file, const char *cand, const char *inst,
                      const char *status, const char *log, const char *want_sha)
{
    char path[4096], hex[HB_SHA256_HEX];
    hb_err err = {{0}};
    char *text = NULL;
    v->st->kat_logs++;
    if (hb_path_join(path, sizeof path, v->root, log, &err) < 0 ||
        hb_sha256_file_hex(path, hex, &err) < 0 || hb_read_file(path, &text, NULL, &err) < 0) {
        problem(v, "%s: KAT log of %s/%s cannot be read: %s", file, cand, inst, err.msg);
        return;
    }
    if (!want_sha || strcmp(hex, want_sha) != 0)
        problem(v, "%s: field log_sha256: recorded %s, recomputed %s", log,
                want_sha ? want_sha : "(missing)", hex);
    char line[1024];
    snprintf(line, sizeof line, "RESULT %s %s %s\n", cand, inst, status);
    size_t n = strlen(line);
    int found = strncmp(text, line, n) == 0;
    for (const char *p = strchr(text, '\n'); p && !found; p = strchr(p + 1, '\n'))
        found = strncmp(p + 1, line, n) == 0;
    if (!found) {
        line[n - 1] = '\0';
        problem(v, "%s: no line '%s' (the status kat.json records)", log, line);
    }
    free(text);
}

/* The library SHA-256 values that a variant CAND/INST may have been
 * compared with: its KAT's library, its guide build, or (a variant of
 * another shard) its build.json library. */
static int known_library(const report_system *s, const char *cand, const char *inst,
                         const char *sha)
{
    const json_t *k = report_kat_entry(s, cand, inst), *b = report_build_entry(s, cand, inst);
    const char *have[] = {report_str(k, "library_sha256", ""),
                          report_str(json_object_get(k, "guide"), "library_sha256", ""),
                          report_str(b, "library_sha256", "")};
    for (size_t i = 0; i < sizeof have / sizeof have[0]; i++)
        if (have[i][0] && strcmp(have[i], sha) == 0)
            return 1;
    return 0;
}

/* A message position ({"index", "bits"}) of a variants result: the length
 * must be the one the seed gives message INDEX. */
static void check_variant_at(vctx *v, const char *file, const char *where,
                             const json_t *at, const variants_stream *st, long long messages)
{
    hb_err err = {{0}};
    unsigned long long bits = 0;
    long long index = json_integer_value(json_object_get(at, "index"));
    if (!json_is_integer(json_object_get(at, "index")) || index < 0 || index >= messages) {
        problem(v, "%s: field %s.index: not a message number below %lld", file, where,
                messages);
        return;
    }
    if (variants_message(st, (unsigned long)index, NULL, &bits, &err) < 0) {
        problem(v, "%s: field %s.bits: cannot be recomputed: %s", file, where, err.msg);
        return;
    }
    const json_t *got = json_object_get(at, "bits");
    if (!json_is_integer(got) || (unsigned long long)json_integer_value(got) != bits) {
        char a[64];
        print_value(a, sizeof a, got);
        problem(v, "%s: field %s.bits: recorded %s, recomputed %llu (message %lld of seed "
                "%s)", file, where, a, bits, index, st->seed);
    }
}

/* Member K of a variants result (K > 0 was compared with member 0); RES
 * holds the entry's candidate, the messages and the digest size. */
static void check_variant_member(vctx *v, const report_system *s, const char *file,
                                 const char *where, const json_t *m, size_t k,
                                 const json_t *res, const variants_stream *st)
{
    char sub[600];
    const char *cand = report_str(res, "candidate", "");
    const char *inst = report_str(m, "instance", "?");
    long long messages = json_integer_value(json_object_get(res, "messages"));
    long long bits = json_integer_value(json_object_get(res, "digest_bits"));
    const json_t *b = report_build_entry(s, cand, inst);
    if (!b || json_integer_value(json_object_get(b, "digest_bits")) != bits)
        problem(v, "%s: field %s.instance: %s is not an instance of %s with %lld-bit "
                "digests in build.json", file, where, inst, cand, bits);
    else if (!known_library(s, cand, inst, report_str(m, "library_sha256", "")))
        problem(v, "%s: field %s.library_sha256: not the library of %s/%s in kat.json or "
                "build.json", file, where, cand, inst);
    const json_t *at = json_object_get(m, "failed_at");
    snprintf(sub, sizeof sub, "%s.failed_at", where);
    if (json_is_object(at))
        check_variant_at(v, file, sub, at, st, messages);
    if (k == 0)
        return;
    const json_t *d = json_object_get(m, "first_disagreement");
    long long n = json_integer_value(json_object_get(m, "disagreements"));
    long long compared = json_integer_value(json_object_get(m, "compared"));
    snprintf(sub, sizeof sub, "%s.first_disagreement", where);
    if (n < 0 || n > compared || compared > messages || (n > 0) != json_is_object(d))
        problem(v, "%s: field %s.disagreements: %lld of %lld compared does not go with "
                "first_disagreement", file, where, n, compared);
    if (json_is_object(d)) {
        check_variant_at(v, file, sub, d, st, messages);
        if (strcmp(report_str(d, "digest", ""), report_str(d, "first_digest", "")) == 0)
            problem(v, "%s: field %s: the two digests are the same", file, sub);
    }
}

/* AGREE, DISAGREE or INCOMPLETE as the members of V say (variants.h). */
static const char *variants_verdict(const json_t *v)
{
    size_t i;
    const json_t *m;
    int complete = 1;
    json_array_foreach(json_object_get(v, "members"), i, m) {
        if (i > 0 && json_integer_value(json_object_get(m, "disagreements")) > 0)
            return "DISAGREE";
        complete &= strcmp(report_str(m, "outcome", ""), "OK") == 0 &&
                    json_integer_value(json_object_get(m, "answered")) ==
                        json_integer_value(json_object_get(v, "messages"));
    }
    return complete ? "AGREE" : "INCOMPLETE";
}

/* The variants result on the kat.json entry E (index I) of S: its seed,
 * each recorded message length recomputed from it, members that are the
 * candidate's instances with their libraries, and the verdict. */
static void check_variants(vctx *v, const report_system *s, size_t i, const json_t *e)
{
    char file[512], where[128], sub[160];
    const json_t *res = json_object_get(e, "variants"), *m;
    size_t k;
    if (!res)
        return;
    system_file(file, sizeof file, s, RUNDIR_KAT_JSON);
    snprintf(where, sizeof where, "instances[%zu].variants", i);
    variants_stream st = {"", 0, 0};
    const char *seed = report_str(res, "seed", "");
    long long max_bits = json_integer_value(json_object_get(res, "max_bits"));
    long long short_bits = json_integer_value(json_object_get(res, "short_max_bits"));
    const json_t *members = json_object_get(res, "members");
    if (!json_is_object(res) || !variants_seed_valid(seed) || max_bits <= 0 ||
        max_bits > VARIANTS_MAX_BITS || short_bits <= 0 || short_bits > max_bits ||
        json_integer_value(json_object_get(res, "messages")) <= 0 ||
        json_array_size(members) < 2) {
        problem(v, "%s: field %s: not a variants result (seed of %d hex digits, "
                "messages, max_bits up to %d, short_max_bits, two or more members)",
                file, where, VARIANTS_SEED_DIGITS, VARIANTS_MAX_BITS);
        return;
    }
    snprintf(st.seed, sizeof st.seed, "%s", seed);
    st.max_bits = (unsigned)max_bits;
    st.short_max_bits = (unsigned)short_bits;
    json_t *ctx = json_pack("{s:s, s:O?, s:O?}", "candidate", report_str(e, "candidate", ""),
                            "messages", json_object_get(res, "messages"),
                            "digest_bits", json_object_get(res, "digest_bits"));
    if (strcmp(report_str(json_array_get(members, 0), "instance", ""),
               report_str(e, "instance", "")) != 0)
        problem(v, "%s: field %s.members[0].instance: not the instance of the entry (%s)",
                file, where, report_str(e, "instance", "?"));
    json_array_foreach(members, k, m) {
        snprintf(sub, sizeof sub, "%s.members[%zu]", where, k);
        check_variant_member(v, s, file, sub, m, k, ctx, &st);
    }
    json_decref(ctx);
    const char *want = variants_verdict(res);
    if (strcmp(report_str(res, "verdict", ""), want) != 0)
        problem(v, "%s: field %s.verdict: recorded %s, recomputed %s", file, where,
                report_str(res, "verdict", "(missing)"), want);
}


/* A published compiler log against the SHA-256 build.json gives it (the
 * copy publish made: a log grown or changed since does not match). */
static void check_build_log(vctx *v, const char *file, const json_t *e, json_t *cited)
{
    const char *log = report_str(e, "log", ""), *want = report_str(e, "log_sha256", NULL);
    char path[4096], hex[HB_SHA256_HEX];
    hb_err err = {{0}};
    if (!log[0] || report_path_is_bad(log))
        return;
    json_object_set_new(cited, log, json_true());
    v->st->build_logs++;
    if (hb_path_join(path, sizeof path, v->root, log, &err) < 0 ||
        hb_sha256_file_hex(path, hex, &err) < 0)
        problem(v, "%s: compiler log of %s/%s cannot be read: %s", file,
                report_str(e, "candidate", "?"), report_str(e, "instance", "?"), err.msg);
    else if (!want || strcmp(hex, want) != 0)
        problem(v, "%s: field log_sha256: recorded %s, recomputed %s", log,
                want ? want : "(missing)", hex);
}

/* Every compiler log build.json cites, and no other file under
 * <system>/logs/build. */
static void check_build_logs(vctx *v, const report_system *s)
{
    char file[512], dir[4096];
    size_t i;
    json_t *e, *cited = json_object();
    char logs[512];
    system_file(file, sizeof file, s, RUNDIR_BUILD_JSON);
    system_file(logs, sizeof logs, s, RUNDIR_BUILD_LOGS);
    json_array_foreach(json_object_get(s->build, "instances"), i, e)
        check_build_log(v, file, e, cited);
    json_array_foreach(json_object_get(s->build, "other_logs"), i, e)
        check_build_log(v, file, e, cited);
    json_t *files = json_array();
    if (!v->bad_paths && logs[0] && /* else a log path is already wrong: one problem is enough */
        hb_path_join(dir, sizeof dir, v->root, logs, NULL) == 0)
        hb_json_list_files(dir, files);
    json_array_foreach(files, i, e) {
        char rel[4096];
        if (hb_path_join(rel, sizeof rel, logs, json_string_value(e), NULL) == 0 &&
            !json_object_get(cited, rel))
            problem(v, "%s: not cited by %s (stale or added by hand); publish the "
                       "campaign again", rel, file);
    }
    json_decref(files);
    json_decref(cited);
}

/* Log paths with '..' or absolute ones are reported by the path rule and never
 * followed (one could name a device that reads forever). */
static void check_kat(vctx *v, const report_system *s)
{
    char file[512];
    size_t i;
    json_t *e;
    system_file(file, sizeof file, s, RUNDIR_KAT_JSON);
    json_array_foreach(json_object_get(s->kat, "instances"), i, e) {
        const char *cand = report_str(e, "candidate", "?");
        const char *inst = report_str(e, "instance", "?");
        const char *log = report_str(e, "log", "");
        if (log[0] && !report_path_is_bad(log))
            check_log(v, file, cand, inst, report_str(e, "status", "?"), log,
                      report_str(e, "log_sha256", NULL));
        const json_t *g = json_object_get(e, "guide");
        if (json_is_object(g) && report_str(g, "log", "")[0] &&
            !report_path_is_bad(report_str(g, "log", "")))
            check_log(v, file, cand, inst, report_str(g, "status", "?"),
                      report_str(g, "log", ""), report_str(g, "log_sha256", NULL));
        check_variants(v, s, i, e);
    }
}

/* The record's KAT fields must be those of kat.json for its instance. */
static void check_record_kat(vctx *v, const report_system *s, const report_record *r)
{
    const json_t *e = report_kat_entry(s, r->candidate, r->instance);
    static const char *const pairs[][2] = {{"kat_status", "status"},
                                           {"kat_log_sha256", "log_sha256"},
                                           {"library_sha256", "library_sha256"}};
    if (!e)
        return;
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        const char *a = report_str(r->json, pairs[i][0], NULL);
        const char *b = report_str(e, pairs[i][1], NULL);
        if (a && b && strcmp(a, b) != 0)
            problem(v, "%s: field %s: recorded %s, kat.json has %s", r->file,
                    pairs[i][0], a, b);
    }
}

/* One break of the path rule (dataset/paths.h) as a problem. */
static void path_problem(void *ctx, const char *line)
{
    vctx *v = ctx;
    v->bad_paths++;
    problem(v, "%s", line);
}

static void check_paths(vctx *v, const char *file, const json_t *j)
{
    report_paths_of(file, j, path_problem, v);
}

/* The constant-time records (ct/ct.h: ct_record_check), and that each
 * names the library kat.json has for its instance. */
static void check_ct(vctx *v, const report_system *s)
{
    const char *key;
    json_t *e;
    json_object_foreach(s->ct, key, e) {
        const char *file = report_str(e, "file", "?");
        const json_t *r = json_object_get(e, "record");
        hb_err err;
        v->st->records++;
        check_paths(v, file, r);
        if (ct_record_check(r, file, &err) != 0)
            problem(v, "%s", err.msg);
        const json_t *k = report_kat_entry(s, report_str(r, "candidate", ""),
                                           report_str(r, "instance", ""));
        rundir_library lib;
        rundir_instance_library(report_build_entry(s, report_str(r, "candidate", ""),
                                                   report_str(r, "instance", "")), k, &lib);
        const char *a = report_str(r, "library_sha256", ""), *b = lib.library_sha256;
        if (!k)
            problem(v, "%s: kat.json has no entry for %s; the record belongs to no KAT-checked "
                    "instance", file, key);
        else if (b && strcmp(a, b) != 0)
            problem(v, "%s: field library_sha256: recorded %s, kat.json has %s", file, a, b);
    }
}

/* The instruction-count records (count/count.h: count_record_check), and
 * that each names the library kat.json has for its instance. */
static void check_count_in(vctx *v, const report_system *s, const json_t *records,
                           const char *sha_key)
{
    const char *key;
    json_t *e;
    json_object_foreach((json_t *)records, key, e) {
        const char *file = report_str(e, "file", "?");
        const json_t *r = json_object_get(e, "record");
        const char *cand = report_str(r, "candidate", ""), *inst = report_str(r, "instance", "");
        hb_err err;
        v->st->records++;
        check_paths(v, file, r);
        if (count_record_check(r, file, &err) != 0)
            problem(v, "%s", err.msg);
        const json_t *k = report_kat_entry(s, cand, inst);
        rundir_library lib;
        rundir_instance_library(report_build_entry(s, cand, inst), k, &lib);
        const char *a = report_str(r, sha_key, ""), *b = lib.library_sha256;
        if (!k)
            problem(v, "%s: kat.json has no entry for %s/%s; the record belongs to no "
                    "KAT-checked instance", file, cand, inst);
        else if (b && strcmp(a, b) != 0)
            problem(v, "%s: field %s: recorded %s, kat.json has %s", file, sha_key, a, b);
    }
}

/* The instruction-count records, and those under other compilers, whose
 * library is a rebuild of the one kat.json has (from_library_sha256). */
static void check_count(vctx *v, const report_system *s)
{
    check_count_in(v, s, s->count, "library_sha256");
    check_count_in(v, s, s->count_cc, "from_library_sha256");
}

/* The evaluator's notes (dataset/notes.h): the file parses, each section
 * names an instance of the system, and a KAT explanation belongs to an
 * instance whose KATs did not pass with the guide's flags (a stale one
 * would explain a failure that is gone). */
static void check_notes(vctx *v, const report_system *s)
{
    const char *key;
    json_t *n;
    if (s->notes_error) {
        problem(v, "%s; fix the file (docs/FORMATS.md, notes.txt) and publish again",
                s->notes_error);
        v->bad_notes = 1;
        return;
    }
    json_object_foreach(s->notes, key, n) {
        json_t *one = json_object();
        long line = (long)json_integer_value(json_object_get(n, "line"));
        json_object_set(one, key, n);
        long ignored;
        int known = report_notes_stranger(s, one, &ignored) == NULL;
        json_decref(one);
        if (!known) {
            problem(v, "%s:%ld: [%s]: %s has no such instance; name CANDIDATE/INSTANCE "
                    "as its pages do, or remove the section", s->notes_file, line, key,
                    s->name);
            v->bad_notes = 1;
            continue;
        }
        if (!json_object_get(n, "kat"))
            continue;
        char cand[80];
        const char *slash = strchr(key, '/');
        snprintf(cand, sizeof cand, "%.*s", (int)(slash - key), key);
        const json_t *kat = report_kat_entry(s, cand, slash + 1);
        const char *st = report_str(kat, "status", "");
        if ((strcmp(st, "PASS") == 0 &&
             strcmp(report_str(kat, "flags_kind", "guide"), "guide") == 0) ||
            strcmp(st, "BASELINE") == 0)
            problem(v, "%s:%ld: [%s]: kat explains KATs that do not pass, but the "
                    "instance's status is %s; move the text to caveat or remove it",
                    s->notes_file, line, key, st);
    }
}

/* An instance withheld for host data (campaign.json's "withheld") has no
 * record and no entry in kat.json or build.json. */
static void check_withheld(vctx *v, const report_system *s)
{
    json_t *w = report_withheld(s, NULL), *e;
    size_t i;
    char file[512];
    system_file(file, sizeof file, s, RUNDIR_CAMPAIGN_JSON);
    json_array_foreach(w, i, e) {
        const char *cand = report_str(e, "candidate", ""), *inst = report_str(e, "instance", "");
        int recs = 0;
        for (size_t k = 0; k < s->nrecs; k++)
            recs += strcmp(s->recs[k].candidate, cand) == 0 &&
                    strcmp(s->recs[k].instance, inst) == 0;
        if (recs || report_kat_entry(s, cand, inst) || report_build_entry(s, cand, inst))
            problem(v, "%s: withheld lists %s/%s, but the dataset still holds its %s; "
                    "publish the campaign again", file, cand, inst,
                    recs ? "records" : "entries");
    }
    json_decref(w);
}

/* campaign.json's "ratio_drift" against the one its records give
 * (report/ratiodrift.h): the margins that widen the published paired
 * intervals come from the records, not from a figure written beside them. */
static void check_ratio_drift(vctx *v, const report_system *s)
{
    const json_t *rec = json_object_get(s->campaign, RATIODRIFT_KEY);
    if (!rec || json_is_null(rec))
        return;
    char file[512];
    system_file(file, sizeof file, s, RUNDIR_CAMPAIGN_JSON);
    ratio_drift d;
    if (ratiodrift_read(s, &d) < 0) {
        problem(v, "%s: out of memory recomputing ratio_drift", file);
        return;
    }
    json_t *want = ratiodrift_json(&d);
    const char *fields[] = {"median_ratio", "groups", "blocks", "spread_percent",
                            "margin_percent"};
    char got_s[64], want_s[64];
    if (!same_number(json_object_get(rec, "spread_percent"),
                     json_object_get(want, "spread_percent"))) {
        print_value(got_s, sizeof got_s, json_object_get(rec, "spread_percent"));
        print_value(want_s, sizeof want_s, json_object_get(want, "spread_percent"));
        problem(v, "%s: ratio_drift.spread_percent is %s, the records give %s; publish the "
                "campaign again", file, got_s, want_s);
    }
    const json_t *gs = json_object_get(rec, "sizes"), *ws = json_object_get(want, "sizes");
    if (json_array_size(gs) != json_array_size(ws))
        problem(v, "%s: ratio_drift has %zu sizes, the records give %zu; publish the "
                "campaign again", file, json_array_size(gs), json_array_size(ws));
    size_t i, k;
    const json_t *g, *w;
    json_array_foreach(gs, i, g) {
        const json_t *z = json_object_get(g, "size_bytes");
        const json_t *match = NULL;
        json_array_foreach(ws, k, w)
            if (json_is_integer(z) && json_equal(z, json_object_get(w, "size_bytes")))
                match = w;
        if (!match) {
            problem(v, "%s: ratio_drift.sizes[%zu]: the records hold no group of both "
                    "baselines at that size; publish the campaign again", file, i);
            continue;
        }
        for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++)
            if (!same_number(json_object_get(g, fields[f]), json_object_get(match, fields[f]))) {
                print_value(got_s, sizeof got_s, json_object_get(g, fields[f]));
                print_value(want_s, sizeof want_s, json_object_get(match, fields[f]));
                problem(v, "%s: ratio_drift.sizes[%zu].%s is %s, the records give %s; "
                        "publish the campaign again", file, i, fields[f], got_s, want_s);
            }
    }
    json_decref(want);
}

static void check_system(vctx *v, const report_system *s)
{
    check_withheld(v, s);
    check_ratio_drift(v, s);
    report_paths_of_system(s, path_problem, v);
    for (size_t i = 0; i < s->nrecs; i++) {
        check_paths(v, s->recs[i].file, s->recs[i].json);
        check_record(v, &s->recs[i]);
        check_record_kat(v, s, &s->recs[i]);
    }
    check_kat(v, s);
    check_build_logs(v, s);
    check_ct(v, s);
    check_count(v, s);
    check_notes(v, s);
}

/* check_links's visitor: a symbolic link is a problem. */
static int link_problem(const hb_walk_entry *e, void *ctx, hb_err *err)
{
    (void)err;
    if (e->type == HB_WALK_LINK)
        problem((vctx *)ctx, "%s: a symbolic link; a dataset holds plain files and "
                             "folders only: publish the campaign again", e->rel);
    return HB_WALK_CONTINUE;
}

/* Every entry below the dataset root DIR (down to 32 levels) that is a
 * symbolic link: a dataset holds plain files and folders, and a link would
 * let it cite (and validate) files from anywhere. */
static void check_links(vctx *v, const char *dir)
{
    hb_err ignored;
    hb_walk(dir, 32, HB_WALK_MISSING_OK, link_problem, v, &ignored);
}

/* Copies line LINE_START of BUF (at most 80 bytes, controls as '?') to OUT. */
static void line_excerpt(const char *buf, size_t n, size_t at, char *out, size_t outsz)
{
    size_t j = 0;
    while (at < n && buf[at] != '\n' && j + 4 < outsz && j < 80) {
        unsigned char c = (unsigned char)buf[at++];
        out[j++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
    }
    if (at < n && buf[at] != '\n' && j + 4 <= outsz) {
        memcpy(out + j, "...", 3);
        j += 3;
    }
    out[j] = '\0';
}

/* 0 when the files WANT and HAVE hold the same bytes; otherwise 1 and the
 * number of the first differing line with an excerpt of it from each file
 * (an unreadable file counts as empty). */
static int first_difference(const char *want, const char *have, size_t *line,
                            char *w, char *h, size_t sz)
{
    char *x = NULL, *y = NULL;
    size_t nx = 0, ny = 0;
    if (hb_read_file(want, &x, &nx, NULL) < 0)
        nx = 0;
    if (hb_read_file(have, &y, &ny, NULL) < 0)
        ny = 0;
    int differ = nx != ny || (nx && memcmp(x, y, nx) != 0);
    if (differ) {
        size_t i = 0, start = 0;
        *line = 1;
        while (i < nx && i < ny && x[i] == y[i]) {
            if (x[i] == '\n') {
                ++*line;
                start = i + 1;
            }
            i++;
        }
        line_excerpt(x ? x : "", nx, start, w, sz);
        line_excerpt(y ? y : "", ny, start, h, sz);
    }
    free(x);
    free(y);
    return differ;
}

static int has_string(const json_t *list, const char *s)
{
    size_t i;
    json_t *v;
    json_array_foreach(list, i, v)
        if (strcmp(json_string_value(v), s) == 0)
            return 1;
    return 0;
}

static int check_site(vctx *v, const char *site, hb_err *err)
{
    const char *tmp = getenv("TMPDIR");
    char fresh[4096];
    if (hb_path_join(fresh, sizeof fresh, tmp && tmp[0] ? tmp : "/tmp",
                     "hashbench-validate-XXXXXX", err) < 0)
        return -1;
    /* comparisons installed in the site (report --compare) are regenerated
     * from their installed copy: the index lists them, their figures come
     * from two datasets that are not this one */
    json_t *cmp = json_array();
    if (site_compare_found(site, cmp, err) < 0) {
        json_decref(cmp);
        return -1;
    }
    const char **dirs = calloc(json_array_size(cmp) + 1, sizeof *dirs);
    if (!dirs) {
        json_decref(cmp);
        return hb_fail(err, "validate: out of memory");
    }
    for (size_t k = 0; k < json_array_size(cmp); k++)
        dirs[k] = json_string_value(json_array_get(cmp, k));
    report_options opt = {NULL, dirs, json_array_size(cmp), NULL};
    if (!mkdtemp(fresh)) {
        free(dirs);
        json_decref(cmp);
        return hb_fail_errno(err, "%s: cannot create a temporary folder", fresh);
    }
    int rc = report_site_opts(v->root, fresh, &opt, err);
    free(dirs);
    json_decref(cmp);
    if (rc == 0) {
        json_t *want = json_array(), *have = json_array();
        hb_json_list_files(fresh, want);
        hb_json_list_files(site, have);
        size_t i;
        json_t *f;
        char a[8192], b[8192], wl[96], hl[96];
        size_t line;
        json_array_foreach(want, i, f) {
            const char *name = json_string_value(f);
            v->st->pages++;
            if (hb_path_join(a, sizeof a, fresh, name, NULL) < 0 ||
                hb_path_join(b, sizeof b, site, name, NULL) < 0)
                problem(v, "%s/%s: path too long", site, name);
            else if (!has_string(have, name))
                problem(v, "%s/%s: missing; the dataset gives this page", site, name);
            else if (first_difference(a, b, &line, wl, hl, sizeof wl))
                problem(v, "%s/%s:%zu: differs from the page regenerated from the dataset: "
                           "want '%s', have '%s'; run 'hashbench report' again",
                        site, name, line, wl, hl);
        }
        json_array_foreach(have, i, f)
            if (!has_string(want, json_string_value(f)))
                problem(v, "%s/%s: not a page of this dataset (stale or added by hand)",
                        site, json_string_value(f));
        json_decref(want);
        json_decref(have);
    }
    hb_err rm;
    if (hb_remove_tree(fresh, &rm) != 0 && rc == 0) {
        *err = rm;
        rc = -1;
    }
    return rc;
}

/* The JSON path in V of a field of raw text ("..._untrusted") or a text
 * holding the mark before raw text (common/untrusted.h), into WHERE; 1
 * when there is one. */
static int find_untrusted(const json_t *v, char *where, size_t wsz)
{
    size_t len = strlen(where), i;
    const char *key;
    json_t *x;
    if (json_is_string(v))
        return strchr(json_string_value(v), HB_UNTRUSTED_MARK) != NULL;
    if (json_is_array(v)) {
        json_array_foreach(v, i, x) {
            snprintf(where + len, wsz - len, "[%zu]", i);
            if (find_untrusted(x, where, wsz))
                return 1;
        }
    } else if (json_is_object(v)) {
        json_object_foreach((json_t *)v, key, x) {
            snprintf(where + len, wsz - len, "%s%s", len ? "." : "", key);
            if (hb_untrusted_key(key) || find_untrusted(x, where, wsz))
                return 1;
        }
    }
    where[len] = '\0';
    return 0;
}

/* The first line of a compiler log's TEXT (N bytes) that is not as
 * publishing writes it (hashbench's "$ " and "# " lines, "> " and a
 * diagnostic's location and class as compile/diag.h states it): its
 * number, or 0 when every line is. */
static long raw_compiler_line(const char *text, size_t n)
{
    long no = 0;
    size_t p = strlen(DIAG_OUTPUT_PREFIX);
    for (size_t at = 0; at < n;) {
        size_t len = 0;
        while (at + len < n && text[at + len] != '\n')
            len++;
        const char *l = text + at;
        no++;
        int ok = len >= 2 && (strncmp(l, "$ ", 2) == 0 || strncmp(l, "# ", 2) == 0);
        if (!ok && len > p && strncmp(l, DIAG_OUTPUT_PREFIX, p) == 0)
            ok = diag_is_stated(l + p, len - p);
        if (!ok && len > 0)
            return no;
        at += len + 1;
    }
    return 0;
}

/* check_untrusted's visitor. */
static int untrusted_problem(const hb_walk_entry *e, void *ctx, hb_err *err)
{
    (void)err;
    vctx *v = ctx;
    size_t n = strlen(e->rel);
    if (e->type != HB_WALK_FILE)
        return HB_WALK_CONTINUE;
    if (n > 5 && strcmp(e->rel + n - 5, ".json") == 0) {
        json_t *doc;
        hb_err ignored;
        char where[1024] = "";
        if (hb_json_load(e->path, &doc, &ignored) == 0 && find_untrusted(doc, where,
                                                                         sizeof where))
            problem(v, "%s: %s holds text written by submitted code (docs/FORMATS.md: "
                    "raw_*_untrusted stays in the run directory); publish the campaign "
                    "again", e->rel, where);
        json_decref(doc);
    } else if (n > 4 && strcmp(e->rel + n - 4, ".log") == 0 &&
               strstr(e->rel, "/" RUNDIR_BUILD_LOGS "/")) {
        char *text = NULL;
        size_t len = 0;
        hb_err ignored;
        long line = hb_read_file(e->path, &text, &len, &ignored) == 0
                        ? raw_compiler_line(text, len) : 0;
        if (line)
            problem(v, "%s:%ld: compiler text as the compiler wrote it (it quotes the "
                    "submitted source; a dataset holds its location and class only); "
                    "publish the campaign again", e->rel, line);
        free(text);
    }
    return HB_WALK_CONTINUE;
}

/* Every JSON document of the dataset below DIR without raw text of
 * submitted code, and every compiler log as publishing reduces it. */
static void check_untrusted(vctx *v, const char *dir)
{
    hb_err ignored;
    hb_walk(dir, 32, HB_WALK_MISSING_OK, untrusted_problem, v, &ignored);
}

static int host_data_found(const char *rel, const hostdata_needle *found, void *ctx,
                           hb_err *err)
{
    (void)err;
    problem(ctx, "%s: holds %s (docs/THREAT_MODEL.md); remove what carries it (a "
            "library's output) before publishing", rel, found->what);
    return 0;
}

int report_validate(const char *data_dir, const char *site_dir, FILE *out,
                    report_validate_stats *st, hb_err *err)
{
    return report_validate_ex(data_dir, site_dir, NULL, out, st, err);
}

int report_validate_ex(const char *data_dir, const char *site_dir, const char *run_dir,
                       FILE *out, report_validate_stats *st, hb_err *err)
{
    report_dataset ds;
    memset(st, 0, sizeof *st);
    if (site_dir && !hb_is_dir(site_dir))
        return hb_fail(err, "%s: no such site folder; give the --out folder of "
                            "'hashbench report'", site_dir);
    if (report_dataset_load(data_dir, &ds, err) < 0)
        return -1;
    vctx v = {data_dir, out, st, NULL, 0, 0};
    check_links(&v, data_dir);
    check_untrusted(&v, data_dir);
    for (size_t i = 0; i < ds.nsys; i++)
        check_system(&v, &ds.sys[i]);
    report_dataset_free(&ds);
    hostdata h;
    int n_host = 0;
    if (hostdata_init(&h, run_dir, err) != 0)
        return -1;
    int hrc = hostdata_scan(&h, data_dir, host_data_found, &v, &n_host, err);
    hostdata_free(&h);
    if (hrc != 0)
        return -1;
    /* 'hashbench report' refuses such a dataset: there is no site to compare
     * with, and the problems above already say why */
    if (site_dir && (v.bad_paths || v.bad_notes))
        problem(&v, "%s: not compared: the site cannot be regenerated from a "
                    "dataset with the %s problems above", site_dir,
                v.bad_paths ? "path" : "notes");
    else if (site_dir && check_site(&v, site_dir, err) < 0)
        return -1;
    return st->problems ? 1 : 0;
}
