/* The per-system summary (every instance of every candidate: cycles/byte at
 * each size, and the ratio to the baseline instance of the same dataset) and
 * the site index (systems, their candidates, summary and method links). See
 * pages.h for the contract.
 *
 * The summary's tables are read at a glance, on one screen width: sizes are
 * columns, the KAT column holds the short status ("PASS", "MISMATCH") with a
 * numbered note under the table for what was checked (one note per distinct
 * text, shared by the rows that have it), and a ratio cell is "1.46× ±0.6 %"
 * (the paired ratio's recorded interval, half its width in percent). */
#include "report/pages.h"

#include <math.h>
#include <string.h>
#include "report/compare.h"
#include "report/esc.h"
#include "report/numfmt.h"

#define SIZE_64K 65536

static double cpb(const report_system *s, const char *cand, const char *inst, long long size)
{
    const report_record *r = report_find_record(s, cand, inst, size);
    return r && r->derived ? report_num(r->derived, "ticks_per_byte") : NAN;
}

/* The numbered notes under a table: each distinct text gets one number,
 * in order of first use. */
typedef struct table_notes {
    json_t *texts; /* array of strings, note k + 1 at index k */
} table_notes;

/* The number of TEXT's note, adding it when new. */
static size_t note_ref(table_notes *n, const char *text)
{
    size_t i;
    json_t *v;
    json_array_foreach(n->texts, i, v)
        if (strcmp(json_string_value(v), text) == 0)
            return i + 1;
    json_array_append_new(n->texts, json_string(text));
    return json_array_size(n->texts);
}

/* A blank line and "- [k] text" for every note, escaped (nothing without
 * notes); frees the notes. */
static void notes_print(FILE *fp, table_notes *n)
{
    size_t i;
    json_t *v;
    json_array_foreach(n->texts, i, v) {
        fprintf(fp, "%s- [%zu] ", i ? "" : "\n", i + 1);
        esc_md(fp, json_string_value(v));
        fputs("\n", fp);
    }
    json_decref(n->texts);
    n->texts = NULL;
}

/* The KAT cell: the status word alone ("PASS", "not tested") when the
 * status says nothing more, else that word and the number of a note giving
 * the whole status ("MISMATCH [2]" for "MISMATCH (2_12, 2_23, Loop; not
 * timed)"). */
static void kat_cell(FILE *fp, const report_system *s, const char *cand, const char *inst,
                     table_notes *notes)
{
    char status[1024];
    pages_kat_status(s, cand, inst, status, sizeof status);
    char *detail = strstr(status, " (");
    fputs(" ", fp);
    if (!detail) {
        esc_md(fp, status);
    } else {
        size_t k = note_ref(notes, status);
        *detail = '\0';
        esc_md(fp, status);
        fprintf(fp, " [%zu]", k);
    }
    char why[400];
    if (pages_count_below_model(s, cand, inst, why, sizeof why))
        fprintf(fp, "; **below its count model** [%zu]", note_ref(notes, why));
    fputs(" |", fp);
}

static void cell_num(FILE *fp, double v, const char *suffix)
{
    char num[NUMFMT_MAX];
    if (isfinite(v))
        fprintf(fp, " %s%s |", numfmt_sig3(v, num, sizeof num), suffix);
    else
        fputs(" — |", fp);
}

/* The heading of a table whose columns are the message sizes, after
 * Candidate, Instance and FIRST (NULL: no such column). */
static void size_head(FILE *fp, const json_t *sizes, const char *first, const char *extra)
{
    char num[NUMFMT_MAX];
    size_t n = json_array_size(sizes);
    fputs("| Candidate | Instance |", fp);
    if (first)
        fprintf(fp, " %s |", first);
    for (size_t i = 0; i < n; i++)
        fprintf(fp, " %s |", numfmt_msg_size(json_integer_value(json_array_get(sizes, i)),
                                             num, sizeof num));
    if (extra)
        fprintf(fp, " %s |", extra);
    fputs(first ? "\n| --- | --- | --- |" : "\n| --- | --- |", fp);
    for (size_t i = 0; i < n + (extra != NULL); i++)
        fputs(" ---: |", fp);
    fputs("\n", fp);
}

static void row_start(FILE *fp, const char *cand, const char *inst, const char *ext)
{
    char stem[256];
    pages_candidate_stem(cand, stem, sizeof stem);
    fputs("| ", fp);
    pages_link(fp, cand, stem, ext);
    fputs(" | ", fp);
    esc_md(fp, inst);
    fputs(" |", fp);
}

/* A row of a table whose columns are the sizes, after Candidate and Instance. */
typedef void (*row_writer)(FILE *fp, const report_system *s, const char *cand,
                           const char *inst, const json_t *sizes, table_notes *notes);

