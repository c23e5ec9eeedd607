/* The Markdown pages of a report and their charts, generated from a loaded
 * dataset: one page per (system, candidate), a summary and a method page per
 * system, and the site index. Every page writer takes the link extension EXT
 * (".md" for the published Markdown, ".html" for the Markdown that the HTML
 * site is rendered from) so that links between pages work in both forms;
 * nothing else differs, except that the candidate page's breadcrumb line is
 * left out of the ".html" form (the HTML template draws its own). Writers print to the caller's stream, escape every
 * string from the dataset (esc_md) and return 0, or -1 with ERR filled. */
#ifndef HB_REPORT_PAGES_H
#define HB_REPORT_PAGES_H

#include <stdio.h>
#include "common/err.h"
#include "dataset/dataset.h"
#include "rundir/baselines.h"
#include "rundir/rundir.h"

/* The baseline every summary ratio refers to: the primary of the
 * built-in baselines' table. */
#define PAGES_BASELINE_CANDIDATE RUNDIR_BASELINE_CANDIDATE
#define PAGES_BASELINE_INSTANCE (hb_baseline_primary()->instance)

/* The counter of a system's records, for headers and notes. */
typedef struct pages_counter {
    char name[64];        /* "tsc", "perf_cycles", ...; "not recorded" */
    char description[160];
    double rate_hz;       /* NaN when unknown */
    double nominal_hz;    /* the frequency the hardware states (cntfrq_el0); NaN if none */
    char nominal_source[32];
    int is_cycles;        /* 1 only for core cycles */
    char unit[80];        /* "cycles" or e.g. "TSC ticks" */
    int mixed;            /* records disagree on the counter */
} pages_counter;

void pages_counter_of(const report_system *s, pages_counter *out);

/* The file-name stem of a candidate's page and chart (esc_file_component);
 * a candidate named like a system page (summary, method, index, in any case)
 * gets "<name>.candidate" so it never overwrites that page. */
void pages_candidate_stem(const char *cand, char *out, size_t outsz);

/* The paired ratio of the record of CAND/INST at SIZE to the baseline
 * (derived.paired_ratio): *LO and *HI its 95 % interval (NaN when it has
 * none). Without pairs: the ratio of the two records' ticks per byte, with
 * *PAIRED 0 and no interval. NaN when either figure is missing. */
double pages_ratio(const report_system *s, const char *cand, const char *inst,
                   long long size, int *paired, double *lo, double *hi);

/* Writes how the paired ratios of S's records (CAND's only, unless NULL)
 * are computed: MEDIAN_WORDS when any has the median of pair ratios
 * (derived.paired_ratio.estimator "median"), with a
 * clause for records that predate it (the geometric mean) when there are
 * such too; MEAN_WORDS alone (the words of earlier versions) when none has
 * the median. */
void pages_ratio_estimator(FILE *fp, const report_system *s, const char *cand,
                           const char *median_words, const char *mean_words);

/* A table cell (" ... |") with that ratio: "1.68× (±9.7 %)" when paired
 * (COMPACT: "1.68× ±9.7 %", the half-width to two significant digits, for
 * the summary's wide tables), "1.68× unpaired" when not, " 1 (baseline) "
 * for the baseline, " — " without figures. */
void pages_ratio_cell(FILE *fp, const report_system *s, const char *cand,
                      const char *inst, long long size, int compact);

/* When the drift is above DRIFT_WARN_PERCENT: a paragraph saying how much
 * absolute figures from this host vary, pointing to the paired ratios and
 * to the method page. Nothing otherwise. */
void pages_drift_warning(FILE *fp, const report_system *s, const char *ext);

/* 1 when S was built with the guide's flags and -fPIC -shared only
 * (run --plain-shared): build.json or campaign.json's settings say so. */
int pages_plain_shared(const report_system *s);

/* The note every page of such a system opens with; nothing otherwise. */
void pages_plain_shared_note(FILE *fp, const report_system *s, const char *ext);

/* A KAT footnote longer than PAGES_KAT_NOTE_MAX bytes (of Markdown) is
 * given in short under section 3 of the candidate page, linked to the
 * whole of it under section 7: this heading, whose anchor in the
 * HTML page (html.c) is PAGES_KAT_NOTES_ANCHOR, as Markdown viewers name it. */
#define PAGES_KAT_NOTE_MAX 240
#define PAGES_KAT_NOTES_HEADING "KAT notes in full"
#define PAGES_KAT_NOTES_ANCHOR "kat-notes-in-full"
/* The harness cost per call the record R keeps (measure/harness.h:
 * verification.harness_ns_per_call), NaN when it has none. */
