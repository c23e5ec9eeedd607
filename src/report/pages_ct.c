/* The constant-time parts of the report, from the records of the ct stage
 * (ct/ct.h; DATA/<system>/ct/<cand>/<Inst>.json): section 6 of a candidate
 * page (per instance the verdict, every secret-dependent branch and memory
 * index with file:line and an escaped excerpt of the line, the timing
 * test's t and its measurement count), the summary's constant-time table
 * and the method page's section on both methods and their limits. A verdict
 * is worded "none found by this analysis", never "constant-time". */
#include "report/pages.h"

#include <math.h>
#include <string.h>
#include "ct/ct.h"
#include "ct/ct_plan.h"
#include "report/esc.h"

/* The words of a record's verdict. */
static const char *verdict_words(const json_t *r)
{
    const char *v = report_str(r, "verdict", "");
    if (strcmp(v, "FOUND") == 0)
        return "message-dependent behaviour found";
    if (strcmp(v, "NONE_FOUND") == 0)
        return "none found by this analysis";
    if (strcmp(v, "NOT_ANALYSABLE") == 0)
        return "not analysable";
    return "not recorded";
}

static void count_kinds(const json_t *findings, int *branches, int *indexes)
{
    size_t i;
    json_t *f;
    *branches = *indexes = 0;
    json_array_foreach(findings, i, f) {
        const char *k = report_str(f, "kind", "");
        *branches += strcmp(k, "branch") == 0;
        *indexes += strcmp(k, "memory_index") == 0;
    }
}

static void taint_cell(FILE *fp, const json_t *taint)
{
    int b, m;
    if (strcmp(report_str(taint, "status", ""), "ANALYSED") != 0) {
        fputs("not analysable: ", fp);
        esc_md(fp, report_str(taint, "reason", "no reason recorded"));
        return;
    }
    count_kinds(json_object_get(taint, "findings"), &b, &m);
    if (!b && !m)
        fputs("none found", fp);
    else
        fprintf(fp, "%d branch%s, %d memory index%s", b, b == 1 ? "" : "es", m,
                m == 1 ? "" : "es");
}

static void timing_cell(FILE *fp, const json_t *tm)
{
    const json_t *t = json_object_get(tm, "t");
    if (strcmp(report_str(tm, "status", ""), "MEASURED") != 0 || !json_is_number(t)) {
        fputs("not measured: ", fp);
        esc_md(fp, report_str(tm, "reason", "no reason recorded"));
        return;
    }
    double v = json_number_value(t);
    fprintf(fp, "t = %.2f over %lld measurements (%s)", v,
            (long long)json_integer_value(json_object_get(tm, "measurements")),
            fabs(v) > CT_T_THRESHOLD ? "difference" : "not detected");
}

/* Why an instance has no constant-time record. */
static const char *why_none(const report_system *s, const char *cand, const char *inst)
{
    const char *st = report_str(report_kat_entry(s, cand, inst), "status", NULL);
    if (!st)
        return "not analysed (not KAT-tested)";
    if (strcmp(st, "NOKAT") == 0)
        return "not analysed (no KAT vectors were submitted to compare it with: NOKAT; "
               "the stage takes verified instances only)";
    if (strcmp(st, "PASS") != 0 && strcmp(st, "BASELINE") != 0)
        return "not analysed (did not pass its KATs)";
    return "not analysed (no constant-time record: the ct stage did not run)";
}

