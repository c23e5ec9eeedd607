/* Checking an export against its dataset: see export_check.h. The records
 * are found by the path every export gives ("record"); figures are read
 * from the record itself and, for the paired ratio, through
 * report/paired.h, as the exports do. */
#include "report/export_check.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "common/fs.h"
#include "common/json.h"
#include "report/csv.h"
#include "dataset/dataset.h"
#include "report/pages.h"
#include "report/paired.h"
#include "report/ratiodrift.h"

#define EXPORT_MAX_BYTES (1ull << 30)

typedef struct xctx {
    const char *path;
    FILE *out;
    export_check_stats *st;
    report_dataset ds;
    json_t *index; /* record file -> [system index, record index] */
    json_t *seen;  /* record file -> where it was exported first */
} xctx;

static void problem(xctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void problem(xctx *x, const char *fmt, ...)
{
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    hb_one_line(line);
    fprintf(x->out, "%s\n", line);
    x->st->problems++;
}

/* The record exported as FILE (WHERE names the entry), marked as seen;
 * NULL (and a problem) when the dataset has none or it came before. */
static const report_record *find(xctx *x, const char *file, const char *where,
                                 const report_system **sys)
{
    const json_t *at = json_object_get(x->index, file);
    if (!at) {
        problem(x, "%s: record %s: no such record in %s", where, file, x->ds.root);
        return NULL;
    }
    const json_t *first = json_object_get(x->seen, file);
    if (first) {
        problem(x, "%s: record %s: exported a second time (first at %s)", where, file,
                json_string_value(first));
        return NULL;
    }
    json_object_set_new(x->seen, file, json_string(where));
    *sys = &x->ds.sys[json_integer_value(json_array_get(at, 0))];
    return &(*sys)->recs[json_integer_value(json_array_get(at, 1))];
}

static void text_check(xctx *x, const char *where, const char *field, const char *got,
                       const char *want, const char *rec)
{
    if (strcmp(got, want) != 0)
        problem(x, "%s: field %s: exported '%.80s', the record %s has '%.80s'", where, field,
                got, rec, want);
}

/* A figure: WANT NaN means the record has none (exported empty / null). */
static void num_check(xctx *x, const char *where, const char *field, int have, double got,
                      double want, double rel, const char *rec)
{
    x->st->figures++;
    if (!isfinite(want) && !have)
        return;
    if (isfinite(want) && have &&
        (got == want || fabs(got - want) <= rel * fmax(fabs(got), fabs(want))))
        return;
    char a[64], b[64];
    snprintf(a, sizeof a, have ? "%.17g" : "nothing", got);
    snprintf(b, sizeof b, isfinite(want) ? "%.17g" : "none", want);
    problem(x, "%s: field %s: exported %s, the record %s has %s", where, field, a, rec, b);
}

static void missing_records(xctx *x)
{
    for (size_t i = 0; i < x->ds.nsys; i++)
        for (size_t k = 0; k < x->ds.sys[i].nrecs; k++)
            if (!json_object_get(x->seen, x->ds.sys[i].recs[k].file))
                problem(x, "%s: record %s is not in the export", x->path,
                        x->ds.sys[i].recs[k].file);
}

#define NPAIRED_VALUES 7

/* The paired figures of R on S: ratio, low, high, pairs, the interval
 * widened by S's recorded ratio drift at R's size and that margin
 * (report/ratiodrift.h; NaN when none). */
static void paired_values(const report_system *s, const report_record *r,
                          double v[NPAIRED_VALUES])
{
    paired_figure pf;
    for (size_t k = 0; k < NPAIRED_VALUES; k++)
        v[k] = NAN;
    if (!r->derived || paired_read(r->json, &pf) < 0)
        return;
    v[0] = pf.ratio;
    v[1] = pf.lo;
    v[2] = pf.hi;
    v[3] = pf.pairs && isfinite(pf.ratio) ? (double)pf.pairs : NAN;
    if (isfinite(pf.ratio)) {
        v[4] = pf.lo;
        v[5] = pf.hi;
        ratiodrift_widen(s, r->size, &v[4], &v[5]);
        v[6] = ratiodrift_recorded_margin(s, r->size);
    }
    paired_free(&pf);
}

/* ---- CSV ---- */

static const char *const csv_figures[] = {
    "n", "trials", "calls", "mean_ticks_per_call", "ticks_per_byte", "mean_ns_per_call",
    "mb_per_s", "median_trial_mean", "q1_trial_mean", "q3_trial_mean", "min_trial_mean",
    "max_trial_mean", "cv_percent", "ci95_low", "ci95_high", "ci95_rel_percent"};
static const char *const csv_paired[NPAIRED_VALUES] = {
    "paired_ratio", "paired_ratio_ci95_low", "paired_ratio_ci95_high", "pairs",
    "paired_ratio_widened_low", "paired_ratio_widened_high", "ratio_drift_margin_percent"};

static int csv_num(const char *s, double *v)
{
    char *end;
    if (!s[0])
        return 0;
    *v = strtod(s, &end);
    return *end == '\0' && end != s ? 1 : -1;
}

static void csv_value(xctx *x, const char *where, const csv_row *row, int col,
                      const char *field, double want, const char *rec)
{
    double got = NAN;
    int have = csv_num(row->field[col], &got);
    if (have < 0)
        problem(x, "%s: field %s: '%.40s' is not a number", where, field, row->field[col]);
    else
        num_check(x, where, field, have, got, want, 1e-9, rec);
}

static int check_csv(xctx *x, const char *text, size_t len, hb_err *err)
{
    csv_table t;
    if (csv_table_read(text, len, x->path, &t, err) < 0)
        return -1;
    int rc = 0;
    const csv_row *h = t.n ? &t.rows[0] : NULL;
    int c_rec = h ? csv_column(h, "record") : -1;
    if (c_rec < 0)
        rc = hb_fail_at(err, x->path, 1, "no 'record' column: not an export of 'hashbench "
                        "export --csv'; export the dataset again");
    for (size_t i = 1; rc == 0 && i < t.n; i++) {
        const csv_row *row = &t.rows[i];
        char where[4200];
        snprintf(where, sizeof where, "%s:%ld", x->path, row->line);
        if (row->n != h->n) {
            problem(x, "%s: %zu fields where the header has %zu", where, row->n, h->n);
            continue;
        }
        x->st->entries++;
        const report_system *s;
        const report_record *r = find(x, row->field[c_rec], where, &s);
        if (!r)
            continue;
        char size[32];
        snprintf(size, sizeof size, "%lld", r->size);
        const char *ids[][2] = {{"system", s->name}, {"candidate", r->candidate},
                                {"instance", r->instance}, {"size_bytes", size},
                                {"status", report_str(r->json, "status", "OK")}};
        for (size_t k = 0; k < sizeof ids / sizeof ids[0]; k++) {
            int c = csv_column(h, ids[k][0]);
            if (c >= 0)
                text_check(x, where, ids[k][0], row->field[c], ids[k][1], r->file);
        }
        for (size_t k = 0; k < sizeof csv_figures / sizeof csv_figures[0]; k++) {
            int c = csv_column(h, csv_figures[k]);
            if (c >= 0)
                csv_value(x, where, row, c, csv_figures[k],
                          report_num(r->derived, csv_figures[k]), r->file);
        }
        double pv[NPAIRED_VALUES];
        paired_values(s, r, pv);
        for (size_t k = 0; k < NPAIRED_VALUES; k++) {
            int c = csv_column(h, csv_paired[k]);
            if (c >= 0)
                csv_value(x, where, row, c, csv_paired[k], pv[k], r->file);
        }
        int c_h = csv_column(h, "harness_ns_per_call");
        if (c_h >= 0)
            csv_value(x, where, row, c_h, "harness_ns_per_call", pages_harness_ns(r), r->file);
    }
    csv_table_free(&t);
    return rc;
}

/* ---- JSON ---- */

static void json_value(xctx *x, const char *where, const char *field, const json_t *got,
                       double want, const char *rec)
{
    if (got && !json_is_null(got) && !json_is_number(got)) {
        problem(x, "%s.%s: not a number", where, field);
        return;
    }
    num_check(x, where, field, json_is_number(got), json_number_value(got), want, 1e-12, rec);
}

static void check_size_entry(xctx *x, const char *where, const json_t *e, const char *sys,
                             const char *cand, const char *inst)
{
    const report_system *s;
    const report_record *r = find(x, json_string_value(json_object_get(e, "record")) ?
                                  json_string_value(json_object_get(e, "record")) : "(none)",
                                  where, &s);
    x->st->entries++;
    if (!r)
        return;
    char size[32], got_size[32];
    snprintf(size, sizeof size, "%lld", r->size);
    snprintf(got_size, sizeof got_size, "%lld",
             (long long)json_integer_value(json_object_get(e, "size_bytes")));
    text_check(x, where, "system name", sys, s->name, r->file);
    text_check(x, where, "candidate name", cand, r->candidate, r->file);
    text_check(x, where, "instance name", inst, r->instance, r->file);
    text_check(x, where, "size_bytes", got_size, size, r->file);
    text_check(x, where, "status", report_str(e, "status", ""),
               report_str(r->json, "status", "OK"), r->file);
    const json_t *fig = json_object_get(e, "figures");
    if (!r->derived != !json_is_object(fig))
        problem(x, "%s: field figures: %s, the record %s %s", where,
                json_is_object(fig) ? "exported" : "missing", r->file,
                r->derived ? "has figures" : "has none");
    const char *key;
    const json_t *want;
    char sub[4300];
    snprintf(sub, sizeof sub, "%s.figures", where);
    if (r->derived)
        json_object_foreach((json_t *)r->derived, key, want) {
            if (!strcmp(key, "paired_ratio"))
                continue;
            const json_t *got = json_object_get(fig, key);
            if (json_is_string(want))
                text_check(x, sub, key, json_is_string(got) ? json_string_value(got) : "",
                           json_string_value(want), r->file);
            else
                json_value(x, sub, key, got, json_is_number(want) ? json_number_value(want)
                                                                 : NAN, r->file);
        }
    double pv[NPAIRED_VALUES];
    static const char *const names[NPAIRED_VALUES] = {
        "ratio", "ci95_low", "ci95_high", "pairs", "widened_ci95_low", "widened_ci95_high",
        "ratio_drift_margin_percent"};
    paired_values(s, r, pv);
    const json_t *pr = json_object_get(e, "paired_ratio");
    snprintf(sub, sizeof sub, "%s.paired_ratio", where);
    for (size_t k = 0; k < NPAIRED_VALUES; k++)
        json_value(x, sub, names[k], json_object_get(pr, names[k]), pv[k], r->file);
    json_value(x, where, "harness_ns_per_call", json_object_get(e, "harness_ns_per_call"),
               pages_harness_ns(r), r->file);
}

static int check_json(xctx *x, hb_err *err)
{
    json_t *doc;
    if (hb_json_load(x->path, &doc, err) < 0)
        return -1;
    if (strcmp(report_str(doc, "kind", ""), "hashbench-export") != 0) {
        json_decref(doc);
        return hb_fail(err, "%s: not an export of 'hashbench export --json' (kind "
                       "\"hashbench-export\"); export the dataset again", x->path);
    }
    size_t i, j, k, l;
    const json_t *s, *c, *in, *e;
    json_array_foreach(json_object_get(doc, "systems"), i, s)
        json_array_foreach(json_object_get(s, "candidates"), j, c)
            json_array_foreach(json_object_get(c, "instances"), k, in)
                json_array_foreach(json_object_get(in, "sizes"), l, e) {
                    char where[4200];
                    snprintf(where, sizeof where,
                             "%s: systems[%zu].candidates[%zu].instances[%zu].sizes[%zu]",
                             x->path, i, j, k, l);
                    check_size_entry(x, where, e, report_str(s, "name", ""),
                                     report_str(c, "name", ""), report_str(in, "name", ""));
                }
    json_decref(doc);
    return 0;
}

int report_check_export(const char *data_dir, const char *export_path, FILE *out,
                        export_check_stats *st, hb_err *err)
{
    xctx x = {export_path, out, st, {0}, json_object(), json_object()};
    char *text = NULL;
    size_t len = 0;
    memset(st, 0, sizeof *st);
    int rc = report_dataset_load(data_dir, &x.ds, err);
    if (rc == 0)
        rc = hb_read_file_limited(export_path, EXPORT_MAX_BYTES, "export", &text, &len, err);
    for (size_t i = 0; rc == 0 && i < x.ds.nsys; i++)
        for (size_t k = 0; k < x.ds.sys[i].nrecs; k++)
            json_object_set_new(x.index, x.ds.sys[i].recs[k].file,
                                json_pack("[I, I]", (json_int_t)i, (json_int_t)k));
    if (rc == 0) {
        const char *p = text;
        while (p < text + len && isspace((unsigned char)*p))
            p++;
        rc = p < text + len && *p == '{' ? check_json(&x, err) : check_csv(&x, text, len, err);
    }
    if (rc == 0)
        missing_records(&x);
    free(text);
    json_decref(x.index);
    json_decref(x.seen);
    report_dataset_free(&x.ds);
    return rc < 0 ? -1 : st->problems ? 1 : 0;
}
