/* The instruction counts on the pages (count/count.h records, loaded into
 * report_system.count): on a candidate page, a table that puts the exact
 * instructions per byte beside the timed figure per byte (the median of the
 * calls, their minimum and maximum, a spread above 0.1 % flagged), with
 * the sentence on what the count is and is not, the chart of the
 * length curve (an SVG file beside the page) and, per instance, where the
 * instructions go (each function's share at each size); on the summary, a second ranking of
 * every instance by instructions per byte; on the method page, the method
 * and its limits. A system without count records gets only the method
 * section, which says so. */
#include "report/pages.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "count/count_model.h"
#include "count/count_plan.h"
#include "report/esc.h"
#include "report/numfmt.h"
#include "report/svg.h"
#include "measure/settings.h"

#define COUNT_RANK_SIZE 65536 /* the summary ranks at 64 KiB when counted */

static const char what_it_is[] =
    "Instructions per byte are **counted, not timed**: the instructions one call "
    "executes, counted by Valgrind on this system's build of the library, "
    "identical from run to run and unmoved by the host's load, so a change of a "
    "few per cent is real. They are **not cycles**: vector width, instructions "
    "per cycle, memory latency and the cost of each instruction differ between "
    "implementations and processors, so fewer instructions need not mean faster; "
    "the timed figure beside it says how fast.";

/* The derived figure NAME of REC per byte (or per call), or NaN. */
static double figure(const json_t *rec, const char *name, const char *per)
{
    const json_t *v = json_object_get(json_object_get(json_object_get(rec, "derived"), name),
                                      per);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The timed figure per byte of CAND/INST at SIZE, or NaN. */
static double timed_per_byte(const report_system *s, const char *cand, const char *inst,
                             long long size)
{
    const report_record *r = report_find_record(s, cand, inst, size);
    return r && r->derived ? report_num(r->derived, "ticks_per_byte") : NAN;
}

/* After the name of an instance counted with count --nokat. */
#define NOKAT_MARK "not KAT-checked"

static void cell(FILE *fp, double v, int decimals)
{
    if (isfinite(v))
        fprintf(fp, " %.*f |", decimals, v);
    else
        fputs(" — |", fp);
}

/* How the pages name a record's status ST other than COUNTED. */
static const char *not_counted_word(const char *st)
{
    return strcmp(st, "INCONSISTENT") == 0 ? "inconsistent"
           : strcmp(st, "TIMEOUT") == 0    ? "timeout"
                                           : "not countable";
}

/* The count cell of REC: the figure, or why there is none. */
static void count_cell(FILE *fp, const json_t *rec)
{
    const char *st = report_str(rec, "status", "");
    if (!rec) {
        fputs(" — |", fp);
    } else if (strcmp(st, "COUNTED") == 0) {
        cell(fp, figure(rec, "Ir", "per_byte"), 1);
    } else {
        fprintf(fp, " %s: ", not_counted_word(st));
        esc_md(fp, report_str(rec, "reason", ""));
        fputs(" |", fp);
    }
}

static int is_curve(const json_t *rec)
{
    return strcmp(report_str(rec, "kind", ""), "hashbench-count-curve") == 0;
}

static int has_counts(const report_system *s, const char *cand)
{
    const char *key;
    json_t *e;
    json_object_foreach(s->count, key, e)
        if (!cand || strcmp(report_str(json_object_get(e, "record"), "candidate", ""),
                            cand) == 0)
            return 1;
    return 0;
}

/* The sizes of CAND's timed and counted records, ascending. */
static json_t *sizes_of(const report_system *s, const char *cand)
{
    json_t *sizes = report_sizes(s, cand), *out = json_array();
    const char *key;
    json_t *e;
    json_object_foreach(s->count, key, e) {
        const json_t *r = json_object_get(e, "record");
        if (strcmp(report_str(r, "candidate", ""), cand) == 0 && !is_curve(r))
            json_array_append_new(sizes, json_integer(json_integer_value(
                json_object_get(r, "size_bytes"))));
    }
    long long last = -1;
    for (;;) { /* ascending, each once */
        long long best = -1;
        size_t i;
        json_t *v;
        json_array_foreach(sizes, i, v) {
            long long x = json_integer_value(v);
            if (x > last && (best < 0 || x < best))
                best = x;
        }
        if (best < 0)
            break;
        json_array_append_new(out, json_integer(best));
        last = best;
    }
    json_decref(sizes);
    return out;
}

/* The spread cell of REC: "—" within the limit, else flagged. */
static void spread_cell(FILE *fp, const json_t *rec)
{
    const json_t *d = json_object_get(rec, "derived");
    double sp = report_num(json_object_get(d, "Ir"), "spread");
    if (!isfinite(sp))
        fputs(" — |", fp);
    else if (json_is_true(json_object_get(d, "spread_flagged")))
        fprintf(fp, " **%.2f %% flagged** |", 100 * sp);
    else
        fprintf(fp, " %.2f %% |", 100 * sp);
}

#define SHARES_TOP 5   /* functions shown per size */
#define SHARES_ROWS 8  /* rows of functions at most per instance */

/* The share of function FN in object OBJ among FNS's functions, or NaN. */
static double fn_share(const json_t *fns, const char *fn, const char *obj)
{
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(fns, "functions"), i, f)
        if (strcmp(report_str(f, "function", ""), fn) == 0 &&
            strcmp(report_str(f, "object", ""), obj) == 0)
            return report_num(f, "share");
    return NAN;
}

