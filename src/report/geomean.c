/* The geometric mean of per-size figures and of their intervals: see
 * geomean.h. */
#include "report/geomean.h"

#include <math.h>

void geomean_of(const double *v, const double *lo, const double *hi, size_t n,
                geomean_figure *out)
{
    double sum = 0, sum_lo = 0, sum_hi = 0;
    int bounded = lo && hi;
    out->n = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(v[i]) || v[i] <= 0)
            continue;
        out->n++;
        sum += log(v[i]);
        if (bounded && isfinite(lo[i]) && isfinite(hi[i]) && lo[i] > 0 && lo[i] <= v[i] &&
            hi[i] >= v[i]) {
            sum_lo += log(lo[i]);
            sum_hi += log(hi[i]);
        } else {
            bounded = 0;
        }
    }
    out->value = out->n ? exp(sum / (double)out->n) : NAN;
    out->lo = out->n && bounded ? exp(sum_lo / (double)out->n) : NAN;
    out->hi = out->n && bounded ? exp(sum_hi / (double)out->n) : NAN;
}