double pages_harness_ns(const report_record *r);

/* A table cell " | 0.72 µs (6.9 %)" with R's harness cost and its share
 * of R's mean time per call, " | not measured" without one (no closing
 * bar). */
void pages_harness_cell(FILE *fp, const report_record *r);

/* A paragraph saying by how much every paired interval of S was widened
 * for the host's ratio drift (campaign.json "ratio_drift",
 * report/ratiodrift.h) at each size, or that none was recorded. */
void pages_ratio_drift_note(FILE *fp, const report_system *s, const char *ext);

/* Section 1-7 page of candidate CAND on system S. */
int pages_candidate_md(FILE *fp, const report_dataset *ds, const report_system *s,
                       const char *cand, const char *ext, hb_err *err);
/* The candidate's chart: cycles (or ticks) per byte against message size. */
int pages_candidate_svg(FILE *fp, const report_system *s, const char *cand, hb_err *err);

int pages_summary_md(FILE *fp, const report_system *s, const char *ext, hb_err *err);
int pages_summary_svg(FILE *fp, const report_system *s, hb_err *err);

int pages_method_md(FILE *fp, const report_system *s, const char *ext, hb_err *err);
/* The method page's chart: the baseline's relative speed against time in
 * the measure stage (the host's drift). */
int pages_method_svg(FILE *fp, const report_system *s, hb_err *err);

/* The constant-time evidence (pages_ct.c): section 6 of a candidate page
 * for its instances INSTS, the summary's table (nothing when the system has
 * no constant-time record), and the method page's section. */
void pages_ct_section(FILE *fp, const report_system *s, const char *cand,
                      const json_t *insts, const char *ext);
void pages_ct_summary(FILE *fp, const report_system *s, const char *ext);
void pages_ct_method(FILE *fp, const report_system *s);

/* The instruction counts (pages_count.c): on a candidate page (file stem
 * STEM), the table of instructions per byte beside the timed figure per
 * byte (UNIT, e.g. "TSC ticks") for its instances INSTS, each size's
 * median with the calls' minimum and maximum and a flagged spread, and the
 * link to the length curve; the summary's second ranking, by
 * instructions per byte; both print nothing when the system has no count
 * record. The method page's section. */
void pages_count_table(FILE *fp, const report_system *s, const char *cand,
                       const json_t *insts, const char *unit, const char *stem);
/* The instruction-count curve: 1 when an instance of CAND has one; the
 * chart of instructions per byte against message length, one line per
 * instance, written beside the page as <stem>PAGES_COUNT_CURVE_SUFFIX.svg
 * (which pages_count_table links). Returns 0, or -1 on a write error. */
#define PAGES_COUNT_CURVE_SUFFIX "_count"
int pages_count_has_curve(const report_system *s, const char *cand);
int pages_count_curve_svg(FILE *fp, const report_system *s, const char *cand);
void pages_count_summary(FILE *fp, const report_system *s, const char *ext);

/* 1 when the length model of CAND/INST's counts found them below it
 * (count_model.h), WHY a sentence saying so. */
int pages_count_below_model(const report_system *s, const char *cand, const char *inst,
                            char *why, size_t cap);
void pages_count_method(FILE *fp, const report_system *s);

/* The compiler as a dimension (pages_compilers.c, count/count_cc.h
 * records in S->count_cc): the other compilers of S (tag as in file names,
 * label "clang 14.0.6"), sorted by tag, at most MAX, their number returned;
 * the label of the build's own compiler; an instance's geometric mean of
 * instructions per byte over the guide's sizes under compiler TAG (NULL:
 * the build's), *N (may be NULL) the sizes it has; on a candidate page the
 * table of each instance's instructions per byte under each compiler; on
 * the summary, after the ranking, whether the order by instructions
 * changes between compilers (the N instances CANDS[i] / INSTS[i]); the
 * method page's paragraph. Each prints nothing without such records. */
#define PAGES_MAX_COMPILERS 4
typedef struct pages_compiler {
    char tag[64];
    char label[64];
} pages_compiler;
int pages_compilers_of(const report_system *s, pages_compiler *out, int max);
void pages_build_compiler_label(const report_system *s, char *out, size_t outsz);
double pages_compiler_geomean(const report_system *s, const char *cand, const char *inst,
                              const char *tag, size_t *n);
void pages_compilers_table(FILE *fp, const report_system *s, const char *cand,
                           const json_t *insts);
void pages_compilers_ranking_note(FILE *fp, const report_system *s, const char *const *cands,
                                  const char *const *insts, size_t n);
void pages_compilers_method(FILE *fp);
/* "The timed code was built by **gcc 12.2.0** (`...`) ...": the compiler
 * campaign.json records (run --cc), else build.json's; nothing without. */