/* 1 when A and B name the same function of the same object. */
static int same_fn(const json_t *a, const json_t *b)
{
    return json_equal(json_object_get(a, "function"), json_object_get(b, "function")) &&
           json_equal(json_object_get(a, "object"), json_object_get(b, "object"));
}

static void share_cell(FILE *fp, double v)
{
    if (isfinite(v))
        fprintf(fp, " %.1f %% |", 100 * v);
    else
        fputs(" — |", fp);
}

/* Where INST's instructions go: the SHARES_TOP largest functions at each
 * counted size (SHARES_ROWS rows at most, the largest share first), the
 * other functions, and the shared helpers the library calls. */
static void shares_table(FILE *fp, const report_system *s, const char *cand, const char *inst,
                         const json_t *sizes)
{
    json_t *cols = json_array(), *rows = json_array();
    size_t i, j;
    json_t *sz, *f;
    json_array_foreach(sizes, i, sz) {
        const json_t *rec = report_count_record(s, cand, inst, json_integer_value(sz), NULL);
        const json_t *fns = json_object_get(rec, "functions");
        if (!json_is_object(fns) || strcmp(report_str(rec, "status", ""), "COUNTED") != 0)
            continue;
        json_array_append_new(cols, json_pack("{s:O, s:O}", "size", sz, "fns", fns));
        json_array_foreach(json_object_get(fns, "functions"), j, f) {
            if (j >= SHARES_TOP)
                break;
            size_t k;
            json_t *row;
            json_t *seen = NULL;
            json_array_foreach(rows, k, row)
                if (!seen && same_fn(row, f))
                    seen = row;
            if (!seen)
                json_array_append_new(rows, json_pack("{s:O, s:O, s:f}", "function",
                                      json_object_get(f, "function"), "object",
                                      json_object_get(f, "object"), "max",
                                      report_num(f, "share")));
            else if (report_num(f, "share") > report_num(seen, "max"))
                json_object_set_new(seen, "max", json_real(report_num(f, "share")));
        }
    }
    size_t nc = json_array_size(cols);
    if (nc == 0) {
        json_decref(cols);
        json_decref(rows);
        return;
    }
    /* the largest share first; SHARES_ROWS rows at most */
    size_t nr = json_array_size(rows);
    for (i = 0; i + 1 < nr; i++)
        for (j = i + 1; j < nr; j++)
            if (report_num(json_array_get(rows, j), "max") >
                report_num(json_array_get(rows, i), "max")) {
                json_t *a = json_incref(json_array_get(rows, i));
                json_array_set(rows, i, json_array_get(rows, j));
                json_array_set_new(rows, j, a);
            }
    if (nr > SHARES_ROWS)
        nr = SHARES_ROWS;
    fputs("Where the instructions of ", fp);
    esc_md(fp, inst);
    fputs(" go:\n\n", fp);
    const char **head = calloc(nc + 2, sizeof *head);
    char (*labels)[NUMFMT_MAX] = calloc(nc, sizeof *labels);
    char align[COUNT_MAX_SIZES + 3] = "ll";
    if (!head || !labels) {
        free(head);
        free(labels);
        json_decref(cols);
        json_decref(rows);
        return;
    }
    head[0] = "Function";
    head[1] = "Object";
    json_array_foreach(cols, i, f) {
        head[2 + i] = numfmt_msg_bytes(json_integer_value(json_object_get(f, "size")),
                                       labels[i], sizeof labels[i]);
        if (2 + i < sizeof align - 1)
            align[2 + i] = 'r';
    }
    pages_table_head(fp, head, nc + 2, align);
    double *shown = calloc(nc, sizeof *shown);
    for (i = 0; i < nr; i++) {
        const json_t *row = json_array_get(rows, i);
        const char *fn = report_str(row, "function", ""), *obj = report_str(row, "object", "");
        fputs("| ", fp);
        esc_md(fp, fn);
        fputs(" | ", fp);
        esc_md(fp, obj);
        fputs(" |", fp);
        json_array_foreach(cols, j, f) {
            double v = fn_share(json_object_get(f, "fns"), fn, obj);
            if (isfinite(v) && shown)
                shown[j] += v;
            share_cell(fp, v);
        }
        fputs("\n", fp);
    }
    fputs("| other functions | |", fp);
    json_array_foreach(cols, j, f)
        share_cell(fp, shown ? fmax(0.0, 1.0 - shown[j]) : NAN);
    fputs("\n", fp);
    free(shown);
    /* the shared helpers, their callees included */
    static const char *const helpers[] = {"SM3", "pseudo-hash", "DRNG"};
    for (size_t h = 0; h < sizeof helpers / sizeof helpers[0]; h++) {
        int any = 0;
        json_array_foreach(cols, j, f) {
            size_t k;
            json_t *x;
            json_array_foreach(json_object_get(json_object_get(f, "fns"), "helpers"), k, x)
                any |= strcmp(report_str(x, "helper", ""), helpers[h]) == 0;
        }
        if (!any)
            continue;
        fprintf(fp, "| shared %s helper, with what it calls | library |", helpers[h]);
        json_array_foreach(cols, j, f) {
            double v = 0;
            size_t k;
            json_t *x;
            json_array_foreach(json_object_get(json_object_get(f, "fns"), "helpers"), k, x)
                if (strcmp(report_str(x, "helper", ""), helpers[h]) == 0)
                    v = report_num(x, "share");
            share_cell(fp, v);
        }
        fputs("\n", fp);
    }
    fputs("\n", fp);
    free(head);
    free(labels);
    json_decref(cols);
    json_decref(rows);
}

