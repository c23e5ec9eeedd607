/* The paired ratio to the baseline as the comparison and exports read it:
 * the record's own figure and interval (derived.paired_ratio) and the
 * per-pair ratios behind it (recomputed from the raw trials by the rule of
 * measure/stats.h), and the ratio of two such ratios with a bootstrap
 * interval. Every reader of a paired ratio outside the measure stage goes
 * through paired_recorded (the record's figure) or paired_read (with the
 * per-pair ratios), so that a change of the record's paired section or of
 * its estimator (its "estimator" field: paired_center) is followed here. */
#ifndef HB_REPORT_PAIRED_H
#define HB_REPORT_PAIRED_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

/* How a record reduces its per-pair ratios to one figure. */
typedef enum {
    PAIRED_GEOMEAN = 0, /* exp(mean(ln q)): records without "estimator" */
    PAIRED_MEDIAN = 1   /* the median of q: "estimator": "median" */
} paired_estimator;

typedef struct paired_figure {
    double ratio, lo, hi;   /* derived.paired_ratio: ratio and 95 % interval;
                               NaN when the record has none */
    size_t pairs;           /* its "pairs" (0 when none) */
    paired_estimator est;
    double *q;              /* per-pair ratios, in trial order (malloc'd) */
    size_t n;
} paired_figure;

/* The record's own paired ratio from its DERIVED object (ratio, interval,
 * pairs, estimator) into OUT, leaving the per-pair ratios empty: for
 * readers that show the figure only. Returns 1 when DERIVED has a paired
 * ratio with a finite ratio, else 0 (figures NaN). */
int paired_recorded(const json_t *derived, paired_figure *out);

/* Fills OUT from the record RECORD (a measurement record's JSON): the
 * recorded paired ratio and the per-pair ratios of its trials (those where
 * the trial and its baseline trial are both kept, have calls and positive
 * ticks). A record without pairs gives NaN figures and N = 0. Returns 0, or
 * -1 when out of memory. Release with paired_free. */
int paired_read(const json_t *record, paired_figure *out);
void paired_free(paired_figure *p);

/* The estimator's figure of the N per-pair ratios Q (not changed); NaN for
 * N = 0. */
double paired_center(const double *q, size_t n, paired_estimator est);

/* The ratio B / A of two sides' figures, each the mean of per-trial values
 * (MEAN) or the paired estimator of per-pair ratios (PAIRED): *RATIO =
 * center(B) / center(A), and its 95 % percentile interval from RESAMPLES
 * bootstrap resamples of each side's values (drawn independently, with
 * replacement), driven by SEED so that the same input gives the same
 * interval. The interval is NaN when either side has fewer than 2 values.
 * Returns 0, or -1 when out of memory. */
typedef struct paired_side {
    const double *v;
    size_t n;
    int paired;              /* 1: V are per-pair ratios (center by EST) */
    paired_estimator est;
} paired_side;
int paired_boot_ratio(const paired_side *a, const paired_side *b, uint64_t seed,
                      size_t resamples, double *ratio, double *lo, double *hi);

/* A seed for paired_boot_ratio from a text (e.g. "cand/inst/size"):
 * FNV-1a, so that each row has its own deterministic stream. */
uint64_t paired_seed(const char *text);

#endif
