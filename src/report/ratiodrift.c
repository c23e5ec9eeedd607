/* The host's ratio drift from the records' groups: see ratiodrift.h. */
#include "report/ratiodrift.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/json.h"
#include "measure/stats.h"
#include "rundir/baselines.h"
#include "rundir/rundir.h"


/* The time per call of the window of INSTANCE among PAIRS, or NaN. */
static double window_ns(const json_t *pairs, const char *instance)
{
    size_t i;
    const json_t *p;
    json_array_foreach(pairs, i, p) {
        const char *name = json_string_value(json_object_get(p, "instance"));
        if (!name || strcmp(name, instance))
            continue;
        double calls = report_num(p, "calls"), ns = report_num(p, "ns");
        return calls > 0 && ns > 0 ? ns / calls : NAN;
    }
    return NAN;
}

/* One group: its round and slot in the stage and its log SHA-256 / SM3
 * ratio. */
typedef struct group_ratio {
    double round, slot, log_ratio;
} group_ratio;

/* The size of record REC (its "size_bytes"), -1 when it has none. */
static long long record_size(const json_t *rec)
{
    const json_t *v = json_object_get(rec, "size_bytes");
    return json_is_integer(v) ? (long long)json_integer_value(v) : -1;
}

/* Every group of the N records RECS at SIZE into a new array, their
 * number in *N_OUT (the caller orders them). */