/* The tables of where each instance's instructions go, with what they say. */
static void shares_tables(FILE *fp, const report_system *s, const char *cand,
                          const json_t *insts)
{
    json_t *sizes = sizes_of(s, cand);
    size_t k, i;
    json_t *inst, *sz;
    int any = 0;
    json_array_foreach(insts, k, inst)
        json_array_foreach(sizes, i, sz)
            any |= json_is_object(json_object_get(report_count_record(s, cand,
                   json_string_value(inst), json_integer_value(sz), NULL), "functions"));
    if (any) {
        fprintf(fp, "Where the instructions go (exact, counted on the same calls): each "
                "function's own instructions (its callees' not included) as a share of "
                "the calls' instructions at each size: the %d largest at each size, then "
                "all other functions together, so that a column adds up to 100 %%. "
                "*Object* says where the function lies: the library, the C library "
                "(memcpy, memset, ...), hashbench-count (the counting window's own few "
                "instructions), a system library. The names are the library's symbols, "
                "as the submission chose them, cut to 64 characters of letters, digits "
                "and `_.@+-` (any other character shown as `?`). A shared helper of the "
                "competition (SM3, pseudo-hash, DRNG), where the library calls it by its "
                "name, is shown with everything it calls.\n\n", SHARES_TOP);
        json_array_foreach(insts, k, inst)
            shares_table(fp, s, cand, json_string_value(inst), sizes);
    }
    json_decref(sizes);
}

/* Each curve of CAND (NULL: every candidate) whose length model
 * (count_model.h) found the counts beyond the covered lengths below it: a
 * line, and with NOTES the models not determined or above too. Returns the
 * lines written. */
