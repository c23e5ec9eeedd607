/* The comparison of two systems' figures: see compare.h. Rows follow side
 * A's record order (candidate, instance, size); every figure comes from the
 * records through paired.h (paired ratios) or their trials (times). */
#include "report/compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "common/fs.h"
#include "measure/stats.h"
#include "report/esc.h"
#include "report/html.h"
#include "report/numfmt.h"
#include "report/paired.h"
#include "report/ratiodrift.h"
#include "report/svg.h"
#include "rundir/rundir.h"

static double num(const json_t *o, const char *key)
{
    return report_num(o, key);
}

int compare_load_side(const char *path, report_dataset *ds, const report_system **sys,
                      hb_err *err)
{
    if (report_dataset_load_path(path, ds, err) < 0)
        return -1;
    if (ds->nsys == 1) {
        *sys = &ds->sys[0];
        return 0;
    }
    char names[512] = "";
    for (size_t i = 0; i < ds->nsys; i++) {
        size_t n = strlen(names);
        snprintf(names + n, sizeof names - n, "%s%s", i ? ", " : "", ds->sys[i].name);
    }
    hb_fail(err, "%s: holds %zu systems (%s); give one of them as %s/<system>", path,
            ds->nsys, names, path);
    report_dataset_free(ds);
    return -1;
}

const char *compare_verdict_text(compare_verdict v)
{
    switch (v) {
    case CMP_FASTER: return "faster";
    case CMP_SLOWER: return "slower";
    case CMP_UNDECIDED: return "undecided (no interval, or no host drift recorded)";
    default: return "no difference detected";
    }
}

/* The kept trials' times per call (ns) of RECORD into a new array. */
static double *trial_times(const json_t *record, size_t *n)
{
    const json_t *trials = json_object_get(record, "trials"), *t;
    size_t i, k = 0;
    double *v = malloc((json_array_size(trials) + 1) * sizeof *v);
    if (!v)
        return NULL;
    json_array_foreach(trials, i, t) {
        double c = num(t, "calls"), ns = num(t, "ns");
        if (json_is_true(json_object_get(t, "disturbed")) || !(c > 0) || !(ns > 0))
            continue;
        v[k++] = ns / c;
    }
    *n = k;
    return v;
}

static compare_verdict verdict_of(double ratio, double lo, double hi, double min_change)
{
    if (!isfinite(lo) || !isfinite(hi))
        return CMP_UNDECIDED;
    if (lo > 1.0 && ratio > 1.0 + min_change)
        return CMP_SLOWER;
    if (hi < 1.0 && ratio < 1.0 - min_change)
        return CMP_FASTER;
    return CMP_SAME;
}

/* A recorded drift D (percent) in words into OUT. */
static void drift_words(double d, char *out, size_t cap)
{
    char n[NUMFMT_MAX];
    if (isfinite(d))
        snprintf(out, cap, "%s %%", numfmt_sig3(d, n, sizeof n));
    else
        snprintf(out, cap, "none recorded");
}

/* System S's recorded host drift (campaign.json host_drift.spread_percent),
 * NaN when it recorded none. */
static double drift_of(const report_system *s)
{
    const json_t *d = json_object_get(json_object_get(s->campaign, "host_drift"),
                                      "spread_percent");
    return json_is_number(d) && json_number_value(d) >= 0 ? json_number_value(d) : NAN;
}

/* Row R from the records RA and RB (both with figures), its interval
 * widened by the result's margins (compare.h). */
