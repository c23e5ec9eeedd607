/* The method page of one system, generated from its dataset: the host and
 * its checks, the counter, build profiles and flags, the flag fallback rule,
 * the KAT policy, how submitted code was isolated, the comparison of
 * variants, the planner and its settings, the timing checks, the
 * statistics, the memory method and the limitations that follow from this
 * dataset. See pages.h. */
#include "report/pages.h"
#include "compile/profile.h"

#include <math.h>
#include <string.h>
#include "kat/variants.h"
#include "measure/drift.h"
#include "measure/outside.h"
#include "measure/settings.h"
#include "measure/guard.h"
#include "measure/windows.h"
#include "measure/xcheck.h"
#include "report/esc.h"
#include "report/numfmt.h"
#include "report/ratiodrift.h"
#include "report/svg.h"

/* How a field of a recorded object is put in words on the method page: its
 * name, and for a number its unit. In the host's environment (measure/host.h)
 * a null field was looked for and not found: the host does not offer it; in
 * the campaign's settings (campaign/settings.h) it was left to its default. */
typedef enum {
    FACT_TEXT, FACT_KB, FACT_KHZ, FACT_YESNO, FACT_ONOFF, FACT_CPUS, FACT_SECONDS,
    FACT_PERCENT
} fact_kind;

typedef struct host_fact {
    const char *key;
    const char *words;
    fact_kind kind;
} host_fact;

static const host_fact host_facts[] = {
    {"arch", "architecture", FACT_TEXT},
    {"cpu_model", "processor", FACT_TEXT},
    {"cpu_model_source", "processor name read from", FACT_TEXT},
    {"ncpu", "logical processors", FACT_TEXT},
    {"hypervisor", "virtual machine", FACT_YESNO},
    {"mem_total_kb", "memory", FACT_KB},
    {"os", "operating system", FACT_TEXT},
    {"kernel", "kernel release", FACT_TEXT},
    {"governor", "frequency governor", FACT_TEXT},
    {"cpufreq_driver", "frequency driver", FACT_TEXT},
    {"scaling_min_khz", "lowest frequency allowed", FACT_KHZ},
    {"scaling_max_khz", "highest frequency allowed", FACT_KHZ},
    {"cur_khz", "frequency at the time", FACT_KHZ},
    {"turbo", "turbo or boost", FACT_ONOFF},
    {"turbo_source", "turbo state read from", FACT_TEXT},
    {"smt", "simultaneous multithreading (SMT)", FACT_ONOFF},
    {"smt_control", "SMT control of the kernel", FACT_TEXT},
    {"smt_source", "SMT state read from", FACT_TEXT},
    {"perf_event_paranoid", "kernel.perf_event_paranoid (hardware counters "
                            "allowed to users at 1 or below)", FACT_TEXT},
    {"isolated", "CPUs isolated from the scheduler", FACT_CPUS},
    {"nohz_full", "CPUs without the timer tick (nohz_full)", FACT_CPUS},
    {"loadavg1", "load average over one minute", FACT_TEXT},
};

static const host_fact setting_facts[] = {
    {"profile", "build profile", FACT_TEXT},
    {"planner", "planner", FACT_TEXT},
    {"trials", "trials per (instance, size)", FACT_TEXT},
    {"target_ci_percent", "interval aimed at (adaptive planner)", FACT_PERCENT},
    {"budget_s", "time budget per (instance, size)", FACT_SECONDS},
    {"instance_budget_s", "time budget per instance", FACT_SECONDS},
    {"shard", "shard of the campaign", FACT_TEXT},
};

/* A list of fields in words and what their null means. */
typedef struct fact_table {
    const host_fact *facts;
    size_t n;
    const char *null_words;
} fact_table;

static const fact_table host_table = {host_facts, sizeof host_facts / sizeof host_facts[0],
                                      "unavailable on this host"};
static const fact_table settings_table = {setting_facts,
                                          sizeof setting_facts / sizeof setting_facts[0],
                                          "the default"};

/* Where a value came from, in words, for the *_source fields. */
static const char *source_words(const char *key, const char *v)
{
    static const struct { const char *key, *value, *words; } known[] = {
        {"cpu_model_source", "model name", "the model name line of /proc/cpuinfo"},
        {"cpu_model_source", "CPU implementer/part",
         "the CPU implementer and part codes of /proc/cpuinfo"},
        {"turbo_source", "intel_pstate/no_turbo", "intel_pstate's no_turbo switch"},
        {"turbo_source", "cpufreq/boost", "cpufreq's boost switch"},
        {"smt_source", "smt/active", "the kernel's smt/active"},
        {"smt_source", "smt/control", "the kernel's smt/control"},
        {"smt_source", "topology", "the CPU topology (thread siblings)"},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (!strcmp(known[i].key, key) && !strcmp(known[i].value, v))
            return known[i].words;
    return NULL;
}

/* The words of the field KEY in T, or NULL when T does not know it. */
static const host_fact *fact_of(const fact_table *t, const char *key)
{
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->facts[i].key, key))
            return &t->facts[i];
    return NULL;
}

/* Writes KEY's name in words (a field this version does not know: its key
 * with spaces for underscores). */
static void fact_name(FILE *fp, const fact_table *t, const char *key)
{
    const host_fact *f = fact_of(t, key);
    if (f) {
        esc_md(fp, f->words);
        return;
    }
    char words[128];
    snprintf(words, sizeof words, "%s", key);
    for (char *c = words; *c; c++)
        if (*c == '_')
            *c = ' ';
    esc_md(fp, words);
}

/* Writes the value V of KEY in words: T's words for null, units for
 * sizes, frequencies, seconds and percentages. */
static void fact_value(FILE *fp, const fact_table *t, const char *key, const json_t *v)
{
    const host_fact *f = fact_of(t, key);
    fact_kind kind = f ? f->kind : FACT_TEXT;
    char num[NUMFMT_MAX];
    if (json_is_null(v)) {
        fputs(t->null_words, fp);
    } else if (kind == FACT_SECONDS && json_is_number(v)) {
        fprintf(fp, "%g s", json_number_value(v)); /* a setting as it was given */
    } else if (kind == FACT_PERCENT && json_is_number(v)) {
        fprintf(fp, "±%g %%", json_number_value(v));
    } else if (kind == FACT_KB && json_is_integer(v)) {
        fprintf(fp, "%lld MiB", (long long)(json_integer_value(v) / 1024));
    } else if (kind == FACT_KHZ && json_is_integer(v)) {
        fputs(pages_rate((double)json_integer_value(v) * 1e3, num, sizeof num), fp);
    } else if (kind == FACT_ONOFF && json_is_boolean(v)) {
        fputs(json_is_true(v) ? "on" : "off", fp);
    } else if (kind == FACT_CPUS && json_is_string(v) && !json_string_value(v)[0]) {
        fputs("none", fp);
    } else if (json_is_string(v) && source_words(key, json_string_value(v))) {
        fputs(source_words(key, json_string_value(v)), fp);
    } else {
        pages_scalar(fp, v);
    }
}