static int model_lines(FILE *fp, const report_system *s, const char *cand, int notes)
{
    int lines = 0;
    const char *key;
    json_t *e;
    json_object_foreach(s->count, key, e) {
        const json_t *r = json_object_get(e, "record");
        const json_t *m = json_object_get(r, "length_model");
        if (!is_curve(r) || !json_is_object(m) ||
            (cand && strcmp(report_str(r, "candidate", ""), cand) != 0))
            continue;
        const char *v = report_str(m, "verdict", "");
        long long covered = json_integer_value(json_object_get(m, "covered_bytes"));
        int below = strcmp(v, "BELOW_MODEL") == 0, below_line = strcmp(v, "BELOW_LINE") == 0;
        if (!below && !below_line && (!notes || strcmp(v, "CONSISTENT") == 0))
            continue;
        fputs("- ", fp);
        if (!cand) {
            esc_md(fp, report_str(r, "candidate", ""));
            fputs(" / ", fp);
        }
        esc_md(fp, report_str(r, "instance", ""));
        if (below)
            fprintf(fp, ": **its timed figures beyond %lld B are not borne out by its own "
                    "cost model**: at %lld B it executes %.2f of the instructions the "
                    "staircase of its counts within 0–%lld B (the lengths its KAT vectors "
                    "check; block %lld B, %.0f instructions per block) predicts, below "
                    "%.2f: the code does less work per byte where no vector checks what "
                    "it computes; its records there are marked inconsistent.\n", covered,
                    (long long)json_integer_value(json_object_get(m, "worst_length")),
                    report_num(m, "worst_ratio"), covered,
                    (long long)json_integer_value(json_object_get(m, "block_bytes")),
                    report_num(m, "per_block"), report_num(m, "threshold_low"));
        else if (below_line)
            fprintf(fp, ": **its timed figures beyond %lld B are not borne out by its own "
                    "counts**: no staircase within 0–%lld B (%s), but at %lld B it "
                    "executes %.2f of the instructions the straight line through its counts "
                    "there (the lengths its KAT vectors check) predicts, below %.2f: the "
                    "code does less work per byte where no vector checks what it computes; "
                    "its records there are marked inconsistent.\n", covered, covered,
                    report_str(m, "reason", ""),
                    (long long)json_integer_value(json_object_get(m, "worst_length")),
                    report_num(m, "worst_ratio"),
                    report_num(json_object_get(m, "line"), "threshold_low"));
        else if (strcmp(v, "ABOVE_MODEL") == 0)
            fprintf(fp, ": beyond %lld B its counts rise above its own cost model (%.2f of "
                    "it at %lld B): slower at long lengths than its short ones predict; "
                    "noted, not marked.\n", covered, report_num(m, "high_ratio"),
                    (long long)json_integer_value(json_object_get(m, "high_length")));
        else {
            fprintf(fp, ": no cost model of its counts (%s): its figures beyond %lld B are "
                    "not checked against its counts within the lengths its vectors "
                    "cover.\n", report_str(m, "reason", "model not determined"), covered);
        }
        lines++;
    }
    return lines;
}

int pages_count_below_model(const report_system *s, const char *cand, const char *inst,
                            char *why, size_t cap)
{
    const char *key;
    json_t *e;
    json_object_foreach(s->count, key, e) {
        const json_t *r = json_object_get(e, "record");
        const json_t *m = json_object_get(r, "length_model");
        if (!is_curve(r) || strcmp(report_str(r, "candidate", ""), cand) != 0 ||
            strcmp(report_str(r, "instance", ""), inst) != 0 ||
            (strcmp(report_str(m, "verdict", ""), "BELOW_MODEL") != 0 &&
             strcmp(report_str(m, "verdict", ""), "BELOW_LINE") != 0))
            continue;
        long long covered = json_integer_value(json_object_get(m, "covered_bytes"));
        snprintf(why, cap, "its timed figures beyond %lld B are not borne out by its own "
                 "instruction counts: %.2f of what its counts within 0-%lld B predict "
                 "at %lld B (candidate page, section 4)", covered,
                 report_num(m, "worst_ratio"), covered,
                 (long long)json_integer_value(json_object_get(m, "worst_length")));
        return 1;
    }
    return 0;
}

