/* Paired ratios read from records and the bootstrap of a ratio of two
 * figures: see paired.h. The per-pair rule is the one of measure/stats.h
 * (a pair counts when both trials are kept and both have calls and ticks). */
#include "report/paired.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "measure/stats.h"

static double num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

int paired_recorded(const json_t *derived, paired_figure *out)
{
    memset(out, 0, sizeof *out);
    out->ratio = out->lo = out->hi = NAN;
    const json_t *pr = json_object_get(derived, "paired_ratio");
    if (json_is_object(pr)) {
        out->ratio = num(pr, "ratio");
        out->lo = num(pr, "ci95_low");
        out->hi = num(pr, "ci95_high");
        const json_t *p = json_object_get(pr, "pairs");
        out->pairs = json_is_integer(p) && json_integer_value(p) > 0
                         ? (size_t)json_integer_value(p) : 0;
        const json_t *e = json_object_get(pr, "estimator");
        out->est = json_is_string(e) && strcmp(json_string_value(e), "median") == 0
                       ? PAIRED_MEDIAN : PAIRED_GEOMEAN;
    }
    return isfinite(out->ratio);
}

int paired_read(const json_t *record, paired_figure *out)
{
    paired_recorded(json_object_get(record, "derived"), out);
    const json_t *trials = json_object_get(record, "trials");
    size_t n = json_array_size(trials);
    out->q = malloc((n ? n : 1) * sizeof *out->q);
    if (!out->q)
        return -1;
    size_t i;
    const json_t *t;
    json_array_foreach(trials, i, t) {
        const json_t *pair = json_object_get(t, "pair");
        if (!json_is_object(pair) || json_is_true(json_object_get(t, "disturbed")) ||
            json_is_true(json_object_get(pair, "disturbed")))
            continue;
        double c = num(t, "calls"), k = num(t, "ticks");
        double pc = num(pair, "calls"), pk = num(pair, "ticks");
        if (!(c > 0) || !(k > 0) || !(pc > 0) || !(pk > 0))
            continue;
        out->q[out->n++] = (k / c) / (pk / pc);
    }
    return 0;
}

void paired_free(paired_figure *p)
{
    free(p->q);
    memset(p, 0, sizeof *p);
    p->ratio = p->lo = p->hi = NAN;
}

double paired_center(const double *q, size_t n, paired_estimator est)
{
    if (n == 0)
        return NAN;
    if (est == PAIRED_MEDIAN) {
        double *x = malloc(n * sizeof *x);
        if (!x)
            return NAN;
        memcpy(x, q, n * sizeof *x);
        double m = stats_median(x, n);
        free(x);
        return m;
    }
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += log(q[i]);
    return exp(sum / (double)n);
}

static double side_center(const paired_side *s, const double *v)
{
    if (s->paired)
        return paired_center(v, s->n, s->est);
    double sum = 0;
    for (size_t i = 0; i < s->n; i++)
        sum += v[i];
    return s->n ? sum / (double)s->n : NAN;
}

/* splitmix64: a small, well-known generator step; statistical quality is
 * ample for resampling indexes. */
static uint64_t next_u64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void resample(const paired_side *s, double *out, uint64_t *state)
{
    for (size_t i = 0; i < s->n; i++)
        out[i] = s->v[next_u64(state) % s->n];
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int paired_boot_ratio(const paired_side *a, const paired_side *b, uint64_t seed,
                      size_t resamples, double *ratio, double *lo, double *hi)
{
    *ratio = side_center(b, b->v) / side_center(a, a->v);
    *lo = *hi = NAN;
    if (a->n < 2 || b->n < 2 || resamples < 2 || !isfinite(*ratio))
        return 0;
    double *ra = malloc(a->n * sizeof *ra), *rb = malloc(b->n * sizeof *rb);
    double *r = malloc(resamples * sizeof *r);
    if (!ra || !rb || !r) {
        free(ra);
        free(rb);
        free(r);
        return -1;
    }
    uint64_t state = seed;
    size_t k = 0;
    for (size_t i = 0; i < resamples; i++) {
        resample(a, ra, &state);
        resample(b, rb, &state);
        double v = side_center(b, rb) / side_center(a, ra);
        if (isfinite(v))
            r[k++] = v;
    }
    if (k >= 2) {
        qsort(r, k, sizeof *r, cmp_double);
        *lo = stats_quantile_sorted(r, k, 0.025);
        *hi = stats_quantile_sorted(r, k, 0.975);
    }
    free(ra);
    free(rb);
    free(r);
    return 0;
}

uint64_t paired_seed(const char *text)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        h ^= *p;
        h *= 0x100000001b3ULL;
    }
    return h;
}
