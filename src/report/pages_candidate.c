/* The page of one candidate on one system in the layout of the published
 * measurement pages (the guide's §3.5): a heading with the candidate id and
 * name, the breadcrumb and system switcher, an opening statement, the
 * evaluator's caveats and the chart (so figures show in the first screen),
 * then 1 Basic information, 2 Assessment environment, 3 Functional testing
 * (KAT) with a footnote for every non-PASS instance, 4 Performance, 5
 * Resource consumption, 6 Constant-time evidence and 7 Raw evidence index.
 * Each published section keeps the published rows, columns, order and
 * number style (numfmt.h); hashbench's additions (counter and host,
 * variants, dispersion, paired ratios, instruction counts, the algorithm's
 * own memory) follow as sub-sections headed "hashbench: ..." or as
 * columns after the published ones. See pages.h for the contract. */
#include "report/pages.h"
#include "soak/soak.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "common/fs.h"
#include "kat/kat.h"
#include "kat/kat_instance.h"
#include "kat/variants.h"
#include "report/esc.h"
#include "dataset/notes.h"
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
    FILE *full;      /* the KAT notes in full, for the end of the page
                        (open_memstream on full_text); NULL until one */
    char *full_text;
    size_t full_len;
    const char *ext; /* the pages' file extension */
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

/* The candidate's display name: the algorithm of its build entries (the
 * override file's `algorithm`), NULL when none is recorded. */
static const char *display_name(const cand_ctx *c)
{
    for (size_t k = 0; k < c->ninsts; k++) {
        const json_t *alg = inst_field(c, inst_at(c, k), "algorithm");
        if (json_is_string(alg) && json_string_value(alg)[0])
            return json_string_value(alg);
    }
    return NULL;
}

/* "x86-64" / "AArch64" as the guides write them; the recorded name else. */
static const char *arch_words(const char *arch)
{
    if (!arch)
        return "an unrecorded architecture";
    if (strcmp(arch, "x86_64") == 0)
        return "x86-64";
    if (strcmp(arch, "aarch64") == 0)
        return "AArch64";
    return arch;
}

/* The heading, the breadcrumb with the system switcher (in the Markdown
 * only: the HTML template draws both itself), the opening statement, the
 * evaluator's caveats and the chart, so that figures are in the first
 * screen; the published sections follow. */
static void page_top(cand_ctx *c, const report_dataset *ds, const char *ext,
                     const char *stem)
{
    FILE *fp = c->fp;
    const char *name = display_name(c);
    const json_t *env = pages_environment(c->s);
    fputs("# ", fp);
    esc_md(fp, c->cand);
    if (name && strcmp(name, c->cand) != 0) {
        fputs(" ", fp);
        esc_md(fp, name);
    }
    fputs(" — performance on ", fp);
    esc_md(fp, arch_words(report_str(env, "arch", NULL)));
    fputs(" (system ", fp);
    esc_md(fp, c->s->name);
    fputs(")\n\n", fp);
    if (strcmp(ext, ".html") != 0) {
        char target[1024], sys[256];
        pages_link(fp, "hashbench results", "../index", ext);
        fputs(" › ", fp);
        pages_link(fp, c->s->name, "summary", ext);
        fputs(" › ", fp);
        esc_md(fp, c->cand);
        fputs(" · system: ", fp);
        int shown = 0;
        for (size_t i = 0; i < ds->nsys; i++) {
            const report_system *o = &ds->sys[i];
            if (!report_has_candidate(o, c->cand))
                continue;
            fputs(shown++ ? " · " : "", fp);
            if (o == c->s) {
                fputs("**", fp);
                esc_md(fp, o->name);
                fputs("**", fp);
                continue;
            }
            esc_file_component(o->name, sys, sizeof sys);
            snprintf(target, sizeof target, "../%s/%s", sys, stem);
            pages_link(fp, o->name, target, ext);
        }
        fputs(" · ", fp);
        pages_link(fp, "method", "method", ext);
        fputs("\n\n", fp);
    }
    fputs("These figures were taken by hashbench, independently of the submitter, on "
          "test system ", fp);
    esc_md(fp, c->s->name);
    fputs(", and are laid out as items (1)–(7) of §3.5 of the NICCS x86 "
          "self-assessment guide. They are an evaluator's measurement, not the "
          "submission's own self-assessment.\n\n", fp);
    pages_notes_caveats(fp, c->s, c->cand, c->insts);
    fprintf(fp, "![%s per byte against message size (the figures of section 4)](%s.svg)\n\n",
            c->pc.unit, stem);
    pages_drift_warning(fp, c->s, ext);
    pages_plain_shared_note(fp, c->s, ext);
}

/* "reference, optimized": the variants measured, in their first order. */
static void variants_measured(cand_ctx *c)
{
    json_t *seen = json_array();
    for (size_t k = 0; k < c->ninsts; k++) {
        const char *v = json_string_value(inst_field(c, inst_at(c, k), "variant"));
        size_t i;
        json_t *x;
        int dup = 0;
        if (!v)
            continue;
        json_array_foreach(seen, i, x)
            dup |= strcmp(json_string_value(x), v) == 0;
        if (!dup)
            json_array_append_new(seen, json_string(v));
    }
    size_t i;
    json_t *x;
    json_array_foreach(seen, i, x) {
        char low[128];
        size_t n;
        const char *v = json_string_value(x);
        for (n = 0; v[n] && n + 1 < sizeof low; n++)
            low[n] = (char)tolower((unsigned char)v[n]);
        low[n] = '\0';
        fputs(i ? ", " : "", c->fp);
        esc_md(c->fp, low);
    }
    if (json_array_size(seen) == 0)
        fputs("not recorded", c->fp);
    json_decref(seen);
}