void pages_count_table(FILE *fp, const report_system *s, const char *cand,
                       const json_t *insts, const char *unit, const char *stem)
{
    if (!has_counts(s, cand))
        return;
    char h[128];
    fprintf(fp, "Instructions per byte beside %s per byte (`hashbench count`, method "
                "page). %s Each figure is the median over the calls counted at that "
                "size, each call on its own; the spread between the calls, (max - min) "
                "/ median, is **flagged** above %.1f %%: an honest library's calls at one "
                "length execute the same instructions, so a flag means calls that did "
                "different work (a library that does extra work in some calls shows it "
                "there, and the median does not move).\n\n", unit, what_it_is,
            100 * COUNT_SPREAD_LIMIT);
    snprintf(h, sizeof h, "%s/B", unit);
    const char *cols[] = {"Instance", "Message", h, "instructions/B (exact)",
                          "instructions per call", "min – max per call", "spread",
                          "conditional branches/B"};
    pages_table_head(fp, cols, 8, "lrrrrrrr");
    json_t *sizes = sizes_of(s, cand);
    size_t k, i;
    json_t *inst, *sz;
    json_array_foreach(insts, k, inst) {
        const char *in = json_string_value(inst);
        json_array_foreach(sizes, i, sz) {
            long long size = json_integer_value(sz);
            const json_t *rec = report_count_record(s, cand, in, size, NULL);
            double t = timed_per_byte(s, cand, in, size);
            if (!rec && !isfinite(t))
                continue;
            char a[NUMFMT_MAX];
            fputs("| ", fp);
            esc_md(fp, in);
            if (rec && strcmp(report_str(rec, "kat_status", ""), "NOKAT") == 0)
                fputs(" (NOKAT: " NOKAT_MARK ")", fp);
            /* in the candidate page's notation ("1024 B"), as its other tables */
            fprintf(fp, " | %s |", numfmt_msg_bytes(size, a, sizeof a));
            cell(fp, t, 1);
            count_cell(fp, rec);
            double call = figure(rec, "Ir", "per_call");
            if (isfinite(call))
                fprintf(fp, " %.0f | %.0f – %.0f |", call, figure(rec, "Ir", "min"),
                        figure(rec, "Ir", "max"));
            else
                fputs(" — | — |", fp);
            spread_cell(fp, rec);
            cell(fp, figure(rec, "Bc", "per_byte"), 1);
            fputs("\n", fp);
        }
    }
    json_decref(sizes);
    fputs("\n", fp);
    if (model_lines(fp, s, cand, 1))
        fputs("\n", fp);
    if (pages_count_has_curve(s, cand))
        fprintf(fp, "![Instructions per byte against message length (exact, counted "
                    "by Valgrind): every length from 0 to %d bytes, then every %d bytes "
                    "to %d; each step is a block more](%s" PAGES_COUNT_CURVE_SUFFIX
                    ".svg)\n\n", COUNT_CURVE_FINE, COUNT_CURVE_STEP, COUNT_CURVE_MAX, stem);
    shares_tables(fp, s, cand, insts);
}

int pages_count_has_curve(const report_system *s, const char *cand)
{
    const char *key;
    json_t *e;
    json_object_foreach(s->count, key, e) {
        const json_t *r = json_object_get(e, "record");
        if (is_curve(r) && strcmp(report_str(r, "candidate", ""), cand) == 0)
            return 1;
    }
    return 0;
}

int pages_count_curve_svg(FILE *fp, const report_system *s, const char *cand)
{
    size_t cap = json_object_size(s->count) + 1, n = 0;
    svg_series *series = calloc(cap, sizeof *series);
    double **xs = calloc(cap, sizeof *xs), **ys = calloc(cap, sizeof *ys);
    const char *key;
    json_t *e;
    json_object_foreach(s->count, key, e) {
        const json_t *r = json_object_get(e, "record");
        if (!series || !xs || !ys || !is_curve(r) ||
            strcmp(report_str(r, "candidate", ""), cand) != 0)
            continue;
        const json_t *pts = json_object_get(r, "points");
        size_t np = json_array_size(pts), m = 0, i;
        json_t *p;
        xs[n] = calloc(np + 1, sizeof **xs);
        ys[n] = calloc(np + 1, sizeof **ys);
        if (!xs[n] || !ys[n])
            continue;
        json_array_foreach(pts, i, p) {
            long long len = json_integer_value(json_object_get(p, "size_bytes"));
            if (len <= 0 || len > COUNT_CURVE_MAX)
                continue; /* per byte needs a byte; the longer sizes are in the table */
            xs[n][m] = (double)len;
            ys[n][m++] = figure(p, "Ir", "per_byte");
        }
        series[n] = (svg_series){report_str(r, "instance", ""), m, xs[n], ys[n], NULL, NULL};
        n++;
    }
    char title[300];
    snprintf(title, sizeof title, "%s: instructions per byte against message length "
             "(exact)", cand);
    svg_chart_spec spec = {title, "message length (bytes)", "instructions per byte",
                           series, n, 1, 0, 0, 0};
    int rc = series && xs && ys ? svg_chart(fp, &spec) : -1;
    for (size_t i = 0; i < n; i++) {
        free(xs[i]);
        free(ys[i]);
    }
    free(xs);
    free(ys);
    free(series);
    return rc;
}

