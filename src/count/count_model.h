/* The length model of an instance's instruction counts (count_stage.c
 * writes it into the curve record as "length_model"): an iterated hash
 * (Merkle-Damgard, sponge, any block-by-block design) costs a fixed part,
 * a constant part per block of B bytes and perhaps a small part per byte,
 * so its counts against the length are a staircase. The model is fitted on
 * the lengths the submitted KAT vectors cover byte by byte (0..COVERED,
 * every byte): the steps' positions give B, least squares over those
 * points the fixed, per-block and per-byte costs. It then predicts every
 * longer length counted, and a count far below the prediction means the
 * code does less work per byte where no vector checks what it computes.
 * Pure computation, no I/O: the unit tests feed it synthetic staircases. */
#ifndef HB_COUNT_COUNT_MODEL_H
#define HB_COUNT_COUNT_MODEL_H

#include <jansson.h>

#define COUNT_MODEL_LOW 0.7   /* measured / predicted below this: BELOW_MODEL */
#define COUNT_MODEL_HIGH 1.5  /* above this: ABOVE_MODEL (a note, no status) */
#define COUNT_MODEL_STEP 0.5  /* a step: a rise of at least this part of the largest */
#define COUNT_MODEL_MIN_STEPS 2
#define COUNT_MODEL_MAX_STEPS 128
#define COUNT_MODEL_LINEAR_LOW 0.5 /* no staircase: below the line this: BELOW_LINE */
#define COUNT_MODEL_OUTLIER 0.05 /* a length this far off the first fit is left out */

typedef enum {
    COUNT_MODEL_UNDETERMINED = 0,
    COUNT_MODEL_CONSISTENT,
    COUNT_MODEL_BELOW,
    COUNT_MODEL_ABOVE,
    COUNT_MODEL_BELOW_LINE /* no staircase, but below the covered counts' line */
} count_model_verdict;

typedef struct count_model {
    int determined;            /* 1: a regular staircase was found */
    char why[160];             /* when not: why */
    unsigned covered;          /* the longest length of the fit */
    unsigned block;            /* B, bytes */
    unsigned first_step;       /* the length of the first step */
    int steps;                 /* steps within 0..covered */
    int extra_steps;           /* of them, not where the block puts one */
    int outliers;              /* lengths left out of the second fit */
    double fixed, per_block, per_byte;
    double fit_worst;          /* largest |count / model - 1| within the fit */
    int n_beyond;              /* lengths above covered compared */
    double worst_ratio;        /* the lowest measured / predicted beyond */
    unsigned worst_len;
    double high_ratio;         /* the highest measured / predicted beyond */
    unsigned high_len;
    /* the least-squares line through the covered counts, whether or not
     * a staircase is found: count = lin_base + lin_slope * length */
    int lin_ok;
    double lin_base, lin_slope;
    double lin_worst;          /* the lowest measured / line beyond covered */
    unsigned lin_worst_len;
    count_model_verdict verdict;
} count_model;

/* Fits M on the points (LEN[i], IR[i]) with LEN <= COVERED (every length
 * 0..COVERED must be there, in any order), then compares every point above
 * COVERED with the prediction. N points in all. Always fills M; M's
 * verdict is UNDETERMINED when the staircase is not clear (fewer than
 * COUNT_MODEL_MIN_STEPS steps, steps not evenly spaced, a missing length),
 * or BELOW_LINE when it is not but a longer length's count is under
 * COUNT_MODEL_LINEAR_LOW of the least-squares line through the covered
 * counts (a line through a staircase predicts less per byte than its
 * blocks cost once it has fewer than two steps, and any work a library
 * adds within the covered lengths to hide its steps raises it). */
void count_model_fit(const unsigned *len, const double *ir, int n, unsigned covered,
                     count_model *m);

/* The model's prediction at LEN (M determined). */
double count_model_predict(const count_model *m, unsigned len);

/* "CONSISTENT", "BELOW_MODEL", "ABOVE_MODEL", "UNDETERMINED" or
 * "BELOW_LINE". */
const char *count_model_verdict_name(count_model_verdict v);

/* M as the curve record's "length_model" object. */
json_t *count_model_json(const count_model *m);

#endif
