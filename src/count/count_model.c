/* The length model of an instance's instruction counts (count_model.h):
 * the staircase's steps found from the every-byte counts, the costs fitted
 * by least squares, the longer lengths compared with the prediction. */
#include "count/count_model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The blocks the model charges at LEN: one per step at or below it. */
static double blocks_at(const count_model *m, unsigned len)
{
    if (len < m->first_step)
        return 0;
    return 1.0 + (double)((len - m->first_step) / m->block);
}

double count_model_predict(const count_model *m, unsigned len)
{
    return m->fixed + m->per_block * blocks_at(m, len) + m->per_byte * len;
}

const char *count_model_verdict_name(count_model_verdict v)
{
    switch (v) {
    case COUNT_MODEL_CONSISTENT: return "CONSISTENT";
    case COUNT_MODEL_BELOW: return "BELOW_MODEL";
    case COUNT_MODEL_ABOVE: return "ABOVE_MODEL";
    case COUNT_MODEL_BELOW_LINE: return "BELOW_LINE";
    default: return "UNDETERMINED";
    }
}

/* Solves the 3x3 system A x = y in place (partial pivoting); -1 when
 * singular. */
static int solve3(double a[3][3], double y[3], double x[3])
{
    for (int c = 0; c < 3; c++) {
        int p = c;
        for (int r = c + 1; r < 3; r++)
            if (fabs(a[r][c]) > fabs(a[p][c]))
                p = r;
        if (fabs(a[p][c]) < 1e-12)
            return -1;
        for (int k = 0; k < 3; k++) {
            double t = a[c][k];
            a[c][k] = a[p][k];
            a[p][k] = t;
        }
        double t = y[c];
        y[c] = y[p];
        y[p] = t;
        for (int r = c + 1; r < 3; r++) {
            double f = a[r][c] / a[c][c];
            for (int k = c; k < 3; k++)
                a[r][k] -= f * a[c][k];
            y[r] -= f * y[c];
        }
    }
    for (int c = 2; c >= 0; c--) {
        double s = y[c];
        for (int k = c + 1; k < 3; k++)
            s -= a[c][k] * x[k];
        x[c] = s / a[c][c];
    }
    return 0;
}

/* Least squares of the model's costs on the counts C[0..COVERED] but those
 * SKIP marks; -1 when singular. */
static int least_squares(count_model *m, const double *c, const char *skip, unsigned covered)
{
    double a[3][3] = {{0}}, y[3] = {0}, x[3] = {0};
    for (unsigned l = 0; l <= covered; l++) {
        if (skip[l])
            continue;
        double v[3] = {1.0, blocks_at(m, l), (double)l};
        for (int r = 0; r < 3; r++) {
            for (int k = 0; k < 3; k++)
                a[r][k] += v[r] * v[k];
            y[r] += v[r] * c[l];
        }
    }
    if (solve3(a, y, x) != 0)
        return -1;
    m->fixed = x[0];
    m->per_block = x[1];
    m->per_byte = x[2];
    return 0;
}

static void undetermined(count_model *m, const char *why)
{
    m->determined = 0;
    m->verdict = COUNT_MODEL_UNDETERMINED;
    snprintf(m->why, sizeof m->why, "%s", why);
}

