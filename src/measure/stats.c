/* Derived statistics from raw trials: see stats.h for every definition. */
#include "measure/stats.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/evp.h>

#include "common/digest.h"
#include "common/json.h"

/* t(0.975, df): rows for df 1..30, then 40, 60, 120. */
static const struct {
    int df;
    double t;
} t95_table[] = {
    {1, 12.7062}, {2, 4.3027}, {3, 3.1824}, {4, 2.7764}, {5, 2.5706},
    {6, 2.4469}, {7, 2.3646}, {8, 2.3060}, {9, 2.2622}, {10, 2.2281},
    {11, 2.2010}, {12, 2.1788}, {13, 2.1604}, {14, 2.1448}, {15, 2.1314},
    {16, 2.1199}, {17, 2.1098}, {18, 2.1009}, {19, 2.0930}, {20, 2.0860},
    {21, 2.0796}, {22, 2.0739}, {23, 2.0687}, {24, 2.0639}, {25, 2.0595},
    {26, 2.0555}, {27, 2.0518}, {28, 2.0484}, {29, 2.0452}, {30, 2.0423},
    {40, 2.0211}, {60, 2.0003}, {120, 1.9799},
};

double stats_t95(int df)
{
    if (df < 1)
        return NAN;
    size_t rows = sizeof t95_table / sizeof t95_table[0];
    if (df > t95_table[rows - 1].df)
        return 1.9600;
    double t = t95_table[0].t;
    for (size_t i = 0; i < rows && t95_table[i].df <= df; i++)
        t = t95_table[i].t;
    return t;
}

