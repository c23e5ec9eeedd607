/* Derived statistics of a measurement record: a pure function of the raw
 * trials and the message size (and, for the median of pair ratios, the seed
 * the record states), so `validate` can recompute every published figure.
 * Only trials not marked disturbed enter the figures, except the median of
 * pair ratios, which takes every pair.
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
 *    This is derived.paired_ratio of older records (no "estimator" field).
 *  - Median of pair ratios (derived.paired_ratio with "estimator": "median",
 *    every record this version writes with pairs; the ratio the pages
 *    publish):
 *    over EVERY pair whose two trials both have a figure (calls > 0 and
 *    ticks > 0 on both sides; a trial or pair marked disturbed is not left
 *    out, since a library can make its own trials look disturbed), in the
 *    order taken, r_k = (ticks_k / calls_k) / (pair ticks_k / pair calls_k),
 *    k = 0..p-1. ratio = the median of the r_k (quantile 0.5 above). Time a
 *    library adds to its own trials can only raise its r_k, and the median
 *    can only follow them up; an isolated slow trial of either side moves it
 *    by at most one order statistic, where it moves a mean without bound.
 *    Its 95 % interval comes from a circular block bootstrap (moving blocks
 *    of consecutive pairs, wrapped around the end of the series): block
 *    length L = stats_block_length(p) = ceil(p^(2/3)), at most ceil(p / 2)
 *    (the least L with L^3 >= p^2); block s (s = 0..p-1) is r_s, r_{s+1},
 *    ..., r_{s+L-1}, indices mod p; one resample concatenates ceil(p / L)
 *    blocks whose starts are drawn uniformly with replacement, in draw
 *    order, cut to p values, and takes their median; B resamples
 *    (`resamples`, STATS_MEDIAN_RESAMPLES in records this version writes)
 *    give the medians M_1..M_B, in draw order, their mean M = sum(M_j) / B
 *    and sd = sqrt(sum((M_j - M)^2) / (B - 1)) (both summed in draw order).
 *    The interval is ratio +- t(0.975, c - 1) * sd with c = ceil(p / L), the
 *    number of blocks in a resample; ci95_rel_percent = t * sd / ratio * 100.
 *    With p < STATS_MEDIAN_MIN_PAIRS the interval is null.
 *    Why this rule: pairs taken close together share the host's state, and
 *    on a busy host that can last many pairs, so blocks must be long; a
 *    resample then holds few independent blocks, and, as with batch means,
 *    the t quantile of c - 1 degrees of freedom gives a wide interval rather
 *    than a false precision. bench/estimator.sh simulates drifting, spiky
 *    series: percentile intervals of blocks of ceil(sqrt(p)) covered the true
 *    ratio in only 47 to 81 % of series of 16 pairs (drift correlated over 0
 *    to 19 pairs), this rule in 82 to 98.5 % (bench/README.md gives the
 *    figures, and where the rule still falls short).
 *    The draws come from a deterministic generator, so `validate` recomputes
 *    the interval bit for bit: ChaCha20 (OpenSSL) with key = SHA-256 of the
 *    seed's 8 bytes (big-endian), a 16-byte IV of zeros, its keystream read
 *    as 64-bit little-endian words u; a start in [0, m) is u mod m, a word u
 *    >= 2^64 - (2^64 mod m) being skipped (no bias). The seed is recorded
 *    (`seed`, 16 hex digits); a record this version writes takes the first 8
 *    bytes (big-endian) of SHA-256 over one line "%llu %.17g %llu %.17g\n"
 *    (calls, ticks, pair calls, pair ticks) per pair of the estimator, so
 *    the same trials always give the same record.
 *    Secondary figures over the same pairs: p10_ticks_per_call, the
 *    quantile 0.1 of the instance's trial means ticks_k / calls_k (a low
 *    quantile of per-call cost, which time added to a few trials does not
 *    reach), p10_baseline_ticks_per_call the same for the baseline's
 *    trials, and p10_ratio their quotient.
 *    A record whose paired_ratio has no "estimator" (older records) is
 *    recomputed with the geometric mean, as it was written.
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

/* The median of pair ratios (see above). */
#define STATS_MEDIAN_NAME "median" /* derived.paired_ratio.estimator */
#define STATS_MEDIAN_INTERVAL "circular_block_bootstrap"
#define STATS_MEDIAN_RESAMPLES 2000
#define STATS_MEDIAN_MAX_RESAMPLES 100000 /* a record asking for more is refused */
#define STATS_MEDIAN_MIN_PAIRS 5

typedef struct stats_median_ratio {
    int on;                     /* 0: not computed (an older record) */
    size_t pairs;               /* p: pairs with a figure on both sides */
    size_t block;               /* L */
    size_t resamples;           /* B */
    unsigned long long seed;
    double ratio, ci95_low, ci95_high, ci95_rel_percent;
    double p10_ticks_per_call, p10_baseline_ticks_per_call, p10_ratio;
} stats_median_ratio;

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
    stats_median_ratio median;  /* set by stats_derive_median */
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

/* The block length of the median's bootstrap over P pairs: ceil(P^(2/3)),
 * at most ceil(P / 2) (0 for none). */
size_t stats_block_length(size_t p);

/* The median of the N ratios R (taken in that order) into OUT: the point,
 * and with N >= STATS_MEDIAN_MIN_PAIRS the circular block bootstrap interval
 * from RESAMPLES (1..STATS_MEDIAN_MAX_RESAMPLES) resamples drawn from SEED,
 * exactly as defined above. R is not changed. OUT->pairs = N, the p10
 * figures are left NaN. Fails on N == 0, a value that is not a positive
 * finite number, RESAMPLES out of range, or when OpenSSL cannot provide
 * ChaCha20. */
int stats_median_ratio_of(const double *r, size_t n, size_t resamples,
                          unsigned long long seed, stats_median_ratio *out, hb_err *err);

/* The seed a record this version writes gives the median's bootstrap of the
 * N trials T (the SHA-256 rule above, over the pairs the median uses). */
unsigned long long stats_median_seed(const stats_trial *t, size_t n);

/* Adds the median of pair ratios of the N trials T to D (D->median, with
 * its p10 figures), drawing RESAMPLES resamples from SEED. Leaves
 * D->median.on 0 and succeeds when no pair has a figure on both sides;
 * fails as stats_median_ratio_of does. */
int stats_derive_median(const stats_trial *t, size_t n, size_t resamples,
                        unsigned long long seed, stats_derived *d, hb_err *err);

/* The number of batches of K values (b above; 0 for K < 2). */
size_t stats_batches(size_t k);

/* The record's "derived" object (new reference, caller owns). */
json_t *stats_derived_json(const stats_derived *d);

/* The name of the interval method in records ("iid", "batch_means"). */
const char *stats_ci_name(stats_ci_method m);

/* Reads "trials" and "size_bytes" from RECORD (FILE names it in messages)
 * and returns the recomputed "derived" object in *derived (new reference).
 * The paired ratio is the median of pair ratios when RECORD has no
 * "derived" yet (a record being written: seed by stats_median_seed,
 * STATS_MEDIAN_RESAMPLES resamples), or with the recorded seed and
 * resamples when its derived.paired_ratio names an estimator; else (older
 * records) the geometric mean. A recorded paired ratio naming another
 * estimator or interval, or with a malformed seed or resamples, fails
 * naming FILE. */
int stats_derive_record(const json_t *record, const char *file, json_t **derived,
                        hb_err *err);

#endif
