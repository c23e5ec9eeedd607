/* The page of one candidate on one system, with the sections of the guide
 * §3.5: 1 Basic information, 2 Assessment environment, 3 Functional testing
 * (KAT) with a note for every non-PASS instance and the comparison of each
 * instance's variants, 4 Performance (headline and dispersion tables, chart,
 * instances without figures), 5 Resource consumption, 7 Raw evidence index.
 * See pages.h for the contract. */
#include "report/pages.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "common/fs.h"
#include "kat/kat_instance.h"
#include "kat/variants.h"
#include "report/esc.h"
#include "report/numfmt.h"
#include "report/selfassess.h"

typedef struct cand_ctx {
    FILE *fp;
    const report_system *s;
    const char *cand;
    const char *root; /* DATA */
    json_t *insts;   /* instance names */
    size_t ninsts;
    json_t *sizes;   /* this candidate's sizes */
    pages_counter pc;
} cand_ctx;

static const char *inst_at(const cand_ctx *c, size_t k)
{
    return json_string_value(json_array_get(c->insts, k));
}

/* A field of the instance's build entry, else of its first record. */
static const json_t *inst_field(const cand_ctx *c, const char *inst, const char *key)
{
    const json_t *v = json_object_get(report_build_entry(c->s, c->cand, inst), key);
    if (v)
        return v;
    for (size_t i = 0; i < c->s->nrecs; i++) {
        const report_record *r = &c->s->recs[i];
        if (strcmp(r->candidate, c->cand) == 0 && strcmp(r->instance, inst) == 0)
            return json_object_get(r->json, key);
    }
    return NULL;
}

static void row_item(FILE *fp, const char *item, const json_t *v)
{
    fprintf(fp, "| %s | ", item);
    pages_scalar(fp, v);
    fputs(" |\n", fp);
}

static void sec_basic(cand_ctx *c)
{
    FILE *fp = c->fp;
    const json_t *alg = NULL, *profile = NULL;
    for (size_t k = 0; k < c->ninsts; k++) {
        const char *inst = inst_at(c, k);
        if (!alg)
            alg = inst_field(c, inst, "algorithm");
        if (!profile)
            profile = inst_field(c, inst, "profile");
    }
    if (!profile)
        profile = json_object_get(c->s->build, "profile");
    fputs("## 1 Basic information\n\n", fp);
    static const char *const h1[] = {"Item", "Value"};
    pages_table_head(fp, h1, 2, "ll");
    fputs("| Candidate | ", fp);
    esc_md(fp, c->cand);
    fputs(" |\n", fp);
    row_item(fp, "Algorithm", alg);
    row_item(fp, "Build profile", profile);
    fprintf(fp, "| Instances | %zu |\n\n", json_array_size(c->insts));
    static const char *const h2[] = {"Instance", "Digest bits", "Variant",
                                     "Build", "Flags kind"};
    pages_table_head(fp, h2, 5, "lrlll");
    for (size_t k = 0; k < c->ninsts; k++) {
        const char *inst = inst_at(c, k);
        const json_t *kat = report_kat_entry(c->s, c->cand, inst);
        const json_t *fk = json_object_get(kat, "flags_kind");
        fputs("| ", fp);
        esc_md(fp, inst);
        fputs(" | ", fp);
        pages_scalar(fp, inst_field(c, inst, "digest_bits"));
        fputs(" | ", fp);
        pages_scalar(fp, inst_field(c, inst, "variant"));
        fputs(" | ", fp);
        pages_scalar(fp, json_object_get(report_build_entry(c->s, c->cand, inst), "status"));
        fputs(" | ", fp);
        pages_scalar(fp, fk ? fk : inst_field(c, inst, "flags_kind"));
        fputs(" |\n", fp);
    }
    fputs("\n", fp);
}

static void env_processor(FILE *fp, const json_t *env)
{
    fputs("| Processor | ", fp);
    pages_scalar(fp, json_object_get(env, "cpu_model"));
    const json_t *ncpu = json_object_get(env, "ncpu");
    const json_t *arch = json_object_get(env, "arch");
    if (json_is_integer(ncpu))
        fprintf(fp, "; %lld logical CPUs", (long long)json_integer_value(ncpu));
    if (json_is_string(arch)) {
        fputs("; ", fp);
        esc_md(fp, json_string_value(arch));
    }
    if (json_is_true(json_object_get(env, "hypervisor")))
        fputs("; virtual machine (hypervisor flag set)", fp);
    fputs(" |\n", fp);
}