static void findings_list(FILE *fp, const char *inst, const json_t *findings)
{
    size_t i;
    json_t *f;
    json_array_foreach(findings, i, f) {
        int branch = strcmp(report_str(f, "kind", ""), "branch") == 0;
        fputs("- ", fp);
        esc_md(fp, inst);
        fputs(branch ? ": secret-dependent branch at " : ": secret-dependent memory index at ",
              fp);
        const char *file = report_str(f, "file", "");
        if (file[0]) {
            esc_md(fp, file);
            fprintf(fp, ":%lld", (long long)json_integer_value(json_object_get(f, "line")));
        } else {
            fputs("a place without line information in ", fp);
            esc_md(fp, report_str(f, "object", "?"));
        }
        fputs(" in ", fp);
        esc_md(fp, report_str(f, "function", "?"));
        const char *via = report_str(f, "via", "");
        if (via[0]) {
            fputs(" (through ", fp);
            esc_md(fp, via);
            fputs(")", fp);
        }
        fprintf(fp, ", reported %lld time%s", (long long)json_integer_value(json_object_get(f, "count")),
                json_integer_value(json_object_get(f, "count")) == 1 ? "" : "s");
        const char *ex = report_str(f, "excerpt", "");
        if (ex[0]) {
            fputs(": ", fp);
            esc_md(fp, ex);
        }
        fputs("\n", fp);
    }
}

void pages_ct_section(FILE *fp, const report_system *s, const char *cand, const json_t *insts,
                      const char *ext)
{
    size_t k;
    json_t *v;
    fputs("## 6. Constant-time evidence\n\n", fp);
    fputs("For each instance that passed its KATs: a taint check under Valgrind's "
          "memcheck (branches on, and memory indexes computed from, message bytes) "
          "and a timing test (an all-zero message against random messages of the "
          "same length, Welch's t; \\|t\\| above 4.5 is evidence of a difference). "
          "\"None found by this analysis\" is not a proof of constant-time "
          "behaviour: see ", fp);
    pages_link(fp, "Method", "method", ext);
    fputs(".\n\n", fp);
    static const char *const h[] = {"Instance", "Verdict", "Taint check", "Timing test",
                                    "Record"};
    pages_table_head(fp, h, 5, "lllll");
    json_array_foreach(insts, k, v) {
        const char *inst = json_string_value(v);
        const char *file = NULL;
        const json_t *r = report_ct_record(s, cand, inst, &file);
        fputs("| ", fp);
        esc_md(fp, inst);
        fputs(" | ", fp);
        if (!r) {
            fprintf(fp, "%s | | | |\n", why_none(s, cand, inst));
            continue;
        }
        fputs(verdict_words(r), fp);
        fputs(" | ", fp);
        taint_cell(fp, json_object_get(r, "taint"));
        fputs(" | ", fp);
        timing_cell(fp, json_object_get(r, "timing"));
        fputs(" | ", fp);
        esc_md(fp, file ? file : "");
        fputs(" |\n", fp);
    }
    fputs("\n", fp);
    int any = 0;
    json_array_foreach(insts, k, v) {
        const json_t *r = report_ct_record(s, cand, json_string_value(v), NULL);
        const json_t *f = json_object_get(json_object_get(r, "taint"), "findings");
        if (json_array_size(f)) {
            if (!any++)
                fputs("Findings of the taint check (file paths relative to the "
                      "submission package; the excerpt is the source line):\n\n", fp);
            findings_list(fp, json_string_value(v), f);
        }
    }
    if (any)
        fputs("\n", fp);
}

void pages_ct_summary(FILE *fp, const report_system *s, const char *ext)
{
    size_t i, k;
    json_t *c, *inst;
    if (json_object_size(s->ct) == 0)
        return;
    fputs("## Constant-time evidence\n\n", fp);
    static const char *const h[] = {"Candidate", "Instance", "Constant-time evidence",
                                    "Timing \\|t\\|"};
    pages_table_head(fp, h, 4, "llll");
    json_array_foreach(s->candidates, i, c) {
        json_t *insts = report_instances(s, json_string_value(c));
        json_array_foreach(insts, k, inst) {
            char stem[256];
            const json_t *r = report_ct_record(s, json_string_value(c),
                                               json_string_value(inst), NULL);
            pages_candidate_stem(json_string_value(c), stem, sizeof stem);
            fputs("| ", fp);
            pages_link(fp, json_string_value(c), stem, ext);
            fputs(" | ", fp);
            esc_md(fp, json_string_value(inst));
            fputs(" | ", fp);
            fputs(r ? verdict_words(r) : why_none(s, json_string_value(c),
                                                  json_string_value(inst)), fp);
            const json_t *t = json_object_get(json_object_get(r, "timing"), "t");
            if (json_is_number(t))
                fprintf(fp, " | %.2f |\n", fabs(json_number_value(t)));
            else
                fputs(" | — |\n", fp);
        }
        json_decref(insts);
    }
    fputs("\n", fp);
}

