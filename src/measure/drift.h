/* The host's drift over a measure stage, read from the baseline's records:
 * the baseline is the same trusted code at every moment of the stage, so
 * its trials are the host's speed over time. For each baseline record (one
 * per message size) the kept trials' per-call costs are divided into the
 * record's median, giving each trial a relative speed (1: the usual speed
 * at that size; 1.2: 20 % faster); the points, ordered by the trials' start
 * (t_s, seconds since the stage's start), are the series the method page
 * draws. spread_percent = (P90 - P10) of the relative speeds * 100 (the
 * quantiles of stats.h): how much an absolute figure from this host can
 * move with the moment it was taken; above DRIFT_WARN_PERCENT every page
 * says so and points to the paired ratios. */
#ifndef HB_MEASURE_DRIFT_H
#define HB_MEASURE_DRIFT_H

#include <stddef.h>
#include <jansson.h>

#define DRIFT_WARN_PERCENT 5.0

typedef struct drift_series {
    size_t n;          /* points */
    double *t_s;       /* malloc'd, ascending */
    double *speed;     /* relative speed of each point */
    double spread_percent; /* NaN with fewer than 10 points */
    double duration_s; /* last t_s - first t_s */
} drift_series;

/* The drift of the N baseline RECORDS (records of other instances, and
 * trials without t_s, are not used). Returns 0, or -1 when out of memory. */
int drift_of_records(const json_t *const *records, size_t n, drift_series *out);

/* campaign.json's "host_drift" object for D (new reference). */
json_t *drift_summary_json(const drift_series *d);

void drift_free(drift_series *d);

#endif
