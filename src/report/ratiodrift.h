/* The host's ratio drift: how far the state of a shared host moves the
 * ratio between two fixed, different codes. One group in three of every
 * round of the measure stage holds one window of each built-in baseline
 * (OpenSSL's SM3 and OpenSSL's SHA-256, trial "pairs"; windows.h), so
 * every campaign carries, at every
 * size, a series of SHA-256 / SM3 ratios taken side by side across its
 * whole stage. Their spread within a campaign, and the shift of their
 * median between two campaigns, say how much any paired ratio between two
 * different codes can move with the host alone: no pairing takes that out,
 * so the comparison widens its intervals by it (compare.h) and a summary
 * states the smallest difference such a host can tell. Read from the
 * records alone, so that it holds for every published dataset.
 *
 * The campaign records it when its measure stage ends (campaign.json
 * "ratio_drift", per size), and every published paired ratio's interval
 * is widened by that size's margin m (a percentage): lo / (1 + m / 100),
 * hi * (1 + m / 100), m half the larger of the size's own spread and the
 * campaign's pooled one. The records keep the interval as measured;
 * validate recomputes the recorded drift from them. */
#ifndef HB_REPORT_RATIODRIFT_H
#define HB_REPORT_RATIODRIFT_H

#include <stddef.h>
#include "dataset/dataset.h"

#define RATIODRIFT_MAX_SIZES 64

typedef struct ratio_drift {
    size_t n_sizes;
    long long size[RATIODRIFT_MAX_SIZES];
    double median[RATIODRIFT_MAX_SIZES]; /* median SHA-256 / SM3 time ratio of
                                            the groups at that size */
    size_t groups[RATIODRIFT_MAX_SIZES];
    size_t blocks[RATIODRIFT_MAX_SIZES]; /* the size's blocks (below) */
    double spread[RATIODRIFT_MAX_SIZES]; /* the size's own spread: P10 to P90
                                            of its blocks' deviations, as a
                                            percentage; NaN under 2 blocks */
    double within_percent; /* the ratio's movement over the stage: each
                              size's groups, in the order taken, cut into
                              up to RATIODRIFT_BLOCKS consecutive blocks of
                              at least RATIODRIFT_BLOCK_MIN; each block's
                              median against the size's, pooled over the
                              sizes; P10 to P90 of those as a percentage
                              (exp(P90 - P10) - 1 of the logs). Blocks, not
                              single groups: one window's own scatter is in
                              every interval already. NaN with fewer than
                              RATIODRIFT_MIN_BLOCKS blocks */
    size_t n_groups;       /* all groups */
} ratio_drift;

#define RATIODRIFT_BLOCKS 4
#define RATIODRIFT_BLOCK_MIN 3
#define RATIODRIFT_MIN_BLOCKS 4
#define RATIODRIFT_KEY "ratio_drift" /* its object in campaign.json */

/* The ratio drift of the NRECS measurement records RECS (a run
 * directory's or a system's: every trial's "pairs" that hold both
 * built-in baselines' windows), as ratiodrift_read. The result does not
 * depend on the records' order. Returns 0, or -1 when out of memory. */
int ratiodrift_of_records(const json_t *const *recs, size_t nrecs, ratio_drift *out);

/* The ratio drift of system S from its records' trials (every trial's
 * "pairs" that hold both built-in baselines' windows). Sizes without such
 * groups are left out; a system without any gives n_sizes = 0 and a NaN
 * within_percent. Returns 0, or -1 when out of memory. */
int ratiodrift_read(const report_system *s, ratio_drift *out);

/* The largest shift, as a percentage (exp|ln(mB / mA)| - 1), of the
 * median ratio between A and B over the sizes both measured, with the
 * size it was seen at in *AT (may be NULL); NaN when no size is common. */
double ratiodrift_between(const ratio_drift *a, const ratio_drift *b, long long *at);

/* The margin of D's size Q (a percentage): half the larger of its own
 * spread and the pooled within_percent; NaN when neither is known. */
double ratiodrift_margin_of(const ratio_drift *d, size_t q);

/* campaign.json's "ratio_drift" object for D (new reference): "pair",
 * "spread_percent" (pooled; null when unknown), "groups", and "sizes":
 * per size "size_bytes", "median_ratio", "groups", "blocks",
 * "spread_percent" and "margin_percent" (ratiodrift_margin_of; null when
 * unknown). */
json_t *ratiodrift_json(const ratio_drift *d);

/* The "ratio_drift" object (ratiodrift_json) of the records of the run
 * directory or system folder ROOT, or NULL when no group there held both
 * built-in baselines (or they could not be read). */
json_t *ratiodrift_of_dir(const char *root);

/* The margin S's campaign.json recorded for SIZE (percent), NaN when it
 * recorded none. */
double ratiodrift_recorded_margin(const report_system *s, long long size);

/* Widens a paired interval [*LO, *HI] of S at SIZE by the recorded margin
 * (above). Returns 1 when widened, 0 when S recorded none (unchanged). */
int ratiodrift_widen(const report_system *s, long long size, double *lo, double *hi);

#endif