void pages_ct_method(FILE *fp, const report_system *s)
{
    fputs("## Constant-time evidence\n\n", fp);
    fputs("`hashbench ct` (or `hashbench run --ct`) looks, for every instance that "
          "passed its KATs and for the OpenSSL baseline, for behaviour that depends "
          "on the message, which a hash keyed in HMAC or used in a key derivation "
          "would leak through timing. Both methods run the library in the sandbox, "
          "like every run of submitted code.\n\n", fp);
    fputs("**Taint check.** The library is rebuilt with the flags its KAT used plus "
          "`-g` and run under Valgrind's memcheck by a small driver that marks the "
          "message bytes undefined (the secret; the length is public and stays "
          "defined), calls CryptHash for messages of ", fp);
    for (int i = 0; i < CT_TAINT_LENGTHS; i++)
        fprintf(fp, "%s%llu", i ? ", " : "", ct_taint_bits[i]);
    fputs(" bits, and marks the digest defined again after each call. Every "
          "\"Conditional jump or move depends on uninitialised value(s)\" is a "
          "secret-dependent branch; every \"Use of uninitialised value\" in an "
          "address is a secret-dependent memory index. Findings are read from "
          "Valgrind's XML output with libexpat and deduplicated by source location "
          "(the first stack frame inside the library). Limits: only the code paths "
          "these lengths reach are seen; memcheck reports a secret-dependent branch "
          "or address, not variable-time instructions (division, some "
          "multiplications on some cores) or secret-dependent behaviour of the "
          "hardware; it runs the code as Valgrind translates it (a compiler may "
          "emit different code without -g in rare cases); an instance Valgrind "
          "cannot run (for example instructions Valgrind does not know, such as "
          "AVX-512 in Valgrind 3.19) is *not analysable*, never clean; and the "
          "evidence comes from a process that runs the submitted code, which could "
          "in principle tamper with it.\n\n", fp);
    fprintf(fp, "**Timing test**, in the manner of dudect: two classes of inputs of "
            "the same length, a fixed all-zero message and fresh random messages, "
            "interleaved at random in batches prepared before timing, each call "
            "timed with the campaign's counter on the library the KATs checked. "
            "Welch's t statistic compares the classes twice, over all measurements "
            "and over those at or below the pooled %dth percentile (which drops "
            "interrupts and other outliers); the larger \\|t\\| is reported with the "
            "number of measurements. \\|t\\| above %.1f is evidence that the time "
            "depends on the message. A small \\|t\\| means *not detected* with that "
            "many measurements on this host, not constant time: a small difference "
            "needs many more measurements than a large one, and a noisy host hides "
            "it.\n\n", CT_CROP_PERCENTILE, CT_T_THRESHOLD);
    fputs("The verdict of an instance is *message-dependent behaviour found* when "
          "either method found something, *not analysable* when a method could not "
          "run (with the reason), else *none found by this analysis*, never "
          "\"constant-time\". Each instance's raw findings and per-class timing "
          "figures are in ct/<cand>/<Inst>.json, which `hashbench validate` checks "
          "(each t is recomputed from its figures).\n\n", fp);
    fprintf(fp, "In this dataset: %zu instance%s analysed.\n\n", json_object_size(s->ct),
            json_object_size(s->ct) == 1 ? "" : "s");
}