static void fact_row(FILE *fp, const fact_table *t, const char *key, const json_t *v)
{
    fputs("| ", fp);
    fact_name(fp, t, key);
    fputs(" | ", fp);
    fact_value(fp, t, key, v);
    fputs(" |\n", fp);
}

/* The scalar fields of OBJ as "| fact | value |" rows in words: the fields
 * T knows in its order, then any other. */
static void scalar_rows(FILE *fp, const json_t *obj, const fact_table *t)
{
    const char *key;
    json_t *v;
    for (size_t i = 0; i < t->n; i++) {
        const char *k = t->facts[i].key;
        size_t len = strlen(k);
        v = json_object_get(obj, k);
        /* where a value was read from says nothing when it was not read */
        if (json_is_null(v) && len > 7 && !strcmp(k + len - 7, "_source"))
            continue;
        if (v && !json_is_object(v) && !json_is_array(v))
            fact_row(fp, t, k, v);
    }
    json_object_foreach((json_t *)obj, key, v)
        if (!json_is_object(v) && !json_is_array(v) && !fact_of(t, key))
            fact_row(fp, t, key, v);
}

static void host_changes(FILE *fp, const json_t *start, const json_t *end)
{
    const char *key;
    json_t *v;
    int changes = 0;
    if (!json_is_object(end)) {
        fputs("The environment at the end of the campaign was not recorded.\n\n", fp);
        return;
    }
    json_object_foreach((json_t *)start, key, v) {
        json_t *w = json_object_get(end, key);
        if (json_is_object(v) || json_is_array(v) || json_equal(v, w))
            continue;
        fputs(changes++ ? "; " : "Changed by the end of the campaign: ", fp);
        fact_name(fp, &host_table, key);
        fputs(" ", fp);
        fact_value(fp, &host_table, key, v);
        fputs(" → ", fp);
        if (w)
            fact_value(fp, &host_table, key, w);
        else
            fputs("not recorded", fp);
    }
    fputs(changes ? ".\n\n" : "The environment at the end of the campaign was the "
                              "same as at the start.\n\n", fp);
}

static void sec_host(FILE *fp, const report_system *s)
{
    const json_t *env = pages_environment(s);
    static const char *const h[] = {"Fact", "Value"};
    fputs("## Host and its checks\n\n", fp);
    if (!env) {
        fputs("The host environment was not recorded.\n\n", fp);
    } else {
        pages_table_head(fp, h, 2, "ll");
        scalar_rows(fp, env, &host_table);
        fputs("\n", fp);
        const json_t *cenv = json_object_get(s->campaign, "environment");
        if (json_object_get(cenv, "start") == env)
            host_changes(fp, env, json_object_get(cenv, "end"));
    }
    const json_t *checks = json_object_get(s->campaign, "host_checks");
    if (!json_is_array(checks)) {
        fputs("Host checks: not recorded.\n\n", fp);
        return;
    }
    static const char *const hc[] = {"Check", "Result", "Detail", "Fix"};
    pages_table_head(fp, hc, 4, "llll");
    size_t i;
    json_t *c;
    json_array_foreach(checks, i, c) {
        fputs("| ", fp);
        pages_scalar(fp, json_object_get(c, "item"));
        fputs(json_is_true(json_object_get(c, "ok")) ? " | ok | " : " | **problem** | ", fp);
        pages_scalar(fp, json_object_get(c, "detail"));
        fputs(" | ", fp);
        const json_t *fix = json_object_get(c, "fix");
        if (json_is_string(fix) && !json_string_value(fix)[0])
            fputs("none needed", fp);
        else
            pages_scalar(fp, fix);
        fputs(" |\n", fp);
    }
    fputs("\n", fp);
}

static void sec_counter(FILE *fp, const report_system *s)
{
    pages_counter pc;
    char rate[64];
    pages_counter_of(s, &pc);
    fputs("## Counter and its rate\n\n", fp);
    fputs("Counter **", fp);
    esc_md(fp, pc.name);
    fputs("**", fp);
    if (pc.description[0]) {
        fputs(": ", fp);
        esc_md(fp, pc.description);
    }
    fprintf(fp, "; rate %s, measured against CLOCK_MONOTONIC_RAW",
            pages_rate(pc.rate_hz, rate, sizeof rate));
    if (pc.nominal_hz == pc.nominal_hz && pc.nominal_hz > 0) {
        fprintf(fp, "; the hardware states %s (", pages_rate(pc.nominal_hz, rate, sizeof rate));
        esc_md(fp, pc.nominal_source[0] ? pc.nominal_source : "nominal");
        fputs(")", fp);
    }
    fputs(". ", fp);
    if (pc.is_cycles)
        fputs("It counts core cycles (hardware event through perf_event_open).", fp);
    else
        fprintf(fp, "It does **not** count core cycles: the tables say \"%s\". Core "
                    "cycles need perf_event_open with a hardware counter, which "
                    "this host did not allow.", pc.unit);
    fputs(" Every trial also records CLOCK_MONOTONIC_RAW nanoseconds; a trial "
          "whose counter-to-time rate departs from the host's clock is marked "
          "disturbed, kept as evidence and repeated.\n\n", fp);
}

static void distinct_flags(FILE *fp, const report_system *s)
{
    json_t *seen = json_array();
    size_t i;
    json_t *e;
    static const char *const h[] = {"Flags kind", "Flags"};
    pages_table_head(fp, h, 2, "ll");
    json_array_foreach(json_object_get(s->kat, "instances"), i, e) {
        json_t *pair = json_pack("[ss]", report_str(e, "flags_kind", "not recorded"),
                                 report_str(e, "flags", "not recorded"));
        size_t k;
        json_t *p;
        int dup = 0;
        json_array_foreach(seen, k, p)
            dup |= json_equal(p, pair);
        if (!dup) {
            fputs("| ", fp);
            esc_md(fp, json_string_value(json_array_get(pair, 0)));
            fputs(" | ", fp);
            pages_flags(fp, json_string_value(json_array_get(pair, 0)), json_object_get(e, "flags"));
            fputs(" |\n", fp);
            json_array_append(seen, pair);
        }
        json_decref(pair);
    }
    if (json_array_size(seen) == 0)
        fputs("| not recorded | |\n", fp);
    json_decref(seen);
    fputs("\n", fp);
}