double stats_quantile_sorted(const double *x, size_t n, double p)
{
    if (n == 0)
        return NAN;
    double h = (double)(n - 1) * p;
    size_t lo = (size_t)floor(h);
    if (lo + 1 >= n)
        return x[n - 1];
    return x[lo] + (h - (double)lo) * (x[lo + 1] - x[lo]);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double stats_median(double *x, size_t n)
{
    qsort(x, n, sizeof *x, cmp_double);
    return stats_quantile_sorted(x, n, 0.5);
}

size_t stats_batches(size_t k)
{
    if (k < 2)
        return 0;
    size_t b = (size_t)floor(sqrt((double)k));
    return b < 2 ? 2 : b;
}

const char *stats_ci_name(stats_ci_method m)
{
    return m == STATS_CI_BATCH ? "batch_means" : "iid";
}

/* The batch-means half-width of the K ratios NUM[i] / DEN[i] taken in order
 * (batch mean: sum(num) / sum(den) over the batch; with LOG, the batch mean
 * is the mean of ln(NUM[i] / DEN[i]) and DEN is ignored). *B gets the number
 * of batches; NaN for K < 2. */
static double batch_half(const double *num, const double *den, size_t k, int log_mean,
                         size_t *b_out)
{
    size_t b = stats_batches(k);
    *b_out = b;
    if (b < 2)
        return NAN;
    double sum = 0, ss = 0;
    double *bm = malloc(b * sizeof *bm);
    if (!bm)
        return NAN;
    for (size_t j = 0; j < b; j++) {
        size_t lo = j * k / b, hi = (j + 1) * k / b;
        double n = 0, d = 0;
        for (size_t i = lo; i < hi; i++) {
            n += num[i];
            d += log_mean ? 1.0 : den[i];
        }
        bm[j] = n / d;
        sum += bm[j];
    }
    double mean = sum / (double)b;
    for (size_t j = 0; j < b; j++)
        ss += (bm[j] - mean) * (bm[j] - mean);
    free(bm);
    return stats_t95((int)b - 1) * sqrt(ss / (double)(b - 1)) / sqrt((double)b);
}

/* Spread figures of the K sorted trial means M; TICKS and CALLS are the kept
 * trials' figures in the order they were taken. */
static void derive_spread(const double *m, const double *ticks, const double *calls,
                          size_t k, stats_derived *d)
{
    d->median_trial_mean = stats_quantile_sorted(m, k, 0.5);
    d->q1_trial_mean = stats_quantile_sorted(m, k, 0.25);
    d->q3_trial_mean = stats_quantile_sorted(m, k, 0.75);
    d->min_trial_mean = m[0];
    d->max_trial_mean = m[k - 1];
    d->cv_percent = d->ci95_low = d->ci95_high = d->ci95_rel_percent = NAN;
    if (k < 2)
        return;
    double sum = 0, ss = 0;
    for (size_t i = 0; i < k; i++)
        sum += m[i];
    double plain_mean = sum / (double)k;
    for (size_t i = 0; i < k; i++)
        ss += (m[i] - plain_mean) * (m[i] - plain_mean);
    double sd = sqrt(ss / (double)(k - 1));
    d->cv_percent = plain_mean > 0 ? sd / plain_mean * 100.0 : NAN;
    double half = d->method == STATS_CI_BATCH
                      ? batch_half(ticks, calls, k, 0, &d->batches)
                      : stats_t95((int)k - 1) * sd / sqrt((double)k);
    d->ci95_low = d->mean_ticks_per_call - half;
    d->ci95_high = d->mean_ticks_per_call + half;
    d->ci95_rel_percent = d->mean_ticks_per_call > 0
                              ? half / d->mean_ticks_per_call * 100.0 : NAN;
}

/* The paired ratio of the N trials T (see stats.h). */
static void derive_ratio(const stats_trial *t, size_t n, stats_derived *d)
{
    d->ratio = d->ratio_ci95_low = d->ratio_ci95_high = d->ratio_ci95_rel_percent = NAN;
    double *lq = malloc((n ? n : 1) * sizeof *lq);
    if (!lq)
        return;
    size_t p = 0;
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (!t[i].paired || t[i].disturbed || t[i].pair_disturbed || t[i].calls == 0 ||
            t[i].pair_calls == 0 || !(t[i].ticks > 0) || !(t[i].pair_ticks > 0))
            continue;
        lq[p] = log((t[i].ticks / (double)t[i].calls) /
                    (t[i].pair_ticks / (double)t[i].pair_calls));
        sum += lq[p++];
    }
    d->pairs = p;
    if (p > 0) {
        double mean = sum / (double)p;
        d->ratio = exp(mean);
        double half = batch_half(lq, NULL, p, 1, &d->ratio_batches);
        if (isfinite(half)) {
            d->ratio_ci95_low = exp(mean - half);
            d->ratio_ci95_high = exp(mean + half);
            d->ratio_ci95_rel_percent =
                (d->ratio_ci95_high - d->ratio_ci95_low) / 2.0 / d->ratio * 100.0;
        }
    }
    free(lq);
}

size_t stats_block_length(size_t p)
{
    size_t l = 1, half = (p + 1) / 2;
    while ((double)l * l * l < (double)p * p) /* exact: both below 2^53 for any p here */
        l++;
    return p == 0 ? 0 : l < half ? l : half;
}

/* The bootstrap's generator: ChaCha20's keystream as 64-bit words. */
typedef struct boot_rng {
    EVP_CIPHER_CTX *ctx;
    unsigned char buf[4096];
    size_t pos;
    int failed; /* OpenSSL refused to extend the keystream */
} boot_rng;

static int rng_init(boot_rng *g, unsigned long long seed, hb_err *err)
{
    unsigned char sb[8], key[32], iv[16] = {0};
    char hex[HB_SHA256_HEX];
    for (int i = 0; i < 8; i++)
        sb[i] = (unsigned char)(seed >> (56 - 8 * i));
    hb_sha256_buf_hex(sb, sizeof sb, hex);
    if (hb_hex_decode(hex, 64, key) != 32)
        return hb_fail(err, "SHA-256 from OpenSSL failed");
    g->pos = sizeof g->buf;
    g->failed = 0;
    g->ctx = EVP_CIPHER_CTX_new();
    if (!g->ctx || EVP_EncryptInit_ex(g->ctx, EVP_chacha20(), NULL, key, iv) != 1) {
        EVP_CIPHER_CTX_free(g->ctx);
        g->ctx = NULL;
        return hb_fail(err, "OpenSSL cannot provide ChaCha20 for the ratio's bootstrap");
    }
    return 0;
}

