/* The paired ratio's estimator under simulated noise (no code is timed): draws
 * series of pairs (an instance trial beside a baseline trial) whose per-call
 * costs carry a drift of the host shared by both sides, a time-correlated
 * drift between the two sides (AR(1) in log), independent measurement noise
 * and one-sided spikes (a trial can only be slowed), with a known true ratio.
 * It runs hashbench's own estimators on them (src/measure/stats.h: the
 * median of pair ratios with its circular block bootstrap interval, and the
 * geometric mean with batch means that records made before it publish) and
 * prints, as Markdown:
 *  - how often each 95 % interval covers the true ratio, per number of pairs
 *    and noise model (goal for the median: >= 90 %, for every model whose
 *    drift between the sides is correlated over fewer pairs than a block,
 *    see models[]);
 *  - how far spikes added to the instance's side only move the median, the
 *    mean of the pair ratios and the geometric mean (goal: the median moves
 *    less than a quarter of what the mean of ratios moves, and never down).
 * Exit status 0 when every goal holds, 1 otherwise. Built and run by
 * bench/estimator.sh; options: --reps N (replicates per cell, default 400),
 * --quick (100). The simulation's own random numbers come from erand48 with
 * fixed seeds, so a run prints the same figures every time. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/stats.h"

#define TRUE_RATIO 1.5
#define CALLS 1000ULL

typedef struct model {
    const char *name;
    size_t goal_from;  /* coverage goal from this many pairs up (0: none) */
    double host_sd;    /* shared drift (AR(1) in log, rho 0.98): cancels in a pair */
    double rho, sd;    /* drift between the two sides: AR(1) in log, stationary sd */
    double noise_sd;   /* independent log-normal noise of each trial */
    double spike_p;    /* each trial (either side) is slowed with this probability */
    double spike_mean; /* ... by a factor 1 + Exp(mean) */
} model;

/* Correlation time of the drift between the sides, (1 + rho) / (1 - rho)
 * pairs: 0 (iid), 3 (mild), 9 (quiet), 19 (busy), 66 (drifting: about a
 * cell's whole series; no interval drawn from within one series can hold
 * there, so it is shown without a goal). */
static const model models[] = {
    {"iid", 16, 0.0, 0.0, 0.0, 0.01, 0.0, 0.0},
    {"mild", 16, 0.05, 0.5, 0.005, 0.005, 0.05, 0.3},
    {"quiet", 16, 0.05, 0.80, 0.005, 0.003, 0.02, 0.2},
    {"busy", 128, 0.15, 0.90, 0.02, 0.01, 0.10, 0.5},
    {"drifting", 0, 0.15, 0.97, 0.03, 0.005, 0.05, 0.3},
};

static double unif(unsigned short xs[3])
{
    double u;
    do
        u = erand48(xs);
    while (u <= 0.0);
    return u;
}

static double normal(unsigned short xs[3])
{
    return sqrt(-2.0 * log(unif(xs))) * cos(2.0 * M_PI * unif(xs));
}

static double spike(unsigned short xs[3], double p, double mean)
{
    return unif(xs) < p ? 1.0 - mean * log(unif(xs)) : 1.0;
}

/* N pairs of model M into T (true ratio TRUE_RATIO). */
static void draw_series(const model *m, size_t n, unsigned short xs[3], stats_trial *t)
{
    double host = 0, d = 0, inn = sqrt(1.0 - m->rho * m->rho);
    for (size_t k = 0; k < n; k++) {
        host = 0.98 * host + m->host_sd * sqrt(1.0 - 0.98 * 0.98) * normal(xs);
        d = k ? m->rho * d + m->sd * inn * normal(xs) : m->sd * normal(xs);
        double a = TRUE_RATIO * exp(host + d / 2 + m->noise_sd * normal(xs)) *
                   spike(xs, m->spike_p, m->spike_mean);
        double b = exp(host - d / 2 + m->noise_sd * normal(xs)) *
                   spike(xs, m->spike_p, m->spike_mean);
        memset(&t[k], 0, sizeof t[k]);
        t[k].calls = t[k].pair_calls = CALLS;
        t[k].ticks = a * 1000.0 * CALLS;
        t[k].pair_ticks = b * 1000.0 * CALLS;
        t[k].ns = t[k].ticks;
        t[k].paired = 1;
    }
}

static int estimate(const stats_trial *t, size_t n, unsigned long long seed, stats_derived *d)
{
    hb_err err = {{0}};
    if (stats_derive(t, n, 64, STATS_CI_BATCH, d, &err) != 0 ||
        stats_derive_median(t, n, STATS_MEDIAN_RESAMPLES, seed, d, &err) != 0) {
        fprintf(stderr, "estimator_sim: %s\n", err.msg);
        return -1;
    }
    return 0;
}