static void env_clock(FILE *fp, const json_t *env, const pages_counter *pc)
{
    char rate[64];
    fputs("| Clock counter | ", fp);
    esc_md(fp, pc->name);
    if (pc->description[0]) {
        fputs(" (", fp);
        esc_md(fp, pc->description);
        fputs(")", fp);
    }
    fprintf(fp, ", rate %s", pages_rate(pc->rate_hz, rate, sizeof rate));
    if (pc->nominal_hz == pc->nominal_hz && pc->nominal_hz > 0) {
        fprintf(fp, " (stated %s by ", pages_rate(pc->nominal_hz, rate, sizeof rate));
        esc_md(fp, pc->nominal_source[0] ? pc->nominal_source : "the hardware");
        fputs(")", fp);
    }
    fputs(pc->is_cycles ? "; core cycles" : "; **not core cycles**", fp);
    fputs(" |\n| Clock state | governor ", fp);
    pages_scalar(fp, json_object_get(env, "governor"));
    fputs("; turbo/boost ", fp);
    pages_scalar(fp, json_object_get(env, "turbo"));
    fputs("; SMT ", fp);
    pages_scalar(fp, json_object_get(env, "smt"));
    fputs("; perf\\_event\\_paranoid ", fp);
    pages_scalar(fp, json_object_get(env, "perf_event_paranoid"));
    const json_t *maxk = json_object_get(env, "scaling_max_khz");
    if (json_is_integer(maxk))
        fprintf(fp, "; scaling max %s", pages_rate(json_integer_value(maxk) * 1e3,
                                                   rate, sizeof rate));
    fputs(" |\n", fp);
}

static void env_system(FILE *fp, const json_t *env, const report_system *s)
{
    char num[NUMFMT_MAX];
    const json_t *mem = json_object_get(env, "mem_total_kb");
    fputs("| Memory | ", fp);
    if (json_is_number(mem))
        fputs(numfmt_bytes(json_number_value(mem) * 1024.0, num, sizeof num), fp);
    else
        fputs("not recorded", fp);
    fputs(" |\n| OS / kernel | ", fp);
    const json_t *os = json_object_get(env, "os");
    if (json_is_string(os)) {
        esc_md(fp, json_string_value(os));
        fputs(", kernel ", fp);
    } else {
        fputs("Linux ", fp);
    }
    pages_scalar(fp, json_object_get(env, "kernel"));
    fputs(" |\n| Compiler | ", fp);
    pages_scalar(fp, json_object_get(s->build, "compiler_version"));
    fputs(" |\n| Build tool | ", fp);
    const json_t *tool = json_object_get(s->campaign, "tool");
    pages_scalar(fp, tool ? tool : json_object_get(s->build, "tool"));
    fputs(" |\n", fp);
    row_item(fp, "Campaign start (UTC)", json_object_get(s->campaign, "start_utc"));
    row_item(fp, "Campaign end (UTC)", json_object_get(s->campaign, "end_utc"));
}

static void sec_env(cand_ctx *c)
{
    FILE *fp = c->fp;
    const json_t *env = pages_environment(c->s);
    fputs("## 2 Assessment environment\n\n", fp);
    static const char *const h1[] = {"Item", "Value"};
    pages_table_head(fp, h1, 2, "ll");
    fputs("| Test system | ", fp);
    esc_md(fp, c->s->name);
    fputs(" |\n", fp);
    env_processor(fp, env);
    env_clock(fp, env, &c->pc);
    env_system(fp, env, c->s);
    fputs("\nFull compiler flags of each library as built:\n\n", fp);
    static const char *const h2[] = {"Instance", "Flags kind", "Flags"};
    pages_table_head(fp, h2, 3, "lll");
    for (size_t k = 0; k < c->ninsts; k++) {
        const char *inst = inst_at(c, k);
        const json_t *kat = report_kat_entry(c->s, c->cand, inst);
        const json_t *fk = json_object_get(kat, "flags_kind");
        const json_t *fl = json_object_get(kat, "flags");
        fputs("| ", fp);
        esc_md(fp, inst);
        fputs(" | ", fp);
        if (!fk)
            fk = inst_field(c, inst, "flags_kind");
        pages_scalar(fp, fk);
        fputs(" | ", fp);
        pages_flags(fp, json_is_string(fk) ? json_string_value(fk) : "",
                    fl ? fl : inst_field(c, inst, "flags"));
        fputs(" |\n", fp);
    }
    fputs("\n", fp);
}

/* The first line of the KAT log at DATA/REL that tells the cause of STATUS:
 * a line naming the status (other than the RESULT line), else one saying
 * "differ" or "fail". Empty when none or the log is unreadable. */
static void log_excerpt(const char *root, const char *rel, const char *status,
                        char *out, size_t outsz)
{
    char path[4096];
    char *text = NULL;
    out[0] = '\0';
    if (!rel || rel[0] == '/' || strstr(rel, "..")) /* validate names such paths */
        return;
    if (hb_path_join(path, sizeof path, root, rel, NULL) < 0 ||
        hb_read_file(path, &text, NULL, NULL) < 0)
        return;
    const char *keys[] = {status, "differ", "fail", "FAIL"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0] && !out[0]; k++) {
        for (char *line = text; line && *line;) {
            char *nl = strchr(line, '\n');
            size_t len = nl ? (size_t)(nl - line) : strlen(line);
            if (strncmp(line, "RESULT ", 7) != 0 && memmem(line, len, keys[k], strlen(keys[k]))) {
                if (len >= outsz)
                    len = outsz - 1;
                memcpy(out, line, len);
                out[len] = '\0';
                break;
            }
            line = nl ? nl + 1 : NULL;
        }
    }
    free(text);
}