/* One instance of the summary's ranking. */
typedef struct ranked {
    const char *cand, *inst;
    long long size;
    double ipb, timed;
    int timed_rank;
    double log_sum;  /* sum of ln(instructions/B) over the guide's sizes counted */
    int n_geo;       /* how many */
    int flagged;     /* a size's spread flagged */
    int nokat;       /* counted with --nokat: no KAT vectors were submitted */
} ranked;

static int by_geo(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    double gx = x->n_geo ? x->log_sum / x->n_geo : INFINITY;
    double gy = y->n_geo ? y->log_sum / y->n_geo : INFINITY;
    if (gx != gy)
        return gx < gy ? -1 : 1;
    int c = strcmp(x->cand, y->cand);
    return c ? c : strcmp(x->inst, y->inst);
}

/* 1 when SIZE is one of the guide's eight (S1-S8). */
static int guide_size(long long size)
{
    static const unsigned g[] = SETTINGS_DEFAULT_SIZES;
    for (size_t i = 0; i < sizeof g / sizeof g[0]; i++)
        if (size == (long long)g[i])
            return 1;
    return 0;
}

/* The ranking by one figure per instance: the geometric mean of
 * instructions per byte over the guide's sizes S1-S8 (V, N instances). */
static void geo_table(FILE *fp, ranked *v, size_t n)
{
    qsort(v, n, sizeof *v, by_geo);
    fputs("### One figure per instance: geometric mean over S1–S8\n\n", fp);
    fputs("Every counted instance ranked by the geometric mean of its instructions per "
          "byte (exact) over the guide's eight sizes, 32 B to 64 KiB: one figure, the "
          "same on every run, weighing a 2× change at any size alike. An instance "
          "counted at fewer than the eight sizes gets the mean of those it has, with "
          "their number; its place is then not comparable with the others'.\n\n", fp);
    const char *cols[] = {"Rank", "Instance", "geometric mean of instructions/B",
                          "sizes", "spread flagged"};
    pages_table_head(fp, cols, 5, "rlrrl");
    size_t rank = 0;
    for (size_t j = 0; j < n; j++) {
        if (!v[j].n_geo)
            continue;
        fprintf(fp, "| %zu | ", ++rank);
        esc_md(fp, v[j].cand);
        fputs(" / ", fp);
        esc_md(fp, v[j].inst);
        if (v[j].nokat)
            fputs(" (NOKAT: " NOKAT_MARK ")", fp);
        fprintf(fp, " | %.2f | %d of 8 | %s |\n", exp(v[j].log_sum / v[j].n_geo), v[j].n_geo,
                v[j].flagged ? "**yes**" : "no");
    }
    fputs("\n", fp);
}

static int by_ipb(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->ipb != y->ipb)
        return x->ipb < y->ipb ? -1 : 1;
    int c = strcmp(x->cand, y->cand);
    return c ? c : strcmp(x->inst, y->inst);
}

