/* Measurement records: see record.h. Field order follows docs/FORMATS.md so
 * that regenerated records and reports are byte-identical. */
#include "measure/record.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/digest.h"
#include "common/untrusted.h"
#include "common/json.h"
#include "measure/counter.h"
#include "measure/guard.h"
#include "measure/planners.h"
#include "measure/stats.h"
#include "probe/chain.h"
#include "probe/probe_codes.h"
#include "probe/probe_wire.h"

static json_t *str_or_null(const char *s)
{
    return s && *s ? json_string(s) : json_null();
}

static json_t *copy_field(const json_t *obj, const char *name)
{
    json_t *v = obj ? json_object_get(obj, name) : NULL;
    return v ? json_deep_copy(v) : json_null();
}

void record_message_sha256(unsigned long long size, char hex[65])
{
    unsigned char *m = malloc(size ? size : 1);
    if (!m) {
        hex[0] = '\0';
        return;
    }
    for (unsigned long long i = 0; i < size; i++)
        m[i] = probe_message_byte(i, size);
    hb_sha256_buf_hex(m, size, hex);
    free(m);
}

json_t *record_environment(const host_info *before, const host_info *after,
                           const char *compiler, counter_kind counter,
                           double rate_hz)
{
    json_t *e = json_object();
    json_object_set_new(e, "cpu_model", str_or_null(before->cpu_model));
    json_object_set_new(e, "kernel", str_or_null(before->kernel));
    json_object_set_new(e, "compiler", str_or_null(compiler));
    json_object_set_new(e, "counter", counter_json(counter, rate_hz));
    json_object_set_new(e, "governor", str_or_null(before->governor));
    json_object_set_new(e, "turbo", before->turbo < 0 ? json_null()
                                                      : json_boolean(before->turbo));
    json_object_set_new(e, "smt", before->smt < 0 ? json_null()
                                                  : json_boolean(before->smt));
    json_object_set_new(e, "perf_event_paranoid",
                        before->perf_event_paranoid == -99
                            ? json_null() : json_integer(before->perf_event_paranoid));
    json_object_set_new(e, "loadavg_before", before->loadavg1 < 0
                            ? json_null() : json_real(before->loadavg1));
    json_object_set_new(e, "loadavg_after", after->loadavg1 < 0
                            ? json_null() : json_real(after->loadavg1));
    return e;
}

static json_t *plan_json(const plan_settings *s, const plan_outcome *o)
{
    size_t kept = 0;
    for (size_t i = 0; i < o->n_trials; i++)
        kept += !o->trials[i].disturbed;
    const plan_planner *pl = plan_planner_of(s);
    int adaptive = pl->budgeted;
    json_t *p = json_object();
    json_object_set_new(p, "planner", json_string(s->planner));
    json_object_set_new(p, "interval", json_string(stats_ci_name(STATS_CI_BATCH)));
    char seed[17];
    snprintf(seed, sizeof seed, "%016llx", (unsigned long long)s->seed);
    json_object_set_new(p, "round_seed", pl->seeded ? json_string(seed)
                                                                : json_null());
    json_object_set_new(p, "trials", json_integer((json_int_t)kept));
    json_object_set_new(p, "calls_per_trial", json_integer((json_int_t)o->calls_per_trial));
    json_object_set_new(p, "warmup_calls", json_integer((json_int_t)o->warmup_calls));
    json_object_set_new(p, "calibration",
                        json_pack("{s:I, s:f}", "calls", (json_int_t)o->calib_calls,
                                  "ns_per_call", o->calib_ns_per_call));
    json_object_set_new(p, "target_ci_percent", json_real(s->target_ci_percent));
    json_object_set_new(p, "budget_s", adaptive ? json_real(o->budget_s) : json_null());
    json_object_set_new(p, "floor_budget_s",
                        adaptive ? json_real(o->floor_budget_s) : json_null());
    json_object_set_new(p, "budget_rule", !adaptive ? json_null()
                        : json_string(s->budget_explicit ? "explicit" : "reference_fraction"));
    json_object_set_new(p, "reference_cost_s", json_real(o->reference_cost_s));
    json_object_set_new(p, "max_retries", json_integer(s->max_retries));
    json_object_set_new(p, "min_trials", json_integer(s->min_trials));
    json_object_set_new(p, "target_reached",
                        adaptive ? json_boolean(o->target_reached) : json_null());
    json_object_set_new(p, "stopped", str_or_null(plan_stop_name(o->stopped)));
    json_object_set_new(p, "processes", json_integer(o->processes));
    json_object_set_new(p, "elapsed_s", json_real(o->elapsed_s));
    return p;
}

