/* The comparison of two measured systems (two datasets, two systems of one
 * dataset, two run directories): for every (candidate, instance, message
 * size) measured on both, the two figures, their ratio B / A with a 95 %
 * interval, and a verdict. Where both records have paired ratios to the
 * baseline, the figures are those ratios and B / A is the ratio of the two,
 * so the two hosts' speeds cancel; the interval is a bootstrap over both
 * sides' per-pair ratios (paired.h). Otherwise (the baseline itself, or
 * records without pairs) the figures are the mean time per call and B / A
 * their ratio, with a bootstrap over both sides' trial means: such a ratio
 * carries the two hosts' difference and is marked unpaired.
 *
 * Two campaigns meet their hosts at different moments, and a shared host's
 * state moves under a whole campaign, not by one factor for every code: it
 * moves the ratio between two different codes too, which no pairing
 * removes. So a paired row's interval is widened, as a factor on each side
 * (lo / (1 + m), hi * (1 + m)), by m = (1 + h)(1 + r) - 1: h is half the
 * larger of the two campaigns' recorded host_drift.spread_percent (the
 * baseline's speed, P10 to P90, over its measure stage; campaign.json), r
 * the hosts' ratio drift (ratiodrift.h): the larger of the shift of the
 * fixed baseline pair's ratio between the two campaigns and half of
 * either campaign's spread of it. An unpaired row (a time per call, which
 * carries the hosts' whole speed) is widened by both campaigns' whole
 * speed drift, (1 + dA)(1 + dB) - 1, and gets no verdict of change where
 * either campaign recorded none. A quiet host's drifts are small and cost
 * little.
 *
 * Verdict: "slower" when the whole interval is above 1 and B / A exceeds
 * 1 + min_change, "faster" when the whole interval is below 1 and B / A is
 * under 1 - min_change, else "no difference detected"; "undecided" where
 * no interval could be drawn or, unpaired, no drift was recorded. For each
 * size, the smallest difference the two hosts could tell is the median of
 * its paired rows' widened interval half-widths (as a factor, sqrt(hi /
 * lo)), and at least min_change. Results render as a
 * terminal table, a Markdown page (with a chart of B / A against message
 * size, each row's interval as a bar on a log axis) and that page in HTML,
 * with a small summary (compare.json) by which a report site links it. */
#ifndef HB_REPORT_COMPARE_H
#define HB_REPORT_COMPARE_H

#include <stdio.h>
#include <jansson.h>
#include "common/err.h"
#include "dataset/dataset.h"

#define COMPARE_RESAMPLES 4000   /* bootstrap resamples per row */
#define COMPARE_MIN_CHANGE 0.01  /* default: differences under 1 % are none */
#define COMPARE_MAX_SIZES 64     /* sizes the smallest told difference is given for */

typedef enum { CMP_SAME = 0, CMP_FASTER, CMP_SLOWER, CMP_UNDECIDED } compare_verdict;

typedef struct compare_row {
    const char *candidate, *instance; /* borrowed from side A's records */
    long long size;
    int paired;          /* 1: figures are paired ratios to the baseline */
    double a, a_lo, a_hi;  /* side A's figure and its recorded interval */
    double b, b_lo, b_hi;
    size_t a_n, b_n;       /* pairs (paired) or kept trials behind them */
    double ratio, lo, hi;  /* B / A and its 95 % interval (bootstrap, widened
                              by the hosts' drift) */
    compare_verdict verdict;
} compare_row;

typedef struct compare_result {
    const char *label_a, *label_b; /* borrowed: the systems' names */
    compare_row *rows;
    size_t nrows;
    json_t *only_a, *only_b; /* "cand / inst" or "cand / inst at SIZE" not
                                compared, with why (array of strings) */
    double min_change;
    double host_margin;      /* h above (a fraction); 0: none recorded */
    double drift_a, drift_b; /* each side's host_drift.spread_percent, NaN: none */
    double ratio_within_a, ratio_within_b; /* each side's ratio drift (percent,
                                              ratiodrift.h), NaN: none */
    double ratio_shift;      /* the baseline pair's shift between them
                                (percent), NaN: no common size */
    long long ratio_shift_at; /* the size it was largest at */
    double ratio_margin;     /* r above (a fraction); 0: nothing to go by */
    double paired_margin;    /* m above (a fraction) */
    double unpaired_margin;  /* (1 + dA)(1 + dB) - 1; NaN: a side recorded none */
    size_t n_detect;         /* sizes with paired rows, ascending: */
    long long detect_size[COMPARE_MAX_SIZES];
    double detect_percent[COMPARE_MAX_SIZES]; /* the smallest difference told */
} compare_result;

/* Compares system A with system B. MIN_CHANGE as above (a fraction).
 * Returns 0, or -1 with ERR filled (out of memory). Release with
 * compare_free. */
int compare_systems(const report_system *a, const report_system *b, double min_change,
                    compare_result *out, hb_err *err);
void compare_free(compare_result *r);

/* What a repeat campaign of S on a host like its own could not tell: S
 * compared with itself, so that its own speed drift and ratio drift
 * (ratio_within_a) widen the intervals and no shift between campaigns is
 * known. OUT as compare_systems (release with compare_free). Its
 * smallest told differences are a floor: a host whose state changes
 * between campaigns moves them further, which only a comparison of two
 * campaigns shows. */
int compare_repeat(const report_system *s, compare_result *out, hb_err *err);

/* R's smallest told differences in one sentence ("On these hosts,
 * differences under 3.2 % at 32 B and 4.1 % at 1 KiB cannot be told.")
 * into OUT (CAP bytes); "" when R has no paired row. */
void compare_smallest_told_words(const compare_result *r, char *out, size_t cap);

/* The system a side names: PATH loaded with report_dataset_load_path into
 * DS (caller frees), and *SYS its only system. Fails when PATH holds
 * several systems, naming them and saying to give DATA/<system>. */
int compare_load_side(const char *path, report_dataset *ds, const report_system **sys,
                      hb_err *err);

/* The verdict's words: "no difference detected", "faster", "slower",
 * "undecided (no interval)". */
const char *compare_verdict_text(compare_verdict v);

/* The number of rows found slower by more than PCT percent (B / A above
 * 1 + PCT / 100 with the verdict "slower"). */
size_t compare_slowdowns(const compare_result *r, double pct);

/* Writes the rows as an aligned plain-text table and the lists of what was
 * not compared. */
void compare_print_text(FILE *fp, const compare_result *r);

/* The Markdown page (the chart shown as compare.svg; EXT, the link
 * extension of the report's page writers, is taken for symmetry and the
 * page has no other link) and its chart. */
int compare_md(FILE *fp, const compare_result *r, const char *ext, hb_err *err);
int compare_svg(FILE *fp, const compare_result *r, hb_err *err);

#define COMPARE_SUMMARY_FILE "compare.json"
#define COMPARE_SUMMARY_KIND "hashbench-comparison"

/* The comparison in brief, a new object: {"kind": COMPARE_SUMMARY_KIND,
 * "a", "b": the systems' names, "rows", and per verdict "slower",
 * "faster", "no_difference", "undecided", and "not_compared"}. NULL when out
 * of memory. */
json_t *compare_summary_json(const compare_result *r);

/* Writes OUT_DIR/compare.md, compare.svg, compare.html and the summary
 * COMPARE_SUMMARY_FILE; `hashbench report --compare OUT_DIR` links them
 * from a site (report/site_compare.h). */
int compare_write_pages(const char *out_dir, const compare_result *r, hb_err *err);

#endif