/* The instances publishing withheld for host data, with its reason. */
static void sec_withheld(cand_ctx *c)
{
    json_t *w = report_withheld(c->s, c->cand), *e;
    size_t i;
    if (json_array_size(w)) {
        fputs("### hashbench: withheld from publication\n\n", c->fp);
        json_array_foreach(w, i, e) {
            fputs("- ", c->fp);
            esc_md(c->fp, report_str(e, "instance", ""));
            fputs(": ", c->fp);
            esc_md(c->fp, report_str(e, "reason", ""));
            fputs("\n", c->fp);
        }
        fputs("\n", c->fp);
    }
    json_decref(w);
}

static void sec_basic(cand_ctx *c, const char *ext)
{
    FILE *fp = c->fp;
    const char *name = display_name(c);
    fputs("## 1. Basic information\n\n", fp);
    fputs("- Category: cryptographic hash algorithm; function: hash\n- Algorithm: ", fp);
    esc_md(fp, name ? name : c->cand);
    fputs("\n- Implementation versions measured: ", fp);
    variants_measured(c);
    fputs("\n- Parameter sets: ", fp);
    for (size_t k = 0; k < c->ninsts; k++) {
        fputs(k ? ", " : "", fp);
        esc_md(fp, inst_at(c, k));
    }
    if (!c->ninsts)
        fputs("none recorded", fp);
    fputs("\n- Measurement method: ", fp);
    pages_link(fp, "method page of this system", "method", ext);
    fputs("\n\n### hashbench: instances\n\n", fp);
    static const char *const h2[] = {"instance", "digest bits", "variant", "build",
                                     "build profile"};
    pages_table_head(fp, h2, 5, "lrlll");
    for (size_t k = 0; k < c->ninsts; k++) {
        const char *inst = inst_at(c, k);
        const json_t *profile = inst_field(c, inst, "profile");
        fputs("| ", fp);
        esc_md(fp, inst);
        fputs(" | ", fp);
        pages_scalar(fp, inst_field(c, inst, "digest_bits"));
        fputs(" | ", fp);
        pages_scalar(fp, inst_field(c, inst, "variant"));
        fputs(" | ", fp);
        pages_scalar(fp, json_object_get(report_build_entry(c->s, c->cand, inst), "status"));
        fputs(" | ", fp);
        pages_scalar(fp, profile ? profile : json_object_get(c->s->build, "profile"));
        fputs(" |\n", fp);
    }
    fputs("\n", fp);
    sec_withheld(c);
}

/* An environment value: the string, "on"/"off" for a flag, "unavailable"
 * when the host did not offer it. */
static void env_word(FILE *fp, const json_t *v)
{
    if (json_is_string(v) && json_string_value(v)[0])
        esc_md(fp, json_string_value(v));
    else if (json_is_boolean(v))
        fputs(json_is_true(v) ? "on" : "off", fp);
    else if (json_is_integer(v))
        fprintf(fp, "%lld", (long long)json_integer_value(v));
    else
        fputs("unavailable", fp);
}

/* The core the trials were pinned to: campaign.json's "cpu", else the
 * environment's; -1 when neither says. */
static long long measured_cpu(const cand_ctx *c, const json_t *env)
{
    const json_t *v = json_object_get(c->s->campaign, "cpu");
    if (!json_is_integer(v))
        v = json_object_get(env, "cpu");
    return json_is_integer(v) ? (long long)json_integer_value(v) : -1;
}

/* A UTC time as the published pages write it: without the trailing 'Z'. */
static void utc_cell(FILE *fp, const json_t *v)
{
    char buf[64];
    if (!json_is_string(v) || !json_string_value(v)[0]) {
        fputs("not recorded", fp);
        return;
    }
    snprintf(buf, sizeof buf, "%s", json_string_value(v));
    size_t n = strlen(buf);
    if (n && buf[n - 1] == 'Z')
        buf[n - 1] = '\0';
    esc_md(fp, buf);
}