void pages_count_summary(FILE *fp, const report_system *s, const char *ext)
{
    if (!has_counts(s, NULL))
        return;
    size_t n = 0, cap = json_object_size(s->count) + 1;
    ranked *v = calloc(cap, sizeof *v);
    const char *key;
    json_t *e;
    /* each instance at 64 KiB when counted there, else at its largest count */
    json_object_foreach(s->count, key, e) {
        const json_t *r = json_object_get(e, "record");
        double ipb = is_curve(r) ? NAN : figure(r, "Ir", "per_byte");
        long long size = json_integer_value(json_object_get(r, "size_bytes"));
        if (!v || !isfinite(ipb))
            continue;
        const char *cand = report_str(r, "candidate", ""), *inst = report_str(r, "instance", "");
        size_t j = 0;
        while (j < n && (strcmp(v[j].cand, cand) || strcmp(v[j].inst, inst)))
            j++;
        if (j == n)
            v[n++] = (ranked){cand, inst, -1, NAN, NAN, 0, 0.0, 0, 0,
                              strcmp(report_str(r, "kat_status", ""), "NOKAT") == 0};
        if (guide_size(size) && ipb > 0) {
            v[j].log_sum += log(ipb);
            v[j].n_geo++;
            v[j].flagged |= json_is_true(json_object_get(json_object_get(r, "derived"),
                                                         "spread_flagged"));
        }
        if (v[j].size != COUNT_RANK_SIZE && (size == COUNT_RANK_SIZE || size > v[j].size)) {
            v[j].size = size;
            v[j].ipb = ipb;
        }
    }
    for (size_t j = 0; j < n; j++) {
        v[j].timed = timed_per_byte(s, v[j].cand, v[j].inst, v[j].size);
        for (size_t m = 0; m < n && isfinite(v[j].timed); m++) {
            double t = timed_per_byte(s, v[m].cand, v[m].inst, v[m].size);
            v[j].timed_rank += isfinite(t) && v[m].size == v[j].size && t <= v[j].timed;
        }
    }
    if (n)
        qsort(v, n, sizeof *v, by_ipb);
    fputs("## Second view: ranked by instructions per byte (exact)\n\n", fp);
    fprintf(fp, "Every counted instance, fewest instructions per byte first, at 64 KiB "
                "(else at its largest counted size), beside its timed figure and its "
                "place when ranked by that figure among the instances timed at the "
                "same size. %s The ratio is to the baseline's count at the same "
                "size. Method: ", what_it_is);
    pages_link(fp, "instruction counts", "method", ext);
    fputs(".\n\n", fp);
    pages_counter pc;
    char timed[128];
    pages_counter_of(s, &pc);
    snprintf(timed, sizeof timed, "%s/B", pc.unit);
    const char *cols[] = {"Rank", "Instance", "Message", "instructions/B (exact)",
                          "ratio to SM3", timed, "rank by timed figure"};
    pages_table_head(fp, cols, 7, "rlrrrrr");
    for (size_t j = 0; j < n; j++) {
        char a[NUMFMT_MAX];
        const json_t *b = report_count_record(s, PAGES_BASELINE_CANDIDATE,
                                              PAGES_BASELINE_INSTANCE, v[j].size, NULL);
        double base = figure(b, "Ir", "per_byte");
        fprintf(fp, "| %zu | ", j + 1);
        esc_md(fp, v[j].cand);
        fputs(" / ", fp);
        esc_md(fp, v[j].inst);
        if (v[j].nokat)
            fputs(" (NOKAT: " NOKAT_MARK ")", fp);
        fprintf(fp, " | %s |", numfmt_msg_size(v[j].size, a, sizeof a));
        cell(fp, v[j].ipb, 1);
        if (isfinite(base) && base > 0)
            fprintf(fp, " %.2f× |", v[j].ipb / base);
        else
            fputs(" — |", fp);
        cell(fp, v[j].timed, 1);
        if (v[j].timed_rank)
            fprintf(fp, " %d |\n", v[j].timed_rank);
        else
            fputs(" — |\n", fp);
    }
    fputs("\n", fp);
    if (n)
        geo_table(fp, v, n);
    fputs("\n", fp);
    if (model_lines(fp, s, NULL, 0))
        fputs("\n", fp);
    int none = 0;
    json_object_foreach(s->count, key, e) {
        const json_t *r = json_object_get(e, "record");
        if (strcmp(report_str(r, "status", ""), "COUNTED") == 0 || is_curve(r))
            continue;
        if (!none++)
            fputs("\nNot counted:\n\n", fp);
        fputs("- ", fp);
        esc_md(fp, report_str(r, "candidate", ""));
        fputs(" / ", fp);
        esc_md(fp, report_str(r, "instance", ""));
        fprintf(fp, " at %lld B: %s: ", (long long)json_integer_value(json_object_get(r,
                "size_bytes")), not_counted_word(report_str(r, "status", "")));
        esc_md(fp, report_str(r, "reason", ""));
        fputs("\n", fp);
    }
    fputs("\n", fp);
    free(v);
}

