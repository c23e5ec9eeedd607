/* The host's ratio drift from the records' groups: see ratiodrift.h. */
#include "report/ratiodrift.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "measure/stats.h"
#include "rundir/rundir.h"

#define BASE_SM3 RUNDIR_BASELINE_CANDIDATE "/" RUNDIR_BASELINE_INSTANCE
#define BASE_SHA256 RUNDIR_BASELINE_CANDIDATE "/" RUNDIR_BASELINE_SECOND_INSTANCE

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

/* The log SHA-256 / SM3 ratio of every group of the records of S at SIZE
 * into a new array, their number in *N. */
static double *group_logs(const report_system *s, long long size, size_t *n)
{
    size_t cap = 16, k = 0;
    double *v = malloc(cap * sizeof *v);
    for (size_t r = 0; v && r < s->nrecs; r++) {
        if (s->recs[r].size != size)
            continue;
        size_t i;
        const json_t *t;
        json_array_foreach(json_object_get(s->recs[r].json, "trials"), i, t) {
            const json_t *pairs = json_object_get(t, "pairs");
            double a = window_ns(pairs, BASE_SM3), b = window_ns(pairs, BASE_SHA256);
            if (!isfinite(a) || !isfinite(b))
                continue;
            if (k == cap) {
                double *g = realloc(v, 2 * cap * sizeof *v);
                if (!g) {
                    free(v);
                    return NULL;
                }
                v = g;
                cap *= 2;
            }
            v[k++] = log(b / a);
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

int ratiodrift_read(const report_system *s, ratio_drift *out)
{
    memset(out, 0, sizeof *out);
    out->within_percent = NAN;
    size_t cap = 64, all = 0;
    double *dev = malloc(cap * sizeof *dev);
    if (!dev)
        return -1;
    for (size_t r = 0; r < s->nrecs; r++) {
        long long size = s->recs[r].size;
        int seen = 0;
        for (size_t q = 0; q < out->n_sizes; q++)
            seen |= out->size[q] == size;
        if (seen || out->n_sizes == RATIODRIFT_MAX_SIZES)
            continue;
        size_t n = 0;
        double *v = group_logs(s, size, &n);
        if (!v) {
            free(dev);
            return -1;
        }
        if (n == 0) {
            free(v);
            continue;
        }
        double med = stats_median(v, n);
        size_t q = out->n_sizes++;
        out->size[q] = size;
        out->median[q] = exp(med);
        out->groups[q] = n;
        if (all + n > cap) {
            while (all + n > cap)
                cap *= 2;
            double *d = realloc(dev, cap * sizeof *dev);
            if (!d) {
                free(v);
                free(dev);
                return -1;
            }
            dev = d;
        }
        for (size_t i = 0; i < n; i++)
            dev[all++] = v[i] - med;
        free(v);
    }
    out->n_groups = all;
    if (all >= RATIODRIFT_MIN_GROUPS) {
        qsort(dev, all, sizeof *dev, cmp_double);
        double spread = stats_quantile_sorted(dev, all, 0.9) -
                        stats_quantile_sorted(dev, all, 0.1);
        out->within_percent = (exp(spread) - 1.0) * 100.0;
    }
    free(dev);
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