static void kat_files_cell(FILE *fp, const json_t *kat)
{
    size_t i;
    json_t *f;
    const json_t *files = json_object_get(kat, "files");
    if (json_array_size(files) == 0) {
        fputs("none recorded", fp);
        return;
    }
    json_array_foreach(files, i, f) {
        if (i)
            fputs("; ", fp);
        esc_md(fp, report_str(f, "name", "?"));
        fputs(" ", fp);
        esc_md(fp, report_str(f, "verdict", "?"));
    }
}

/* 1 when the instance's KAT row gets a note: not tested, not PASS (the
 * baseline is the oracle and is not checked), or a flag fallback. */
static int kat_needs_note(const json_t *kat)
{
    const char *st = report_str(kat, "status", NULL);
    if (!kat || !st)
        return 1;
    if (strcmp(report_str(kat, "flags_kind", "guide"), "guide") != 0)
        return 1;
    return strcmp(st, "PASS") != 0 && strcmp(st, "BASELINE") != 0;
}

static void kat_note(cand_ctx *c, const char *inst, int num)
{
    FILE *fp = c->fp;
    const json_t *kat = report_kat_entry(c->s, c->cand, inst);
    const json_t *build = report_build_entry(c->s, c->cand, inst);
    fprintf(fp, "- \\[%d\\] **", num);
    esc_md(fp, inst);
    fputs("**: ", fp);
    if (!kat) {
        fputs("not KAT-tested", fp);
        if (build) {
            fputs(" (build status ", fp);
            esc_md(fp, report_str(build, "status", "not recorded"));
            const char *why = report_str(build, "reason", "");
            if (why[0]) {
                fputs(": ", fp);
                esc_md(fp, why);
            }
            fputs(")", fp);
        }
        fputs(".\n", fp);
        return;
    }
    const char *st = report_str(kat, "status", "not recorded");
    esc_md(fp, st);
    fputs(": ", fp);
    const char *reason = report_str(kat, "reason", "");
    esc_md(fp, reason[0] ? reason : "no reason recorded");
    fputs(".", fp);
    char line[512];
    log_excerpt(c->root, report_str(kat, "log", NULL), st, line, sizeof line);
    if (line[0]) {
        fputs(" Log: \"", fp);
        esc_md(fp, line);
        fputs("\".", fp);
    }
    if (strcmp(report_str(kat, "flags_kind", "guide"), "guide") != 0) {
        fputs(" build flags: ", fp);
        esc_md(fp, report_str(kat, "flags_kind", ""));
        const json_t *guide = json_object_get(kat, "guide");
        fputs(" (with the guide's flags: ", fp);
        esc_md(fp, report_str(guide, "status", "not recorded"));
        fputs(").", fp);
    }
    fputs("\n", fp);
}

static void sec_kat(cand_ctx *c)
{
    FILE *fp = c->fp;
    int notes = 0;
    fputs("## 3 Functional testing (KAT)\n\n", fp);
    static const char *const h[] = {"Instance", "Status", "Build flags", "KAT files"};
    pages_table_head(fp, h, 4, "llll");
    for (size_t k = 0; k < c->ninsts; k++) {
        const char *inst = inst_at(c, k);
        const json_t *kat = report_kat_entry(c->s, c->cand, inst);
        char status[1024];
        pages_kat_status(c->s, c->cand, inst, status, sizeof status);
        fputs("| ", fp);
        esc_md(fp, inst);
        fputs(" | ", fp);
        esc_md(fp, status);
        if (kat_needs_note(kat))
            fprintf(fp, " \\[%d\\]", ++notes);
        fputs(" | ", fp);
        esc_md(fp, report_str(kat, "flags_kind", "not recorded"));
        fputs(" | ", fp);
        kat_files_cell(fp, kat);
        fputs(" |\n", fp);
    }
    fputs("\n", fp);
    if (!notes) {
        fputs("Every instance passed its known-answer tests with the guide's flags.\n\n", fp);
        return;
    }
    fputs("Notes:\n\n", fp);
    notes = 0;
    for (size_t k = 0; k < c->ninsts; k++) {
        const char *inst = inst_at(c, k);
        if (kat_needs_note(report_kat_entry(c->s, c->cand, inst)))
            kat_note(c, inst, ++notes);
    }
    fputs("\n", fp);
}