static uint64_t rng_word(boot_rng *g)
{
    if (g->pos + 8 > sizeof g->buf) {
        static const unsigned char zero[sizeof g->buf];
        int len = 0;
        if (EVP_EncryptUpdate(g->ctx, g->buf, &len, zero, (int)sizeof zero) != 1 ||
            len != (int)sizeof zero) {
            memset(g->buf, 0, sizeof g->buf); /* the caller fails on g->failed */
            g->failed = 1;
        }
        g->pos = 0;
    }
    uint64_t u = 0;
    for (int i = 7; i >= 0; i--)
        u = (u << 8) | g->buf[g->pos + (size_t)i];
    g->pos += 8;
    return u;
}

/* A uniform draw in [0, M), M >= 1, by rejection (see stats.h). */
static size_t rng_below(boot_rng *g, size_t m)
{
    uint64_t mm = (uint64_t)m, rem = (UINT64_MAX % mm + 1) % mm; /* 2^64 mod m */
    for (;;) {
        uint64_t u = rng_word(g);
        if (rem == 0 || u < (uint64_t)0 - rem)
            return (size_t)(u % mm);
    }
}

/* A ratio and the position it was taken at: sorted by value, ties by
 * position, so every run sorts the same way. */
typedef struct ranked {
    double v;
    size_t pos;
} ranked;

static int cmp_ranked(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->v != y->v)
        return (x->v > y->v) - (x->v < y->v);
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* The value at sorted position K of a resample given by COUNT (how many
 * times each rank was drawn) over SORTED values; *RANK and *SEEN carry the
 * walk forward between calls with increasing K. */
static double order_stat(const size_t *count, const double *sorted, size_t k,
                         size_t *rank, size_t *seen)
{
    while (*seen + count[*rank] <= k) {
        *seen += count[*rank];
        (*rank)++;
    }
    return sorted[*rank];
}

int stats_median_ratio_of(const double *r, size_t n, size_t resamples,
                          unsigned long long seed, stats_median_ratio *out, hb_err *err)
{
    memset(out, 0, sizeof *out);
    out->ratio = out->ci95_low = out->ci95_high = out->ci95_rel_percent = NAN;
    out->p10_ticks_per_call = out->p10_baseline_ticks_per_call = out->p10_ratio = NAN;
    if (n == 0)
        return hb_fail(err, "no pair to take a median of");
    if (resamples < 1 || resamples > STATS_MEDIAN_MAX_RESAMPLES)
        return hb_fail(err, "%zu resamples: the ratio's bootstrap takes 1 to %d",
                       resamples, STATS_MEDIAN_MAX_RESAMPLES);
    for (size_t i = 0; i < n; i++)
        if (!(r[i] > 0) || !isfinite(r[i]))
            return hb_fail(err, "pair ratio %zu is %g, not a positive number", i, r[i]);
    out->on = 1;
    out->pairs = n;
    out->block = stats_block_length(n);
    out->resamples = resamples;
    out->seed = seed;
    size_t *rank = malloc(n * 2 * sizeof *rank);
    double *sorted = malloc((n + resamples) * sizeof *sorted);
    ranked *by = malloc(n * sizeof *by);
    if (!rank || !sorted || !by) {
        free(rank);
        free(sorted);
        free(by);
        return hb_fail(err, "out of memory");
    }
    size_t *count = rank + n;
    for (size_t i = 0; i < n; i++)
        by[i] = (ranked){r[i], i};
    qsort(by, n, sizeof *by, cmp_ranked);
    for (size_t k = 0; k < n; k++) {
        sorted[k] = by[k].v;
        rank[by[k].pos] = k;
    }
    free(by);
    out->ratio = stats_quantile_sorted(sorted, n, 0.5);
    int rc = 0;
    if (n >= STATS_MEDIAN_MIN_PAIRS) {
        boot_rng g;
        if (rng_init(&g, seed, err) != 0) {
            rc = -1;
        } else {
            double *meds = sorted + n;
            size_t l = out->block;
            double h = (double)(n - 1) * 0.5;
            size_t lo = (size_t)floor(h);
            for (size_t b = 0; b < resamples; b++) {
                memset(count, 0, n * sizeof *count);
                for (size_t filled = 0; filled < n;) {
                    size_t s = rng_below(&g, n);
                    for (size_t j = 0; j < l && filled < n; j++, filled++)
                        count[rank[(s + j) % n]]++;
                }
                size_t at = 0, seen = 0;
                double x = order_stat(count, sorted, lo, &at, &seen);
                meds[b] = lo + 1 >= n ? x
                    : x + (h - (double)lo) * (order_stat(count, sorted, lo + 1, &at, &seen) - x);
            }
            EVP_CIPHER_CTX_free(g.ctx);
            if (g.failed)
                rc = hb_fail(err, "OpenSSL's ChaCha20 failed during the ratio's bootstrap");
            double sum = 0, ss = 0;
            for (size_t b = 0; b < resamples; b++)
                sum += meds[b];
            double mean = sum / (double)resamples;
            for (size_t b = 0; b < resamples; b++)
                ss += (meds[b] - mean) * (meds[b] - mean);
            size_t c = (n + l - 1) / l;
            double half = resamples > 1 ? stats_t95((int)c - 1) *
                                              sqrt(ss / (double)(resamples - 1)) : NAN;
            out->ci95_low = out->ratio - half;
            out->ci95_high = out->ratio + half;
            out->ci95_rel_percent = half / out->ratio * 100.0;
        }
    }
    free(rank);
    free(sorted);
    return rc;
}