static void sec_build(FILE *fp, const report_system *s)
{
    fputs("## Build profiles and flags\n\n", fp);
    fputs("Profile of this campaign: ", fp);
    const json_t *p = json_object_get(json_object_get(s->campaign, "settings"), "profile");
    pages_scalar(fp, p ? p : json_object_get(s->build, "profile"));
    fputs("; compiler: ", fp);
    const json_t *cc = json_object_get(json_object_get(s->campaign, "compiler"), "version");
    pages_scalar(fp, cc ? cc : json_object_get(s->build, "compiler_version"));
    fputs(" (`hashbench run --cc` chooses it; the guide's flags stay the same). The "
          "guide's profiles (x86 guide §3.2), word for word:\n\n", fp);
    static const char *const h[] = {"Profile", "Flags"};
    pages_table_head(fp, h, 2, "ll");
    fputs("| reference | -std=c99 -Wpedantic -Wall -Wextra -O2 |\n"
          "| performance | -O3 -march=x86-64 -mavx2 -mtune=native -flto "
          "-fomit-frame-pointer -std=c99 -Wpedantic -Wall -Wextra |\n"
          "| resource | -Os -march=x86-64 -mavx2 -flto -fomit-frame-pointer "
          "-std=c99 -Wpedantic -Wall -Wextra |\n"
          "| performance (AArch64) | -O3 -march=armv8.2-a+sve -flto "
          "-fomit-frame-pointer -std=c99 -Wpedantic -Wall -Wextra |\n\n", fp);
    fputs("hashbench adds to each, in this order (the two files are written by "
          "hashbench; docs/FORMATS.md gives their text):\n\n", fp);
    if (pages_plain_shared(s))
        fputs("**This campaign was built with --plain-shared: of these additions only "
              "-fPIC -shared was made.**\n\n", fp);
    static const char *const added[] = {"Added", "Why"};
    pages_table_head(fp, added, 2, "ll");
    fputs(PROFILE_ADDED_ROWS "\n", fp);
    fputs("Without the last four a function of the package may be interposed, so the "
          "compiler neither inlines calls between its functions nor calls them "
          "directly, and the figures would be those of other code than a static build "
          "of the same sources runs.\n\n", fp);
    fputs("Distinct flag sets of the libraries used in this dataset (full, never "
          "cut):\n\n", fp);
    distinct_flags(fp, s);
    fputs("### Flag fallback rule\n\nAn instance that does not build, or does not "
          "pass its KATs, with the guide's flags is rebuilt once with permissive "
          "harness-default flags. Its pages then say \"build flags: "
          "harness-default\" and keep the guide build's result and log as "
          "evidence.\n\n", fp);
}

static void sec_kat_policy(FILE *fp, const report_system *s)
{
    static const char *const words[] = {"PASS", "MISMATCH", "NOKAT", "CRASH", "TIMEOUT",
                                        "OVERFLOW", "ERROR", "LOADFAIL", "BASELINE"};
    fputs("## KAT policy\n\nEach instance is run on the official KAT procedure "
          "(messages from the official DRNG, the KAT_2_12, KAT_2_23 and "
          "KAT_Loop files; KAT_2_33 only in a full run) and compared line by "
          "line, on a canonical form, with the submitted vectors or their "
          "manifest. An instance whose library misbehaved under test (CRASH, "
          "TIMEOUT, LOADFAIL, OVERFLOW, ERROR) is not timed. A MISMATCH is "
          "still timed and flagged, unless its candidate's notes exclude it; its "
          "page gives the reason. "
          "The baseline is the oracle and is not KAT-checked (BASELINE).\n\n"
          "Outcomes in this dataset:", fp);
    int any = 0;
    for (size_t w = 0; w < sizeof words / sizeof words[0]; w++) {
        int n = 0;
        size_t i;
        json_t *e;
        json_array_foreach(json_object_get(s->kat, "instances"), i, e)
            n += strcmp(report_str(e, "status", ""), words[w]) == 0;
        if (n)
            fprintf(fp, "%s %s %d", any++ ? "," : "", words[w], n);
    }
    fputs(any ? ".\n\n" : " not recorded.\n\n", fp);
}

/* How submitted code was isolated: campaign.json's record, else the KAT
 * stage's, else the build's. */
static void sec_isolation(FILE *fp, const report_system *s)
{
    const json_t *v = json_object_get(s->campaign, "sandbox");
    if (!json_is_string(v))
        v = json_object_get(s->kat, "sandbox");
    if (!json_is_string(v))
        v = json_object_get(s->build, "sandbox");
    const char *text = json_string_value(v);
    fputs("## Isolation\n\n", fp);
    if (!text) {
        fputs("How submitted code was isolated is not recorded in this dataset.\n\n", fp);
        return;
    }
    if (strncmp(text, "none", 4) == 0) {
        fputs("**Submitted code was not isolated** (", fp);
        pages_scalar(fp, v);
        fputs("): the compiler, the KAT runs and the probe ran as the user who ran "
              "hashbench, so a submission could have read or changed anything that "
              "user can, including other candidates' evidence.\n\n", fp);
        return;
    }
    fputs("Every run of submitted code (the compiler on its sources, the KAT and "
          "vector checks, the timing probe) ran in a sandbox: ", fp);
    pages_scalar(fp, v);
    fputs(". Inside: an unprivileged user, its own pid, mount, network, IPC and UTS "
          "namespaces, an empty environment, the system's /usr read-only plus the "
          "step's own inputs, one scratch folder, a seccomp filter, and limits on "
          "memory, CPU time, file size, processes and open files. Verdicts are "
          "computed by hashbench from the digests the sandboxed runner sends back; "
          "the library never sees the expected values.\n\n", fp);
}

