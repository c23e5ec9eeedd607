/* The summary's one figure per instance (pages.h: pages_rank_summary): for
 * every instance, the geometric mean over the guide's eight sizes of its
 * paired ratio to the baseline, with the interval geomean.h combines from
 * the per-size intervals, and of its exact instructions per byte; the
 * instances ranked by the ratio, or by the instructions where this host's
 * ratio drift (ratiodrift.h) is larger than RANK_DRIFT_LIMIT_PERCENT, the
 * page saying which and why. Also the method page's paragraph on it. */
#include "report/pages.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "measure/settings.h"
#include "report/esc.h"
#include "report/geomean.h"
#include "report/numfmt.h"
#include "report/ratiodrift.h"

#define RANK_SIZES 8

typedef struct rank_row {
    const char *cand, *inst;
    geomean_figure ratio, ipb;
    double key;
} rank_row;

static const long long guide_sizes[RANK_SIZES] = {SETTINGS_DEFAULT_SIZES_LIST};

/* The derived instructions per byte of a count record, or NaN. */
static double count_ipb(const json_t *rec)
{
    const json_t *v = json_object_get(json_object_get(json_object_get(rec, "derived"), "Ir"),
                                      "per_byte");
    return json_is_number(v) && strcmp(report_str(rec, "status", ""), "COUNTED") == 0
               ? json_number_value(v) : NAN;
}

static void fill_row(const report_system *s, rank_row *r)
{
    double ratio[RANK_SIZES], lo[RANK_SIZES], hi[RANK_SIZES], ipb[RANK_SIZES];
    for (int i = 0; i < RANK_SIZES; i++) {
        int paired = 0;
        ratio[i] = pages_ratio(s, r->cand, r->inst, guide_sizes[i], &paired, &lo[i], &hi[i]);
        if (!paired) /* an unpaired ratio has no interval: the mean then has none */
            lo[i] = hi[i] = NAN;
        ipb[i] = count_ipb(report_count_record(s, r->cand, r->inst, guide_sizes[i], NULL));
    }
    geomean_of(ratio, lo, hi, RANK_SIZES, &r->ratio);
    geomean_of(ipb, NULL, NULL, RANK_SIZES, &r->ipb);
}

static int by_key(const void *a, const void *b)
{
    const rank_row *x = a, *y = b;
    int nx = isfinite(x->key), ny = isfinite(y->key);
    if (nx != ny)
        return ny - nx;
    if (nx && x->key != y->key)
        return x->key < y->key ? -1 : 1;
    int c = strcmp(x->cand, y->cand);
    return c ? c : strcmp(x->inst, y->inst);
}

/* "1.23× [1.10–1.38]", or without an interval "1.23× (no interval)". */
static void ratio_cell(FILE *fp, const geomean_figure *g)
{
    char a[NUMFMT_MAX], b[NUMFMT_MAX], c[NUMFMT_MAX];
    if (!g->n) {
        fputs(" — |", fp);
        return;
    }
    fprintf(fp, " %s×", numfmt_sig3(g->value, a, sizeof a));
    if (isfinite(g->lo))
        fprintf(fp, " [%s–%s]", numfmt_sig3(g->lo, b, sizeof b), numfmt_sig3(g->hi, c, sizeof c));
    else
        fputs(" (no interval)", fp);
    fprintf(fp, " | %zu of %d |", g->n, RANK_SIZES);
}

int pages_rank_rule(double drift_percent, size_t n_ratio, size_t n_ipb)
{
    if (!n_ipb)
        return 0;
    return !n_ratio ||
           (isfinite(drift_percent) && drift_percent > RANK_DRIFT_LIMIT_PERCENT);
}

int pages_rank_by_count(const report_system *s, double *drift_percent)
{
    ratio_drift d;
    *drift_percent = NAN;
    if (ratiodrift_read(s, &d) != 0)
        return 0;
    *drift_percent = d.within_percent;
    return pages_rank_rule(d.within_percent, 1, 1);
}