static void sec_env(cand_ctx *c)
{
    FILE *fp = c->fp;
    char rate[64];
    const json_t *env = pages_environment(c->s);
    fputs("## 2. Assessment environment\n\n", fp);
    static const char *const h1[] = {"item", "value"};
    pages_table_head(fp, h1, 2, "ll");
    fputs("| processor | ", fp);
    pages_scalar(fp, json_object_get(env, "cpu_model"));
    long long cpu = measured_cpu(c, env);
    const json_t *smt = json_object_get(env, "smt");
    if (cpu >= 0)
        fprintf(fp, " (CPU %lld, %s)", cpu, json_is_false(smt) ? "one core"
                : json_is_true(smt) ? "one logical CPU, SMT on" : "one logical CPU");
    fputs(" |\n| clock | max ", fp);
    const json_t *maxk = json_object_get(env, "scaling_max_khz");
    if (json_is_integer(maxk))
        fputs(pages_rate(json_integer_value(maxk) * 1e3, rate, sizeof rate), fp);
    else
        fputs("unavailable", fp);
    fputs(", governor ", fp);
    env_word(fp, json_object_get(env, "governor"));
    fputs(", turbo ", fp);
    env_word(fp, json_object_get(env, "turbo"));
    fputs(", SMT ", fp);
    env_word(fp, smt);
    fputs(" |\n| memory | ", fp);
    const json_t *mem = json_object_get(env, "mem_total_kb");
    if (json_is_integer(mem))
        fprintf(fp, "%lld MiB", (long long)json_integer_value(mem) / 1024);
    else
        fputs("unavailable", fp);
    fputs(" |\n| OS / kernel | ", fp);
    const json_t *os = json_object_get(env, "os");
    if (json_is_string(os) && json_string_value(os)[0])
        esc_md(fp, json_string_value(os));
    else
        fputs("Linux (distribution not recorded)", fp);
    fputs(" / ", fp);
    pages_scalar(fp, json_object_get(env, "kernel"));
    fputs(" |\n| compiler / build tool | ", fp);
    pages_scalar(fp, json_object_get(c->s->build, "compiler_version"));
    fputs(" / ", fp);
    const json_t *tool = json_object_get(c->s->campaign, "tool");
    pages_scalar(fp, tool ? tool : json_object_get(c->s->build, "tool"));
    fputs(" |\n| campaign start / end (UTC) | ", fp);
    utc_cell(fp, json_object_get(c->s->campaign, "start_utc"));
    fputs(" / ", fp);
    utc_cell(fp, json_object_get(c->s->campaign, "end_utc"));
    fputs(" |\n\n### hashbench: counter, host and flags\n\n", fp);
    pages_table_head(fp, h1, 2, "ll");
    fputs("| test system | ", fp);
    esc_md(fp, c->s->name);
    fputs(" |\n| counter | ", fp);
    esc_md(fp, c->pc.name);
    if (c->pc.description[0]) {
        fputs(" (", fp);
        esc_md(fp, c->pc.description);
        fputs(")", fp);
    }
    fprintf(fp, ", rate %s", pages_rate(c->pc.rate_hz, rate, sizeof rate));
    if (c->pc.nominal_hz == c->pc.nominal_hz && c->pc.nominal_hz > 0) {
        fprintf(fp, " (stated %s by ", pages_rate(c->pc.nominal_hz, rate, sizeof rate));
        esc_md(fp, c->pc.nominal_source[0] ? c->pc.nominal_source : "the hardware");
        fputs(")", fp);
    }
    fputs(c->pc.is_cycles ? "; core cycles" : "; **not core cycles**", fp);
    fputs(" |\n| logical CPUs | ", fp);
    pages_scalar(fp, json_object_get(env, "ncpu"));
    fputs(" |\n| virtual machine | ", fp);
    fputs(json_is_true(json_object_get(env, "hypervisor")) ? "yes (hypervisor flag set)"
                                                          : "no hypervisor flag", fp);
    fputs(" |\n| perf\\_event\\_paranoid | ", fp);
    env_word(fp, json_object_get(env, "perf_event_paranoid"));
    fputs(" |\n\nFull compiler flags of each library as built:\n\n", fp);
    static const char *const h2[] = {"instance", "flags kind", "flags"};
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

/* 1 when the instance's KAT row gets a footnote: not tested, not PASS (the
 * baseline is the oracle and is not checked), a flag fallback, or an
 * explanation in the evaluator's notes. */
static int kat_needs_note(const cand_ctx *c, const char *inst)
{
    const json_t *kat = report_kat_entry(c->s, c->cand, inst);
    const char *st = report_str(kat, "status", NULL);
    if (notes_kat(c->s->notes, c->cand, inst))
        return 1;
    if (!kat || !st)
        return 1;
    if (strcmp(report_str(kat, "flags_kind", "guide"), "guide") != 0)
        return 1;
    return strcmp(st, "PASS") != 0 && strcmp(st, "BASELINE") != 0;
}

/* The KAT note of INST, numbered NUM, in full, to FP. */
static void kat_note_full(cand_ctx *c, FILE *fp, const char *inst, int num)
{
    const json_t *kat = report_kat_entry(c->s, c->cand, inst);
    const json_t *build = report_build_entry(c->s, c->cand, inst);
    const char *mine = notes_kat(c->s->notes, c->cand, inst);
    fprintf(fp, "\\[%d\\] **", num);
    esc_md(fp, inst);
    fputs("**: ", fp);
    if (mine) {
        esc_md(fp, mine);
        fputs(" *(evaluator's note)* — hashbench recorded: ", fp);
    }
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
        fputs(".\n\n", fp);
        return;
    }
    char status[1024];
    pages_kat_status(c->s, c->cand, inst, status, sizeof status);
    const char *st = report_str(kat, "status", "not recorded");
    esc_md(fp, status);
    fputs(": ", fp);
    const char *reason = report_str(kat, "reason", "");
    esc_md(fp, reason[0] ? reason : strcmp(st, "PASS") == 0 ? "every file checked agrees"
                                                           : "no reason recorded");
    fputs(".", fp);
    char line[512];
    if (strcmp(st, "PASS") != 0)
        log_excerpt(c->root, report_str(kat, "log", NULL), st, line, sizeof line);
    else
        line[0] = '\0';
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
    fputs("\n\n", fp);
}

/* TEXT to FP as its first sentence, cut at a word near MAX bytes (with
 * "…") when it is longer. */
static void first_sentence(FILE *fp, const char *text, size_t max)
{
    size_t n = strlen(text);
    const char *stop = strstr(text, ". ");
    if (stop && (size_t)(stop - text) < n)
        n = (size_t)(stop - text);
    int cut = n > max;
    if (cut) {
        n = max;
        while (n > max / 2 && text[n] != ' ')
            n--;
    }
    char *head = strndup(text, n);
    esc_md(fp, head ? head : "");
    free(head);
    if (cut)
        fputs("…", fp);
}

/* The KAT note of INST, numbered NUM: in full when short; else its first
 * sentence, with a link to the whole of it under section 7
 * (PAGES_KAT_NOTES_HEADING, sec_full_notes). */
static void kat_note(cand_ctx *c, const char *inst, int num)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem)
        return;
    kat_note_full(c, mem, inst, num);
    fclose(mem);
    if (len <= PAGES_KAT_NOTE_MAX || (!c->full &&
                                      !(c->full = open_memstream(&c->full_text,
                                                                 &c->full_len)))) {
        fputs(text, c->fp);
        free(text);
        return;
    }
    fputs(text, c->full);
    free(text);
    FILE *fp = c->fp;
    const json_t *kat = report_kat_entry(c->s, c->cand, inst);
    const json_t *build = report_build_entry(c->s, c->cand, inst);
    const char *mine = notes_kat(c->s->notes, c->cand, inst);
    fprintf(fp, "\\[%d\\] **", num);
    esc_md(fp, inst);
    fputs("**: ", fp);
    if (mine) {
        first_sentence(fp, mine, 160);
        fputs(" *(evaluator's note)*", fp);
    } else if (!kat) {
        fputs("not KAT-tested (build status ", fp);
        esc_md(fp, report_str(build, "status", "not recorded"));
        fputs("): ", fp);
        first_sentence(fp, report_str(build, "reason", ""), 160);
    } else {
        esc_md(fp, report_str(kat, "status", "not recorded"));
        fputs(": ", fp);
        first_sentence(fp, report_str(kat, "reason", "no reason recorded"), 160);
    }
    fputs(" ([the full note](#" PAGES_KAT_NOTES_ANCHOR "))\n\n", fp);
}