static json_t *reasons_json(int bits)
{
    json_t *a = json_array();
    for (int i = 0; i < PLAN_DISTURBED_N_REASONS; i++)
        if (bits & (1 << i))
            json_array_append_new(a, json_string(plan_disturbed_reason_name(1 << i)));
    return a;
}

/* hashbench's own figures of a trial (outside.h), or null. */
static json_t *outside_json(const trial_outside *o)
{
    if (!o->known)
        return json_null();
    return json_pack("{s:I, s:I, s:I, s:I, s:I, s:b}",
                     "window_ns", (json_int_t)o->window_ns,
                     "window_cpu_ns", (json_int_t)o->window_cpu_ns,
                     "allowance_ns", (json_int_t)o->allowance_ns,
                     "process_wall_ns", (json_int_t)o->process_wall_ns,
                     "process_cpu_ns", (json_int_t)o->process_cpu_ns,
                     "emulated", o->emulated);
}

int record_status_known(const char *status)
{
    return status && (!strcmp(status, "OK") || !strcmp(status, "FAILED") ||
                      !strcmp(status, "INCONSISTENT"));
}

/* KEY of OBJ as a count (a non-negative integer) into *OUT; -1 otherwise. */
static int get_count(const json_t *obj, const char *key, unsigned long long *out)
{
    long long v;
    if (hb_json_get_int(obj, key, &v, NULL, NULL) != 0 || v < 0)
        return -1;
    *out = (unsigned long long)v;
    return 0;
}

int record_trial_outside(const json_t *trial, trial_outside *o, unsigned long long *ns)
{
    const json_t *out = json_object_get(trial, "outside");
    memset(o, 0, sizeof *o);
    if (!json_is_object(out) || get_count(trial, "ns", ns) != 0 ||
        get_count(out, "window_ns", &o->window_ns) != 0 ||
        get_count(out, "window_cpu_ns", &o->window_cpu_ns) != 0 ||
        get_count(out, "allowance_ns", &o->allowance_ns) != 0 ||
        get_count(out, "process_wall_ns", &o->process_wall_ns) != 0 ||
        get_count(out, "process_cpu_ns", &o->process_cpu_ns) != 0)
        return -1;
    o->known = 1;
    o->emulated = json_is_true(json_object_get(out, "emulated"));
    return 0;
}