void count_model_fit(const unsigned *len, const double *ir, int n, unsigned covered,
                     count_model *m)
{
    memset(m, 0, sizeof *m);
    m->covered = covered;
    double *c = calloc((size_t)covered + 1, sizeof *c);
    char *have = calloc((size_t)covered + 1, 1);
    if (!c || !have) {
        free(c);
        free(have);
        undetermined(m, "out of memory");
        return;
    }
    for (int i = 0; i < n; i++)
        if (len[i] <= covered) {
            c[len[i]] = ir[i];
            have[len[i]] = 1;
        }
    unsigned missing = 0;
    for (unsigned l = 0; l <= covered; l++)
        missing += !have[l];
    double rise = 0;
    for (unsigned l = 1; l <= covered; l++)
        if (c[l] - c[l - 1] > rise)
            rise = c[l] - c[l - 1];
    /* the steps: rises of at least COUNT_MODEL_STEP of the largest */
    unsigned pos[1024];
    int steps = 0;
    for (unsigned l = 1; l <= covered && !missing && rise > 0; l++)
        if (c[l] - c[l - 1] >= COUNT_MODEL_STEP * rise && steps < 1024)
            pos[steps++] = l;
    m->steps = steps;
    char why[160];
    if (missing) {
        snprintf(why, sizeof why, "model not determined: %u of the lengths 0..%u not counted",
                 missing, covered);
        undetermined(m, why);
    } else if (steps < COUNT_MODEL_MIN_STEPS) {
        snprintf(why, sizeof why, "model not determined: %d step%s within 0..%u bytes (a block "
                 "longer than %u bytes, or no staircase)", steps, steps == 1 ? "" : "s", covered,
                 covered / 2);
        undetermined(m, why);
    } else if (steps > COUNT_MODEL_MAX_STEPS) {
        snprintf(why, sizeof why, "model not determined: %d steps within 0..%u bytes (more "
                 "than %d: no clear staircase)", steps, covered, COUNT_MODEL_MAX_STEPS);
        undetermined(m, why);
    } else {
        /* the block: the spacing and phase whose every predicted step is one,
         * predicting the most steps; a few steps besides them are allowed */
        unsigned best_b = 0, best_first = 0;
        int best = 0;
        for (int i = 0; i < steps; i++)
            for (int j = i + 1; j < steps; j++) {
                unsigned b = pos[j] - pos[i], first = pos[i] % b ? pos[i] % b : b;
                int hits = 0, all = 1;
                for (unsigned p = first; p <= covered && all; p += b) {
                    int found = 0;
                    for (int k = 0; k < steps && !found; k++)
                        found = pos[k] == p;
                    all = found;
                    hits++;
                }
                if (all && (hits > best || (hits == best && b < best_b))) {
                    best = hits;
                    best_b = b;
                    best_first = first;
                }
            }
        if (best < COUNT_MODEL_MIN_STEPS || steps - best > best / 2) {
            snprintf(why, sizeof why, "model not determined: the %d steps within 0..%u bytes "
                     "are not evenly spaced (no clear staircase)", steps, covered);
            undetermined(m, why);
        } else {
            m->block = best_b;
            m->first_step = best_first;
            m->extra_steps = steps - best;
            m->determined = 1;
        }
    }
    if (m->determined) {
        /* least squares: count = fixed + per_block * blocks + per_byte * len,
         * then again without the lengths more than COUNT_MODEL_OUTLIER off
         * (a padding path of its own, a length treated apart), when few */
        char *skip = calloc((size_t)covered + 1, 1);
        int rc = skip ? least_squares(m, c, skip, covered) : -1;
        if (rc == 0) {
            unsigned off = 0;
            for (unsigned l = 0; l <= covered; l++) {
                double p = count_model_predict(m, l);
                skip[l] = !(p > 0) || fabs(c[l] / p - 1.0) > COUNT_MODEL_OUTLIER;
                off += skip[l];
            }
            if (off > 0 && off <= (covered + 1) / 10) {
                m->outliers = (int)off;
                rc = least_squares(m, c, skip, covered);
            } else {
                memset(skip, 0, (size_t)covered + 1);
            }
        }
        if (rc != 0) {
            undetermined(m, "model not determined: the fit is singular");
        } else {
            for (unsigned l = 0; l <= covered; l++) {
                double p = count_model_predict(m, l);
                double d = p > 0 ? fabs(c[l] / p - 1.0) : INFINITY;
                if (!skip[l] && d > m->fit_worst)
                    m->fit_worst = d;
            }
            if (!(m->per_block > 0))
                undetermined(m, "model not determined: the fitted cost per block is not "
                             "positive");
        }
        free(skip);
    }
    if (!missing) {
        /* the straight line through the covered counts: no staircase needed */
        double n1 = covered + 1.0, sx = 0, sy = 0, sxx = 0, sxy = 0;
        for (unsigned l = 0; l <= covered; l++) {
            sx += l;
            sy += c[l];
            sxx += (double)l * l;
            sxy += l * c[l];
        }
        double d = n1 * sxx - sx * sx;
        if (d > 0) {
            m->lin_slope = (n1 * sxy - sx * sy) / d;
            m->lin_base = (sy - m->lin_slope * sx) / n1;
            m->lin_ok = m->lin_slope > 0;
        }
    }
    free(c);
    free(have);
    if (m->lin_ok) {
        m->lin_worst = INFINITY;
        for (int i = 0; i < n; i++) {
            if (len[i] <= covered)
                continue;
            double p = m->lin_base + m->lin_slope * len[i];
            double r = p > 0 ? ir[i] / p : 0;
            if (r < m->lin_worst || (r == m->lin_worst && len[i] < m->lin_worst_len)) {
                m->lin_worst = r;
                m->lin_worst_len = len[i];
            }
        }
        if (!isfinite(m->lin_worst))
            m->lin_worst = 0, m->lin_ok = 0;
    }
    if (!m->determined) {
        /* no staircase: the line still bounds the work a block-by-block
         * design does per byte from below */
        if (m->lin_ok && m->lin_worst < COUNT_MODEL_LINEAR_LOW) {
            m->verdict = COUNT_MODEL_BELOW_LINE;
            m->worst_ratio = m->lin_worst;
            m->worst_len = m->lin_worst_len;
        }
        return;
    }
    m->worst_ratio = INFINITY;
    m->high_ratio = 0;
    for (int i = 0; i < n; i++) {
        if (len[i] <= covered)
            continue;
        double p = count_model_predict(m, len[i]);
        double r = p > 0 ? ir[i] / p : 0;
        m->n_beyond++;
        if (r < m->worst_ratio || (r == m->worst_ratio && len[i] < m->worst_len)) {
            m->worst_ratio = r;
            m->worst_len = len[i];
        }
        if (r > m->high_ratio || (r == m->high_ratio && len[i] < m->high_len)) {
            m->high_ratio = r;
            m->high_len = len[i];
        }
    }
    if (m->n_beyond == 0) {
        m->worst_ratio = m->high_ratio = 0;
        m->verdict = COUNT_MODEL_CONSISTENT;
    } else if (m->worst_ratio < COUNT_MODEL_LOW) {
        m->verdict = COUNT_MODEL_BELOW;
    } else if (m->high_ratio > COUNT_MODEL_HIGH) {
        m->verdict = COUNT_MODEL_ABOVE;
    } else {
        m->verdict = COUNT_MODEL_CONSISTENT;
    }
}

