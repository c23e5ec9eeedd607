/* A submitter's self-assessment (the performance and resource tables a
 * submission states for itself) held against the independent figures of one
 * measured system. Three input forms, described in docs/SELF_ASSESSMENT.md:
 * CSV (a header row naming the columns), JSON (kind
 * "hashbench-self-assessment") and the plain text of a published candidate
 * page (sections "2 Assessment environment", "4 Performance", "5 Resource
 * consumption", tables flattened to spaces, tabs or '|').
 *
 * Each claimed figure is compared in a unit both sides share: cycles when
 * the system's counter counts core cycles; otherwise time, from the claimed
 * cycles and the claimed clock; without a claimed clock, as ratios between
 * the submitter's own figures (each claim against the measured figure times
 * the median claimed/measured ratio of that kind of figure). MB/s, static
 * size and peak memory compare directly. A claim is flagged when it lies
 * outside the measured 95 % interval (peak memory: the range over the
 * trials; static size: the exact figure), widened by half a unit of the
 * claim's last written digit. */
#ifndef HB_REPORT_SELFASSESS_H
#define HB_REPORT_SELFASSESS_H

#include <stdio.h>
#include "common/err.h"
#include "dataset/dataset.h"

typedef enum {
    SA_MEAN_CYCLES = 0,
    SA_CYCLES_PER_BYTE,
    SA_MB_PER_S,
    SA_STATIC_BYTES,
    SA_PEAK_KIB,
    SA_NMETRICS
} sa_metric;

typedef struct sa_claim {
    char *candidate;              /* NULL: found by the instance's name */
    char *instance;
    long long size;               /* message bytes; -1 when the row has none */
    double v[SA_NMETRICS];        /* NaN: not claimed */
    double prec[SA_NMETRICS];     /* half a unit of the last digit written */
    long line;                    /* where it is in the file */
} sa_claim;

typedef struct sa_file {
    char *path;
    const char *format;           /* "csv", "json", "text" */
    char *candidate;              /* the file's candidate, or NULL */
    double clock_hz, clock_prec;  /* NaN when not stated */
    sa_claim *claims;
    size_t n;
} sa_file;

/* Reads PATH (its form from the extension .csv / .json, else from the
 * content). Fails with PATH:LINE and what to change for an unknown column,
 * a number that does not parse, a row without instance, or a file with no
 * claim. Release with sa_free. */
int sa_load(const char *path, sa_file *out, hb_err *err);
void sa_free(sa_file *f);

typedef struct sa_check {
    const char *candidate, *instance; /* borrowed from the claim / dataset */
    long long size;
    sa_metric metric;
    long line;
    const char *unit;       /* the unit the two figures are compared in */
    double claimed;         /* in that unit */
    double measured, lo, hi; /* measured figure and interval; NaN: none */
    double deviation;       /* claimed / measured - 1 */
    int flagged;
    const char *note;       /* how it was compared, or why it was not */
} sa_check;

typedef struct sa_result {
    const char *system, *file;
    sa_check *checks;
    size_t nchecks, flagged;
} sa_result;

/* Holds every claim of F against system S. Fails (ERR) when a claim's
 * instance is no instance of S, or belongs to several candidates and the
 * file does not say which. Release with sa_result_free. */
int sa_hold(const sa_file *f, const report_system *s, sa_result *out, hb_err *err);
void sa_result_free(sa_result *r);

/* The name of a metric as the tables show it ("mean cycles", ...). */
const char *sa_metric_name(sa_metric m);

/* The table of R's checks (only CAND's when CAND is not NULL) in Markdown;
 * with STANDALONE, as a whole page with its title. */
int sa_md(FILE *fp, const sa_result *r, const char *cand, int standalone, hb_err *err);
void sa_print_text(FILE *fp, const sa_result *r);

/* Writes OUT_DIR/self-assessment.md and .html. */
int sa_write_pages(const char *out_dir, const sa_result *r, hb_err *err);

/* The candidate page's section for CAND on S when DS carries a
 * self-assessment (report --self-assessment) that claims figures for it;
 * nothing otherwise. */
void sa_candidate_section(FILE *fp, const report_dataset *ds, const report_system *s,
                          const char *cand);

#endif