static void sec_variants(FILE *fp, const report_system *s)
{
    static const char *const verdicts[] = {"AGREE", "DISAGREE", "INCOMPLETE"};
    int n[3] = {0, 0, 0}, groups = 0;
    long long messages = VARIANTS_MESSAGES, max_bits = VARIANTS_MAX_BITS,
              short_bits = VARIANTS_SHORT_MAX_BITS;
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(s->kat, "instances"), i, e) {
        const json_t *v = json_object_get(e, "variants");
        if (!json_is_object(v))
            continue;
        if (!groups++) {
            messages = json_integer_value(json_object_get(v, "messages"));
            max_bits = json_integer_value(json_object_get(v, "max_bits"));
            short_bits = json_integer_value(json_object_get(v, "short_max_bits"));
        }
        for (int w = 0; w < 3; w++)
            n[w] += strcmp(report_str(v, "verdict", ""), verdicts[w]) == 0;
    }
    fprintf(fp, "## Variants compared\n\nWhere a candidate submits one instance (the "
                "same ALGORITHM_INSTANCE and digest length) in several variants, such "
                "as its Reference and Optimized implementations, every variant that "
                "built hashes the same %lld messages, each variant in its own sandboxed "
                "runner process, and hashbench compares every digest with the first "
                "variant's (the Reference one when there is one). A variant is the "
                "library its KAT run chose (after a flag fallback, the harness-default "
                "rebuild), whatever its KAT status. Message lengths are random: "
                "even-numbered messages 0 to %lld bits, odd-numbered ones 0 to %lld "
                "bits, so most are not whole bytes. The messages come from the "
                "official KAT DRNG seeded with a 128-bit seed drawn with getrandom (or "
                "given with `hashbench kat --variants-seed`) and recorded: message *i* "
                "is the second line printed by `hashbench drng SEED-i 32 BITS`. "
                "DISAGREE names the first message on which a variant differs; "
                "INCOMPLETE means no digest differed but a variant crashed, timed out, "
                "returned an error, wrote outside its digest or did not load before the "
                "last message. The comparison covers only these messages: variants "
                "that agree on them may still differ elsewhere.\n\n",
            messages, max_bits, short_bits);
    if (!groups) {
        fputs("No candidate of this system has an instance compared across variants.\n\n",
              fp);
        return;
    }
    fprintf(fp, "Groups compared on this system: %d (AGREE %d, DISAGREE %d, "
                "INCOMPLETE %d).\n\n", groups, n[0], n[1], n[2]);
}

static int count_status(const report_system *s, const char *status)
{
    int n = 0;
    for (size_t i = 0; i < s->nrecs; i++)
        n += s->recs[i].derived == NULL &&
             strcmp(report_str(s->recs[i].json, "status", "FAILED"), status) == 0;
    return n;
}

/* 1 when a record of S was measured in trial sessions (windows.h). */
static int has_sessions(const report_system *s)
{
    for (size_t i = 0; i < s->nrecs; i++)
        if (strcmp(report_str(json_object_get(s->recs[i].json, "verification"),
                              "protocol", ""), "session") == 0)
            return 1;
    return 0;
}

/* The session planner, as the records of a session dataset were taken. */
static void sessions_planner(FILE *fp)
{
    fprintf(fp, "The interleaved planner (the default) takes its figures from trial "
            "sessions: for each message size, every instance and the baseline get "
            "one sandboxed probe process, which loads its library once, passes the "
            "checks before timing, and then serves timed windows on request; "
            "between windows hashbench stops it. Each window hashes its own "
            "messages, drawn by hashbench from a fresh secret key (ChaCha20) and "
            "written while the probe is stopped, each call's message chained "
            "with the digest of the call before it. The figure of a window is the "
            "probe's CPU time as the kernel accounts it, read by hashbench from "
            "outside the probe (or cycles counted by a counter hashbench holds on "
            "it), less the cost of an empty window measured on the baseline; a "
            "window lasts at least %g ms and %g such costs. Each (instance, size) "
            "gets its groups (its window and a baseline window beside it, in an "
            "order drawn from the stage's seed, each after about %g ms of "
            "untimed calls on the same core) in rounds shuffled from that seed; "
            "each window's pair is the baseline's median window of its round "
            "(the round's groups one after the other: a fraction of a second), so "
            "that one baseline window's noise does not land whole on a ratio and "
            "the instances of a round share their pair, "
            "until it has its groups and the guide's 100 calls, or its budget is "
            "spent. The sessions of every size stay open while the stage passes "
            "over the sizes again and again, in an order drawn afresh for each "
            "pass, one round at each, so that every instance's pairs are spread "
            "over the whole stage and all instances meet the same moments of the "
            "host. No window is dropped or repeated: a failure in a window ends "
            "its (instance, size). Every record keeps its plan and every "
            "window's key, CPU time and figure.\n\n",
            WINDOWS_MIN_NS * 1e-6, WINDOWS_EXCHANGE_MULT, WINDOWS_WARMUP_NS * 1e-6);
}

/* What a session dataset's checks did (windows.h, xcheck.h). */
static void sessions_checks(FILE *fp, const report_system *s)
{
    long windows = 0, verified = 0, records = 0;
    for (size_t i = 0; i < s->nrecs; i++) {
        const json_t *v = json_object_get(s->recs[i].json, "verification");
        if (strcmp(report_str(v, "protocol", ""), "session") != 0)
            continue;
        records++;
        windows += (long)json_array_size(json_object_get(s->recs[i].json, "trials"));
        verified += (long)json_integer_value(json_object_get(v, "verified_calls"));
    }
    fprintf(fp, "The library runs inside the probe, so no figure comes from the "
            "probe: hashbench reads the probe's CPU time itself, before and after "
            "each window, while the probe is stopped, and a probe that gains CPU "
            "time between its windows, runs on another core, or whose windows are "
            "more than %g times cheaper per call than its calibration (taken "
            "twice) is INCONSISTENT. The probe runs one thread, no timers and no "
            "performance counters of its own. After each window hashbench draws "
            "calls at random and has their digests recomputed by code the "
            "submitter did not write where there is some: OpenSSL when the "
            "instance's submitted vectors show a standard function, or agree with "
            "one on all records but at most %d (or on %.0f %% of them: "
            "near-standard, and the record says where they differ), else another "
            "variant of the instance, else the same library in a fresh process; "
            "each record names it (verified_by). %zu calls per (instance, size) "
            "are checked, so that a library faking 1 %% of its calls is caught "
            "with 99 %% probability; a disagreement makes the record "
            "INCONSISTENT.\n\n",
            WINDOWS_CALIB_FACTOR, XCHECK_NEAR_MAX_MISSES, 100 * XCHECK_NEAR_MIN_AGREEMENT,
            xcheck_sample_size(XCHECK_DEFAULT_FAKED, XCHECK_DEFAULT_CATCH));
    fprintf(fp, "In this dataset: %ld records from sessions, %ld windows, %ld sampled "
            "calls recomputed and agreed, %d records INCONSISTENT.\n\n", records,
            windows, verified, count_status(s, "INCONSISTENT"));
}