/* Whether trial T has a pair with a figure on both sides. */
static int pair_usable(const stats_trial *t)
{
    return t->paired && t->calls > 0 && t->pair_calls > 0 && t->ticks > 0 &&
           t->pair_ticks > 0 && isfinite(t->ticks) && isfinite(t->pair_ticks);
}

unsigned long long stats_median_seed(const stats_trial *t, size_t n)
{
    hb_sha256 *c = hb_sha256_new();
    char line[128], hex[HB_SHA256_HEX];
    for (size_t i = 0; c && i < n; i++) {
        if (!pair_usable(&t[i]))
            continue;
        int len = snprintf(line, sizeof line, "%llu %.17g %llu %.17g\n", t[i].calls,
                           t[i].ticks, t[i].pair_calls, t[i].pair_ticks);
        hb_sha256_update(c, line, (size_t)len);
    }
    if (!c)
        return 0;
    hb_sha256_final_hex(c, hex);
    hex[16] = '\0';
    return strtoull(hex, NULL, 16);
}

int stats_derive_median(const stats_trial *t, size_t n, size_t resamples,
                        unsigned long long seed, stats_derived *d, hb_err *err)
{
    memset(&d->median, 0, sizeof d->median);
    double *r = malloc((n ? n : 1) * 3 * sizeof *r);
    if (!r)
        return hb_fail(err, "out of memory");
    double *a = r + (n ? n : 1), *b = a + (n ? n : 1);
    size_t p = 0;
    for (size_t i = 0; i < n; i++) {
        if (!pair_usable(&t[i]))
            continue;
        a[p] = t[i].ticks / (double)t[i].calls;
        b[p] = t[i].pair_ticks / (double)t[i].pair_calls;
        r[p] = a[p] / b[p];
        p++;
    }
    int rc = 0;
    if (p > 0 && (rc = stats_median_ratio_of(r, p, resamples, seed, &d->median, err)) == 0) {
        qsort(a, p, sizeof *a, cmp_double);
        qsort(b, p, sizeof *b, cmp_double);
        d->median.p10_ticks_per_call = stats_quantile_sorted(a, p, 0.1);
        d->median.p10_baseline_ticks_per_call = stats_quantile_sorted(b, p, 0.1);
        d->median.p10_ratio = d->median.p10_ticks_per_call /
                              d->median.p10_baseline_ticks_per_call;
    }
    free(r);
    return rc;
}