static int compare_pair(const report_record *ra, const report_record *rb,
                        const compare_result *c, compare_row *r)
{
    double min_change = c->min_change;
    paired_figure pa, pb;
    memset(r, 0, sizeof *r);
    r->candidate = ra->candidate;
    r->instance = ra->instance;
    r->size = ra->size;
    if (paired_read(ra->json, &pa) < 0)
        return -1;
    if (paired_read(rb->json, &pb) < 0) {
        paired_free(&pa);
        return -1;
    }
    char key[1200];
    snprintf(key, sizeof key, "%.500s/%.500s/%lld", ra->candidate, ra->instance, ra->size);
    int rc;
    if (pa.n > 0 && pb.n > 0 && !rundir_is_baseline(ra->candidate, ra->instance)) {
        r->paired = 1;
        r->a = isfinite(pa.ratio) ? pa.ratio : paired_center(pa.q, pa.n, pa.est);
        r->b = isfinite(pb.ratio) ? pb.ratio : paired_center(pb.q, pb.n, pb.est);
        r->a_lo = pa.lo, r->a_hi = pa.hi, r->b_lo = pb.lo, r->b_hi = pb.hi;
        r->a_n = pa.n, r->b_n = pb.n;
        paired_side sa = {pa.q, pa.n, 1, pa.est}, sb = {pb.q, pb.n, 1, pb.est};
        rc = paired_boot_ratio(&sa, &sb, paired_seed(key), COMPARE_RESAMPLES, &r->ratio,
                               &r->lo, &r->hi);
    } else {
        size_t na = 0, nb = 0;
        double *ta = trial_times(ra->json, &na), *tb = trial_times(rb->json, &nb);
        rc = ta && tb ? 0 : -1;
        if (rc == 0) {
            r->a = num(ra->derived, "mean_ns_per_call");
            r->b = num(rb->derived, "mean_ns_per_call");
            double ma = num(ra->derived, "mean_ticks_per_call");
            double mb = num(rb->derived, "mean_ticks_per_call");
            r->a_lo = r->a * num(ra->derived, "ci95_low") / ma;
            r->a_hi = r->a * num(ra->derived, "ci95_high") / ma;
            r->b_lo = r->b * num(rb->derived, "ci95_low") / mb;
            r->b_hi = r->b * num(rb->derived, "ci95_high") / mb;
            r->a_n = na, r->b_n = nb;
            paired_side sa = {ta, na, 0, PAIRED_GEOMEAN}, sb = {tb, nb, 0, PAIRED_GEOMEAN};
            rc = paired_boot_ratio(&sa, &sb, paired_seed(key), COMPARE_RESAMPLES,
                                   &r->ratio, &r->lo, &r->hi);
        }
        free(ta);
        free(tb);
    }
    paired_free(&pa);
    paired_free(&pb);
    double m = r->paired ? c->paired_margin
                         : (isfinite(c->unpaired_margin) ? c->unpaired_margin : 0.0);
    r->lo /= 1.0 + m;
    r->hi *= 1.0 + m;
    r->verdict = verdict_of(r->ratio, r->lo, r->hi, min_change);
    /* a time per call moves with the whole host: without both hosts'
     * drift there is nothing to tell a change from it */
    if (!r->paired && !isfinite(c->unpaired_margin) && r->verdict != CMP_SAME)
        r->verdict = CMP_UNDECIDED;
    return rc;
}

static int has_instance(const report_system *s, const char *cand, const char *inst)
{
    for (size_t i = 0; i < s->nrecs; i++)
        if (!strcmp(s->recs[i].candidate, cand) && !strcmp(s->recs[i].instance, inst))
            return 1;
    return 0;
}

static void add_line(json_t *list, const char *text)
{
    size_t i;
    json_t *v;
    json_array_foreach(list, i, v)
        if (!strcmp(json_string_value(v), text))
            return;
    json_array_append_new(list, json_string(text));
}

/* Notes in LIST why record R of system S (the other being O) was not
 * compared; 0 when it can be. */