/* Under section 7, the raw evidence: the KAT notes section 3 gives in
 * short, whole. */
static void sec_full_notes(cand_ctx *c)
{
    if (!c->full)
        return;
    fclose(c->full);
    c->full = NULL;
    fputs("### " PAGES_KAT_NOTES_HEADING "\n\nThe notes of section 3 that it gives in "
          "short, whole, as hashbench recorded them:\n\n", c->fp);
    fwrite(c->full_text, 1, c->full_len, c->fp);
    free(c->full_text);
    c->full_text = NULL;
}

/* The manifest sentence: where the expected digests came from. */
static void kat_source(cand_ctx *c)
{
    int manifest = 0, files = 0, tested = 0;
    for (size_t k = 0; k < c->ninsts; k++) {
        const json_t *kat = report_kat_entry(c->s, c->cand, inst_at(c, k));
        size_t i;
        json_t *f;
        tested += kat && strcmp(report_str(kat, "status", ""), "BASELINE") != 0;
        json_array_foreach(json_object_get(kat, "files"), i, f) {
            const char *from = report_str(f, "expected_from", "");
            manifest += strcmp(from, "manifest") == 0;
            files += strcmp(from, "file") == 0;
        }
    }
    FILE *fp = c->fp;
    if (!tested) {
        fputs("No library of this candidate was checked against submitted vectors "
              "(the baseline is OpenSSL's own implementation and serves as the "
              "reference).\n\n", fp);
        return;
    }
    if (!manifest && !files) {
        fputs("No library of this candidate was compared with known answers: its "
              "package submits no KAT vectors that name its instances (no Test_Vectors "
              "file, no kat.sha256 line), so they read NOKAT and their figures are those "
              "of code nothing verified.\n\n", fp);
        return;
    }
    fputs("Before any timing, each library hashed the messages of the submitted KAT "
          "files and its output was compared with ", fp);
    if (manifest) {
        fputs("the SHA-256 digests of the candidate's manifest (", fp);
        esc_md(fp, c->cand);
        fputs("/kat.sha256, canonical text of each file)", fp);
    }
    if (manifest && files)
        fputs(" and, for files it does not list, ", fp);
    if (files || !manifest)
        fputs("the submitted vector files themselves", fp);
    fputs(".\n\n", fp);
}

/* The KAT files of INST that were not compared, each with why, as
 * "KAT_2_23 (no vectors submitted), ..." to FP (may be NULL); returns how
 * many. The three files every instance has (KAT_2_12, KAT_2_23, KAT_Loop)
 * not among the files compared nor among those kat.json says were skipped
 * had no expected digests to compare with; KAT_2_33 only when skipped. */
static int kat_not_compared(const cand_ctx *c, const char *inst, FILE *fp)
{
    static const char *const kinds[] = {"KAT_2_12_", "KAT_2_23_", "KAT_Loop_"};
    const json_t *kat = report_kat_entry(c->s, c->cand, inst);
    const json_t *files = json_object_get(kat, "files"), *skipped =
        json_object_get(kat, "not_checked"), *f;
    size_t i;
    int n = 0;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        int seen = 0;
        json_array_foreach(files, i, f)
            seen |= strncmp(report_str(f, "name", ""), kinds[k], strlen(kinds[k])) == 0;
        json_array_foreach(skipped, i, f)
            seen |= strncmp(report_str(f, "name", ""), kinds[k], strlen(kinds[k])) == 0;
        if (seen)
            continue;
        if (fp)
            fprintf(fp, "%s%.*s (no vectors submitted)", n ? ", " : "",
                    (int)strlen(kinds[k]) - 1, kinds[k]);
        n++;
    }
    json_array_foreach(skipped, i, f) {
        if (fp) {
            fputs(n ? ", " : "", fp);
            esc_md(fp, report_str(f, "name", "?"));
            fputs(" (", fp);
            esc_md(fp, report_str(f, "why", "skipped"));
            fputs(")", fp);
        }
        n++;
    }
    return n;
}

/* After the KAT table: for each instance compared with known answers, the
 * files that were not, and why. */
static void kat_unchecked_list(cand_ctx *c)
{
    int any = 0;
    for (size_t k = 0; k < c->ninsts; k++) {
        const char *inst = inst_at(c, k);
        const char *st = report_str(report_kat_entry(c->s, c->cand, inst), "status", "");
        if (!json_array_size(json_object_get(report_kat_entry(c->s, c->cand, inst),
                                             "files")) ||
            !strcmp(st, "BASELINE") || !kat_not_compared(c, inst, NULL))
            continue;
        fputs(any++ ? "- **" : "Not compared with known answers:\n\n- **", c->fp);
        esc_md(c->fp, inst);
        fputs("**: ", c->fp);
        kat_not_compared(c, inst, c->fp);
        fputs("\n", c->fp);
    }
    if (any)
        fputs("\n", c->fp);
}

/* The short KAT cell: the status, its footnote mark, and for a failed
 * instance whether it was timed. */