void pages_count_method(FILE *fp, const report_system *s)
{
    fputs("## Instruction counts (exact)\n\n", fp);
    fprintf(fp, "`hashbench count` (or `hashbench run --count`) counts, for every "
            "instance that passed its KATs and for the OpenSSL baseline, the "
            "instructions each call of `CryptHash` executes. A small driver of "
            "hashbench's own loads the library the KATs checked with dlopen and runs "
            "it under Valgrind's callgrind (`--branch-sim=yes` adds the conditional "
            "branches) in the sandbox, like every run of submitted code, with "
            "collection off except from just before each call to just after it, and "
            "one dump of the counters per call: every call is counted on its own, and "
            "nothing but the call (no start-up, no other call) is in its count. The "
            "cost of the window itself, measured on %d empty windows, is subtracted. "
            "The driver gets its calls one at a time on its standard input, the next "
            "only once the call before has been read, and makes one uncounted call "
            "first (the process is warm, as in the timed windows). Every call hashes "
            "a message of its own, from a seed derived one-way (SHA-256) from a seed "
            "drawn at random for the instance and recorded, so nothing in the process "
            "foretells a later message or the number of calls; each size gets %d "
            "calls, each "
            "length of the curve (every length from 0 to 512 bytes, then every 64 "
            "bytes to 4096) %d. The figure is the **median** over a length's calls, "
            "with the minimum and maximum beside it; a spread (max - min) / median "
            "above %.1f %% is **flagged**: a library that does extra work in some "
            "calls shows it there and does not move the median. The digests of every "
            "length are folded and the fold is recomputed natively by hashbench's "
            "runner, so a library that computes something else under Valgrind is "
            "reported *inconsistent*, never counted.\n\n", COUNT_EMPTY_WINDOWS,
            COUNT_CALLS_SIZE, COUNT_CALLS_CURVE, 100 * COUNT_SPREAD_LIMIT);
    fputs("What it is and is not: an exact count of executed instructions, the "
          "same on every run and unmoved by the host's load, so it shows a change of "
          "1 % that no timing on a shared machine can; **not cycles** (vector width, "
          "instructions per cycle and the cost of each instruction differ between "
          "implementations and processors). Limits: a library could tell that it runs "
          "under Valgrind by other means than a client request (which makes it not "
          "countable) and take another correct code path there (the digests are "
          "checked, the path is not); work done once, on the first call, is in the "
          "uncounted call; instructions Valgrind cannot run (for example AVX-512 in "
          "Valgrind 3.19) make the instance *not countable*, with the reason, never "
          "a number; system calls and the kernel's work for them are not "
          "counted.\n\n", fp);
    fprintf(fp, "The length model: the KAT vectors check every length up to %d bytes, "
            "one 1 MiB message and the Loop's chain, not the lengths between, where the "
            "timed sizes lie. An iterated hash costs a fixed part, a constant part per "
            "block and perhaps a little per byte: a staircase. Its steps in the counts of "
            "every length from 0 to %d bytes give the block (at least %d evenly spaced "
            "steps; else the model is *not determined*, and said so, and only a count "
            "under %.1f of the straight line through those counts is flagged), least "
            "squares the costs; the model then predicts every longer length counted. A "
            "count under %.2f of the prediction (the examples and baselines stay within 1.5 %% of it) "
            "means the code does less work per byte where no vector checks what it "
            "computes: the instance's records beyond %d bytes are *inconsistent*, its "
            "candidate page says its timed figures there are not borne out and the "
            "summary marks it. It lets through a fake that saves less than %.0f %% of "
            "the instructions, and a library that is honest only under Valgrind, which "
            "it can detect: the timed figures remain the reader's check.\n\n",
            COUNT_CURVE_FINE, COUNT_CURVE_FINE, COUNT_MODEL_MIN_STEPS,
            COUNT_MODEL_LINEAR_LOW, COUNT_MODEL_LOW,
            COUNT_CURVE_FINE, 100 * (1 - COUNT_MODEL_LOW));
    fputs("Where the instructions go: the same dumps give each function's own "
          "instructions (callgrind's exclusive cost), so for each size the candidate "
          "pages give every function's share of the calls' instructions, exact and on "
          "every build; the shares of a size add up to 100 %, the counting window's "
          "few instructions (in hashbench-count) included. Each function is named with "
          "its object (the library, the C library, a system library) and its symbol; "
          "the library's symbols, read by the build before it zeroes the unloaded "
          "bytes, are the submission's text, cut to 64 characters of letters, digits "
          "and `_.@+-`. A shared helper of the competition (SM3, pseudo-hash, DRNG) "
          "that the library calls by its name is given with everything it calls. A "
          "function inlined into its caller counts as the caller's.\n\n", fp);
    size_t counted = 0, total = 0, curves = 0;
    const char *key;
    json_t *e;
    json_object_foreach(s->count, key, e) {
        const json_t *r = json_object_get(e, "record");
        if (is_curve(r)) {
            curves++;
            continue;
        }
        total++;
        counted += strcmp(report_str(r, "status", ""), "COUNTED") == 0;
    }
    if (total)
        fprintf(fp, "In this dataset: %zu (instance, size) record%s, %zu counted, and %zu "
                    "length curve%s; each holds the exact command, Valgrind's version and "
                    "the raw count of every call, and `hashbench validate` recomputes "
                    "every derived figure from them.\n\n", total, total == 1 ? "" : "s",
                counted, curves, curves == 1 ? "" : "s");
    else
        fputs("In this dataset: no instruction counts (`hashbench count` was not "
              "run).\n\n", fp);
}
