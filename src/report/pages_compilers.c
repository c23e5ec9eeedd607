/* The compiler as a dimension of the instruction counts on the pages
 * (count/count_cc.h records, in report_system.count_cc): on a candidate
 * page, per instance and size, the instructions per byte of the build's
 * compiler beside those of each other compiler and their ratio; on the
 * summary, each instance's geometric mean over the guide's sizes under
 * each compiler, and whether the ranking by it changes (pages_rank.c puts
 * the columns in its table); and the method page's paragraph. Nothing
 * where the system has no such record. */
#include "report/pages.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "count/count_cc.h"
#include "measure/settings.h"
#include "report/esc.h"
#include "report/geomean.h"
#include "report/numfmt.h"

static const long long guide_sizes[] = {SETTINGS_DEFAULT_SIZES_LIST};
#define N_GUIDE (sizeof guide_sizes / sizeof guide_sizes[0])

/* A point's (or a size record's) instructions per byte, or NaN. */
static double ipb_of(const json_t *p)
{
    const json_t *v = json_object_get(json_object_get(json_object_get(p, "derived"), "Ir"),
                                      "per_byte");
    return json_is_number(v) && strcmp(report_str(p, "status", ""), "COUNTED") == 0
               ? json_number_value(v) : NAN;
}

/* The record of CAND/INST under compiler TAG, or NULL. */
static const json_t *cc_record(const report_system *s, const char *cand, const char *inst,
                               const char *tag)
{
    char key[1100];
    snprintf(key, sizeof key, "%.400s/%.400s/%.200s", cand, inst, tag);
    return json_object_get(json_object_get(s->count_cc, key), "record");
}

/* The instructions per byte of RECORD (a compiler record) at SIZE, or NaN. */
static double cc_ipb(const json_t *record, long long size)
{
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(record, "points"), i, p)
        if (json_integer_value(json_object_get(p, "size_bytes")) == size)
            return ipb_of(p);
    return NAN;
}

int pages_compilers_of(const report_system *s, pages_compiler *out, int max)
{
    int n = 0;
    const char *key;
    json_t *e;
    json_object_foreach(s->count_cc, key, e) {
        const json_t *r = json_object_get(e, "record");
        const char *tag = report_str(r, "compiler", "");
        int seen = 0;
        for (int i = 0; i < n; i++)
            seen |= strcmp(out[i].tag, tag) == 0;
        if (seen || n >= max)
            continue;
        snprintf(out[n].tag, sizeof out[n].tag, "%s", tag);
        snprintf(out[n].label, sizeof out[n].label, "%s", report_str(r, "compiler_label",
                                                                      tag));
        n++;
    }
    /* in order of their tags, for pages that do not depend on load order */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && strcmp(out[j - 1].tag, out[j].tag) > 0; j--) {
            pages_compiler t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return n;
}

/* The `--version` line of the compiler that built the timed code:
 * campaign.json's (run --cc), else build.json's. */
static const char *timed_compiler(const report_system *s)
{
    const char *v = report_str(json_object_get(s->campaign, "compiler"), "version", "");
    return v[0] ? v : report_str(s->build, "compiler_version", "");
}

void pages_build_compiler_label(const report_system *s, char *out, size_t outsz)
{
    const char *v = timed_compiler(s);
    count_cc_label(v[0] ? v : "?", out, outsz);
}

void pages_timed_compiler(FILE *fp, const report_system *s)
{
    const char *v = timed_compiler(s);
    char label[64];
    if (!v[0])
        return;
    pages_build_compiler_label(s, label, sizeof label);
    fputs("The timed code was built by **", fp);
    esc_md(fp, label);
    fputs("** (`", fp);
    esc_md(fp, v);
    fputs("`) with the guide's flags.\n\n", fp);
}