static double mean_of_ratios(const stats_trial *t, size_t n)
{
    double s = 0;
    for (size_t k = 0; k < n; k++)
        s += (t[k].ticks / (double)t[k].calls) / (t[k].pair_ticks / (double)t[k].pair_calls);
    return s / (double)n;
}

int main(int argc, char **argv)
{
    int reps = 400, ok = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            reps = 100;
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: estimator_sim [--quick] [--reps N]\n");
            return 2;
        }
    }
    if (reps < 10) {
        fprintf(stderr, "estimator_sim: --reps needs at least 10\n");
        return 2;
    }
    static const size_t sizes[] = {16, 32, 64, 128, 256, 512};
    size_t nsz = sizeof sizes / sizeof sizes[0], nmax = sizes[nsz - 1];
    stats_trial *t = malloc(nmax * sizeof *t), *u = malloc(nmax * sizeof *u);
    if (!t || !u)
        return 2;

    printf("Coverage of the true ratio by the 95 %% intervals, %d series per cell: "
           "the median of pair ratios (circular block bootstrap, B = %d; goal >= 90 %%) "
           "beside the geometric mean with batch means, and each interval's mean "
           "half-width:\n\n", reps, STATS_MEDIAN_RESAMPLES);
    printf("| model | pairs | block | median covers | geometric mean covers | "
           "median ± | geometric mean ± |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (size_t mi = 0; mi < sizeof models / sizeof models[0]; mi++)
        for (size_t si = 0; si < nsz; si++) {
            size_t n = sizes[si];
            unsigned short xs[3] = {(unsigned short)(mi + 1), (unsigned short)n, 7};
            int cov = 0, gcov = 0;
            double half = 0, ghalf = 0;
            for (int r = 0; r < reps; r++) {
                stats_derived d;
                draw_series(&models[mi], n, xs, t);
                if (estimate(t, n, (unsigned long long)r * 7919 + n, &d) != 0)
                    return 2;
                cov += d.median.ci95_low <= TRUE_RATIO && TRUE_RATIO <= d.median.ci95_high;
                gcov += d.ratio_ci95_low <= TRUE_RATIO && TRUE_RATIO <= d.ratio_ci95_high;
                half += d.median.ci95_rel_percent;
                ghalf += d.ratio_ci95_rel_percent;
            }
            double c = 100.0 * cov / reps;
            int goal = models[mi].goal_from && n >= models[mi].goal_from;
            ok &= !goal || c >= 90.0;
            printf("| %s | %zu | %zu | %.1f %%%s | %.1f %% | %.3f %% | %.3f %% |\n",
                   models[mi].name, n, stats_block_length(n), c,
                   !goal ? " (no goal)" : c >= 90.0 ? "" : " (goal missed)",
                   100.0 * gcov / reps, half / reps, ghalf / reps);
        }

    printf("\nSpikes added to the instance's side only (10 %% of its trials slowed "
           "by 1 + Exp(mean 1), on top of the busy model), mean change of each "
           "estimate over %d series, and its smallest change:\n\n", reps);
    printf("| pairs | median | mean of ratios | geometric mean | median / mean of "
           "ratios | median's smallest change |\n"
           "| ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (size_t si = 0; si < nsz; si++) {
        size_t n = sizes[si];
        unsigned short xs[3] = {99, (unsigned short)n, 3};
        double dm = 0, dmean = 0, dg = 0, low = INFINITY;
        for (int r = 0; r < reps; r++) {
            stats_derived a, b;
            draw_series(&models[1], n, xs, t);
            memcpy(u, t, n * sizeof *t);
            for (size_t k = 0; k < n; k++)
                u[k].ticks *= spike(xs, 0.10, 1.0);
            if (estimate(t, n, 1, &a) != 0 || estimate(u, n, 1, &b) != 0)
                return 2;
            double ch = b.median.ratio / a.median.ratio - 1.0;
            dm += ch;
            low = fmin(low, ch);
            dmean += mean_of_ratios(u, n) / mean_of_ratios(t, n) - 1.0;
            dg += b.ratio / a.ratio - 1.0;
        }
        dm /= reps;
        dmean /= reps;
        dg /= reps;
        int good = dm < 0.25 * dmean && low >= 0.0;
        ok &= good;
        printf("| %zu | %+.2f %% | %+.2f %% | %+.2f %% | %.2f%s | %+.3f %% |\n", n, dm * 100,
               dmean * 100, dg * 100, dm / dmean, good ? "" : " (goal missed)", low * 100);
    }
    printf("\n%s\n", ok ? "All goals met." : "A goal was missed (marked above).");
    free(t);
    free(u);
    return ok ? 0 : 1;
}