json_t *record_trials_json(const plan_outcome *o)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < o->n_trials; i++) {
        const plan_trial *t = &o->trials[i];
        int known = t->r.sched_known;
        char seed[17];
        snprintf(seed, sizeof seed, "%016llx", (unsigned long long)t->r.seed);
        json_array_append_new(arr, json_pack(
            "{s:I, s:I, s:I, s:I, s:o, s:o, s:o, s:f, s:b, s:o, s:I, s:i, s:I, s:I}",
            "index", (json_int_t)i, "calls", (json_int_t)t->r.calls,
            "ticks", (json_int_t)t->r.ticks, "ns", (json_int_t)t->r.ns,
            "cpu_ns", known ? json_integer((json_int_t)t->r.cpu_ns) : json_null(),
            "voluntary_switches", known ? json_integer((json_int_t)t->r.vcsw) : json_null(),
            "involuntary_switches", known ? json_integer((json_int_t)t->r.ivcsw) : json_null(),
            "rate_hz", t->rate_hz, "disturbed", t->disturbed != 0,
            "disturbed_reasons", reasons_json(t->disturbed),
            "pid", (json_int_t)t->r.pid, "cpu", t->r.cpu,
            "rss_baseline_kb", (json_int_t)t->r.rss_baseline_kb,
            "rss_peak_kb", (json_int_t)t->r.rss_peak_kb));
        json_t *last = json_array_get(arr, json_array_size(arr) - 1);
        if (t->r.session) {
            /* a session's window: ns is the CPU time hashbench read, less the
             * exchange; ticks that time at the host's rate, or cycles */
            json_object_set_new(last, "key", json_string(t->r.key));
            json_object_set_new(last, "window", json_pack(
                "{s:I, s:I, s:b, s:I, s:I}", "cpu_ns", (json_int_t)t->r.window_cpu_ns,
                "wall_ns", (json_int_t)t->r.window_wall_ns, "cycles", t->r.cycles_known,
                "inside_ticks", (json_int_t)t->r.inside_ticks,
                "inside_ns", (json_int_t)t->r.inside_ns));
            json_object_set_new(last, "outside", json_null());
        } else {
            json_object_set_new(last, "seed", json_string(seed));
            json_object_set_new(last, "fold", json_string(t->r.fold));
            json_object_set_new(last, "outside", outside_json(&t->r.outside));
        }
        json_object_set_new(last, "t_s", json_real(t->t_s));
        json_object_set_new(last, "round", t->round >= 0 ? json_integer(t->round)
                                                         : json_null());
        json_object_set_new(last, "slot", t->slot >= 0 ? json_integer(t->slot)
                                                       : json_null());
        json_t *pair = json_null();
        if (t->paired) {
            char ps[17];
            snprintf(ps, sizeof ps, "%016llx", (unsigned long long)t->pair_seed);
            pair = json_pack("{s:s, s:s, s:I, s:I, s:I, s:b}", "instance",
                             o->pair_instance[0] ? o->pair_instance : "baseline",
                             "seed", ps, "calls", (json_int_t)t->pair_calls,
                             "ticks", (json_int_t)t->pair_ticks,
                             "ns", (json_int_t)t->pair_ns, "disturbed", t->pair_disturbed);
        }
        json_object_set_new(last, "pair", pair);
        if (t->r.session) { /* every baseline window of its group (windows.h) */
            json_t *pairs = json_array();
            for (int k = 0; k < PLAN_MAX_PAIRS; k++)
                if (t->pairs[k].calls && o->pairs_instance[k][0])
                    json_array_append_new(pairs, json_pack(
                        "{s:s, s:I, s:I, s:I}", "instance", o->pairs_instance[k],
                        "calls", (json_int_t)t->pairs[k].calls,
                        "ticks", (json_int_t)t->pairs[k].ticks,
                        "ns", (json_int_t)t->pairs[k].ns));
            json_object_set_new(last, "pairs", pairs);
        }
    }
    return arr;
}

/* How many trials each reason disturbed (a trial may have several). */
static json_t *disturbed_counts_json(const plan_outcome *o)
{
    json_t *c = json_object();
    size_t any = 0;
    for (size_t i = 0; i < o->n_trials; i++)
        any += o->trials[i].disturbed != 0;
    json_object_set_new(c, "trials", json_integer((json_int_t)any));
    for (int b = 0; b < PLAN_DISTURBED_N_REASONS; b++) {
        size_t n = 0;
        for (size_t i = 0; i < o->n_trials; i++)
            n += (o->trials[i].disturbed & (1 << b)) != 0;
        json_object_set_new(c, plan_disturbed_reason_name(1 << b), json_integer((json_int_t)n));
    }
    return c;
}

static json_t *int_or_null(long long v)
{
    return v < 0 ? json_null() : json_integer((json_int_t)v);
}

/* RSS from the timed trials (lowest baseline, highest peak), or with
 * sessions from the timed session itself, read from outside at its open and
 * close (session.h); stack and heap from the --memory run. */