double pages_compiler_geomean(const report_system *s, const char *cand, const char *inst,
                              const char *tag, size_t *n)
{
    double v[N_GUIDE];
    const json_t *r = tag ? cc_record(s, cand, inst, tag) : NULL;
    for (size_t i = 0; i < N_GUIDE; i++)
        v[i] = tag ? cc_ipb(r, guide_sizes[i])
                   : ipb_of(report_count_record(s, cand, inst, guide_sizes[i], NULL));
    geomean_figure g;
    geomean_of(v, NULL, NULL, N_GUIDE, &g);
    if (n)
        *n = g.n;
    return g.value;
}

void pages_compilers_table(FILE *fp, const report_system *s, const char *cand,
                           const json_t *insts)
{
    pages_compiler cc[PAGES_MAX_COMPILERS];
    int ncc = pages_compilers_of(s, cc, PAGES_MAX_COMPILERS);
    size_t i;
    json_t *iv;
    int any = 0;
    json_array_foreach(insts, i, iv)
        for (int j = 0; j < ncc; j++)
            any |= cc_record(s, cand, json_string_value(iv), cc[j].tag) != NULL;
    if (!any)
        return;
    char build[64], num[NUMFMT_MAX];
    pages_build_compiler_label(s, build, sizeof build);
    fputs("### hashbench: instructions per byte under each compiler\n\n", fp);
    fputs("The same sources with the same flags, built by each compiler installed "
          "and counted the same way (exact): how much of the figure is the "
          "compiler's. The timed figures on this page are of the build by **", fp);
    esc_md(fp, build);
    fputs("**. A ratio below 1 means fewer instructions under the other compiler.\n\n",
          fp);
    json_array_foreach(insts, i, iv) {
        const char *inst = json_string_value(iv);
        const json_t *recs[PAGES_MAX_COMPILERS];
        int has = 0;
        for (int j = 0; j < ncc; j++)
            has |= (recs[j] = cc_record(s, cand, inst, cc[j].tag)) != NULL;
        if (!has)
            continue;
        fputs("**", fp);
        esc_md(fp, inst);
        fputs("**\n\n| Message | ", fp);
        esc_md(fp, build);
        fputs(" |", fp);
        for (int j = 0; j < ncc; j++) {
            fputs(" ", fp);
            esc_md(fp, cc[j].label);
            fputs(" | ratio |", fp);
        }
        fputs("\n| ---: | ---: |", fp);
        for (int j = 0; j < ncc; j++)
            fputs(" ---: | ---: |", fp);
        fputs("\n", fp);
        /* the sizes of the first compiler record that has points */
        const json_t *sizes = NULL;
        for (int j = 0; j < ncc && !sizes; j++)
            sizes = recs[j] ? json_object_get(recs[j], "sizes") : NULL;
        size_t k;
        json_t *sv;
        json_array_foreach(sizes, k, sv) {
            long long size = json_integer_value(sv);
            double base = ipb_of(report_count_record(s, cand, inst, size, NULL));
            fprintf(fp, "| %s |", numfmt_msg_size(size, num, sizeof num));
            if (isfinite(base))
                fprintf(fp, " %.2f |", base);
            else
                fputs(" — |", fp);
            for (int j = 0; j < ncc; j++) {
                double v = recs[j] ? cc_ipb(recs[j], size) : NAN;
                if (isfinite(v))
                    fprintf(fp, " %.2f |", v);
                else
                    fputs(" — |", fp);
                if (isfinite(v) && isfinite(base) && base > 0)
                    fprintf(fp, " %.3f |", v / base);
                else
                    fputs(" — |", fp);
            }
            fputs("\n", fp);
        }
        fputs("\n", fp);
        for (int j = 0; j < ncc; j++)
            if (recs[j] && strcmp(report_str(recs[j], "status", ""), "COUNTED") != 0) {
                fputs("Not counted with ", fp);
                esc_md(fp, cc[j].label);
                fputs(": ", fp);
                esc_md(fp, report_str(recs[j], "reason", ""));
                fputs("\n\n", fp);
            }
    }
}