/* "NAME (Variant)" of a member of a variants result. */
static void member_name(FILE *fp, const json_t *m)
{
    fputs("**", fp);
    esc_md(fp, report_str(m, "instance", "?"));
    fputs("** (", fp);
    esc_md(fp, report_str(m, "variant", "?"));
    fputs(")", fp);
}

/* "message I (B bits)" of a {"index", "bits"} object. */
static void message_at(FILE *fp, const json_t *at)
{
    fprintf(fp, "message %lld (%lld bits)",
            (long long)json_integer_value(json_object_get(at, "index")),
            (long long)json_integer_value(json_object_get(at, "bits")));
}

/* The first 16 characters of a digest field, then "…" when there is more. */
static void digest_start(FILE *fp, const json_t *d, const char *key)
{
    char head[17];
    const char *hex = report_str(d, key, "not recorded");
    snprintf(head, sizeof head, "%s", hex);
    esc_md(fp, head);
    fputs(strlen(hex) > 16 ? "…" : "", fp);
}

/* The note of one variants result V: what each variant that differed or
 * failed did. SEED is NULL when it is not a valid seed. */
static void variants_notes(FILE *fp, const json_t *v, const char *seed, int num)
{
    size_t i;
    const json_t *m, *first = json_array_get(json_object_get(v, "members"), 0);
    fprintf(fp, "- \\[%d\\] ", num);
    esc_md(fp, report_str(v, "algorithm_instance", "?"));
    fputs(": ", fp);
    esc_md(fp, report_str(v, "verdict", "not recorded"));
    fputs(".", fp);
    json_array_foreach(json_object_get(v, "members"), i, m) {
        const json_t *d = json_object_get(m, "first_disagreement");
        const char *outcome = report_str(m, "outcome", "OK");
        if (json_is_object(d)) {
            fputs(" ", fp);
            member_name(fp, m);
            fputs(" differs from ", fp);
            member_name(fp, first);
            fprintf(fp, " on %lld of %lld messages compared, first on ",
                    (long long)json_integer_value(json_object_get(m, "disagreements")),
                    (long long)json_integer_value(json_object_get(m, "compared")));
            message_at(fp, d);
            if (seed)
                fprintf(fp, " (the second line printed by `hashbench drng %s-%lld 32 %lld`)",
                        seed, (long long)json_integer_value(json_object_get(d, "index")),
                        (long long)json_integer_value(json_object_get(d, "bits")));
            fputs(", where its digest is ", fp);
            digest_start(fp, d, "digest");
            fputs(" and the first variant's ", fp);
            digest_start(fp, d, "first_digest");
            fputs(".", fp);
        }
        if (strcmp(outcome, "OK") != 0) {
            fputs(" ", fp);
            member_name(fp, m);
            fputs(": ", fp);
            esc_md(fp, outcome);
            const json_t *at = json_object_get(m, "failed_at");
            if (json_is_object(at)) {
                fputs(" on ", fp);
                message_at(fp, at);
            }
            fputs(", ", fp);
            esc_md(fp, report_str(m, "detail", "no detail recorded"));
            fputs(".", fp);
        }
    }
    fputs("\n", fp);
}

/* The variants result of instance K of the candidate, or NULL. */
static const json_t *variants_at(const cand_ctx *c, size_t k)
{
    const json_t *v = json_object_get(report_kat_entry(c->s, c->cand, inst_at(c, k)),
                                      "variants");
    return json_is_object(v) ? v : NULL;
}

/* Reference against optimized: one row per group of variants. */
static void sec_variants(cand_ctx *c)
{
    FILE *fp = c->fp;
    int groups = 0, notes = 0;
    fputs("### Variants compared\n\n", fp);
    for (size_t k = 0; k < c->ninsts; k++)
        groups += variants_at(c, k) != NULL;
    if (!groups) {
        fputs("No instance of this candidate was compared across variants (none was "
              "submitted in more than one variant that built).\n\n", fp);
        return;
    }
    fputs("Each variant of an instance hashed the same messages of random bit lengths "
          "(most of them not whole bytes) in its own sandboxed process, and every "
          "digest was compared with the first variant's. Message *i* of a seed is "
          "the second line printed by `hashbench drng SEED-i 32 BITS`; `hashbench "
          "kat --variants-seed SEED` repeats a comparison.\n\n", fp);
    static const char *const h[] = {"Instance", "Variants", "Messages", "Verdict", "Seed"};
    pages_table_head(fp, h, 5, "llrll");
    for (size_t k = 0; k < c->ninsts; k++) {
        const json_t *v = variants_at(c, k), *m;
        size_t i;
        if (!v)
            continue;
        fputs("| ", fp);
        esc_md(fp, report_str(v, "algorithm_instance", "?"));
        fputs(" | ", fp);
        json_array_foreach(json_object_get(v, "members"), i, m) {
            fputs(i ? ", " : "", fp);
            member_name(fp, m);
        }
        fprintf(fp, " | %lld, 0–%lld bits | ",
                (long long)json_integer_value(json_object_get(v, "messages")),
                (long long)json_integer_value(json_object_get(v, "max_bits")));
        esc_md(fp, report_str(v, "verdict", "not recorded"));
        if (strcmp(report_str(v, "verdict", ""), "AGREE") != 0)
            fprintf(fp, " \\[%d\\]", ++notes);
        const char *seed = report_str(v, "seed", "");
        if (variants_seed_valid(seed))
            fprintf(fp, " | `%s` |\n", seed);
        else
            fputs(" | not valid |\n", fp);
    }
    fputs("\n", fp);
    if (!notes)
        return;
    fputs("Notes:\n\n", fp);
    notes = 0;
    for (size_t k = 0; k < c->ninsts; k++) {
        const json_t *v = variants_at(c, k);
        const char *seed = report_str(v, "seed", "");
        if (v && strcmp(report_str(v, "verdict", ""), "AGREE") != 0)
            variants_notes(fp, v, variants_seed_valid(seed) ? seed : NULL, ++notes);
    }
    fputs("\n", fp);
}