static int not_compared(const report_system *s, const report_system *o,
                        const report_record *r, json_t *list)
{
    char line[1400], size[NUMFMT_MAX];
    const report_record *other = report_find_record(o, r->candidate, r->instance, r->size);
    numfmt_msg_size(r->size, size, sizeof size);
    if (!has_instance(o, r->candidate, r->instance))
        snprintf(line, sizeof line, "%s / %s: not measured on %s", r->candidate,
                 r->instance, o->name);
    else if (!other)
        snprintf(line, sizeof line, "%s / %s at %s: not measured on %s", r->candidate,
                 r->instance, size, o->name);
    else if (!r->derived)
        snprintf(line, sizeof line, "%s / %s at %s: %s on %s", r->candidate, r->instance,
                 size, report_str(r->json, "status", "FAILED"), s->name);
    else if (!other->derived)
        snprintf(line, sizeof line, "%s / %s at %s: %s on %s", r->candidate, r->instance,
                 size, report_str(other->json, "status", "FAILED"), o->name);
    else
        return 0;
    add_line(list, line);
    return 1;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* For each size with paired rows, the smallest difference R's hosts could
 * tell (compare.h), into R's detect arrays, sizes ascending. */
static int smallest_told(compare_result *r)
{
    double *f = malloc((r->nrows + 1) * sizeof *f);
    if (!f)
        return -1;
    r->n_detect = 0;
    for (;;) {
        long long next = -1;
        for (size_t i = 0; i < r->nrows; i++) {
            long long z = r->rows[i].size;
            int done = r->n_detect > 0 && z <= r->detect_size[r->n_detect - 1];
            if (r->rows[i].paired && !done && (next < 0 || z < next))
                next = z;
        }
        if (next < 0 || r->n_detect == COMPARE_MAX_SIZES)
            break;
        size_t n = 0;
        for (size_t i = 0; i < r->nrows; i++) {
            const compare_row *w = &r->rows[i];
            if (w->paired && w->size == next && isfinite(w->lo) && isfinite(w->hi) &&
                w->lo > 0)
                f[n++] = sqrt(w->hi / w->lo);
        }
        double told = NAN;
        if (n > 0) {
            qsort(f, n, sizeof *f, cmp_double);
            told = (stats_quantile_sorted(f, n, 0.5) - 1.0) * 100.0;
            if (told < r->min_change * 100.0)
                told = r->min_change * 100.0;
        }
        r->detect_size[r->n_detect] = next;
        r->detect_percent[r->n_detect++] = told;
    }
    free(f);
    return 0;
}

int compare_systems(const report_system *a, const report_system *b, double min_change,
                    compare_result *out, hb_err *err)
{
    memset(out, 0, sizeof *out);
    out->label_a = a->name;
    out->label_b = b->name;
    out->min_change = min_change;
    out->drift_a = drift_of(a);
    out->drift_b = drift_of(b);
    double worst = isfinite(out->drift_a) ? out->drift_a : 0.0;
    if (isfinite(out->drift_b) && out->drift_b > worst)
        worst = out->drift_b;
    out->host_margin = worst / 2.0 / 100.0;
    out->unpaired_margin = isfinite(out->drift_a) && isfinite(out->drift_b)
                               ? (1.0 + out->drift_a / 100.0) * (1.0 + out->drift_b / 100.0) - 1.0
                               : NAN;
    ratio_drift ra_drift, rb_drift;
    if (ratiodrift_read(a, &ra_drift) < 0 || ratiodrift_read(b, &rb_drift) < 0)
        return hb_fail(err, "comparing %s with %s: out of memory", a->name, b->name);
    out->ratio_within_a = ra_drift.within_percent;
    out->ratio_within_b = rb_drift.within_percent;
    out->ratio_shift = ratiodrift_between(&ra_drift, &rb_drift, &out->ratio_shift_at);
    double r = 0.0;
    if (isfinite(out->ratio_shift))
        r = out->ratio_shift;
    if (isfinite(out->ratio_within_a) && out->ratio_within_a / 2.0 > r)
        r = out->ratio_within_a / 2.0;
    if (isfinite(out->ratio_within_b) && out->ratio_within_b / 2.0 > r)
        r = out->ratio_within_b / 2.0;
    out->ratio_margin = r / 100.0;
    out->paired_margin = (1.0 + out->host_margin) * (1.0 + out->ratio_margin) - 1.0;
    out->only_a = json_array();
    out->only_b = json_array();
    out->rows = calloc(a->nrecs ? a->nrecs : 1, sizeof *out->rows);
    if (!out->rows || !out->only_a || !out->only_b) {
        compare_free(out);
        return hb_fail(err, "comparing %s with %s: out of memory", a->name, b->name);
    }
    for (size_t i = 0; i < a->nrecs; i++) {
        const report_record *ra = &a->recs[i];
        if (not_compared(a, b, ra, out->only_a))
            continue;
        const report_record *rb = report_find_record(b, ra->candidate, ra->instance,
                                                     ra->size);
        if (compare_pair(ra, rb, out, &out->rows[out->nrows++]) < 0) {
            compare_free(out);
            return hb_fail(err, "comparing %s with %s: out of memory", a->name, b->name);
        }
    }
    for (size_t i = 0; i < b->nrecs; i++)
        if (!report_find_record(a, b->recs[i].candidate, b->recs[i].instance,
                                b->recs[i].size))
            not_compared(b, a, &b->recs[i], out->only_b);
    if (smallest_told(out) < 0) {
        compare_free(out);
        return hb_fail(err, "comparing %s with %s: out of memory", a->name, b->name);
    }
    return 0;
}

int compare_repeat(const report_system *s, compare_result *out, hb_err *err)
{
    return compare_systems(s, s, COMPARE_MIN_CHANGE, out, err);
}

void compare_free(compare_result *r)
{
    free(r->rows);
    json_decref(r->only_a);
    json_decref(r->only_b);
    memset(r, 0, sizeof *r);
}

size_t compare_slowdowns(const compare_result *r, double pct)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nrows; i++)
        n += r->rows[i].verdict == CMP_SLOWER && r->rows[i].ratio > 1.0 + pct / 100.0;
    return n;
}