static void sec_planner(FILE *fp, const report_system *s)
{
    fputs("## Planner and its settings\n\n", fp);
    const json_t *plan = json_object_get(s->campaign, "settings");
    if (json_is_object(plan)) {
        static const char *const h[] = {"Setting", "Value"};
        pages_table_head(fp, h, 2, "ll");
        scalar_rows(fp, plan, &settings_table);
        const json_t *sizes = json_object_get(plan, "sizes");
        if (json_is_array(sizes)) {
            fputs("| sizes (bytes) |", fp);
            size_t i;
            json_t *v;
            json_array_foreach(sizes, i, v) {
                fputs(i ? ", " : " ", fp);
                pages_scalar(fp, v);
            }
            fputs(" |\n", fp);
        }
        const json_t *cpu = json_object_get(s->campaign, "cpu");
        const json_t *cpus = json_object_get(s->campaign, "cpus");
        if (json_is_integer(cpu))
            fprintf(fp, "| measuring core | CPU %lld |\n", (long long)json_integer_value(cpu));
        if (json_is_array(cpus) && json_array_size(cpus) > 0) { /* run --cpus */
            size_t i;
            json_t *v;
            fputs("| measuring cores (side by side) | CPU", fp);
            json_array_foreach(cpus, i, v)
                fprintf(fp, "%s%lld", i ? ", " : " ", (long long)json_integer_value(v));
            if (has_sessions(s))
                fputs(" (throughput mode: windows of other instances ran at the same "
                      "time on the other cores, sharing caches and memory bandwidth)", fp);
            fputs(" |\n", fp);
        }
        fputs("\n", fp);
    } else {
        fputs("Campaign planning settings: not recorded.\n\n", fp);
    }
    const json_t *shard = json_object_get(s->campaign, "shard");
    fputs("Shard: ", fp);
    if (json_is_integer(json_object_get(shard, "k")) && json_is_integer(json_object_get(shard, "n"))) {
        fprintf(fp, "%lld of %lld", (long long)json_integer_value(json_object_get(shard, "k")),
                (long long)json_integer_value(json_object_get(shard, "n")));
        const json_t *rule = json_object_get(shard, "rule");
        if (json_is_string(rule) && json_string_value(rule)[0]) {
            fputs(" (", fp);
            esc_md(fp, json_string_value(rule));
            fputs(")", fp);
        }
    } else {
        pages_scalar(fp, shard);
    }
    if (has_sessions(s)) {
        fputs(". ", fp);
        sessions_planner(fp);
        return;
    }
    fputs(". The interleaved planner (the default) calibrates every (instance, "
          "size) from several cold calls, then takes short trials (about 1 ms) in "
          "rounds: in each round every (instance, size) still short of its "
          "stopping rule gets one trial, in an order shuffled per round from a "
          "seed recorded in each record (round_seed), and the baseline at the same "
          "size gets a trial right beside it, recorded as the trial's pair. Each "
          "(instance, size) thus has trials spread over the whole measurement, "
          "and each pair shares one moment of the host. It stops when the 95 % "
          "interval (batch means, below) is within the target with the floors met "
          "(" SETTINGS_TEXT(SETTINGS_INTERLEAVED_MIN_TRIALS) " kept trials and 100 "
          "calls unless set otherwise), or when its "
          "budget is spent; the budget covers its calibration, its trials and its "
          "paired baseline trials, and no trial starts that would go past it. "
          "The adaptive planner takes the same short trials one (instance, size) "
          "after another; the reference planner reproduces the reference "
          "campaign's rule (" SETTINGS_TEXT(SETTINGS_REFERENCE_TRIALS) " trials, calls "
          "per trial = min(20000, max(ceil(1 s / "
          "t1), 20))). Each trial is one process pinned to one core; the "
          "library is loaded into the probe with dlopen. The adaptive budget "
          "holds whatever the trials do: after the minimum number of trials, once "
          "it is spent the planner stops if no trial was kept or the floors are "
          "met, and otherwise at the floors' own budget; either planner also stops "
          "at a cap on probe processes and on the cell's wall time. Every record "
          "keeps its own plan, with what ended its trials (stopped) and how many "
          "processes it ran.\n\n", fp);}

/* The ratio of the fixed pair of different codes over the measure stage
 * (report/ratiodrift.h), as campaign.json recorded it, and how the paired
 * intervals take it in. */
static void sec_ratio_drift(FILE *fp, const report_system *s)
{
    fputs("### The host's ratio drift\n\n"
          "A host's state moves the ratio between two *different* codes too, which "
          "no pairing takes out. One group in three of every round of the "
          "measurement times a window of OpenSSL's SHA-256 and one of OpenSSL's SM3 "
          "(both built-in baselines) beside the instance's, so at every size the "
          "campaign has a series of "
          "SHA-256 / SM3 ratios over its whole measure stage. The groups of a size, "
          "in the order taken, are cut into up to 4 consecutive blocks of at least "
          "3; each block's median is set against the size's median (logarithms). "
          "A size's spread is the 10th to 90th percentile of its blocks' "
          "deviations, the campaign's the same over every size's blocks pooled, "
          "as a percentage (exp(P90 − P10) − 1). Each paired ratio's published "
          "interval [lo, hi] becomes [lo / (1 + m), hi × (1 + m)], with m half the "
          "larger of its size's spread and the campaign's; the record keeps the "
          "interval as measured, and `hashbench validate` recomputes the drift "
          "from the records.\n\n", fp);
    const json_t *rd = json_object_get(s->campaign, RATIODRIFT_KEY);
    const json_t *sizes = json_object_get(rd, "sizes");
    if (!json_array_size(sizes)) {
        fputs("This campaign recorded no ratio drift (no group held both baselines' "
              "windows): its paired intervals are the ones measured.\n\n", fp);
        return;
    }
    char num[NUMFMT_MAX];
    double pooled = report_num(rd, "spread_percent");
    if (isfinite(pooled))
        fprintf(fp, "Over the whole stage the ratio moved by **%s %%** (P10 to P90 of "
                "the blocks of every size).\n\n", numfmt_sig3(pooled, num, sizeof num));
    const char *cols[] = {"message", "SHA-256 / SM3 (median)", "groups", "blocks",
                          "spread", "intervals widened by"};
    pages_table_head(fp, cols, 6, "rrrrrr");
    size_t i;
    const json_t *e;
    json_array_foreach(sizes, i, e) {
        double z = report_num(e, "size_bytes"), sp = report_num(e, "spread_percent"),
               m = report_num(e, "margin_percent");
        char a[NUMFMT_MAX];
        fprintf(fp, "| %s | %s |", numfmt_msg_bytes(isfinite(z) ? (long long)z : 0, a, sizeof a),
                numfmt_sig3(report_num(e, "median_ratio"), num, sizeof num));
        fprintf(fp, " %.0f | %.0f |", report_num(e, "groups"), report_num(e, "blocks"));
        if (isfinite(sp))
            fprintf(fp, " %s %% |", numfmt_sig3(sp, num, sizeof num));
        else
            fputs(" — |", fp);
        if (isfinite(m))
            fprintf(fp, " ±%s %% |\n", numfmt_sig3(m, num, sizeof num));
        else
            fputs(" not widened |\n", fp);
    }
    fputs("\n", fp);
}