static void kat_cell(cand_ctx *c, const char *inst, int note)
{
    FILE *fp = c->fp;
    const json_t *kat = report_kat_entry(c->s, c->cand, inst);
    const char *st = report_str(kat, "status", NULL);
    esc_md(fp, kat ? (st ? st : "not recorded") : "not tested");
    if (note)
        fprintf(fp, " \\[%d\\]", note);
    if (kat && st && kat_status_failed(st)) {
        int timed = 0;
        for (size_t i = 0; i < c->s->nrecs && !timed; i++)
            timed = strcmp(c->s->recs[i].candidate, c->cand) == 0 &&
                    strcmp(c->s->recs[i].instance, inst) == 0;
        fputs(timed ? " (timed with --time-failed)" : " (not timed)", fp);
    }
}

/* What was checked, from the full status: "2_12, 2_23, Loop". */
static void kat_checked_cell(cand_ctx *c, const char *inst)
{
    char status[1024];
    const json_t *kat = report_kat_entry(c->s, c->cand, inst);
    kat_status_text(kat, status, sizeof status);
    char *open = strstr(status, " (");
    size_t n = strlen(status);
    if (!kat || !open || status[n - 1] != ')') {
        fputs("—", c->fp);
        return;
    }
    status[n - 1] = '\0';
    /* the build flags column says which flags gave the verdict */
    char *tag = strstr(open + 2, KAT_REBUILT_TAG);
    if (tag && strcmp(tag, KAT_REBUILT_TAG) == 0)
        *(tag > open + 2 ? tag - 2 : tag) = '\0';
    esc_md(c->fp, open + 2);
}

static void sec_kat(cand_ctx *c)
{
    FILE *fp = c->fp;
    int notes = 0;
    fputs("## 3. Functional testing (KAT)\n\n", fp);
    kat_source(c);
    static const char *const h[] = {"instance", "build flags", "KAT",
                                    "files checked (hashbench)"};
    pages_table_head(fp, h, 4, "llll");
    for (size_t k = 0; k < c->ninsts; k++) {
        const char *inst = inst_at(c, k);
        const json_t *kat = report_kat_entry(c->s, c->cand, inst);
        fputs("| ", fp);
        esc_md(fp, inst);
        fputs(" | ", fp);
        if (kat)
            esc_md(fp, report_str(kat, "flags_kind", "not recorded"));
        else
            esc_md(fp, report_str(report_build_entry(c->s, c->cand, inst), "status",
                                  "not built"));
        fputs(" | ", fp);
        kat_cell(c, inst, kat_needs_note(c, inst) ? ++notes : 0);
        fputs(" | ", fp);
        kat_checked_cell(c, inst);
        fputs(" |\n", fp);
    }
    fputs("\n", fp);
    kat_unchecked_list(c);
    if (!notes) {
        fputs("Every instance passed the known-answer files its row lists (files "
              "checked), with the guide's flags.\n\n", fp);
        return;
    }
    notes = 0;
    for (size_t k = 0; k < c->ninsts; k++)
        if (kat_needs_note(c, inst_at(c, k)))
            kat_note(c, inst_at(c, k), ++notes);
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
    fputs("### hashbench: variants compared\n\n", fp);
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
        fprintf(fp, "The columns that the guide's tables fill with the core's clock "
                    "count hold **%s, not core cycles** here: the counter ticks at a "
                    "fixed rate whatever the core clock does. ", c->pc.unit);
    if (c->pc.mixed)
        fputs("Records of this system used more than one counter; see each record. ", fp);
    fputs("Mean per call = sum of counter values / sum of calls over the kept trials; "
          "MB/s = 10^6 bytes per second; n = calls timed (trials × calls per trial). "
          "CV and the 95 % interval of the mean (batch means over the trials in the "
          "order they were taken) are hashbench's additions, and so is the *harness* "
          "column: what a timed window holds besides the hash at that size (its fresh "
          "messages' footprint, the chaining of each message to the previous digest, "
          "the loop), timed with hashbench's own library that returns at once, per "
          "call and as a share of the mean time. It is included in the figures, not "
          "taken out (", fp);
    pages_link(fp, "method", "method", c->ext);
    fputs(").\n\n", fp);
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

/* "100000 (5 × 20000)": calls timed, kept trials and calls per trial. */
static void n_cell(FILE *fp, const report_record *r)
{
    const json_t *d = r->derived;
    double n = report_num(d, "n"), trials = report_num(d, "trials");
    double cpt = report_num(json_object_get(r->json, "plan"), "calls_per_trial");
    if (!isfinite(n)) {
        fputs("n/a", fp);
        return;
    }
    fprintf(fp, "%.0f", n);
    if (isfinite(trials) && isfinite(cpt) && trials * cpt == n)
        fprintf(fp, " (%.0f × %.0f)", trials, cpt);
    else if (isfinite(trials))
        fprintf(fp, " (%.0f trials, calls per trial varied)", trials);
}

static void perf_row(FILE *fp, const report_record *r, const char *inst)
{
    char a[NUMFMT_MAX], b[NUMFMT_MAX], p[NUMFMT_MAX];
    const json_t *d = r->derived;
    inst_cell(fp, r, inst);
    fprintf(fp, " | %s", numfmt_msg_bytes(r->size, a, sizeof a));
    fprintf(fp, " | %s", numfmt_count(report_num(d, "mean_ticks_per_call"), a, sizeof a));
    fprintf(fp, " | %s", numfmt_fixed1(report_num(d, "ticks_per_byte"), a, sizeof a));
    fprintf(fp, " | %s", numfmt_time_ns(report_num(d, "mean_ns_per_call"), a, sizeof a));
    fprintf(fp, " | %s | ", numfmt_fixed1(report_num(d, "mb_per_s"), a, sizeof a));
    n_cell(fp, r);
    double cv = report_num(d, "cv_percent");
    fprintf(fp, " | %s", isfinite(cv) ? numfmt_sig3(cv, a, sizeof a) : "n/a");
    fputs(isfinite(cv) ? " %" : "", fp);
    double lo = report_num(d, "ci95_low"), hi = report_num(d, "ci95_high");
    if (isfinite(lo) && isfinite(hi))
        fprintf(fp, " | %s – %s (±%s %%)", numfmt_count(lo, a, sizeof a),
                numfmt_count(hi, b, sizeof b),
                numfmt_sig3(report_num(d, "ci95_rel_percent"), p, sizeof p));
    else
        fputs(" | n/a", fp);
    pages_harness_cell(fp, r);
    fputs(" |\n", fp);
}

static void disp_row(FILE *fp, const report_record *r, const char *inst)
{
    char a[NUMFMT_MAX], b[NUMFMT_MAX];
    const json_t *d = r->derived;
    inst_cell(fp, r, inst);
    fprintf(fp, " | %s", numfmt_msg_bytes(r->size, a, sizeof a));
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

/* Calls ROW for every record of the candidate that has figures, in the
 * submission's order of instances and ascending size. */
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

/* Who recomputed the sampled timed digests of each instance, over its
 * session records (verification.verified_by): only for records of the
 * session planner. */
static void verified_list(cand_ctx *c)
{
    FILE *fp = c->fp;
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
                  "process (a sample of calls drawn after each window):\n\n", fp);
        any = 1;
        fputs("- ", fp);
        esc_md(fp, inst);
        fputs(": ", fp);
        esc_md(fp, mixed ? "several verifiers (see its records)" : by);
        fprintf(fp, ", %ld calls over %ld message sizes, all agreed\n", calls, recs);
    }
    if (any)
        fputs("\n", fp);
}