static json_t *memory_json(const plan_outcome *o, const trial_result *mem)
{
    long long base = -1, peak = -1;
    for (size_t i = 0; i < o->n_trials; i++) {
        const trial_result *r = &o->trials[i].r;
        if (base < 0 || r->rss_baseline_kb < base)
            base = r->rss_baseline_kb;
        if (r->rss_peak_kb > peak)
            peak = r->rss_peak_kb;
    }
    const char *source = "trials";
    if (o->session) {
        /* never below what the probe held before the library was loaded:
         * a library that drops pages of the probe or the C library gains
         * no smaller figure */
        long long floor = o->rss_preload_kb > 0 ? o->rss_preload_kb : 0;
        base = o->rss_known ? (o->rss_open_kb > floor ? o->rss_open_kb : floor) : -1;
        peak = o->rss_known ? (o->rss_peak_kb > floor ? o->rss_peak_kb : floor) : -1;
        source = "session";
    }
    int have = mem && mem->ok;
    json_t *m = json_object();
    json_object_set_new(m, "rss_baseline_kb", int_or_null(base));
    json_object_set_new(m, "rss_peak_kb", int_or_null(peak));
    json_object_set_new(m, "rss_source", json_string(source));
    if (o->session)
        json_object_set_new(m, "rss_before_load_kb",
                            int_or_null(o->rss_known && o->rss_preload_kb > 0
                                            ? o->rss_preload_kb : -1));
    json_object_set_new(m, "stack_peak_bytes", int_or_null(have ? mem->stack_peak_bytes : -1));
    json_object_set_new(m, "heap_peak_bytes", int_or_null(have ? mem->heap_peak_bytes : -1));
    json_object_set_new(m, "heap_allocs", int_or_null(have ? mem->heap_allocs : -1));
    return m;
}

/* How a session's windows were made and checked (windows.h). */
static json_t *session_verification_json(const plan_outcome *o)
{
    json_t *v = json_pack("{s:s, s:s, s:s, s:f, s:s, s:o, s:I}", "protocol", "session",
                     "message_rule", "ChaCha20 keystream of the window's key (OpenSSL "
                     "EVP_chacha20, IV zero): call i hashes bytes [i*size, (i+1)*size), "
                     "chained", "chain_rule", CHAIN_RULE,
                     "exchange_ns", o->exchange_ns, "exchange_by", o->exchange_by,
                     "verified_by", o->verified_by[0] ? json_string(o->verified_by)
                                                      : json_null(),
                     "verified_calls", (json_int_t)o->verified_calls);
    /* what a window holds besides the hash at this size (harness.h) */
    if (v)
        json_object_set_new(v, "harness_ns_per_call",
                            isfinite(o->harness_ns) ? json_real(o->harness_ns) : json_null());
    return v;
}

/* How the timed digests were checked (verify.h), and the fixed part of the
 * outside rules' allowance in force (outside.h). */
static json_t *verification_json(const verify_report *v, double exchange_ns)
{
    int spot = v && v->spot_trial >= 0;
    return json_pack("{s:s, s:i, s:I, s:o, s:o, s:I}", "message_rule", TM_RULE,
                     "buffers", PROBE_WIRE_BUFFERS,
                     "folds_checked", (json_int_t)(v ? v->folds_checked : 0),
                     "spot_trial", spot ? json_integer(v->spot_trial) : json_null(),
                     "spot_call", spot ? json_integer((json_int_t)v->spot_call)
                                       : json_null(),
                     "exchange_ns", (json_int_t)exchange_ns);
}

static void set_identity(json_t *r, const record_input *in)
{
    json_object_set_new(r, "schema", json_integer(RECORD_SCHEMA));
    json_object_set_new(r, "kind", json_string("hashbench-record"));
    const char *ids[] = {"candidate", "algorithm", "instance", "variant",
                         "digest_bits", "profile"};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
        json_object_set_new(r, ids[i], copy_field(in->build, ids[i]));
    json_object_set_new(r, "flags_kind", str_or_null(in->flags_kind));
    json_object_set_new(r, "flags", str_or_null(in->flags));
    json_object_set_new(r, "kat_status", copy_field(in->kat, "status"));
    json_object_set_new(r, "kat_log", copy_field(in->kat, "log"));
    json_object_set_new(r, "kat_log_sha256", copy_field(in->kat, "log_sha256"));
    json_object_set_new(r, "library", json_string(in->library));
    json_object_set_new(r, "library_sha256", str_or_null(in->library_sha256));
}