static group_ratio *group_logs(const json_t *const *recs, size_t n, long long size,
                               size_t *n_out)
{
    char first[128], second[128];
    snprintf(first, sizeof first, "%s/%s", RUNDIR_BASELINE_CANDIDATE,
             hb_baseline_primary()->instance);
    snprintf(second, sizeof second, "%s/%s", RUNDIR_BASELINE_CANDIDATE,
             hb_baseline_second()->instance);
    size_t cap = 16, k = 0;
    group_ratio *v = malloc(cap * sizeof *v);
    for (size_t r = 0; v && r < n; r++) {
        if (record_size(recs[r]) != size)
            continue;
        size_t i;
        const json_t *t;
        json_array_foreach(json_object_get(recs[r], "trials"), i, t) {
            const json_t *pairs = json_object_get(t, "pairs");
            double a = window_ns(pairs, first), b = window_ns(pairs, second);
            if (!isfinite(a) || !isfinite(b))
                continue;
            if (k == cap) {
                group_ratio *g = realloc(v, 2 * cap * sizeof *v);
                if (!g) {
                    free(v);
                    return NULL;
                }
                v = g;
                cap *= 2;
            }
            const json_t *round = json_object_get(t, "round");
            const json_t *slot = json_object_get(t, "slot");
            v[k].round = json_is_number(round) ? json_number_value(round) : (double)i;
            v[k].slot = json_is_number(slot) ? json_number_value(slot) : 0.0;
            v[k++].log_ratio = log(b / a);
        }
    }
    *n_out = k;
    return v;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The order the stage took the groups in: by round, then slot; the ratio
 * last, so that the order never depends on the order of the records. */
static int cmp_round(const void *a, const void *b)
{
    const group_ratio *x = a, *y = b;
    int c = cmp_double(&x->round, &y->round);
    if (!c)
        c = cmp_double(&x->slot, &y->slot);
    return c ? c : cmp_double(&x->log_ratio, &y->log_ratio);
}

/* The median of the log ratios of G[from..to) (scratch: TMP). */
static double block_median(const group_ratio *g, size_t from, size_t to, double *tmp)
{
    for (size_t i = from; i < to; i++)
        tmp[i - from] = g[i].log_ratio;
    return stats_median(tmp, to - from);
}

/* P10 to P90 of the N deviations DEV (sorted here) as a percentage. */
static double spread_of(double *dev, size_t n)
{
    qsort(dev, n, sizeof *dev, cmp_double);
    double spread = stats_quantile_sorted(dev, n, 0.9) - stats_quantile_sorted(dev, n, 0.1);
    return (exp(spread) - 1.0) * 100.0;
}

int ratiodrift_of_records(const json_t *const *recs, size_t nrecs, ratio_drift *out)
{
    memset(out, 0, sizeof *out);
    out->within_percent = NAN;
    size_t n_dev = 0, all = 0;
    double dev[RATIODRIFT_MAX_SIZES * RATIODRIFT_BLOCKS];
    for (size_t r = 0; r < nrecs; r++) {
        long long size = record_size(recs[r]);
        int seen = size < 0;
        for (size_t q = 0; q < out->n_sizes; q++)
            seen |= out->size[q] == size;
        if (seen || out->n_sizes == RATIODRIFT_MAX_SIZES)
            continue;
        size_t n = 0;
        group_ratio *g = group_logs(recs, nrecs, size, &n);
        double *tmp = g ? malloc((n + 1) * sizeof *tmp) : NULL;
        if (!tmp) {
            free(g);
            return -1;
        }
        if (n > 0) {
            qsort(g, n, sizeof *g, cmp_round);
            double med = block_median(g, 0, n, tmp);
            size_t q = out->n_sizes++;
            out->size[q] = size;
            out->median[q] = exp(med);
            out->groups[q] = n;
            out->spread[q] = NAN;
            all += n;
            /* the stage's moments at this size: consecutive blocks of
             * groups, each block's median against the size's */
            size_t blocks = n / RATIODRIFT_BLOCK_MIN, first = n_dev;
            if (blocks > RATIODRIFT_BLOCKS)
                blocks = RATIODRIFT_BLOCKS;
            for (size_t b = 0; blocks >= 2 && b < blocks; b++)
                dev[n_dev++] = block_median(g, b * n / blocks, (b + 1) * n / blocks, tmp) -
                               med;
            out->blocks[q] = n_dev - first;
            if (out->blocks[q] >= 2) {
                double own[RATIODRIFT_BLOCKS];
                memcpy(own, dev + first, out->blocks[q] * sizeof *own);
                out->spread[q] = spread_of(own, out->blocks[q]);
            }
        }
        free(tmp);
        free(g);
    }
    out->n_groups = all;
    if (n_dev >= RATIODRIFT_MIN_BLOCKS)
        out->within_percent = spread_of(dev, n_dev);
    return 0;
}

int ratiodrift_read(const report_system *s, ratio_drift *out)
{
    const json_t **recs = malloc((s->nrecs ? s->nrecs : 1) * sizeof *recs);
    if (!recs)
        return -1;
    for (size_t r = 0; r < s->nrecs; r++)
        recs[r] = s->recs[r].json;
    int rc = ratiodrift_of_records(recs, s->nrecs, out);
    free(recs);
    return rc;
}

double ratiodrift_margin_of(const ratio_drift *d, size_t q)
{
    double worst = NAN;
    if (q < d->n_sizes && isfinite(d->spread[q]))
        worst = d->spread[q];
    if (isfinite(d->within_percent) && !(worst >= d->within_percent))
        worst = d->within_percent;
    return isfinite(worst) ? worst / 2.0 : NAN;
}

json_t *ratiodrift_json(const ratio_drift *d)
{
    json_t *sizes = json_array();
    size_t order[RATIODRIFT_MAX_SIZES];
    for (size_t q = 0; q < d->n_sizes; q++) /* ascending sizes */
        for (size_t k = order[q] = q; k > 0 && d->size[order[k - 1]] > d->size[order[k]]; k--) {
            size_t t = order[k];
            order[k] = order[k - 1];
            order[k - 1] = t;
        }
    for (size_t i = 0; sizes && i < d->n_sizes; i++) {
        size_t q = order[i];
        double m = ratiodrift_margin_of(d, q);
        json_array_append_new(
            sizes, json_pack("{s:I, s:f, s:I, s:I, s:o, s:o}", "size_bytes",
                             (json_int_t)d->size[q], "median_ratio", d->median[q], "groups",
                             (json_int_t)d->groups[q], "blocks", (json_int_t)d->blocks[q],
                             "spread_percent", isfinite(d->spread[q])
                                                   ? json_real(d->spread[q]) : json_null(),
                             "margin_percent", isfinite(m) ? json_real(m) : json_null()));
    }
    char pair[300];
    snprintf(pair, sizeof pair, "%s/%s / %s/%s", RUNDIR_BASELINE_CANDIDATE,
             hb_baseline_second()->instance, RUNDIR_BASELINE_CANDIDATE,
             hb_baseline_primary()->instance);
    return json_pack("{s:s, s:o, s:I, s:o}", "pair", pair, "spread_percent",
                     isfinite(d->within_percent) ? json_real(d->within_percent) : json_null(),
                     "groups", (json_int_t)d->n_groups, "sizes", sizes ? sizes : json_null());
}

double ratiodrift_recorded_margin(const report_system *s, long long size)
{
    size_t i;
    const json_t *e;
    json_array_foreach(json_object_get(json_object_get(s->campaign, RATIODRIFT_KEY), "sizes"),
                       i, e) {
        const json_t *z = json_object_get(e, "size_bytes");
        if (json_is_integer(z) && json_integer_value(z) == size) {
            double m = report_num(e, "margin_percent");
            return isfinite(m) && m >= 0 ? m : NAN;
        }
    }
    return NAN;
}

int ratiodrift_widen(const report_system *s, long long size, double *lo, double *hi)
{
    double m = ratiodrift_recorded_margin(s, size);
    if (!isfinite(m))
        return 0;
    *lo /= 1.0 + m / 100.0;
    *hi *= 1.0 + m / 100.0;
    return 1;
}

double ratiodrift_between(const ratio_drift *a, const ratio_drift *b, long long *at)
{
    double worst = NAN;
    for (size_t i = 0; i < a->n_sizes; i++)
        for (size_t j = 0; j < b->n_sizes; j++) {
            if (a->size[i] != b->size[j])
                continue;
            double shift = (exp(fabs(log(b->median[j] / a->median[i]))) - 1.0) * 100.0;
            if (!isfinite(worst) || shift > worst) {
                worst = shift;
                if (at)
                    *at = a->size[i];
            }
        }
    return worst;
}

json_t *ratiodrift_of_dir(const char *root)
{
    rundir_loaded b;
    hb_err ignored;
    json_t *out = NULL;
    ratio_drift d;
    if (rundir_load_records(root, NULL, NULL, &b, &ignored) == 0 &&
        ratiodrift_of_records((const json_t *const *)b.v, b.n, &d) == 0 && d.n_sizes > 0)
        out = ratiodrift_json(&d);
    rundir_loaded_free(&b);
    return out;
}