int stats_derive(const stats_trial *t, size_t n, unsigned long long size_bytes,
                 stats_ci_method method, stats_derived *out, hb_err *err)
{
    memset(out, 0, sizeof *out);
    out->method = method;
    double *m = malloc((n ? n : 1) * 3 * sizeof *m);
    if (!m)
        return hb_fail(err, "out of memory");
    double *kt = m + (n ? n : 1), *kc = kt + (n ? n : 1);
    double ticks = 0, ns = 0;
    unsigned long long calls = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (t[i].disturbed)
            continue;
        if (t[i].calls == 0 || !(t[i].ns > 0)) {
            free(m);
            return hb_fail(err, "trial %zu has %llu calls and %g ns: a kept "
                           "trial needs calls and time", i, t[i].calls, t[i].ns);
        }
        ticks += t[i].ticks;
        ns += t[i].ns;
        calls += t[i].calls;
        kt[k] = t[i].ticks;
        kc[k] = (double)t[i].calls;
        m[k++] = t[i].ticks / (double)t[i].calls;
    }
    if (k == 0) {
        free(m);
        return hb_fail(err, "no undisturbed trial to derive figures from");
    }
    qsort(m, k, sizeof *m, cmp_double);
    out->n = calls;
    out->trials = k;
    out->calls = calls;
    out->mean_ticks_per_call = ticks / (double)calls;
    out->ticks_per_byte = size_bytes ? out->mean_ticks_per_call / (double)size_bytes
                                     : NAN;
    out->mean_ns_per_call = ns / (double)calls;
    out->mb_per_s = (double)size_bytes * (double)calls / ns * 1000.0;
    derive_spread(m, kt, kc, k, out);
    free(m);
    if (method == STATS_CI_BATCH)
        derive_ratio(t, n, out);
    return 0;
}

static json_t *num_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* derived.paired_ratio of a record with the median of pair ratios (field
 * order of docs/FORMATS.md). */
static json_t *median_json(const stats_median_ratio *m)
{
    char seed[17];
    snprintf(seed, sizeof seed, "%016llx", m->seed);
    json_t *o = json_object();
    json_object_set_new(o, "estimator", json_string(STATS_MEDIAN_NAME));
    json_object_set_new(o, "pairs", json_integer((json_int_t)m->pairs));
    json_object_set_new(o, "ratio", num_or_null(m->ratio));
    json_object_set_new(o, "ci95_low", num_or_null(m->ci95_low));
    json_object_set_new(o, "ci95_high", num_or_null(m->ci95_high));
    json_object_set_new(o, "ci95_rel_percent", num_or_null(m->ci95_rel_percent));
    json_object_set_new(o, "interval", json_string(STATS_MEDIAN_INTERVAL));
    json_object_set_new(o, "block", json_integer((json_int_t)m->block));
    json_object_set_new(o, "resamples", json_integer((json_int_t)m->resamples));
    json_object_set_new(o, "seed", json_string(seed));
    json_object_set_new(o, "p10_ticks_per_call", num_or_null(m->p10_ticks_per_call));
    json_object_set_new(o, "p10_baseline_ticks_per_call",
                        num_or_null(m->p10_baseline_ticks_per_call));
    json_object_set_new(o, "p10_ratio", num_or_null(m->p10_ratio));
    return o;
}