/* 1 when the system has an instruction-count record of the candidate. */
static int has_count_records(const cand_ctx *c)
{
    const char *key;
    json_t *v;
    size_t n = strlen(c->cand);
    json_object_foreach(c->s->count, key, v)
        if (strncmp(key, c->cand, n) == 0 && key[n] == '/')
            return 1;
    return 0;
}

static void sec_perf_ratios(cand_ctx *c)
{
    FILE *fp = c->fp;
    fprintf(fp, "### hashbench: paired ratio to the baseline\n\n"
                "Ratio to the baseline (OpenSSL's %s) at the same message size. A "
                "**paired** ratio comes from trials taken right beside a trial of the "
                "baseline, in the same round, so that both saw the host in the same "
                "state: ", hb_baseline_primary()->algorithm);
    pages_ratio_estimator(fp, c->s, c->cand,
                          "it is the median of the pairs' ratios with its 95 % interval "
                          "(a block bootstrap over the pairs in the order taken), over "
                          "every pair, disturbed trials included",
                          "it is the geometric mean of the pairs' ratios with its 95 % "
                          "interval");
    fputs(". The absolute figures above are not paired: each is one "
          "instance's own trials, spread over the measurement. An *unpaired* ratio "
          "divides two such figures.\n\n", fp);
    pages_ratio_drift_note(fp, c->s, c->ext);
    const char *rcols[] = {"instance", "message", "ratio to the baseline", "pairs"};
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
            fprintf(fp, " | %s |", numfmt_msg_bytes(size, a, sizeof a));
            pages_ratio_cell(fp, c->s, c->cand, inst, size, 0);
            const json_t *pr = json_object_get(r->derived, "paired_ratio");
            fprintf(fp, " %s |\n", json_is_object(pr)
                    ? numfmt_count(report_num(pr, "pairs"), a, sizeof a) : "none");
            nratio++;
        }
    }
    if (!nratio)
        fputs("| no figures | | | |\n", fp);
    fputs("\n", fp);
}

static void sec_perf(cand_ctx *c)
{
    FILE *fp = c->fp;
    char h[3][128];
    fputs("## 4. Performance\n\n", fp);
    perf_intro(c);
    pages_timed_compiler(fp, c->s);
    snprintf(h[0], sizeof h[0], "mean %s", c->pc.unit);
    snprintf(h[1], sizeof h[1], "%s/byte", c->pc.unit);
    snprintf(h[2], sizeof h[2], "95 %% CI of mean %s", c->pc.unit);
    const char *cols[] = {"instance", "message", h[0], h[1], "mean time", "MB/s",
                          "n", "CV", h[2], "of which harness ≈"};
    pages_table_head(fp, cols, 10, "lrrrrrrrrr");
    if (perf_rows(c, perf_row) == 0)
        fputs("| no figures | | | | | | | | | |\n", fp);
    fputs("\n", fp);
    fputs("### hashbench: instances without figures\n\n", fp);
    int lines = 0;
    for (size_t k = 0; k < c->ninsts; k++)
        lines += pages_missing(fp, c->s, c->cand, inst_at(c, k), c->sizes, 0);
    if (!lines)
        fputs("- none: every instance has figures at every size.\n", fp);
    fputs("\n", fp);
    fprintf(fp, "### hashbench: dispersion of the trial means\n\n"
                "Trial means in %s per call, kept trials only:\n\n", c->pc.unit);
    const char *dcols[] = {"instance", "message", "median", "Q1 – Q3", "min – max",
                           "kept trials", "disturbed retries"};
    pages_table_head(fp, dcols, 7, "lrrrrrr");
    if (perf_rows(c, disp_row) == 0)
        fputs("| no figures | | | | | | |\n", fp);
    fputs("\n", fp);
    sec_perf_ratios(c);
    if (has_count_records(c)) {
        fputs("### hashbench: instructions per byte\n\n", fp);
        char stem[256];
        pages_candidate_stem(c->cand, stem, sizeof stem);
        pages_count_table(fp, c->s, c->cand, c->insts, c->pc.unit, stem);
    }
    pages_compilers_table(fp, c->s, c->cand, c->insts);
    verified_list(c);
}

/* A whole number of bytes or KiB from OBJ's KEY, "n/a" when absent. */
static void int_cell(FILE *fp, const json_t *obj, const char *key, const char *unit)
{
    double v = report_num(obj, key);
    if (isfinite(v))
        fprintf(fp, " | %.0f%s", v, unit);
    else
        fputs(" | n/a", fp);
}