/* Calls ROW for every (candidate, instance) of the system. */
static void each_instance(FILE *fp, const report_system *s, const json_t *sizes,
                          const char *ext, row_writer row, table_notes *notes)
{
    size_t i, k;
    json_t *c, *inst;
    json_array_foreach(s->candidates, i, c) {
        json_t *insts = report_instances(s, json_string_value(c));
        json_array_foreach(insts, k, inst) {
            row_start(fp, json_string_value(c), json_string_value(inst), ext);
            row(fp, s, json_string_value(c), json_string_value(inst), sizes, notes);
            fputs("\n", fp);
        }
        json_decref(insts);
    }
}

static void cpb_row(FILE *fp, const report_system *s, const char *cand,
                    const char *inst, const json_t *sizes, table_notes *notes)
{
    kat_cell(fp, s, cand, inst, notes);
    for (size_t i = 0; i < json_array_size(sizes); i++)
        cell_num(fp, cpb(s, cand, inst, json_integer_value(json_array_get(sizes, i))), "");
    pages_ratio_cell(fp, s, cand, inst, SIZE_64K, 1);
}

static void ratio_row(FILE *fp, const report_system *s, const char *cand,
                      const char *inst, const json_t *sizes, table_notes *notes)
{
    (void)notes;
    for (size_t i = 0; i < json_array_size(sizes); i++)
        pages_ratio_cell(fp, s, cand, inst, json_integer_value(json_array_get(sizes, i)), 1);
}

/* What a repeat campaign on this host could not tell (compare_repeat),
 * once, where the campaign timed both built-in baselines side by side. */
static void repeat_note(FILE *fp, const report_system *s)
{
    compare_result r;
    hb_err err;
    if (compare_repeat(s, &r, &err) != 0)
        return;
    if (r.n_detect && isfinite(r.ratio_within_a)) {
        char told[800], w[NUMFMT_MAX];
        compare_smallest_told_words(&r, told, sizeof told);
        fprintf(fp, "**What a repeat campaign can tell.** Within this campaign the ratio "
                    "between two fixed, different codes (OpenSSL's SHA-256 and SM3, timed "
                    "side by side in one group in three) moved by %s %% (10th to 90th "
                    "percentile): the host's state moves the ratio between different "
                    "codes, which no pairing removes. %s That is a floor: where the "
                    "host's state changes between campaigns, they differ by more, which "
                    "`hashbench compare` measures and takes into its verdicts.\n\n",
                numfmt_sig3(r.ratio_within_a, w, sizeof w), told);
    }
    compare_free(&r);
}

static void summary_intro(FILE *fp, const report_system *s, const pages_counter *pc,
                          const char *ext)
{
    char rate[64];
    fputs("# Summary: ", fp);
    esc_md(fp, s->name);
    fputs("\n\n", fp);
    pages_link(fp, "Method", "method", ext);
    fputs(" · ", fp);
    pages_link(fp, "All systems", "../index", ext);
    fputs("\n\nEvery instance of every candidate measured on this system. Counter: **", fp);
    esc_md(fp, pc->name);
    fprintf(fp, "** at %s", pages_rate(pc->rate_hz, rate, sizeof rate));
    if (!pc->is_cycles)
        fprintf(fp, "; the figures are **%s, not core cycles**", pc->unit);
    fputs(". The baseline is instance ", fp);
    esc_md(fp, PAGES_BASELINE_INSTANCE);
    fprintf(fp, " (OpenSSL's %s behind the official interface, candidate ",
            hb_baseline_primary()->algorithm);
    esc_md(fp, PAGES_BASELINE_CANDIDATE);
    fputs(") measured in the same campaign. A ratio compares an instance with the "
          "baseline at the same message size (below 1: faster than the baseline). "
          "Where it is **paired**, each trial of the instance was taken right beside "
          "a trial of the baseline, in the same round of the measurement, so both "
          "saw the host in the same state; ", fp);
    pages_ratio_estimator(fp, s, NULL,
                          "the ratio is the median of those pairs' ratios, with its 95 % "
                          "interval (a block bootstrap over the pairs in the order taken), "
                          "which time added to a few trials of either side barely moves",
                          "the ratio is the geometric mean of those pairs' ratios, with its "
                          "95 % interval (batch means over the rounds)");
    fputs(". A ratio marked *unpaired* divides two figures taken at different moments "
          "and moves with the host's speed. In the KAT column, a number refers to the "
          "note under the table: the known-answer files compared (2_12 is "
          "KAT_2_12, Loop is KAT_Loop) and, for an instance that failed them, "
          "whether it was timed.\n\n", fp);
    pages_timed_compiler(fp, s);
    pages_drift_warning(fp, s, ext);
    pages_plain_shared_note(fp, s, ext);
    pages_ratio_drift_note(fp, s, ext);
    repeat_note(fp, s);
    if (!report_find_record(s, PAGES_BASELINE_CANDIDATE, PAGES_BASELINE_INSTANCE, SIZE_64K))
        fputs("This dataset has no baseline record at 64 KiB: ratios are shown as —.\n\n", fp);
}