/* What R's ratio drift rests on, in words, into OUT. */
static const char *ratio_drift_words(const compare_result *r, char *out, size_t cap)
{
    char sh[NUMFMT_MAX], at[NUMFMT_MAX], wa[NUMFMT_MAX + 16], wb[NUMFMT_MAX + 16];
    drift_words(r->ratio_within_a, wa, sizeof wa);
    drift_words(r->ratio_within_b, wb, sizeof wb);
    if (isfinite(r->ratio_shift))
        snprintf(out, cap, "the larger of the shift of OpenSSL SHA-256 / SM3 between A and B, "
                           "%s %% at %s, and half either side's spread of it, A %s, B %s",
                 numfmt_sig3(r->ratio_shift, sh, sizeof sh),
                 numfmt_msg_size(r->ratio_shift_at, at, sizeof at), wa, wb);
    else
        snprintf(out, cap, "half either side's spread of OpenSSL SHA-256 / SM3, A %s, B %s; "
                           "no size has both baselines on both sides", wa, wb);
    return out;
}

/* "On these hosts, differences under 3.2 % at 32 B, ... cannot be told."
 * into OUT. */
void compare_smallest_told_words(const compare_result *r, char *out, size_t cap)
{
    if (cap)
        out[0] = '\0';
    if (r->n_detect == 0)
        return;
    size_t n = (size_t)snprintf(out, cap, "On these hosts, differences under");
    for (size_t i = 0; i < r->n_detect && n < cap; i++) {
        char p[NUMFMT_MAX], z[NUMFMT_MAX];
        n += (size_t)snprintf(out + n, cap - n, "%s %s %% at %s",
                              i == 0 ? "" : (i + 1 == r->n_detect ? " and" : ","),
                              isfinite(r->detect_percent[i])
                                  ? numfmt_sig3(r->detect_percent[i], p, sizeof p) : "?",
                              numfmt_msg_size(r->detect_size[i], z, sizeof z));
    }
    if (n < cap)
        snprintf(out + n, cap - n, " cannot be told.");
}