static void mem_row(FILE *fp, const report_record *r, const char *inst,
                    const json_t *build)
{
    const json_t *m = json_object_get(r->json, "memory");
    fputs("| ", fp);
    esc_md(fp, inst);
    fprintf(fp, " | hash_%lld", r->size);
    int_cell(fp, json_object_get(build, "static_size"), "image", "");
    int_cell(fp, m, "rss_baseline_kb", " KiB");
    int_cell(fp, m, "rss_peak_kb", " KiB");
    fputs(" |\n", fp);
}

static void own_mem_row(FILE *fp, const report_record *r, const char *inst)
{
    const json_t *m = json_object_get(r->json, "memory");
    fputs("| ", fp);
    esc_md(fp, inst);
    fprintf(fp, " | %lld B", r->size);
    int_cell(fp, m, "stack_peak_bytes", "");
    int_cell(fp, m, "heap_peak_bytes", "");
    int_cell(fp, m, "heap_allocs", "");
    fputs(" |\n", fp);
}

static void soak_rows(cand_ctx *c);

static void sec_resources(cand_ctx *c)
{
    FILE *fp = c->fp;
    fputs("## 5. Resource consumption\n\n", fp);
    fputs("The static figure is the library's loadable image (the sum of p\\_memsz "
          "over its PT\\_LOAD segments). Baseline RSS (after loading and setup) and "
          "peak RSS (VmHWM) belong to the whole measuring process, probe and C "
          "library included, read by hashbench from outside the timed process "
          "(the area that hands it its messages left out): both figures bound the "
          "algorithm's needs from above rather than isolating them; its own stack "
          "and heap follow below.\n\n", fp);
    static const char *const h1[] = {"instance", "operation", "static: ELF image (bytes)",
                                     "baseline RSS", "peak RSS"};
    pages_table_head(fp, h1, 5, "llrrr");
    int rows = 0;
    for (size_t k = 0; k < c->ninsts; k++) {
        const char *inst = inst_at(c, k);
        const json_t *b = report_build_entry(c->s, c->cand, inst);
        for (size_t i = 0; i < json_array_size(c->sizes); i++) {
            const report_record *r = report_find_record(
                c->s, c->cand, inst, json_integer_value(json_array_get(c->sizes, i)));
            if (r && r->derived) {
                mem_row(fp, r, inst, b);
                rows++;
            }
        }
    }
    if (!rows)
        fputs("| no figures | | | | |\n", fp);
    fputs("\n### hashbench: the algorithm's own stack and heap\n\n"
          "Measured inside the probe around each call: the peak stack by painting "
          "the stack below the caller, the heap by tracking allocations, with what "
          "the library keeps from its loading on (its constructor's, its first "
          "calls', and about 3.6 KiB of the dynamic linker's records of it) "
          "(bytes):\n\n", fp);
    /* by message, as in section 4: "operation" and "peak" would make the
     * table read as the published one (report/selfassess.c) */
    static const char *const h2[] = {"instance", "message", "peak stack", "peak heap",
                                     "heap allocations"};
    pages_table_head(fp, h2, 5, "llrrr");
    if (perf_rows(c, own_mem_row) == 0)
        fputs("| no figures | | | | |\n", fp);
    fputs("\n### hashbench: static size by section\n\n", fp);
    static const char *const h3[] = {"instance", "loadable image", "text", "rodata",
                                     "data", "bss"};
    pages_table_head(fp, h3, 6, "lrrrrr");
    for (size_t k = 0; k < c->ninsts; k++) {
        const json_t *ss = json_object_get(
            report_build_entry(c->s, c->cand, inst_at(c, k)), "static_size");
        fputs("| ", fp);
        esc_md(fp, inst_at(c, k));
        static const char *const parts[] = {"image", "text", "rodata", "data", "bss"};
        for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
            int_cell(fp, ss, parts[i], "");
        fputs(" |\n", fp);
    }
    fputs("\n", fp);
    soak_rows(c);
}

/* The long-run stability check's row of each instance that has a record
 * (soak/soak.h); nothing when none has. */
static void soak_rows(cand_ctx *c)
{
    FILE *fp = c->fp;
    int any = 0;
    for (size_t k = 0; k < c->ninsts && !any; k++)
        any = report_soak_record(c->s, c->cand, inst_at(c, k), NULL) != NULL;
    if (!any)
        return;
    fprintf(fp, "### hashbench: long-run stability\n\n"
            "Each instance called in one sandboxed process on fresh keyed messages of "
            "random lengths (0 to 64 KiB and the guide's sizes), every digest "
            "recomputed (by OpenSSL, or by fresh processes of the same library); its "
            "resident memory, descriptors and mappings read from outside after every "
            "%d calls, growth beyond %lld KiB, %d descriptors or %d mappings a "
            "failure (`hashbench soak`).\n\n", SOAK_BATCH, SOAK_RSS_GROWTH_KIB,
            SOAK_FD_GROWTH, SOAK_MAPS_GROWTH);
    static const char *const h[] = {"instance", "verdict", "calls", "seconds",
                                    "RSS (KiB)", "descriptors", "mappings",
                                    "recomputed by", "first failure"};
    pages_table_head(fp, h, 9, "llrrrrrll");
    for (size_t k = 0; k < c->ninsts; k++) {
        const json_t *r = report_soak_record(c->s, c->cand, inst_at(c, k), NULL);
        if (!r)
            continue;
        const json_t *o = json_object_get(r, "outside");
        const json_t *st = json_object_get(o, "start"), *pk = json_object_get(o, "peak");
        fputs("| ", fp);
        esc_md(fp, inst_at(c, k));
        fputs(" | ", fp);
        esc_md(fp, report_str(r, "verdict", "not recorded"));
        fprintf(fp, " | %lld | %.0f", (long long)json_integer_value(json_object_get(r, "calls")),
                json_number_value(json_object_get(r, "seconds")));
        static const char *const keys[] = {"rss_kib", "fds", "maps"};
        for (size_t i = 0; i < 3; i++) {
            long long a = json_integer_value(json_object_get(st, keys[i]));
            long long b = json_integer_value(json_object_get(pk, keys[i]));
            if (a >= 0 && b >= 0 && st && pk)
                fprintf(fp, " | %lld to %lld", a, b);
            else
                fputs(" | not read", fp);
        }
        fputs(" | ", fp);
        esc_md(fp, report_str(r, "verified_by", ""));
        fputs(" | ", fp);
        const json_t *f = json_object_get(r, "failure");
        if (f) {
            char text[1400];
            snprintf(text, sizeof text, "call %lld, message key %.64s, %lld B: %.1000s",
                     (long long)json_integer_value(json_object_get(f, "call")),
                     report_str(f, "message_key", ""),
                     (long long)json_integer_value(json_object_get(f, "length_bytes")),
                     report_str(f, "what", ""));
            esc_md(fp, text);
        } else {
            fputs("none", fp);
        }
        fputs(" |\n", fp);
    }
    fputs("\n", fp);
}