static void perf_intro(cand_ctx *c)
{
    FILE *fp = c->fp;
    char rate[64];
    fputs("Counter: **", fp);
    esc_md(fp, c->pc.name);
    fputs("**", fp);
    if (c->pc.description[0]) {
        fputs(" (", fp);
        esc_md(fp, c->pc.description);
        fputs(")", fp);
    }
    fprintf(fp, ", rate %s. ", pages_rate(c->pc.rate_hz, rate, sizeof rate));
    if (!c->pc.is_cycles)
        fprintf(fp, "The figures below are **%s, not core cycles**: the counter "
                    "ticks at a fixed rate whatever the core clock does. ", c->pc.unit);
    if (c->pc.mixed)
        fputs("Records of this system used more than one counter; see each record. ", fp);
    fputs("Mean per call = sum of counter values / sum of calls over the kept trials; "
          "MB/s = 10^6 bytes per second; n = trials × calls per trial; the 95 % "
          "interval is by batch means over the trials in the order they were "
          "taken (method page).\n\n", fp);
}

/* The instance cell of a figures row: the name, and the KAT status of a
 * record timed although its instance failed its KAT (--time-failed). */
static void inst_cell(FILE *fp, const report_record *r, const char *inst)
{
    const char *kat = report_str(r->json, "kat_status", "");
    fputs("| ", fp);
    esc_md(fp, inst);
    if (kat_status_failed(kat)) {
        char note[160];
        snprintf(note, sizeof note, " (KAT %s, timed with --time-failed)", kat);
        esc_md(fp, note);
    }
}

static void perf_row(FILE *fp, const report_record *r, const char *inst)
{
    char a[NUMFMT_MAX], b[NUMFMT_MAX], p[NUMFMT_MAX];
    const json_t *d = r->derived;
    const json_t *plan = json_object_get(r->json, "plan");
    inst_cell(fp, r, inst);
    fprintf(fp, " | %s", numfmt_msg_size(r->size, a, sizeof a));
    fprintf(fp, " | %s", numfmt_count(report_num(d, "mean_ticks_per_call"), a, sizeof a));
    fprintf(fp, " | %s", numfmt_sig3(report_num(d, "ticks_per_byte"), a, sizeof a));
    fprintf(fp, " | %s", numfmt_time_ns(report_num(d, "mean_ns_per_call"), a, sizeof a));
    fprintf(fp, " | %s", numfmt_sig3(report_num(d, "mb_per_s"), a, sizeof a));
    fprintf(fp, " | %s (%s × ", numfmt_count(report_num(d, "n"), a, sizeof a),
            numfmt_count(report_num(d, "trials"), p, sizeof p));
    double cpt = report_num(plan, "calls_per_trial");
    if (isfinite(cpt))
        fprintf(fp, "%s)", numfmt_count(cpt, b, sizeof b));
    else
        fputs("varied)", fp);
    double cv = report_num(d, "cv_percent");
    fprintf(fp, " | %s", isfinite(cv) ? numfmt_sig3(cv, a, sizeof a) : "n/a");
    fputs(isfinite(cv) ? " %" : "", fp);
    double lo = report_num(d, "ci95_low"), hi = report_num(d, "ci95_high");
    if (isfinite(lo) && isfinite(hi))
        fprintf(fp, " | %s – %s (±%s %%) |\n", numfmt_count(lo, a, sizeof a),
                numfmt_count(hi, b, sizeof b),
                numfmt_sig3(report_num(d, "ci95_rel_percent"), p, sizeof p));
    else
        fputs(" | n/a |\n", fp);
}