/* A side's figure: "0.814×" (paired ratio) or "2.77 µs". */
static char *figure(const compare_row *r, double v, char *out, size_t sz)
{
    char num[NUMFMT_MAX];
    if (!isfinite(v))
        snprintf(out, sz, "—");
    else if (r->paired)
        snprintf(out, sz, "%s×", numfmt_sig3(v, num, sizeof num));
    else
        snprintf(out, sz, "%s", numfmt_time_ns(v, num, sizeof num));
    return out;
}

static char *ratio_text(double v, char *out, size_t sz)
{
    if (isfinite(v))
        snprintf(out, sz, "%.3f", v);
    else
        snprintf(out, sz, "—");
    return out;
}

void compare_print_text(FILE *fp, const compare_result *r)
{
    char fa[64], fb[64], x[32], lo[32], hi[32], size[NUMFMT_MAX], name[600], plain[400];
    fprintf(fp, "A = %s, B = %s; B / A with its 95 %% interval (bootstrap); paired: "
                "ratios to the baseline, unpaired: time per call\n", r->label_a,
            r->label_b);
    if (r->paired_margin > 0)
        fprintf(fp, "paired intervals widened by +-%.3g %% for the hosts: speed drift +-%.3g %% "
                    "(half the larger of A's and B's recorded spread), ratio drift +-%.3g %% "
                    "(%s)\n",
                r->paired_margin * 100.0, r->host_margin * 100.0, r->ratio_margin * 100.0,
                ratio_drift_words(r, plain, sizeof plain));
    if (isfinite(r->unpaired_margin))
        fprintf(fp, "unpaired intervals widened by +-%.3g %% (both hosts' whole recorded "
                    "speed drift)\n", r->unpaired_margin * 100.0);
    else
        fprintf(fp, "unpaired rows: a side recorded no host drift, so none is called "
                    "faster or slower\n");
    fputc('\n', fp);
    fprintf(fp, "%-36s %8s %-9s %12s %12s %8s %19s  %s\n", "instance", "message", "basis",
            "A", "B", "B / A", "95 % interval", "verdict");
    for (size_t i = 0; i < r->nrows; i++) {
        const compare_row *w = &r->rows[i];
        snprintf(name, sizeof name, "%s / %s", w->candidate, w->instance);
        char iv[80];
        snprintf(iv, sizeof iv, "%s – %s", ratio_text(w->lo, lo, sizeof lo),
                 ratio_text(w->hi, hi, sizeof hi));
        fprintf(fp, "%-36s %8s %-9s %12s %12s %8s %19s  %s\n", name,
                numfmt_msg_size(w->size, size, sizeof size),
                w->paired ? "paired" : "unpaired", figure(w, w->a, fa, sizeof fa),
                figure(w, w->b, fb, sizeof fb), ratio_text(w->ratio, x, sizeof x), iv,
                compare_verdict_text(w->verdict));
    }
    if (r->n_detect) {
        compare_smallest_told_words(r, plain, sizeof plain);
        fprintf(fp, "\n%s\n", plain);
    }
    const json_t *lists[2] = {r->only_a, r->only_b};
    for (int k = 0; k < 2; k++) {
        size_t i;
        json_t *v;
        if (json_array_size(lists[k]))
            fprintf(fp, "\nnot compared (from %s):\n", k ? r->label_b : r->label_a);
        json_array_foreach(lists[k], i, v)
            fprintf(fp, "  %s\n", json_string_value(v));
    }
}

static void md_cell(FILE *fp, const char *text)
{
    fputs(" ", fp);
    esc_md(fp, text);
    fputs(" |", fp);
}

