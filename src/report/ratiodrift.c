/* The host's ratio drift from the records' groups: see ratiodrift.h. */
#include "report/ratiodrift.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "measure/stats.h"
#include <stdio.h>
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

/* One group: its round in the stage and its log SHA-256 / SM3 ratio. */
typedef struct group_ratio {
    double round, log_ratio;
} group_ratio;

/* Every group of the records of S at SIZE into a new array, in the order
 * the stage took them (by round), their number in *N. */
static group_ratio *group_logs(const report_system *s, long long size, size_t *n)
{
    char first[128], second[128];
    snprintf(first, sizeof first, "%s/%s", RUNDIR_BASELINE_CANDIDATE,
             hb_baseline_primary()->instance);
    snprintf(second, sizeof second, "%s/%s", RUNDIR_BASELINE_CANDIDATE,
             hb_baseline_second()->instance);
    size_t cap = 16, k = 0;
    group_ratio *v = malloc(cap * sizeof *v);
    for (size_t r = 0; v && r < s->nrecs; r++) {
        if (s->recs[r].size != size)
            continue;
        size_t i;
        const json_t *t;
        json_array_foreach(json_object_get(s->recs[r].json, "trials"), i, t) {
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
            v[k].round = json_is_number(round) ? json_number_value(round) : (double)i;
            v[k++].log_ratio = log(b / a);
        }
    }
    *n = k;
    return v;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int cmp_round(const void *a, const void *b)
{
    return cmp_double(&((const group_ratio *)a)->round, &((const group_ratio *)b)->round);
}

/* The median of the log ratios of G[from..to) (scratch: TMP). */
static double block_median(const group_ratio *g, size_t from, size_t to, double *tmp)
{
    for (size_t i = from; i < to; i++)
        tmp[i - from] = g[i].log_ratio;
    return stats_median(tmp, to - from);
}

int ratiodrift_read(const report_system *s, ratio_drift *out)
{
    memset(out, 0, sizeof *out);
    out->within_percent = NAN;
    size_t n_dev = 0, all = 0;
    double dev[RATIODRIFT_MAX_SIZES * RATIODRIFT_BLOCKS];
    for (size_t r = 0; r < s->nrecs; r++) {
        long long size = s->recs[r].size;
        int seen = 0;
        for (size_t q = 0; q < out->n_sizes; q++)
            seen |= out->size[q] == size;
        if (seen || out->n_sizes == RATIODRIFT_MAX_SIZES)
            continue;
        size_t n = 0;
        group_ratio *g = group_logs(s, size, &n);
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
            all += n;
            /* the stage's moments at this size: consecutive blocks of
             * groups, each block's median against the size's */
            size_t blocks = n / RATIODRIFT_BLOCK_MIN;
            if (blocks > RATIODRIFT_BLOCKS)
                blocks = RATIODRIFT_BLOCKS;
            for (size_t b = 0; blocks >= 2 && b < blocks; b++)
                dev[n_dev++] = block_median(g, b * n / blocks, (b + 1) * n / blocks, tmp) -
                               med;
        }
        free(tmp);
        free(g);
    }
    out->n_groups = all;
    if (n_dev >= RATIODRIFT_MIN_BLOCKS) {
        qsort(dev, n_dev, sizeof *dev, cmp_double);
        double spread = stats_quantile_sorted(dev, n_dev, 0.9) -
                        stats_quantile_sorted(dev, n_dev, 0.1);
        out->within_percent = (exp(spread) - 1.0) * 100.0;
    }
    return 0;
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