static void disp_row(FILE *fp, const report_record *r, const char *inst)
{
    char a[NUMFMT_MAX], b[NUMFMT_MAX];
    const json_t *d = r->derived;
    inst_cell(fp, r, inst);
    fprintf(fp, " | %s", numfmt_msg_size(r->size, a, sizeof a));
    fprintf(fp, " | %s", numfmt_count(report_num(d, "median_trial_mean"), a, sizeof a));
    fprintf(fp, " | %s – %s", numfmt_count(report_num(d, "q1_trial_mean"), a, sizeof a),
            numfmt_count(report_num(d, "q3_trial_mean"), b, sizeof b));
    fprintf(fp, " | %s – %s", numfmt_count(report_num(d, "min_trial_mean"), a, sizeof a),
            numfmt_count(report_num(d, "max_trial_mean"), b, sizeof b));
    double retries = report_num(r->json, "disturbed_retries");
    fprintf(fp, " | %s", numfmt_count(report_num(d, "trials"), b, sizeof b));
    fprintf(fp, " | %s |\n",
            isfinite(retries) ? numfmt_count(retries, a, sizeof a) : "not recorded");
}

/* Calls ROW for every record of the candidate that has figures. */
static int perf_rows(cand_ctx *c, void (*row)(FILE *, const report_record *, const char *))
{
    int n = 0;
    for (size_t k = 0; k < c->ninsts; k++) {
        const char *inst = inst_at(c, k);
        for (size_t i = 0; i < json_array_size(c->sizes); i++) {
            const report_record *r = report_find_record(
                c->s, c->cand, inst, json_integer_value(json_array_get(c->sizes, i)));
            if (r && r->derived) {
                row(c->fp, r, inst);
                n++;
            }
        }
    }
    return n;
}

static FILE *fp_of(cand_ctx *c)
{
    return c->fp;
}

/* Who recomputed the sampled timed digests of each instance, over its
 * session records (verification.verified_by): only for records of the
 * session planner. */
static void verified_list(cand_ctx *c)
{
    int any = 0;
    for (size_t k = 0; k < c->ninsts; k++) {
        const char *inst = inst_at(c, k), *by = NULL;
        long calls = 0, recs = 0;
        int mixed = 0;
        for (size_t i = 0; i < json_array_size(c->sizes); i++) {
            long long size = json_integer_value(json_array_get(c->sizes, i));
            const report_record *r = report_find_record(c->s, c->cand, inst, size);
            const json_t *v = r ? json_object_get(r->json, "verification") : NULL;
            const char *b = report_str(v, "verified_by", "");
            if (!r || !r->derived || strcmp(report_str(v, "protocol", ""), "session") ||
                !b[0])
                continue;
            mixed |= by && strcmp(by, b) != 0;
            by = b;
            calls += (long)json_integer_value(json_object_get(v, "verified_calls"));
            recs++;
        }
        if (!by)
            continue;
        if (!any)
            fputs("Timed digests recomputed by code other than the timed library's "
                  "process (a sample of calls drawn after each window):\n\n", fp_of(c));
        any = 1;
        FILE *fp = fp_of(c);
        fputs("- ", fp);
        esc_md(fp, inst);
        fputs(": ", fp);
        esc_md(fp, mixed ? "several verifiers (see its records)" : by);
        fprintf(fp, ", %ld calls over %ld message sizes, all agreed\n", calls, recs);
    }
    if (any)
        fputs("\n", fp_of(c));
}