void pages_rank_summary(FILE *fp, const report_system *s, const char *ext)
{
    size_t cap = 0, n = 0, i, k;
    json_t *c, *inst;
    json_array_foreach(s->candidates, i, c) {
        json_t *insts = report_instances(s, json_string_value(c));
        cap += json_array_size(insts);
        json_decref(insts);
    }
    rank_row *v = calloc(cap ? cap : 1, sizeof *v);
    if (!v)
        return;
    size_t n_ipb = 0, n_ratio = 0;
    json_t *held = json_array(); /* the instance names' arrays, kept to the end */
    json_array_foreach(s->candidates, i, c) {
        json_t *insts = report_instances(s, json_string_value(c));
        json_array_foreach(insts, k, inst) {
            if (n == cap)
                break;
            rank_row *r = &v[n++];
            r->cand = json_string_value(c);
            r->inst = json_string_value(inst);
            fill_row(s, r);
            n_ipb += r->ipb.n > 0;
            n_ratio += r->ratio.n > 0;
        }
        json_array_append_new(held, insts);
    }
    double drift;
    pages_rank_by_count(s, &drift);
    int by_count = pages_rank_rule(drift, n_ratio, n_ipb);
    for (size_t j = 0; j < n; j++)
        v[j].key = by_count ? v[j].ipb.value : v[j].ratio.value;
    qsort(v, n, sizeof *v, by_key);
    char num[NUMFMT_MAX];
    fputs("## One figure per instance\n\n", fp);
    fputs("Each instance's geometric mean over the guide's eight sizes (32 B to 64 KiB) "
          "of its paired ratio to the baseline, with a 95 % interval (the geometric "
          "means of the sizes' interval bounds: conservative, as if the host had moved "
          "every size alike), and of its exact instructions per byte where counted. ", fp);
    if (by_count && n_ratio == 0)
        fputs("**Ranked by instructions per byte**: no instance has timed ratios.", fp);
    else if (by_count)
        fprintf(fp, "**Ranked by instructions per byte**, not by the ratio: on this host "
                    "the ratio between two fixed codes (the two built-in baselines) moved "
                    "by %s %% within the campaign, more than the %d %% this ranking "
                    "accepts, so ratios closer than that may swap with the host alone.",
                numfmt_sig3(drift, num, sizeof num), RANK_DRIFT_LIMIT_PERCENT);
    else if (isfinite(drift))
        fprintf(fp, "**Ranked by the paired ratio**: the ratio between the two built-in "
                    "baselines moved by %s %% within the campaign (at most %d %% for this "
                    "ranking).", numfmt_sig3(drift, num, sizeof num),
                RANK_DRIFT_LIMIT_PERCENT);
    else
        fputs("**Ranked by the paired ratio**; this campaign has no ratio drift to "
              "check it against (the two built-in baselines were not timed side by "
              "side).", fp);
    fputs(" An instance with fewer than eight sizes gets the mean of those it has; its "
          "place is then not comparable with the others'. Method: ", fp);
    pages_link(fp, "one figure per instance", "method", ext);
    fputs(".\n\n", fp);
    pages_compiler cc[PAGES_MAX_COMPILERS];
    int ncc = pages_compilers_of(s, cc, PAGES_MAX_COMPILERS);
    char build[64];
    pages_build_compiler_label(s, build, sizeof build);
    if (ncc) {
        fputs("The instructions are those of the build by ", fp);
        esc_md(fp, build);
        fputs(", which built the timed code; beside them, the same instances built by ", fp);
        for (int j = 0; j < ncc; j++) {
            fputs(j ? (j + 1 == ncc ? " and " : ", ") : "", fp);
            esc_md(fp, cc[j].label);
        }
        fputs(" (the same flags), and the ratio of the two.\n\n", fp);
    }
    fputs("| Rank | Instance | paired ratio, geometric mean [95 %] | sizes | "
          "instructions/B, geometric mean | sizes |", fp);
    for (int j = 0; j < ncc; j++) {
        fputs(" instructions/B, ", fp);
        esc_md(fp, cc[j].label);
        fputs(" | ratio |", fp);
    }
    fputs("\n| ---: | --- | ---: | ---: | ---: | ---: |", fp);
    for (int j = 0; j < ncc; j++)
        fputs(" ---: | ---: |", fp);
    fputs("\n", fp);
    for (size_t j = 0; j < n; j++) {
        if (isfinite(v[j].key))
            fprintf(fp, "| %zu | ", j + 1);
        else
            fputs("| — | ", fp);
        esc_md(fp, v[j].cand);
        fputs(" / ", fp);
        esc_md(fp, v[j].inst);
        fputs(" |", fp);
        ratio_cell(fp, &v[j].ratio);
        if (!v[j].ratio.n)
            fputs(" — |", fp);
        if (v[j].ipb.n)
            fprintf(fp, " %.2f | %zu of %d |", v[j].ipb.value, v[j].ipb.n, RANK_SIZES);
        else
            fputs(" — | — |", fp);
        for (int q = 0; q < ncc; q++) {
            double o = pages_compiler_geomean(s, v[j].cand, v[j].inst, cc[q].tag, NULL);
            if (isfinite(o))
                fprintf(fp, " %.2f |", o);
            else
                fputs(" — |", fp);
            if (isfinite(o) && v[j].ipb.n)
                fprintf(fp, " %.3f |", o / v[j].ipb.value);
            else
                fputs(" — |", fp);
        }
        fputs("\n", fp);
    }
    fputs("\n", fp);
    if (ncc) {
        const char **cands = calloc(n ? n : 1, sizeof *cands);
        const char **names = calloc(n ? n : 1, sizeof *names);
        for (size_t j = 0; cands && names && j < n; j++) {
            cands[j] = v[j].cand;
            names[j] = v[j].inst;
        }
        if (cands && names)
            pages_compilers_ranking_note(fp, s, cands, names, n);
        free(cands);
        free(names);
    }
    json_decref(held);
    free(v);
}

void pages_rank_method(FILE *fp)
{
    fprintf(fp, "## One figure per instance\n\n"
            "The summary gives every instance one figure per kind over the guide's "
            "eight sizes (32 B to 64 KiB): the **geometric mean** of its paired ratios "
            "to the baseline, and of its instructions per byte, so that a 2× change "
            "weighs alike at every size. The ratio's 95 %% interval is combined from "
            "the sizes' recorded intervals in log space as the interval of a mean of "
            "logs whose errors may be fully correlated: its bounds are the geometric "
            "means of the sizes' bounds. That is never narrower than for independent "
            "sizes (which would shrink it by about √8), since one campaign's sizes share "
            "the host's states. A size without a paired interval leaves the mean "
            "without one. The summary ranks by the ratio, unless the host's ratio drift "
            "(the movement of the ratio between the two built-in baselines within the "
            "campaign) is above %d %%: then by instructions per byte, which no host "
            "moves, and the page says so.\n\n", RANK_DRIFT_LIMIT_PERCENT);
}