json_t *stats_derived_json(const stats_derived *d)
{
    json_t *o = json_object();
    json_object_set_new(o, "n", json_integer((json_int_t)d->n));
    json_object_set_new(o, "trials", json_integer((json_int_t)d->trials));
    json_object_set_new(o, "calls", json_integer((json_int_t)d->calls));
    const struct {
        const char *name;
        double v;
    } f[] = {
        {"mean_ticks_per_call", d->mean_ticks_per_call},
        {"ticks_per_byte", d->ticks_per_byte},
        {"mean_ns_per_call", d->mean_ns_per_call},
        {"mb_per_s", d->mb_per_s},
        {"median_trial_mean", d->median_trial_mean},
        {"min_trial_mean", d->min_trial_mean},
        {"max_trial_mean", d->max_trial_mean},
        {"q1_trial_mean", d->q1_trial_mean},
        {"q3_trial_mean", d->q3_trial_mean},
        {"cv_percent", d->cv_percent},
        {"ci95_low", d->ci95_low},
        {"ci95_high", d->ci95_high},
        {"ci95_rel_percent", d->ci95_rel_percent},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        json_object_set_new(o, f[i].name, num_or_null(f[i].v));
    if (d->method != STATS_CI_BATCH)
        return o; /* an older record's object, unchanged */
    json_object_set_new(o, "interval", json_string(stats_ci_name(d->method)));
    json_object_set_new(o, "batches", json_integer((json_int_t)d->batches));
    json_t *r = json_null();
    if (d->median.on) {
        r = median_json(&d->median);
    } else if (d->pairs > 0) { /* an older record: the geometric mean */
        r = json_object();
        json_object_set_new(r, "pairs", json_integer((json_int_t)d->pairs));
        json_object_set_new(r, "batches", json_integer((json_int_t)d->ratio_batches));
        json_object_set_new(r, "ratio", num_or_null(d->ratio));
        json_object_set_new(r, "ci95_low", num_or_null(d->ratio_ci95_low));
        json_object_set_new(r, "ci95_high", num_or_null(d->ratio_ci95_high));
        json_object_set_new(r, "ci95_rel_percent", num_or_null(d->ratio_ci95_rel_percent));
    }
    json_object_set_new(o, "paired_ratio", r);
    return o;
}

static int read_trial(const json_t *tr, size_t i, const char *file,
                      stats_trial *out, hb_err *err)
{
    long long calls;
    double ticks, ns;
    if (!json_is_object(tr))
        return hb_fail_at(err, file, 0, "trials[%zu] is not an object; "
                          "re-run the measurement", i);
    if (hb_json_get_int(tr, "calls", &calls, file, err) != 0 ||
        hb_json_get_num(tr, "ticks", &ticks, file, err) != 0 ||
        hb_json_get_num(tr, "ns", &ns, file, err) != 0)
        return -1;
    const json_t *dist = json_object_get(tr, "disturbed");
    if (!json_is_boolean(dist))
        return hb_fail_at(err, file, 0, "trials[%zu]: field 'disturbed' missing "
                          "or not a boolean; re-run the measurement", i);
    if (calls < 0)
        return hb_fail_at(err, file, 0, "trials[%zu]: negative calls; re-run "
                          "the measurement", i);
    out->calls = (unsigned long long)calls;
    out->ticks = ticks;
    out->ns = ns;
    out->disturbed = json_is_true(dist);
    const json_t *pair = json_object_get(tr, "pair");
    if (pair && !json_is_null(pair)) {
        long long pc;
        double pt;
        const json_t *pd = json_object_get(pair, "disturbed");
        if (!json_is_object(pair) || hb_json_get_int(pair, "calls", &pc, file, err) != 0 ||
            hb_json_get_num(pair, "ticks", &pt, file, err) != 0 || pc < 0 ||
            !json_is_boolean(pd))
            return hb_fail_at(err, file, 0, "trials[%zu]: field 'pair' is not a "
                              "baseline trial (calls, ticks, disturbed); re-run the "
                              "measurement", i);
        out->paired = 1;
        out->pair_calls = (unsigned long long)pc;
        out->pair_ticks = pt;
        out->pair_disturbed = json_is_true(pd);
    }
    return 0;
}

/* How RECORD's paired ratio is to be computed: *MEDIAN 0 (an older record:
 * the geometric mean, its paired_ratio has no "estimator"), 1 (the median,
 * with the recorded *RESAMPLES and *SEED) or 2 (a record being written: no
 * "derived" yet). */
static int recorded_median(const json_t *record, const char *file, int *median,
                           size_t *resamples, unsigned long long *seed, hb_err *err)
{
    const json_t *derived = json_object_get(record, "derived");
    *median = derived ? 0 : 2;
    const json_t *m = json_object_get(derived, "paired_ratio");
    if (!json_object_get(m, "estimator"))
        return 0;
    const char *name = hb_json_str(m, "estimator"), *iv = hb_json_str(m, "interval");
    const char *hex = hb_json_str(m, "seed");
    long long b;
    if (!json_is_object(m) || strcmp(name, STATS_MEDIAN_NAME) != 0 ||
        strcmp(iv, STATS_MEDIAN_INTERVAL) != 0)
        return hb_fail_at(err, file, 0, "derived.paired_ratio is not an estimator this "
                          "version knows (%s, interval %s); re-run the "
                          "measurement", STATS_MEDIAN_NAME, STATS_MEDIAN_INTERVAL);
    if (strlen(hex) != 16 || strspn(hex, "0123456789abcdef") != 16)
        return hb_fail_at(err, file, 0, "derived.paired_ratio.seed is not 16 "
                          "lowercase hex digits; re-run the measurement");
    *seed = strtoull(hex, NULL, 16);
    if (hb_json_get_int(m, "resamples", &b, NULL, NULL) != 0 || b < 1 ||
        b > STATS_MEDIAN_MAX_RESAMPLES)
        return hb_fail_at(err, file, 0, "derived.paired_ratio.resamples is not "
                          "a count from 1 to %d; re-run the measurement",
                          STATS_MEDIAN_MAX_RESAMPLES);
    *resamples = (size_t)b;
    *median = 1;
    return 0;
}

int stats_derive_record(const json_t *record, const char *file, json_t **derived,
                        hb_err *err)
{
    json_t *trials;
    long long size;
    if (hb_json_get_arr(record, "trials", &trials, file, err) != 0 ||
        hb_json_get_int(record, "size_bytes", &size, file, err) != 0)
        return -1;
    if (size < 0)
        return hb_fail_at(err, file, 0, "size_bytes is negative; re-run the "
                          "measurement");
    size_t n = json_array_size(trials);
    stats_trial *t = calloc(n ? n : 1, sizeof *t);
    if (!t)
        return hb_fail(err, "out of memory");
    for (size_t i = 0; i < n; i++)
        if (read_trial(json_array_get(trials, i), i, file, &t[i], err) != 0) {
            free(t);
            return -1;
        }
    const char *iv = json_string_value(json_object_get(json_object_get(record, "plan"),
                                                       "interval"));
    stats_ci_method method = iv && !strcmp(iv, "batch_means") ? STATS_CI_BATCH
                                                              : STATS_CI_IID;
    if (iv && method != STATS_CI_BATCH && strcmp(iv, "iid") != 0) {
        free(t);
        return hb_fail_at(err, file, 0, "plan.interval '%s' is not one this version "
                          "knows (batch_means, iid); re-run the measurement", iv);
    }
    int median = 0;
    size_t resamples = STATS_MEDIAN_RESAMPLES;
    unsigned long long seed = 0;
    if (method == STATS_CI_BATCH &&
        recorded_median(record, file, &median, &resamples, &seed, err) != 0) {
        free(t);
        return -1;
    }
    if (median == 2)
        seed = stats_median_seed(t, n);
    stats_derived d;
    int rc = stats_derive(t, n, (unsigned long long)size, method, &d, err);
    if (rc == 0 && median)
        rc = stats_derive_median(t, n, resamples, seed, &d, err);
    free(t);
    if (rc != 0) {
        char msg[HB_ERR_MAX];
        snprintf(msg, sizeof msg, "%s", err ? err->msg : "");
        return hb_fail_at(err, file, 0, "%s", msg);
    }
    *derived = stats_derived_json(&d);
    return 0;
}
