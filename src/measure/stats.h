/* Derived statistics of a measurement record: a pure function of the raw
 * trials and the message size, so `validate` can recompute every published
 * figure. Only trials not marked disturbed enter the figures.
 *
 * Definitions (k = number of kept trials, m_i = ticks_i / calls_i the trial
 * means):
 *  - mean_ticks_per_call = sum(ticks) / sum(calls); ticks_per_byte = that /
 *    size_bytes; mean_ns_per_call = sum(ns) / sum(calls); mb_per_s =
 *    size_bytes * sum(calls) / sum(ns) * 1000 (10^6 bytes per second);
 *    n = calls = sum(calls), trials = k.
 *  - median, quartiles: linear interpolation between order statistics of the
 *    sorted m_i (position h = (k-1)p, value x[floor h] + (h - floor h) *
 *    (x[floor h + 1] - x[floor h])), with p = 0.25, 0.5, 0.75.
 *  - cv_percent = sample standard deviation (k-1) of m_i / their plain mean
 *    * 100.
 *  - 95% confidence interval of the mean per-call cost, by batch means
 *    (interval "batch_means", every record this version writes): the k kept
 *    trials, in the order they were taken, are cut into b = max(2,
 *    floor(sqrt(k))) contiguous batches, batch j holding trials
 *    floor(j k / b) to floor((j+1) k / b) - 1; each batch's mean is its
 *    sum(ticks) / sum(calls); the interval is mean_ticks_per_call +-
 *    t(0.975, b-1) * sd(batch means) / sqrt(b). Trials taken close together
 *    share the host's state of that moment, so they are not independent;
 *    batches of trials spread over the stage are much closer to it, and few
 *    batches give a wide t quantile rather than a false precision. Records
 *    without an interval name (interval "iid", older records) use the
 *    trial means as if independent: +- t(0.975, k-1) * sd(m_i) / sqrt(k).
 *    ci95_rel_percent = half-width / mean * 100. With k < 2 the spread
 *    figures (cv and CI) are NaN, written as JSON null; ticks_per_byte is
 *    NaN for size 0.
 *  - Paired ratio to the baseline (batch means only, when trials carry a
 *    paired baseline trial): over the p pairs where both trials are kept, in
 *    order, q_i = (ticks_i / calls_i) / (baseline ticks_i / baseline
 *    calls_i); ratio = exp(mean(ln q_i)) (a geometric mean, so that A / B
 *    and B / A agree); its interval is exp(mean(ln q) +- t(0.975, b-1) *
 *    sd(batch means of ln q) / sqrt(b)) with the batches above over the p
 *    pairs; ratio_ci95_rel_percent = (high - low) / 2 / ratio * 100.
 */
#ifndef HB_MEASURE_STATS_H
#define HB_MEASURE_STATS_H

#include <stddef.h>
#include <jansson.h>

#include "common/err.h"

typedef struct stats_trial {
    unsigned long long calls;
    double ticks;
    double ns;
    int disturbed;
    int paired;                  /* 1: the pair_* figures are a baseline trial */
    unsigned long long pair_calls;
    double pair_ticks;
    int pair_disturbed;
} stats_trial;

/* How the interval is computed (see above). */
typedef enum { STATS_CI_IID = 0, STATS_CI_BATCH = 1 } stats_ci_method;

/* Field order is the order of the record's "derived" object. */
typedef struct stats_derived {
    unsigned long long n;
    size_t trials;
    unsigned long long calls;
    double mean_ticks_per_call;
    double ticks_per_byte;
    double mean_ns_per_call;
    double mb_per_s;
    double median_trial_mean;
    double min_trial_mean;
    double max_trial_mean;
    double q1_trial_mean;
    double q3_trial_mean;
    double cv_percent;
    double ci95_low;
    double ci95_high;
    double ci95_rel_percent;
    stats_ci_method method;
    size_t batches;             /* batch means: b */
    size_t pairs;               /* kept pairs (0: no paired ratio) */
    size_t ratio_batches;
    double ratio, ratio_ci95_low, ratio_ci95_high, ratio_ci95_rel_percent;
} stats_derived;

/* Two-sided 95% Student t quantile t(0.975, DF) from a table; a DF between
 * table rows takes the next smaller row (a slightly wider interval); DF
 * above the table gives 1.96. DF < 1 gives NaN. */
double stats_t95(int df);

/* Quantile P (0..1) of the N sorted values X, by the interpolation above. */
double stats_quantile_sorted(const double *x, size_t n, double p);

/* The median of the N values X, which it sorts in place; NaN for none. */
double stats_median(double *x, size_t n);

/* Computes OUT from the N trials T. Fails when no trial is kept, or a kept
 * trial has 0 calls or non-positive ns. */
int stats_derive(const stats_trial *t, size_t n, unsigned long long size_bytes,
                 stats_ci_method method, stats_derived *out, hb_err *err);

/* The number of batches of K values (b above; 0 for K < 2). */
size_t stats_batches(size_t k);

/* The record's "derived" object (new reference, caller owns). */
json_t *stats_derived_json(const stats_derived *d);

/* The name of the interval method in records ("iid", "batch_means"). */
const char *stats_ci_name(stats_ci_method m);

/* Reads "trials" and "size_bytes" from RECORD (FILE names it in messages)
 * and returns the recomputed "derived" object in *derived (new reference). */
int stats_derive_record(const json_t *record, const char *file, json_t **derived,
                        hb_err *err);

#endif
