/* One figure per instance across the message sizes: the geometric mean of
 * per-size figures, and for paired ratios its 95 % interval from the
 * per-size intervals. The pages' "one figure per instance" ranking (the
 * summary) and its method text use it; pure arithmetic, tested on its own.
 *
 * The interval is combined in log space as the interval of a mean of logs
 * whose errors may be fully correlated across sizes: its bounds are the
 * geometric means of the per-size bounds, exp(mean ln lo_i) and
 * exp(mean ln hi_i). That is never narrower than the interval of
 * independent per-size errors (which would shrink by about the square root
 * of the number of sizes), so it is conservative where the host moved all
 * sizes of a campaign together. */
#ifndef HB_REPORT_GEOMEAN_H
#define HB_REPORT_GEOMEAN_H

#include <stddef.h>

typedef struct geomean_figure {
    double value;   /* geometric mean of the usable figures; NaN without any */
    double lo, hi;  /* its interval; NaN when a usable figure has none */
    size_t n;       /* figures used: finite and positive */
} geomean_figure;

/* The geometric mean of the N figures V (NaN, zero or negative ones are
 * left out) and, when LO and HI are given (may be NULL) and every used
 * figure has a finite, positive interval around it (lo <= v <= hi), the
 * geometric means of the bounds. */
void geomean_of(const double *v, const double *lo, const double *hi, size_t n,
                geomean_figure *out);

#endif