int compare_md(FILE *fp, const compare_result *r, const char *ext, hb_err *err)
{
    char buf[128], lo[32], hi[32], size[NUMFMT_MAX], pct[NUMFMT_MAX];
    (void)ext;
    fputs("# Comparison: ", fp);
    esc_md(fp, r->label_b);
    fputs(" against ", fp);
    esc_md(fp, r->label_a);
    fputs("\n\nA is **", fp);
    esc_md(fp, r->label_a);
    fputs("**, B is **", fp);
    esc_md(fp, r->label_b);
    fprintf(fp, "**. For each instance and message size measured on both, the table "
                "gives the two figures and B / A with its 95 %% interval. A **paired** "
                "row compares the two ratios to the baseline (each trial taken beside a "
                "baseline trial on its own host), so the hosts' speeds cancel; its "
                "interval comes from %d bootstrap resamples of both sides' per-pair "
                "ratios. An **unpaired** row (the baseline itself, or records without "
                "pairs) compares the mean time per call and carries any difference "
                "between the two hosts. A row is *slower* or *faster* when its whole "
                "interval lies on one side of 1 and B / A differs from 1 by more than "
                "%s %%; otherwise no difference is detected.\n\n",
            COMPARE_RESAMPLES, numfmt_sig3(r->min_change * 100.0, pct, sizeof pct));
    if (r->paired_margin > 0) {
        char h[NUMFMT_MAX], m[NUMFMT_MAX], q[NUMFMT_MAX], da[NUMFMT_MAX + 4],
            db[NUMFMT_MAX + 4], words[400];
        drift_words(r->drift_a, da, sizeof da);
        drift_words(r->drift_b, db, sizeof db);
        fprintf(fp, "Each paired interval is widened by ±%s %%: two campaigns meet a shared "
                    "host at different moments, and the host's state moves under a whole "
                    "campaign, which no pairing within it removes. That is ±%s %% for its "
                    "speed (half the larger drift of the two hosts' speed during their "
                    "measurements, the baseline's speed, 10th to 90th percentile: A %s, "
                    "B %s) and ±%s %% for the ratio between two different codes (",
                numfmt_sig3(r->paired_margin * 100.0, m, sizeof m),
                numfmt_sig3(r->host_margin * 100.0, h, sizeof h), da, db,
                numfmt_sig3(r->ratio_margin * 100.0, q, sizeof q));
        esc_md(fp, ratio_drift_words(r, words, sizeof words));
        fputs(").\n\n", fp);
    }
    if (isfinite(r->unpaired_margin)) {
        char u[NUMFMT_MAX];
        fprintf(fp, "Each unpaired interval is widened by ±%s %%, both hosts' whole recorded "
                    "speed drift.\n\n",
                numfmt_sig3(r->unpaired_margin * 100.0, u, sizeof u));
    } else {
        fputs("A side recorded no host drift, so no unpaired row is called faster or "
              "slower.\n\n", fp);
    }
    if (r->n_detect) {
        char told[600];
        compare_smallest_told_words(r, told, sizeof told);
        fprintf(fp, "%s\n\n", told);
    }
    fputs("| Candidate | Instance | Message | Basis | A | B | B / A | 95 % interval | "
          "Verdict |\n| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | --- |\n", fp);
    for (size_t i = 0; i < r->nrows; i++) {
        const compare_row *w = &r->rows[i];
        fputs("|", fp);
        md_cell(fp, w->candidate);
        md_cell(fp, w->instance);
        md_cell(fp, numfmt_msg_size(w->size, size, sizeof size));
        md_cell(fp, w->paired ? "paired" : "unpaired");
        md_cell(fp, figure(w, w->a, buf, sizeof buf));
        md_cell(fp, figure(w, w->b, buf, sizeof buf));
        md_cell(fp, ratio_text(w->ratio, buf, sizeof buf));
        snprintf(buf, sizeof buf, "%s – %s", ratio_text(w->lo, lo, sizeof lo),
                 ratio_text(w->hi, hi, sizeof hi));
        md_cell(fp, buf);
        md_cell(fp, compare_verdict_text(w->verdict));
        fputs("\n", fp);
    }
    fputs("\n![B / A against message size](compare.svg)\n\n## Not compared\n\n", fp);
    const json_t *lists[2] = {r->only_a, r->only_b};
    for (int k = 0; k < 2; k++) {
        size_t i;
        json_t *v;
        json_array_foreach(lists[k], i, v) {
            fputs("- ", fp);
            esc_md(fp, json_string_value(v));
            fputs("\n", fp);
        }
    }
    if (!json_array_size(r->only_a) && !json_array_size(r->only_b))
        fputs("- none: every record of each side has a counterpart with figures.\n", fp);
    fputs("\n", fp);
    if (ferror(fp))
        return hb_fail(err, "comparison page: write error");
    return 0;
}