/* The harness cost (measure/harness.h) per size, from the primary
 * baseline's records, and why it is shown rather than taken out. */
static void sec_harness(FILE *fp, const report_system *s)
{
    fputs("## What a window holds besides the hash\n\n"
          "A timed window hands the library fresh messages, chains each message to "
          "the digest of the call before (eight bytes of every 64-byte block, so "
          "every cache line of it is touched) and loops over the calls; `openssl "
          "speed` and Google Benchmark hash one buffer that stays in the cache, "
          "with no chaining. At every size the measurement times 7 windows of "
          "hashbench's own null library (it returns at once, its digest all zero) "
          "holding as many fresh messages as the baseline's windows, each after an "
          "untimed warm-up as every window is, in a session of its own; the median "
          "per call, the exchange taken off, is that size's **harness cost**, kept "
          "in every record (`verification.harness_ns_per_call`) and shown beside "
          "each figure on the candidate pages. No submitted library runs in it, so "
          "none can move it.\n\n"
          "It is shown, not subtracted: inside a real window part of that work "
          "overlaps the hash's own (the core runs the chaining and the loads beside "
          "the rounds, the prefetcher hides part of the footprint), by an amount "
          "that differs from one library to the next, so taking the null "
          "library's whole cost out would lower every figure by more than it holds, "
          "the fastest code most, and move the ratios between codes. Read it as an "
          "upper bound of what the harness adds to a figure.\n\n", fp);
    const char *cols[] = {"message", "harness per call", "baseline", "its mean time",
                          "share"};
    int rows = 0;
    for (size_t i = 0; i < s->nrecs; i++) {
        const report_record *r = &s->recs[i];
        if (!r->derived || strcmp(r->candidate, PAGES_BASELINE_CANDIDATE) ||
            !isfinite(pages_harness_ns(r)))
            continue;
        if (rows++ == 0)
            pages_table_head(fp, cols, 5, "rrlrr");
        char a[NUMFMT_MAX], t[NUMFMT_MAX];
        fprintf(fp, "| %s | %s | ", numfmt_msg_bytes(r->size, a, sizeof a),
                numfmt_time_ns(pages_harness_ns(r), t, sizeof t));
        esc_md(fp, r->instance);
        double mean = report_num(r->derived, "mean_ns_per_call");
        fprintf(fp, " | %s | ", numfmt_time_ns(mean, a, sizeof a));
        if (isfinite(mean) && mean > 0)
            fprintf(fp, "%s %% |\n", numfmt_sig3(pages_harness_ns(r) / mean * 100.0, a,
                                                sizeof a));
        else
            fputs("— |\n", fp);
    }
    fputs(rows ? "\n" : "This dataset's records do not state the harness cost (measured "
                         "before it was, or by the one-process planners).\n\n", fp);
}

/* The baseline's speed over the measure stage (measure/drift.h), then the
 * ratio drift beside it. */
static void sec_drift(FILE *fp, const report_system *s)
{
    fputs("## The host's drift during the measurement\n\n", fp);
    const drift_series *d = &s->drift;
    if (d->n == 0) {
        fputs("No baseline trials with their times in this dataset: the host's speed "
              "drift is not known.\n\n", fp);
        sec_ratio_drift(fp, s);
        return;
    }
    char num[NUMFMT_MAX];
    fprintf(fp, "The baseline (the same trusted code throughout) was timed %zu times "
            "over %.0f s of the measurement; each point below is one of its kept "
            "trials, its speed relative to the baseline's median at that message "
            "size (1: usual, 1.2: 20 %% faster). ", d->n, d->duration_s);
    if (isfinite(d->spread_percent))
        fprintf(fp, "From the 10th to the 90th percentile the speed varied by **%s %%**"
                "%s.\n\n", numfmt_sig3(d->spread_percent, num, sizeof num),
                d->spread_percent > DRIFT_WARN_PERCENT
                    ? ", more than the " "5 % under which absolute figures from one "
                      "moment to the next can be compared directly"
                    : "");
    else
        fputs("Too few points to state a spread.\n\n", fp);
    fputs("![the baseline's relative speed against time](method.svg)\n\n", fp);
    sec_ratio_drift(fp, s);
}

int pages_method_svg(FILE *fp, const report_system *s, hb_err *err)
{
    const drift_series *d = &s->drift;
    svg_series one = {"baseline speed (relative to its median)", d->n, d->t_s, d->speed,
                      NULL, NULL};
    char title[512];
    snprintf(title, sizeof title, "%s: the baseline's speed during the measurement",
             s->name);
    svg_chart_spec spec = {title, "seconds since the start of the measurement",
                           "relative speed", &one, 1, 1, 1, 0, 0.0};
    int rc = svg_chart(fp, &spec) < 0 ? hb_fail(err, "drift chart of %s: write error",
                                                s->name) : 0;
    return rc;
}