/* Rank of every instance of V (N) by geometric mean G[j] (NaN: unranked),
 * into RANK (0: unranked). */
static void ranks_of(const double *g, size_t n, int *rank)
{
    for (size_t j = 0; j < n; j++) {
        rank[j] = 0;
        if (!isfinite(g[j]))
            continue;
        rank[j] = 1;
        for (size_t m = 0; m < n; m++)
            rank[j] += isfinite(g[m]) && g[m] < g[j];
    }
}

void pages_compilers_ranking_note(FILE *fp, const report_system *s, const char *const *cands,
                                  const char *const *insts, size_t n)
{
    pages_compiler cc[PAGES_MAX_COMPILERS];
    int ncc = pages_compilers_of(s, cc, PAGES_MAX_COMPILERS);
    if (!ncc || !n)
        return;
    double *gb = calloc(n, sizeof *gb), *go = calloc(n, sizeof *go);
    int *rb = calloc(n, sizeof *rb), *ro = calloc(n, sizeof *ro);
    char build[64];
    pages_build_compiler_label(s, build, sizeof build);
    for (int j = 0; gb && go && rb && ro && j < ncc; j++) {
        /* the instances counted under both, ranked under each */
        size_t both = 0;
        for (size_t i = 0; i < n; i++) {
            gb[i] = pages_compiler_geomean(s, cands[i], insts[i], NULL, NULL);
            go[i] = pages_compiler_geomean(s, cands[i], insts[i], cc[j].tag, NULL);
            if (!isfinite(gb[i]) || !isfinite(go[i]))
                gb[i] = go[i] = NAN;
            both += isfinite(gb[i]);
        }
        if (both < 2)
            continue;
        ranks_of(gb, n, rb);
        ranks_of(go, n, ro);
        size_t moved = 0;
        for (size_t i = 0; i < n; i++)
            moved += rb[i] != ro[i];
        fputs("Ranked by instructions per byte (geometric mean), the ", fp);
        fprintf(fp, "%zu instances counted under both ", both);
        esc_md(fp, build);
        fputs(" and ", fp);
        esc_md(fp, cc[j].label);
        if (!moved) {
            fputs(" keep their order.\n\n", fp);
            continue;
        }
        fprintf(fp, " do not keep their order: %zu change place (", moved);
        int first = 1;
        for (size_t i = 0; i < n; i++) {
            if (rb[i] == ro[i])
                continue;
            fputs(first ? "" : ", ", fp);
            first = 0;
            esc_md(fp, cands[i]);
            fputs(" / ", fp);
            esc_md(fp, insts[i]);
            fprintf(fp, " %d → %d", rb[i], ro[i]);
        }
        fputs("). Which one looks better depends on the compiler.\n\n", fp);
    }
    free(gb);
    free(go);
    free(rb);
    free(ro);
}

void pages_compilers_method(FILE *fp)
{
    fputs("## Instruction counts under other compilers\n\n"
          "`hashbench count --compilers gcc,clang` (or `hashbench run --count "
          "--compilers ...`) rebuilds every counted instance with each listed compiler "
          "other than the one that built the timed code, with the same flags (the "
          "profile's guide flags, or the permissive ones where the KATs kept those, and "
          "the same additions), and counts it like the instruction-count stage at the "
          "stage's sizes, hashing the same messages (the instance's recorded seed). "
          "The candidate pages put the instructions per byte under each compiler side "
          "by side with their ratio, the summary each instance's geometric mean over "
          "the guide's sizes under each, and says whether the ranking by it changes. "
          "The rebuilds are not KAT-checked; their digests are recomputed natively as "
          "in every count. The cost: per instance and compiler one compile and a "
          "Valgrind run of the sizes (about 1.5 s of wall time per instance at S1–S8 "
          "on a 2-core host).\n\n", fp);
}