int pages_summary_md(FILE *fp, const report_system *s, const char *ext, hb_err *err)
{
    pages_counter pc;
    json_t *sizes = report_sizes(s, NULL);
    pages_counter_of(s, &pc);
    summary_intro(fp, s, &pc, ext);
    table_notes notes = {json_array()};
    fprintf(fp, "## %s per byte\n\n", pc.unit);
    size_head(fp, sizes, "KAT", "ratio to SM3 at 64 KiB");
    each_instance(fp, s, sizes, ext, cpb_row, &notes);
    notes_print(fp, &notes);
    fputs("\n## Ratio to the baseline at each size\n\n"
          "Each ratio with half its 95 % interval; the chart below draws the "
          "interval as a bar, on a log scale (2× slower and 2× faster lie the same "
          "distance from the baseline's line at 1).\n\n", fp);
    size_head(fp, sizes, NULL, NULL);
    each_instance(fp, s, sizes, ext, ratio_row, NULL);
    fputs("\n![chart](summary.svg)\n\n", fp);
    pages_rank_summary(fp, s, ext);
    pages_count_summary(fp, s, ext);
    pages_ct_summary(fp, s, ext);
    pages_notes_summary(fp, s, ext);
    fputs("## Instances without figures\n\n", fp);
    int lines = 0;
    size_t i, k;
    json_t *c, *inst;
    json_array_foreach(s->candidates, i, c) {
        json_t *insts = report_instances(s, json_string_value(c));
        json_array_foreach(insts, k, inst)
            lines += pages_missing(fp, s, json_string_value(c), json_string_value(inst),
                                   sizes, 1);
        json_decref(insts);
    }
    if (!lines)
        fputs("- none: every instance has figures at every size.\n", fp);
    fputs("\n", fp);
    json_decref(sizes);
    if (ferror(fp))
        return hb_fail(err, "summary of %s: write error", s->name);
    return 0;
}

static void index_system(FILE *fp, const report_system *s, const char *ext)
{
    char target[512], stem[256], dir[256];
    const json_t *env = pages_environment(s);
    pages_counter pc;
    pages_counter_of(s, &pc);
    fputs("## ", fp);
    esc_md(fp, s->name);
    fputs("\n\nProcessor: ", fp);
    pages_scalar(fp, json_object_get(env, "cpu_model"));
    fputs("; counter: ", fp);
    esc_md(fp, pc.name);
    fputs(pc.is_cycles ? " (core cycles)" : " (not core cycles)", fp);
    char cc[64];
    pages_build_compiler_label(s, cc, sizeof cc);
    if (strcmp(cc, "?") != 0) {
        fputs("; timed code built by ", fp);
        esc_md(fp, cc);
    }
    fputs("; campaign: ", fp);
    pages_scalar(fp, json_object_get(s->campaign, "start_utc"));
    fputs(" to ", fp);
    pages_scalar(fp, json_object_get(s->campaign, "end_utc"));
    fputs(pages_plain_shared(s) ? "; a plain shared build (--plain-shared: the guide's "
          "flags and -fPIC -shared only)" : "", fp);
    fputs(".\n\n- ", fp);
    pages_candidate_stem(s->name, dir, sizeof dir);
    snprintf(target, sizeof target, "%s/summary", dir);
    pages_link(fp, "Summary", target, ext);
    fputs(" · ", fp);
    snprintf(target, sizeof target, "%s/method", dir);
    pages_link(fp, "Method", target, ext);
    fputs("\n- Candidates:", fp);
    size_t i;
    json_t *c;
    json_array_foreach(s->candidates, i, c) {
        pages_candidate_stem(json_string_value(c), stem, sizeof stem);
        snprintf(target, sizeof target, "%s/%s", dir, stem);
        fputs(i ? " · " : " ", fp);
        pages_link(fp, json_string_value(c), target, ext);
    }
    fputs("\n\n", fp);
}

int pages_index_md(FILE *fp, const report_dataset *ds, const char *ext, hb_err *err)
{
    fputs("# hashbench results\n\n", fp);
    fprintf(fp, "Assessment of hash implementations on %zu test system%s: one page "
                "per candidate and system, a summary against the SM3 baseline and "
                "a method page for each system.\n\n", ds->nsys, ds->nsys == 1 ? "" : "s");
    for (size_t i = 0; i < ds->nsys; i++)
        index_system(fp, &ds->sys[i], ext);
    pages_signature_md(fp, ds);
    if (ferror(fp))
        return hb_fail(err, "index: write error");
    return 0;
}