static void sec_perf(cand_ctx *c, const char *stem)
{
    FILE *fp = c->fp;
    char h[6][128];
    fputs("## 4 Performance\n\n", fp);
    perf_intro(c);
    snprintf(h[0], sizeof h[0], "mean %s", c->pc.unit);
    snprintf(h[1], sizeof h[1], "%s/byte", c->pc.unit);
    snprintf(h[2], sizeof h[2], "95 %% CI of mean %s", c->pc.unit);
    const char *cols[] = {"Instance", "Message", h[0], h[1], "mean time", "MB/s",
                          "n (trials × calls)", "CV", h[2]};
    pages_table_head(fp, cols, 9, "lrrrrrrrr");
    if (perf_rows(c, perf_row) == 0)
        fputs("| no figures | | | | | | | | |\n", fp);
    fputs("\n", fp);
    pages_count_table(fp, c->s, c->cand, c->insts, c->pc.unit);
    fprintf(fp, "![%s per byte against message size](%s.svg)\n\n", c->pc.unit, stem);
    fprintf(fp, "Dispersion of the trial means (%s per call, kept trials only):\n\n",
            c->pc.unit);
    const char *dcols[] = {"Instance", "Message", "median", "Q1 – Q3", "min – max",
                           "kept trials", "disturbed retries"};
    pages_table_head(fp, dcols, 7, "lrrrrrr");
    if (perf_rows(c, disp_row) == 0)
        fputs("| no figures | | | | | | |\n", fp);
    fputs("\nRatio to the baseline (OpenSSL's SM3) at the same message size. A "
          "**paired** ratio comes from trials taken right beside a trial of the "
          "baseline, in the same round, so that both saw the host in the same "
          "state: ", fp);
    pages_ratio_estimator(fp, c->s, c->cand,
                          "it is the median of the pairs' ratios with its 95 % interval "
                          "(a block bootstrap over the pairs in the order taken), over "
                          "every pair, disturbed trials included",
                          "it is the geometric mean of the pairs' ratios with its 95 % "
                          "interval");
    fputs(". The absolute figures above are not paired: each is one "
          "instance's own trials, spread over the measurement. An *unpaired* ratio "
          "divides two such figures.\n\n", fp);
    const char *rcols[] = {"Instance", "Message", "ratio to the baseline", "pairs"};
    pages_table_head(fp, rcols, 4, "lrrr");
    int nratio = 0;
    for (size_t k = 0; k < c->ninsts; k++) {
        const char *inst = inst_at(c, k);
        for (size_t i = 0; i < json_array_size(c->sizes); i++) {
            long long size = json_integer_value(json_array_get(c->sizes, i));
            const report_record *r = report_find_record(c->s, c->cand, inst, size);
            if (!r || !r->derived)
                continue;
            char a[NUMFMT_MAX];
            fputs("| ", fp);
            esc_md(fp, inst);
            fprintf(fp, " | %s |", numfmt_msg_size(size, a, sizeof a));
            pages_ratio_cell(fp, c->s, c->cand, inst, size);
            const json_t *pr = json_object_get(r->derived, "paired_ratio");
            fprintf(fp, " %s |\n", json_is_object(pr)
                    ? numfmt_count(report_num(pr, "pairs"), a, sizeof a) : "none");
            nratio++;
        }
    }
    if (!nratio)
        fputs("| no figures | | | |\n", fp);
    fputs("\nInstances without figures:\n\n", fp);
    int lines = 0;
    for (size_t k = 0; k < c->ninsts; k++)
        lines += pages_missing(fp, c->s, c->cand, inst_at(c, k), c->sizes, 0);
    if (!lines)
        fputs("- none: every instance has figures at every size.\n", fp);
    fputs("\n", fp);
    verified_list(c);
}

static void static_row(FILE *fp, const char *inst, const json_t *b)
{
    static const char *const parts[] = {"image", "text", "rodata", "data", "bss"};
    const json_t *ss = json_object_get(b, "static_size");
    char num[NUMFMT_MAX];
    fputs("| ", fp);
    esc_md(fp, inst);
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        double v = report_num(ss, parts[i]);
        fprintf(fp, " | %s", isfinite(v) ? numfmt_bytes(v, num, sizeof num)
                                         : "not recorded");
    }
    fputs(" |\n", fp);
}

static void mem_row(FILE *fp, const report_record *r, const char *inst)
{
    char num[NUMFMT_MAX];
    const json_t *m = json_object_get(r->json, "memory");
    fputs("| ", fp);
    esc_md(fp, inst);
    fprintf(fp, " | %s", numfmt_msg_size(r->size, num, sizeof num));
    static const char *const kb[] = {"rss_baseline_kb", "rss_peak_kb"};
    for (size_t i = 0; i < 2; i++) {
        double v = report_num(m, kb[i]);
        fprintf(fp, " | %s", isfinite(v) ? numfmt_bytes(v * 1024.0, num, sizeof num)
                                         : "not recorded");
    }
    double st = report_num(m, "stack_peak_bytes");
    double hp = report_num(m, "heap_peak_bytes");
    double na = report_num(m, "heap_allocs");
    fprintf(fp, " | %s", isfinite(st) ? numfmt_bytes(st, num, sizeof num) : "not recorded");
    fprintf(fp, " | %s", isfinite(hp) ? numfmt_bytes(hp, num, sizeof num) : "not recorded");
    fprintf(fp, " (%s allocations) |\n", isfinite(na) ? numfmt_count(na, num, sizeof num)
                                                     : "not recorded");
}

static void sec_resources(cand_ctx *c)
{
    FILE *fp = c->fp;
    fputs("## 5 Resource consumption\n\n", fp);
    fputs("Static size of each library: the ELF image is the sum of p\\_memsz of "
          "its PT\\_LOAD segments; text, rodata, data and bss are its sections.\n\n", fp);
    static const char *const h1[] = {"Instance", "ELF image", "text", "rodata",
                                     "data", "bss"};
    pages_table_head(fp, h1, 6, "lrrrrr");
    for (size_t k = 0; k < c->ninsts; k++)
        static_row(fp, inst_at(c, k), report_build_entry(c->s, c->cand, inst_at(c, k)));
    fputs("\nRun-time memory per message size: baseline RSS after loading and "
          "setup, peak RSS (VmHWM) of the measuring process, and the "
          "algorithm's own peak stack (painted stack around the call) and peak "
          "heap (allocations tracked in the probe):\n\n", fp);
    static const char *const h2[] = {"Instance", "Message", "baseline RSS", "peak RSS",
                                     "peak stack", "peak heap"};
    pages_table_head(fp, h2, 6, "lrrrrr");
    int rows = 0;
    for (size_t k = 0; k < c->ninsts; k++)
        for (size_t i = 0; i < c->s->nrecs; i++) {
            const report_record *r = &c->s->recs[i];
            if (strcmp(r->candidate, c->cand) == 0 &&
                strcmp(r->instance, inst_at(c, k)) == 0 && r->derived) {
                mem_row(fp, r, inst_at(c, k));
                rows++;
            }
        }
    if (!rows)
        fputs("| no figures | | | | | |\n", fp);
    fputs("\n", fp);
}