json_t *record_build(const record_input *in, hb_err *err)
{
    json_t *r = json_object();
    set_identity(r, in);
    json_object_set_new(r, "operation", json_string("hash"));
    json_object_set_new(r, "size_bytes", json_integer((json_int_t)in->size));
    char hex[65];
    record_message_sha256(in->size, hex);
    json_object_set_new(r, "message", json_pack("{s:s, s:s}", "rule",
                                                PROBE_MESSAGE_RULE, "sha256", hex));
    json_object_set_new(r, "probe_command", json_incref(in->probe_command));
    json_object_set_new(r, "environment", json_incref(in->environment));
    json_object_set_new(r, "plan", plan_json(in->settings, in->outcome));
    json_object_set_new(r, "trials", record_trials_json(in->outcome));
    json_object_set_new(r, "disturbed_retries",
                        json_integer(in->outcome->disturbed_retries));
    json_object_set_new(r, "disturbed", disturbed_counts_json(in->outcome));
    json_object_set_new(r, "memory", memory_json(in->outcome, in->memory));
    json_object_set_new(r, "verification", in->outcome->session
                                               ? session_verification_json(in->outcome)
                                               : verification_json(in->verify, in->exchange_ns));
    json_object_set_new(r, "figure", json_string(in->outcome->session
                                                     ? in->outcome->figure : "probe_counter"));
    const char *failure = in->failure ? in->failure : "";
    if (!*failure) {
        json_t *derived;
        if (stats_derive_record(r, "record", &derived, err) != 0) {
            json_decref(r);
            return NULL;
        }
        json_object_set_new(r, "derived", derived);
    }
    json_object_set_new(r, "status", json_string(!*failure ? "OK"
                                                 : in->inconsistent ? "INCONSISTENT"
                                                                    : "FAILED"));
    hb_untrusted_set(r, "failure", failure); /* raw text apart, common/untrusted.h */
    /* the guard's rule that refused the figure (measure/guard.h), if one did */
    const guard_rule *rule = *failure ? guard_rule_of_text(failure) : NULL;
    json_object_set_new(r, "refused_by", rule ? json_string(rule->name) : json_null());
    return r;
}

static int same_num(const json_t *obj, const char *name, double v)
{
    const json_t *x = json_object_get(obj, name);
    return json_is_number(x) && fabs(json_number_value(x) - v) < 1e-9;
}

/* The budget part of a record's plan against S: the reference planner has
 * none; an adaptive record must have the same rule (and the same budget
 * when it was explicit). */
static int budget_matches(const json_t *plan, const plan_settings *s)
{
    if (!plan_planner_of(s)->budgeted)
        return 1;
    const char *rule = json_string_value(json_object_get(plan, "budget_rule"));
    if (!rule || strcmp(rule, s->budget_explicit ? "explicit" : "reference_fraction"))
        return 0;
    return !s->budget_explicit || same_num(plan, "budget_s", s->budget_s);
}

int record_is_current(const char *path, const plan_settings *s,
                      const char *library_sha256, int *failed)
{
    json_t *r;
    *failed = 0;
    if (hb_json_load(path, &r, NULL) != 0)
        return 0;
    const json_t *plan = json_object_get(r, "plan");
    const char *planner = json_string_value(json_object_get(plan, "planner"));
    const char *lib = json_string_value(json_object_get(r, "library_sha256"));
    const char *status = json_string_value(json_object_get(r, "status"));
    int ok = planner && !strcmp(planner, s->planner) && status &&
             (!library_sha256 || (lib && !strcmp(lib, library_sha256))) &&
             same_num(plan, "min_trials", s->min_trials) &&
             same_num(plan, "target_ci_percent", s->target_ci_percent) &&
             budget_matches(plan, s) &&
             same_num(plan, "max_retries", s->max_retries) &&
             json_is_string(json_object_get(plan, "interval")) &&
             !strcmp(json_string_value(json_object_get(plan, "interval")),
                     stats_ci_name(STATS_CI_BATCH)) &&
             json_is_object(json_object_get(r, "verification"));
    if (ok)
        *failed = strcmp(status, "OK") != 0;
    json_decref(r);
    return ok;
}

