/* The host's drift from the baseline's records: see drift.h. */
#include "measure/drift.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "measure/stats.h"

typedef struct point {
    double t, v;
} point;

static int by_time(const void *a, const void *b)
{
    double x = ((const point *)a)->t, y = ((const point *)b)->t;
    return (x > y) - (x < y);
}

/* Appends the relative speeds of record R's kept trials to P (capacity
 * *CAP); *N points so far. */
static int add_record(const json_t *r, point **p, size_t *n, size_t *cap)
{
    const json_t *trials = json_object_get(r, "trials");
    size_t k = json_array_size(trials), m = 0;
    double *cost = malloc((k ? k : 1) * sizeof *cost), *sorted = NULL;
    double *t = malloc((k ? k : 1) * sizeof *t);
    if (!cost || !t) {
        free(cost);
        free(t);
        return -1;
    }
    for (size_t i = 0; i < k; i++) {
        const json_t *tr = json_array_get(trials, i);
        double calls = json_number_value(json_object_get(tr, "calls"));
        double ticks = json_number_value(json_object_get(tr, "ticks"));
        const json_t *ts = json_object_get(tr, "t_s");
        if (json_is_true(json_object_get(tr, "disturbed")) || !json_is_number(ts) ||
            !(calls > 0) || !(ticks > 0))
            continue;
        cost[m] = ticks / calls;
        t[m++] = json_number_value(ts);
    }
    int rc = 0;
    if (m > 0 && (sorted = malloc(m * sizeof *sorted))) {
        memcpy(sorted, cost, m * sizeof *sorted);
        double med = stats_median(sorted, m);
        if (*n + m > *cap) {
            size_t nc = (*n + m) * 2;
            point *np = realloc(*p, nc * sizeof *np);
            if (!np)
                rc = -1;
            else {
                *p = np;
                *cap = nc;
            }
        }
        for (size_t i = 0; rc == 0 && i < m; i++)
            (*p)[(*n)++] = (point){t[i], med / cost[i]};
    } else if (m > 0) {
        rc = -1;
    }
    free(sorted);
    free(cost);
    free(t);
    return rc;
}

int drift_of_records(const json_t *const *records, size_t n, drift_series *out)
{
    memset(out, 0, sizeof *out);
    out->spread_percent = NAN;
    point *p = NULL;
    size_t np = 0, cap = 0;
    for (size_t i = 0; i < n; i++)
        if (add_record(records[i], &p, &np, &cap) != 0) {
            free(p);
            return -1;
        }
    if (np == 0) {
        free(p);
        return 0;
    }
    qsort(p, np, sizeof *p, by_time);
    out->t_s = malloc(np * sizeof *out->t_s);
    out->speed = malloc(np * sizeof *out->speed);
    double *v = malloc(np * sizeof *v);
    if (!out->t_s || !out->speed || !v) {
        free(p);
        free(v);
        drift_free(out);
        return -1;
    }
    for (size_t i = 0; i < np; i++) {
        out->t_s[i] = p[i].t;
        out->speed[i] = v[i] = p[i].v;
    }
    out->n = np;
    out->duration_s = p[np - 1].t - p[0].t;
    if (np >= 10) {
        stats_median(v, np); /* sorts */
        out->spread_percent = (stats_quantile_sorted(v, np, 0.9) -
                               stats_quantile_sorted(v, np, 0.1)) * 100.0;
    }
    free(v);
    free(p);
    return 0;
}

json_t *drift_summary_json(const drift_series *d)
{
    return json_pack("{s:o, s:I, s:f, s:f}", "spread_percent",
                     isfinite(d->spread_percent) ? json_real(d->spread_percent)
                                                 : json_null(),
                     "trials", (json_int_t)d->n, "duration_s", d->duration_s,
                     "warn_percent", DRIFT_WARN_PERCENT);
}

void drift_free(drift_series *d)
{
    free(d->t_s);
    free(d->speed);
    d->t_s = d->speed = NULL;
    d->n = 0;
}