static void log_row(FILE *fp, const char *inst, const char *what, const char *log,
                    const char *sha)
{
    fputs("| ", fp);
    esc_md(fp, inst);
    fprintf(fp, " | %s | ", what);
    esc_md(fp, log);
    fputs(" | ", fp);
    if (sha && strlen(sha) >= 16)
        fprintf(fp, "%.16s", sha);
    else
        fputs("not recorded", fp);
    fputs(" |\n", fp);
}

static void sec_evidence(cand_ctx *c)
{
    FILE *fp = c->fp;
    fputs("## 7 Raw evidence index\n\n", fp);
    fputs("Paths are relative to the dataset folder. KAT logs with the first 16 "
          "hex digits of their SHA-256:\n\n", fp);
    static const char *const h1[] = {"Instance", "Log", "File", "SHA-256 (first 16)"};
    pages_table_head(fp, h1, 4, "llll");
    int logs = 0;
    for (size_t k = 0; k < c->ninsts; k++) {
        const json_t *kat = report_kat_entry(c->s, c->cand, inst_at(c, k));
        const json_t *guide = json_object_get(kat, "guide");
        if (report_str(kat, "log", NULL) && report_str(kat, "log", "")[0]) {
            log_row(fp, inst_at(c, k), "KAT", report_str(kat, "log", ""),
                    report_str(kat, "log_sha256", NULL));
            logs++;
        }
        if (report_str(guide, "log", NULL)) {
            log_row(fp, inst_at(c, k), "KAT, guide flags", report_str(guide, "log", ""),
                    report_str(guide, "log_sha256", NULL));
            logs++;
        }
    }
    if (!logs)
        fputs("| none | | | |\n", fp);
    fputs("\nMeasurement records (one per instance and message size):\n\n", fp);
    static const char *const h2[] = {"Instance", "Message", "Status", "Record file"};
    pages_table_head(fp, h2, 4, "lrll");
    int recs = 0;
    char num[NUMFMT_MAX];
    for (size_t i = 0; i < c->s->nrecs; i++) {
        const report_record *r = &c->s->recs[i];
        if (strcmp(r->candidate, c->cand) != 0)
            continue;
        fputs("| ", fp);
        esc_md(fp, r->instance);
        fprintf(fp, " | %s | ", numfmt_msg_size(r->size, num, sizeof num));
        esc_md(fp, report_str(r->json, "status", "not recorded"));
        fputs(" | ", fp);
        esc_md(fp, r->file);
        fputs(" |\n", fp);
        recs++;
    }
    if (!recs)
        fputs("| none | | | |\n", fp);
    fputs("\n", fp);
}

int pages_candidate_md(FILE *fp, const report_dataset *ds, const report_system *s,
                       const char *cand, const char *ext, hb_err *err)
{
    char stem[256];
    cand_ctx c;
    memset(&c, 0, sizeof c);
    c.fp = fp;
    c.s = s;
    c.cand = cand;
    c.root = ds->root;
    c.insts = report_instances(s, cand);
    c.ninsts = json_array_size(c.insts);
    c.sizes = report_sizes(s, cand);
    pages_counter_of(s, &c.pc);
    pages_candidate_stem(cand, stem, sizeof stem);
    fputs("# ", fp);
    esc_md(fp, cand);
    fputs(" on ", fp);
    esc_md(fp, s->name);
    fputs("\n\n", fp);
    pages_link(fp, "Summary", "summary", ext);
    fputs(" · ", fp);
    pages_link(fp, "Method", "method", ext);
    fputs(" · ", fp);
    pages_link(fp, "All systems", "../index", ext);
    fputs("\n\n", fp);
    pages_drift_warning(fp, s, ext);
    sec_basic(&c);
    sec_env(&c);
    sec_kat(&c);
    sec_variants(&c);
    sec_perf(&c, stem);
    sec_resources(&c);
    pages_ct_section(fp, s, cand, c.insts, ext);
    sec_evidence(&c);
    sa_candidate_section(fp, ds, s, cand);
    json_decref(c.insts);
    json_decref(c.sizes);
    if (ferror(fp))
        return hb_fail(err, "page of %s on %s: write error", cand, s->name);
    return 0;
}