static unsigned long long count_or(const json_t *obj, const char *key, unsigned long long d)
{
    unsigned long long v;
    return get_count(obj, key, &v) == 0 ? v : d;
}

static long long int_or(const json_t *obj, const char *key, long long d)
{
    const json_t *v = json_object_get(obj, key);
    return json_is_integer(v) ? (long long)json_integer_value(v) : d;
}

int record_trial_from_json(const json_t *j, plan_trial *t)
{
    memset(t, 0, sizeof *t);
    const char *seed = json_string_value(json_object_get(j, "seed"));
    const char *fold = json_string_value(json_object_get(j, "fold"));
    if (!json_is_object(j) || !seed || !fold || strlen(fold) != TM_FOLD_HEX - 1 ||
        get_count(j, "calls", &t->r.calls) != 0 || get_count(j, "ticks", &t->r.ticks) != 0 ||
        get_count(j, "ns", &t->r.ns) != 0)
        return -1;
    t->r.ok = 1;
    t->r.seed = strtoull(seed, NULL, 16);
    snprintf(t->r.fold, sizeof t->r.fold, "%s", fold);
    const json_t *cpu_ns = json_object_get(j, "cpu_ns");
    t->r.sched_known = json_is_integer(cpu_ns);
    t->r.cpu_ns = count_or(j, "cpu_ns", 0);
    t->r.vcsw = int_or(j, "voluntary_switches", -1);
    t->r.ivcsw = int_or(j, "involuntary_switches", -1);
    t->r.pid = (long)int_or(j, "pid", -1);
    t->r.cpu = (int)int_or(j, "cpu", -1);
    t->r.rss_baseline_kb = (long)int_or(j, "rss_baseline_kb", -1);
    t->r.rss_peak_kb = (long)int_or(j, "rss_peak_kb", -1);
    t->r.stack_peak_bytes = t->r.heap_peak_bytes = t->r.heap_allocs = -1;
    unsigned long long ns;
    if (json_is_object(json_object_get(j, "outside")))
        record_trial_outside(j, &t->r.outside, &ns);
    t->rate_hz = json_number_value(json_object_get(j, "rate_hz"));
    const json_t *reasons = json_object_get(j, "disturbed_reasons");
    for (size_t i = 0; i < json_array_size(reasons); i++)
        for (int b = 0; b < PLAN_DISTURBED_N_REASONS; b++) {
            const char *name = json_string_value(json_array_get(reasons, i));
            if (name && !strcmp(name, plan_disturbed_reason_name(1 << b)))
                t->disturbed |= 1 << b;
        }
    if (json_is_true(json_object_get(j, "disturbed")) && !t->disturbed)
        return -1;
    t->r.outside_excess = (t->disturbed & PLAN_DISTURBED_OUTSIDE) != 0;
    t->t_s = json_number_value(json_object_get(j, "t_s"));
    t->round = (int)int_or(j, "round", -1);
    t->slot = (int)int_or(j, "slot", -1);
    const json_t *pair = json_object_get(j, "pair");
    if (json_is_object(pair)) {
        const char *ps = json_string_value(json_object_get(pair, "seed"));
        if (!ps || get_count(pair, "calls", &t->pair_calls) != 0 ||
            get_count(pair, "ticks", &t->pair_ticks) != 0 ||
            get_count(pair, "ns", &t->pair_ns) != 0)
            return -1;
        t->paired = 1;
        t->pair_seed = strtoull(ps, NULL, 16);
        t->pair_disturbed = json_is_true(json_object_get(pair, "disturbed"));
    }
    return 0;
}