static void sec_statistics(FILE *fp)
{
    fputs("## Statistics\n\nOnly trials not marked disturbed enter the figures. "
          "With m_i = ticks_i / calls_i the mean of trial i over k kept "
          "trials:\n\n"
          "- mean per call = Σ ticks / Σ calls; per byte = that / message size; "
          "mean time = Σ ns / Σ calls; MB/s = message size × Σ calls / Σ ns × "
          "1000 (10^6 bytes per second); n = Σ calls = trials × calls per trial.\n"
          "- median and quartiles of the m_i by linear interpolation between "
          "order statistics; min and max of the m_i.\n"
          "- CV = sample standard deviation of the m_i / their mean × 100.\n"
          "- 95 % confidence interval by batch means: the k kept trials, in the "
          "order they were taken, are cut into b = max(2, ⌊√k⌋) consecutive "
          "batches; with M_j = Σ ticks / Σ calls of batch j, the interval is mean "
          "per call ± t(0.975, b − 1) × sd(M_j) / √b. Trials taken close "
          "together share the host's state of that moment and are not "
          "independent; batches spread over the rounds come much closer to it, and "
          "few batches give a wide interval rather than a false precision "
          "(records written before this rule say interval iid: ± t(0.975, k − 1) × "
          "sd(m_i) / √k).\n"
          "- Which figure is which: every mean column (per call, per byte, time, "
          "MB/s, and its interval) is the guide's mean, Σ ticks / Σ calls over the "
          "kept trials; every paired ratio is the median of pair ratios below, "
          "with its interval (an *unpaired* ratio divides two such means).\n"
          "- Ratio to the baseline (the median of pair ratios): over every pair of "
          "trials taken side by side, disturbed ones included (a library can make "
          "its own trials look disturbed, so none is left out), in the order "
          "taken, r_k = (ticks_k / calls_k) / (the paired baseline "
          "trial's ticks / calls); the ratio is the median of the r_k. Time "
          "that anything adds to the instance's own trials (a one-sided "
          "disturbance: a trial can be slowed, never sped up) can only raise its "
          "r_k, and the median can then only rise: no such noise pushes the "
          "ratio down, and a few slow trials on either side move it by at most as "
          "many order statistics, where they move a mean of ratios without bound. "
          "Its 95 % interval is a circular block bootstrap: runs of L = "
          "⌈p^(2/3)⌉ consecutive pairs (pairs taken close together share the "
          "host's state; at most half the pairs, wrapping round the end of the "
          "series) are drawn with replacement to make a series of p pairs, B "
          "times, and the interval is the median ± t(0.975, c − 1) × the "
          "standard deviation of their B medians, with c = ⌈p / L⌉ runs in a "
          "series (few runs give a wide interval rather than a false "
          "precision); the draws come from ChaCha20 with the seed stated in the "
          "record, so `hashbench validate` recomputes the interval exactly. The "
          "record also gives the 10th percentile of the per-call cost of the "
          "instance and of the baseline over the same pairs.\n"
          "- Records measured before that estimator publish the geometric mean "
          "of the paired ratios, which every record still holds: over the pairs "
          "where both trials were kept, q_i = m_i / (the paired baseline "
          "trial's ticks / calls); the ratio is exp(mean(ln q_i)) and its "
          "interval exp(mean ± t(0.975, b − 1) × sd / √b) over batches of the "
          "ln q_i as above.\n\n"
          "Number style: counts from 10 000 up as 18.6 k or 1.41 M (three "
          "significant digits), smaller counts as integers; times to three "
          "significant digits.\n\n", fp);
}

static void sec_memory(FILE *fp)
{
    fputs("## Memory method\n\nStatic size: the sum of p_memsz of the library's "
          "PT_LOAD segments (the ELF image) and its text, rodata, data and bss "
          "sections. Baseline RSS: VmRSS of the measuring process after loading "
          "and setup, before timing; peak RSS: VmHWM at its end, both read from "
          "outside the timed process, the area that hands it its messages left "
          "out. These are process-level upper bounds; the algorithm's own peak "
          "stack is found by painting the stack around one call, and its heap by "
          "tracking allocations in the probe, in a run of its own: a timed process "
          "that grows, from before it loaded the library, by more than the "
          "library's image, that run's stack and heap and a slack (384 KiB and "
          "twice the message) is INCONSISTENT, and neither RSS figure is taken "
          "below the process's memory before the library was loaded.\n\n", fp);
}

/* Trials with hashbench's own timing, trials whose fold the runner
 * recomputed, and trials disturbed by the outside rule, over S's records. */
static void count_checked(const report_system *s, long *timed, long *folds, long *outside)
{
    *timed = *folds = *outside = 0;
    for (size_t i = 0; i < s->nrecs; i++) {
        const json_t *rec = s->recs[i].json;
        size_t k, m;
        json_t *t, *why;
        *folds += (long)json_integer_value(json_object_get(json_object_get(rec,
                                           "verification"), "folds_checked"));
        json_array_foreach(json_object_get(rec, "trials"), k, t) {
            *timed += json_is_object(json_object_get(t, "outside"));
            json_array_foreach(json_object_get(t, "disturbed_reasons"), m, why)
                *outside += json_is_string(why) &&
                            strcmp(json_string_value(why), "outside_cpu") == 0;
        }
    }
}

/* The guard's rules (measure/guard.h), as the code holds them, with how
 * many of this dataset's records each refused (a record names its rule). */
static void guard_table(FILE *fp, const report_system *s)
{
    fputs("Every rule by which the measure stage refuses a figure, as hashbench's "
          "code holds it; a refused record names its rule (`refused_by`).\n\n"
          "| Rule | Status | Fires on | Why | Records |\n"
          "| --- | --- | --- | --- | ---: |\n", fp);
    for (int i = 0; i < GUARD_N; i++) {
        const guard_rule *r = &guard_rules[i];
        long n = 0;
        for (size_t k = 0; k < s->nrecs; k++) {
            const char *rule = json_string_value(json_object_get(s->recs[k].json,
                                                                "refused_by"));
            n += rule && !strcmp(rule, r->name);
        }
        fprintf(fp, "| `%s` | %s | %s | %s | %ld |\n", r->name, r->status, r->threshold,
                r->explanation, n);
    }
    fputs("\n", fp);
}