static double round_to(double x, double unit)
{
    return round(x / unit) * unit;
}

json_t *count_model_json(const count_model *m)
{
    json_t *o = json_pack("{s:s, s:i, s:f, s:f}", "verdict",
                          count_model_verdict_name(m->verdict), "covered_bytes",
                          (json_int_t)m->covered, "threshold_low", COUNT_MODEL_LOW,
                          "threshold_high", COUNT_MODEL_HIGH);
    if (!o)
        return NULL;
    if (m->lin_ok) {
        json_t *l = json_pack("{s:f, s:f, s:f, s:f, s:i}", "base", round_to(m->lin_base, 0.01),
                              "per_byte", round_to(m->lin_slope, 0.0001), "threshold_low",
                              COUNT_MODEL_LINEAR_LOW, "worst_ratio",
                              round_to(m->lin_worst, 0.0001), "worst_length",
                              (json_int_t)m->lin_worst_len);
        json_object_set_new(o, "line", l ? l : json_null());
    }
    if (!m->determined) {
        json_object_set_new(o, "reason", json_string(m->why));
        json_object_set_new(o, "steps", json_integer(m->steps));
        if (m->verdict == COUNT_MODEL_BELOW_LINE) {
            json_object_set_new(o, "worst_ratio", json_real(round_to(m->worst_ratio, 0.0001)));
            json_object_set_new(o, "worst_length", json_integer(m->worst_len));
        }
        return o;
    }
    json_object_set_new(o, "block_bytes", json_integer(m->block));
    json_object_set_new(o, "first_step_bytes", json_integer(m->first_step));
    json_object_set_new(o, "steps", json_integer(m->steps));
    json_object_set_new(o, "fixed", json_real(round_to(m->fixed, 0.01)));
    json_object_set_new(o, "per_block", json_real(round_to(m->per_block, 0.01)));
    json_object_set_new(o, "per_byte", json_real(round_to(m->per_byte, 0.0001)));
    json_object_set_new(o, "steps_apart", json_integer(m->extra_steps));
    json_object_set_new(o, "lengths_apart", json_integer(m->outliers));
    json_object_set_new(o, "fit_worst", json_real(round_to(m->fit_worst, 0.0001)));
    json_object_set_new(o, "lengths_beyond", json_integer(m->n_beyond));
    if (m->n_beyond > 0) {
        json_object_set_new(o, "worst_ratio", json_real(round_to(m->worst_ratio, 0.0001)));
        json_object_set_new(o, "worst_length", json_integer(m->worst_len));
        json_object_set_new(o, "high_ratio", json_real(round_to(m->high_ratio, 0.0001)));
        json_object_set_new(o, "high_length", json_integer(m->high_len));
    }
    return o;
}
