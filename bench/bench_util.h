/* What the benchmark programs (bench/probe_bias.c, bench/variation.c) share
 * beside the probe's own headers: the median of a sample. Header-only, libc
 * only, like the programs. */
#ifndef HB_BENCH_UTIL_H
#define HB_BENCH_UTIL_H

#include <stdlib.h>

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of the N values V, which it sorts (V[0] is then the lowest,
 * V[N - 1] the highest). */
static inline double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