static int cmp_ll(const void *x, const void *y)
{
    long long a = *(const long long *)x, b = *(const long long *)y;
    return (a > b) - (a < b);
}

int compare_svg(FILE *fp, const compare_result *r, hb_err *err)
{
    size_t nsz = 0, nser = 0;
    long long *sizes = malloc((r->nrows + 1) * sizeof *sizes);
    double *xs = malloc((r->nrows + 1) * sizeof *xs);
    double *ys = malloc((r->nrows + 1) * (r->nrows + 1) * sizeof *ys);
    double *los = malloc((r->nrows + 1) * (r->nrows + 1) * sizeof *los);
    double *his = malloc((r->nrows + 1) * (r->nrows + 1) * sizeof *his);
    svg_series *series = calloc(r->nrows + 1, sizeof *series);
    json_t *names = json_array();
    int rc = 0;
    if (!sizes || !xs || !ys || !los || !his || !series || !names) {
        rc = hb_fail(err, "comparison chart: out of memory");
        goto done;
    }
    for (size_t i = 0; i < r->nrows; i++) {
        size_t k = 0;
        while (k < nsz && sizes[k] != r->rows[i].size)
            k++;
        if (k == nsz)
            sizes[nsz++] = r->rows[i].size;
    }
    qsort(sizes, nsz, sizeof *sizes, cmp_ll);
    for (size_t k = 0; k < nsz; k++)
        xs[k] = (double)sizes[k];
    for (size_t i = 0; i < r->nrows; i++) {
        const compare_row *w = &r->rows[i];
        char name[1100];
        snprintf(name, sizeof name, "%s / %s", w->candidate, w->instance);
        if (nser == 0 || strcmp(json_string_value(json_array_get(names, nser - 1)), name)) {
            json_array_append_new(names, json_string(name));
            series[nser].n = nsz;
            series[nser].x = xs;
            series[nser].y = ys + nser * nsz;
            series[nser].lo = los + nser * nsz;
            series[nser].hi = his + nser * nsz;
            for (size_t k = 0; k < nsz; k++)
                ys[nser * nsz + k] = los[nser * nsz + k] = his[nser * nsz + k] = NAN;
            nser++;
        }
        for (size_t k = 0; k < nsz; k++)
            if (sizes[k] == w->size) {
                ys[(nser - 1) * nsz + k] = w->ratio;
                los[(nser - 1) * nsz + k] = w->lo;
                his[(nser - 1) * nsz + k] = w->hi;
            }
    }
    for (size_t k = 0; k < nser; k++)
        series[k].name = json_string_value(json_array_get(names, k));
    char title[600];
    snprintf(title, sizeof title, "%s against %s: B / A with its 95 %% interval",
             r->label_b, r->label_a);
    svg_chart_spec spec = {title, "message size (log scale)", "B / A (1: no difference)",
                           series, nser, 0, 0, 1, 1.0};
    if (svg_chart(fp, &spec) < 0)
        rc = hb_fail(err, "comparison chart: write error");
done:
    free(sizes);
    free(xs);
    free(ys);
    free(los);
    free(his);
    free(series);
    json_decref(names);
    return rc;
}