static void sec_timing_checks(FILE *fp, const report_system *s)
{
    long timed, folds, outside;
    count_checked(s, &timed, &folds, &outside);
    if (has_sessions(s)) {
        fputs("## Timing checks\n\n", fp);
        sessions_checks(fp, s);
        guard_table(fp, s);
        if (!timed)
            return;
        fputs("Records measured one probe process per trial:\n\n", fp);
    } else {
        fputs("## Timing checks\n\n", fp);
    }
    fputs("The library runs inside the probe, so the probe's figures are checked "
          "from outside it. Each trial's messages come from a 64-bit seed that "
          "hashbench draws at random for that trial and sends to the probe only "
          "when the trial's window opens: call i hashes the seed's base message "
          "with the first eight bytes of every 64-byte block changed by a word of "
          "(seed, i), in two buffers in turn, so no two calls of a trial hash the "
          "same message and results kept by message or by address are wrong. The "
          "probe folds every digest of its timed loop; a runner, a separate "
          "sandboxed process started exactly as every probe is (the same program, "
          "arguments, environment, descriptors, limits and filters) that loads "
          "the same library, recomputes "
          "the fold of every trial from its seed, and one call of one trial, both "
          "drawn after the trials, is hashed on its own and must continue the "
          "runner's fold. Seeds and folds are in the records.\n\n", fp);
    fprintf(fp, "The probe sends its result on a private pipe, with a nonce from "
            "hashbench, as its only line after the seed; a second line or any byte "
            "after it makes the trial INCONSISTENT. hashbench times every trial "
            "itself: its own clock from sending the seed to reading the result "
            "(the window), the probe's CPU time over the window, and the process's "
            "CPU time from wait4. A trial is INCONSISTENT when the probe's loop "
            "time exceeds the window (by more than %g %% + %g µs), when the "
            "window's CPU time exceeds the process's (by more than %g ms), when "
            "the probe used more CPU time than wall time in the window (by more "
            "than %g %% + %g µs: a second core), or when the loop time falls short "
            "of the window's CPU time by more than an allowance (twice the "
            "untimed work of the window as hashbench times it on this host, plus "
            "a share for the exchange measured with hashbench's own library, at "
            "least %g µs); by %g ms more in the last two cases. Within those %g "
            "ms a trial is disturbed (outside_cpu) and repeated; a cell where "
            "that happens to more than %g %% of its trials (at least %d) is "
            "INCONSISTENT. An INCONSISTENT record has no figures.\n\n",
            OUTSIDE_CLOCK_PPM * 1e-4, OUTSIDE_INSIDE_SLACK_NS * 1e-3,
            OUTSIDE_PROCESS_SLACK_NS * 1e-6, OUTSIDE_CLOCK_PPM * 1e-4,
            OUTSIDE_CPU_SLACK_NS * 1e-3, OUTSIDE_EXCHANGE_NS * 1e-3,
            OUTSIDE_GROSS_NS * 1e-6, OUTSIDE_GROSS_NS * 1e-6,
            OUTSIDE_CELL_FRACTION * 100, OUTSIDE_CELL_TRIALS);
    fprintf(fp, "In this dataset: %ld trials carry hashbench's own timing, %ld "
            "trials' folds were recomputed and agreed, %ld trials were disturbed "
            "by the outside rule, %d records are INCONSISTENT.\n\n", timed, folds,
            outside, count_status(s, "INCONSISTENT"));
}

static void sec_limitations(FILE *fp, const report_system *s)
{
    pages_counter pc;
    const json_t *env = pages_environment(s);
    int any = 0;
    pages_counter_of(s, &pc);
    fputs("## Limitations\n\n", fp);
    if (!pc.is_cycles) {
        fprintf(fp, "- The counter is not core cycles on this host: figures are %s, "
                    "which track wall time at a fixed rate, not the work of the core.\n",
                pc.unit);
        any++;
    }
    if (json_is_true(json_object_get(env, "hypervisor"))) {
        fputs("- The host is a virtual machine: other guests and the hypervisor "
              "can disturb timing.\n", fp);
        any++;
    }
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(s->campaign, "host_checks"), i, c)
        if (!json_is_true(json_object_get(c, "ok"))) {
            fputs("- Host check failed: ", fp);
            pages_scalar(fp, json_object_get(c, "item"));
            fputs(" (", fp);
            pages_scalar(fp, json_object_get(c, "detail"));
            fputs(").\n", fp);
            any++;
        }
    int failed = count_status(s, "FAILED"), inconsistent = count_status(s, "INCONSISTENT");
    if (failed) {
        fprintf(fp, "- %d record%s could not be measured (FAILED); the pages name "
                    "them with the reason.\n", failed, failed == 1 ? "" : "s");
        any++;
    }
    if (inconsistent) {
        fprintf(fp, "- %d record%s INCONSISTENT: the probe's result disagreed with "
                    "hashbench's own checks (see Timing checks), so no figure is "
                    "published; the pages name them with the reason.\n",
                inconsistent, inconsistent == 1 ? " is" : "s are");
        any++;
    }
    if (!any)
        fputs("- None found in this dataset.\n", fp);
    fputs("\n", fp);
}

int pages_method_md(FILE *fp, const report_system *s, const char *ext, hb_err *err)
{
    fputs("# Method: ", fp);
    esc_md(fp, s->name);
    fputs("\n\n", fp);
    pages_link(fp, "Summary", "summary", ext);
    fputs(" · ", fp);
    pages_link(fp, "All systems", "../index", ext);
    fputs("\n\nCampaign by ", fp);
    pages_scalar(fp, json_object_get(s->campaign, "tool"));
    fputs(", from ", fp);
    pages_scalar(fp, json_object_get(s->campaign, "start_utc"));
    fputs(" to ", fp);
    pages_scalar(fp, json_object_get(s->campaign, "end_utc"));
    fputs(" (UTC).\n\n", fp);
    pages_drift_warning(fp, s, ext);
    pages_plain_shared_note(fp, s, ext);
    sec_host(fp, s);
    sec_counter(fp, s);
    sec_build(fp, s);
    sec_kat_policy(fp, s);
    sec_isolation(fp, s);
    sec_variants(fp, s);
    sec_planner(fp, s);
    sec_drift(fp, s);
    sec_harness(fp, s);
    sec_timing_checks(fp, s);
    sec_statistics(fp);
    sec_memory(fp);
    pages_ct_method(fp, s);
    pages_count_method(fp, s);
    pages_compilers_method(fp);
    pages_rank_method(fp);
    sec_limitations(fp, s);
    if (ferror(fp))
        return hb_fail(err, "method page of %s: write error", s->name);
    return 0;
}