void pages_timed_compiler(FILE *fp, const report_system *s);

/* One figure per instance (pages_rank.c): the summary's section ranking
 * every instance by the geometric mean over the guide's eight sizes of its
 * paired ratio, with its interval (report/geomean.h), or, where the host's
 * ratio drift is above RANK_DRIFT_LIMIT_PERCENT, of its instructions per
 * byte, saying which; and the method page's paragraph on it.
 * pages_rank_by_count is 1 when S's ratio drift (*DRIFT_PERCENT, NaN when
 * it has none) makes the summary rank by instructions. */
#define RANK_DRIFT_LIMIT_PERCENT 5
void pages_rank_summary(FILE *fp, const report_system *s, const char *ext);
void pages_rank_method(FILE *fp);
int pages_rank_by_count(const report_system *s, double *drift_percent);
/* The rule itself: 1 (rank by instructions) when some instance has counts
 * (N_IPB) and either none has timed ratios (N_RATIO) or the ratio drift
 * DRIFT_PERCENT (NaN: none recorded) is above RANK_DRIFT_LIMIT_PERCENT. */
int pages_rank_rule(double drift_percent, size_t n_ratio, size_t n_ipb);

/* The evaluator's notes (dataset/notes.h, S->notes): on a candidate page,
 * the caveats of CAND's instances INSTS as a short list (nothing when none
 * has one); on the summary, every instance's caveat with a link to its
 * candidate's page (nothing when no instance has one). */
void pages_notes_caveats(FILE *fp, const report_system *s, const char *cand,
                         const json_t *insts);
void pages_notes_summary(FILE *fp, const report_system *s, const char *ext);

/* SITE/index: the systems, their candidates and their summary pages. */
int pages_index_md(FILE *fp, const report_dataset *ds, const char *ext, hb_err *err);

/* The index's section on the dataset's signature: the fingerprint of the
 * key it names and the command that checks it, or that it is not signed
 * (and what an unsigned dataset does not prove). */
void pages_signature_md(FILE *fp, const report_dataset *ds);

/* Helpers shared by the page writers (pages_util.c). */

/* "| a | b |\n| --- | ---: |\n": COLS[i] are literal Markdown headers; ALIGN
 * holds one 'l' or 'r' per column. */
void pages_table_head(FILE *fp, const char *const *cols, size_t ncols, const char *align);

/* "[TEXT](TARGET EXT)" with TEXT escaped; TARGET is a safe relative path. */
void pages_link(FILE *fp, const char *text, const char *target, const char *ext);

/* The environment to describe a system by: campaign.json environment.start,
 * else the first record's environment; NULL when neither exists. */
const json_t *pages_environment(const report_system *s);

/* Writes a library's compiler flags escaped; the baseline (flags kind
 * "hashbench", no flags of its own) is named as built with hashbench. */
void pages_flags(FILE *fp, const char *kind, const json_t *flags);

/* Writes the value of a scalar JSON field escaped, or "not recorded". */
void pages_scalar(FILE *fp, const json_t *v);

/* The series for a chart: cycles/byte of each instance of CAND (all
 * candidates when CAND is NULL) at each size; with RATIO, its ratio to the
 * baseline (pages_ratio: paired where the records have pairs) with the
 * paired ratio's recorded 95 % interval as a bar, on a log axis with a
 * reference line at 1 standing for the baseline, whose own series is left
 * out. */
int pages_chart(FILE *fp, const report_system *s, const char *cand,
                const char *title, int ratio, hb_err *err);

/* Writes one "- NAME: reason" line for every reason instance INST of CAND
 * has no figures at some size of SIZES (BUILDFAIL, excluded from timing, a
 * FAILED record, no record); NAME is "CAND / INST" when QUALIFY. Returns the
 * number of lines written. */
int pages_missing(FILE *fp, const report_system *s, const char *cand,
                  const char *inst, const json_t *sizes, int qualify);

/* The KAT status of CAND/INST as every page, table and export shows it
 * (not escaped): what was checked (kat_status_text) and, for an instance
 * that failed its KAT, whether it was timed, e.g. "MISMATCH (2_12, 2_23,
 * Loop; not timed)" or "MISMATCH (2_12, 2_23, Loop; timed with
 * --time-failed)"; "not tested" without a kat.json entry. */
void pages_kat_status(const report_system *s, const char *cand, const char *inst,
                      char *buf, size_t bufsz);

/* "2.40 GHz" style rate into OUT; "not recorded" when not finite. */
const char *pages_rate(double hz, char *out, size_t outsz);

#endif