/* Writes TEXT (LEN bytes) to OUT_DIR/NAME. */
static int save(const char *out_dir, const char *name, const char *text, size_t len,
                hb_err *err)
{
    char path[4096];
    if (hb_path_join(path, sizeof path, out_dir, name, err) < 0)
        return -1;
    return hb_write_atomic(path, text, len, err);
}

json_t *compare_summary_json(const compare_result *r)
{
    size_t n[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < r->nrows; i++)
        n[r->rows[i].verdict]++;
    json_t *told = json_object();
    for (size_t i = 0; told && i < r->n_detect; i++) {
        char key[32];
        snprintf(key, sizeof key, "%lld", r->detect_size[i]);
        json_object_set_new(told, key, isfinite(r->detect_percent[i])
                                           ? json_real(r->detect_percent[i]) : json_null());
    }
    json_t *j = json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I}",
                     "kind", COMPARE_SUMMARY_KIND, "a", r->label_a, "b", r->label_b,
                     "rows", (json_int_t)r->nrows, "slower", (json_int_t)n[CMP_SLOWER],
                     "faster", (json_int_t)n[CMP_FASTER],
                     "no_difference", (json_int_t)n[CMP_SAME],
                     "undecided", (json_int_t)n[CMP_UNDECIDED],
                     "not_compared", (json_int_t)(json_array_size(r->only_a) +
                                                  json_array_size(r->only_b)));
    if (j && told)
        json_object_set_new(j, "smallest_told_percent", told);
    else
        json_decref(told);
    return j;
}

int compare_write_pages(const char *out_dir, const compare_result *r, hb_err *err)
{
    char *md = NULL, *mdh = NULL, *svg = NULL, *html = NULL;
    size_t nmd = 0, nmdh = 0, nsvg = 0, nhtml = 0;
    FILE *f;
    int rc = hb_mkdirs(out_dir, err);
    if (rc == 0 && (f = open_memstream(&md, &nmd))) {
        rc = compare_md(f, r, ".md", err);
        fclose(f);
    }
    if (rc == 0 && (f = open_memstream(&mdh, &nmdh))) {
        rc = compare_md(f, r, ".html", err);
        fclose(f);
    }
    if (rc == 0 && (f = open_memstream(&svg, &nsvg))) {
        rc = compare_svg(f, r, err);
        fclose(f);
    }
    if (rc == 0 && (!md || !mdh || !svg))
        rc = hb_fail_errno(err, "%s: comparison pages", out_dir);
    html_page hp = {NULL, NULL, NULL, "comparison", "compare", "compare.svg", svg,
                    NULL};
    if (rc == 0 && (f = open_memstream(&html, &nhtml))) {
        rc = html_render(f, &hp, mdh, nmdh, err);
        fclose(f);
    }
    if (rc == 0 && !html)
        rc = hb_fail_errno(err, "%s: comparison pages", out_dir);
    if (rc == 0)
        rc = save(out_dir, "compare.md", md, nmd, err);
    if (rc == 0)
        rc = save(out_dir, "compare.svg", svg, nsvg, err);
    if (rc == 0)
        rc = save(out_dir, "compare.html", html, nhtml, err);
    json_t *sum = rc == 0 ? compare_summary_json(r) : NULL;
    char *sum_text = sum ? json_dumps(sum, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
    if (rc == 0 && !sum_text)
        rc = hb_fail(err, "%s: comparison summary: out of memory", out_dir);
    if (rc == 0)
        rc = save(out_dir, COMPARE_SUMMARY_FILE, sum_text, strlen(sum_text), err);
    free(sum_text);
    json_decref(sum);
    free(md);
    free(mdh);
    free(svg);
    free(html);
    return rc;
}