/* PATH relative to the system's folder: without the leading "<system>/". */
static void system_rel(FILE *fp, const cand_ctx *c, const char *path)
{
    size_t n = strlen(c->s->name);
    if (strncmp(path, c->s->name, n) == 0 && path[n] == '/')
        path += n + 1;
    esc_md(fp, path);
}

static void log_row(cand_ctx *c, const char *inst, const char *what, const char *log,
                    const char *sha)
{
    FILE *fp = c->fp;
    fputs("| ", fp);
    esc_md(fp, inst);
    fprintf(fp, " | %s (sha256 ", what);
    if (sha && strlen(sha) >= 16)
        fprintf(fp, "%.16s…", sha);
    else
        fputs("not recorded", fp);
    fputs(") | ", fp);
    system_rel(fp, c, log);
    fputs(" |\n", fp);
}

static void file_row(cand_ctx *c, const char *inst, const char *what, const char *file)
{
    FILE *fp = c->fp;
    fputs("| ", fp);
    esc_md(fp, inst);
    fputs(" | ", fp);
    esc_md(fp, what);
    fputs(" | ", fp);
    system_rel(fp, c, file);
    fputs(" |\n", fp);
}

/* Per instance: its KAT log(s), then its records by ascending size, then
 * its constant-time and instruction-count records. */
static void sec_evidence(cand_ctx *c)
{
    FILE *fp = c->fp;
    fputs("## 7. Raw evidence index\n\n", fp);
    fputs("Paths are relative to this system's folder ", fp);
    esc_md(fp, c->s->name);
    fputs("/ of the published dataset. Each record holds the probe's command, the "
          "environment, the plan and every raw trial, so each figure above can be "
          "derived again (`hashbench validate`).\n\n", fp);
    static const char *const h1[] = {"instance", "item", "file"};
    pages_table_head(fp, h1, 3, "lll");
    int rows = 0;
    for (size_t k = 0; k < c->ninsts; k++) {
        const char *inst = inst_at(c, k);
        const json_t *kat = report_kat_entry(c->s, c->cand, inst);
        const json_t *guide = json_object_get(kat, "guide");
        if (report_str(kat, "log", "")[0]) {
            log_row(c, inst, "KAT log", report_str(kat, "log", ""),
                    report_str(kat, "log_sha256", NULL));
            rows++;
        }
        if (report_str(guide, "log", "")[0]) {
            log_row(c, inst, "KAT log, guide flags", report_str(guide, "log", ""),
                    report_str(guide, "log_sha256", NULL));
            rows++;
        }
        for (size_t i = 0; i < json_array_size(c->sizes); i++) {
            long long size = json_integer_value(json_array_get(c->sizes, i));
            const report_record *r = report_find_record(c->s, c->cand, inst, size);
            char what[128];
            if (!r)
                continue;
            const char *st = report_str(r->json, "status", "OK");
            if (strcmp(st, "OK") != 0)
                snprintf(what, sizeof what, "timing hash_%lld (%.40s)", size, st);
            else
                snprintf(what, sizeof what, "timing hash_%lld", size);
            file_row(c, inst, what, r->file);
            rows++;
        }
        const char *file = NULL;
        if (report_ct_record(c->s, c->cand, inst, &file) && file) {
            file_row(c, inst, "constant-time evidence", file);
            rows++;
        }
        file = NULL;
        if (report_soak_record(c->s, c->cand, inst, &file) && file) {
            file_row(c, inst, "long-run stability", file);
            rows++;
        }
        for (size_t i = 0; i < json_array_size(c->sizes); i++) {
            long long size = json_integer_value(json_array_get(c->sizes, i));
            char what[128];
            file = NULL;
            if (!report_count_record(c->s, c->cand, inst, size, &file) || !file)
                continue;
            snprintf(what, sizeof what, "instruction count hash_%lld", size);
            file_row(c, inst, what, file);
            rows++;
        }
    }
    if (!rows)
        fputs("| none | | |\n", fp);
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
    c.ext = ext;
    c.insts = report_instances(s, cand);
    c.ninsts = json_array_size(c.insts);
    c.sizes = report_sizes(s, cand);
    pages_counter_of(s, &c.pc);
    pages_candidate_stem(cand, stem, sizeof stem);
    page_top(&c, ds, ext, stem);
    sec_basic(&c, ext);
    sec_env(&c);
    sec_kat(&c);
    sec_variants(&c);
    sec_perf(&c);
    sec_resources(&c);
    pages_ct_section(fp, s, cand, c.insts, ext);
    sec_evidence(&c);
    sec_full_notes(&c);
    sa_candidate_section(fp, ds, s, cand);
    json_decref(c.insts);
    json_decref(c.sizes);
    if (ferror(fp))
        return hb_fail(err, "page of %s on %s: write error", cand, s->name);
    return 0;
}
