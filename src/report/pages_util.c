/* Helpers shared by the page writers: the counter label, tables, links,
 * environment lookup and the chart data. See pages.h. */
#include "report/pages.h"
#include "dataset/layout.h"

#include "measure/drift.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "kat/kat.h"
#include "kat/kat_instance.h"
#include "measure/stats.h"
#include "report/esc.h"
#include "report/numfmt.h"
#include "report/paired.h"
#include "report/ratiodrift.h"
#include "report/svg.h"

static void counter_from(const json_t *c, pages_counter *out)
{
    snprintf(out->name, sizeof out->name, "%s", report_str(c, "name", "not recorded"));
    snprintf(out->description, sizeof out->description, "%s",
             report_str(c, "description", ""));
    out->rate_hz = report_num(c, "rate_hz");
    out->nominal_hz = report_num(c, "nominal_hz");
    snprintf(out->nominal_source, sizeof out->nominal_source, "%s",
             report_str(c, "nominal_source", ""));
    out->is_cycles = json_is_true(json_object_get(c, "is_cycles"));
}

void pages_counter_of(const report_system *s, pages_counter *out)
{
    memset(out, 0, sizeof *out);
    counter_from(NULL, out);
    int found = 0;
    for (size_t i = 0; i < s->nrecs; i++) {
        const json_t *c = json_object_get(json_object_get(s->recs[i].json,
                                                          "environment"), "counter");
        if (!json_is_object(c))
            continue;
        if (!found) {
            counter_from(c, out);
            found = 1;
        } else if (strcmp(report_str(c, "name", ""), out->name) != 0) {
            out->mixed = 1;
        }
    }
    if (out->is_cycles) {
        snprintf(out->unit, sizeof out->unit, "cycles");
        return;
    }
    char upper[64];
    size_t k;
    for (k = 0; out->name[k] && k + 1 < sizeof upper; k++)
        upper[k] = (char)toupper((unsigned char)out->name[k]);
    upper[k] = '\0';
    snprintf(out->unit, sizeof out->unit, "%s ticks", found ? upper : "counter");
}

void pages_candidate_stem(const char *cand, char *out, size_t outsz)
{
    static const char *const taken[] = {"summary", "method", "index"};
    esc_file_component(cand, out, outsz);
    /* A candidate may be called like a system page; candidate ids hold no
     * '.', so "<id>.candidate" cannot be another candidate's stem. */
    for (size_t i = 0; i < sizeof taken / sizeof taken[0]; i++) {
        if (strcasecmp(out, taken[i]) == 0) {
            size_t n = strlen(out);
            snprintf(out + n, outsz - n, ".candidate");
            break;
        }
    }
}

void pages_table_head(FILE *fp, const char *const *cols, size_t ncols, const char *align)
{
    fputs("|", fp);
    for (size_t i = 0; i < ncols; i++)
        fprintf(fp, " %s |", cols[i]);
    fputs("\n|", fp);
    for (size_t i = 0; i < ncols; i++)
        fputs(align[i] == 'r' ? " ---: |" : " --- |", fp);
    fputs("\n", fp);
}

void pages_link(FILE *fp, const char *text, const char *target, const char *ext)
{
    fputs("[", fp);
    esc_md(fp, text);
    fprintf(fp, "](%s%s)", target, ext);
}

const json_t *pages_environment(const report_system *s)
{
    const json_t *e = json_object_get(json_object_get(s->campaign, "environment"), "start");
    if (json_is_object(e))
        return e;
    for (size_t i = 0; i < s->nrecs; i++) {
        e = json_object_get(s->recs[i].json, "environment");
        if (json_is_object(e))
            return e;
    }
    return NULL;
}

void pages_flags(FILE *fp, const char *kind, const json_t *flags)
{
    if (strcmp(kind, "hashbench") == 0 && !(json_is_string(flags) && json_string_value(flags)[0]))
        fputs("built with hashbench itself (OpenSSL libcrypto behind the official interface)", fp);
    else
        pages_scalar(fp, flags);
}

void pages_scalar(FILE *fp, const json_t *v)
{
    char buf[64];
    if (json_is_string(v) && json_string_value(v)[0])
        esc_md(fp, json_string_value(v));
    else if (json_is_integer(v))
        fprintf(fp, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v)) {
        snprintf(buf, sizeof buf, "%.6g", json_real_value(v));
        fputs(buf, fp);
    } else if (json_is_true(v))
        fputs("yes", fp);
    else if (json_is_false(v))
        fputs("no", fp);
    else
        fputs("not recorded", fp);
}

/* One series per instance: NAMES[i] owned by the caller's array. */
typedef struct chart_data {
    svg_series *series;
    double *xs;
    double *ys;
    double *los, *his; /* the ratios' intervals (ratio charts) */
    json_t *names;
    size_t n;
} chart_data;

static void chart_add(chart_data *c, const report_system *s, const char *cand,
                      const char *inst, const json_t *sizes, int qualify, int ratio)
{
    size_t nsz = json_array_size(sizes);
    char name[512];
    if (qualify)
        snprintf(name, sizeof name, "%s / %s", cand, inst);
    else
        snprintf(name, sizeof name, "%s", inst);
    json_array_append_new(c->names, json_string(name));
    svg_series *sr = &c->series[c->n];
    sr->n = nsz;
    sr->x = c->xs;
    sr->y = c->ys + c->n * nsz;
    sr->lo = ratio ? c->los + c->n * nsz : NULL;
    sr->hi = ratio ? c->his + c->n * nsz : NULL;
    for (size_t k = 0; k < nsz; k++) {
        long long size = json_integer_value(json_array_get(sizes, k));
        const report_record *r = report_find_record(s, cand, inst, size);
        int paired;
        double lo = NAN, hi = NAN;
        c->ys[c->n * nsz + k] = ratio ? pages_ratio(s, cand, inst, size, &paired, &lo, &hi)
                                : r && r->derived ? report_num(r->derived, "ticks_per_byte")
                                                  : NAN;
        c->los[c->n * nsz + k] = lo;
        c->his[c->n * nsz + k] = hi;
    }
    c->n++;
}

int pages_chart(FILE *fp, const report_system *s, const char *cand,
                const char *title, int ratio, hb_err *err)
{
    json_t *sizes = report_sizes(s, cand);
    size_t nsz = json_array_size(sizes);
    size_t cap = 0;
    size_t i;
    json_t *v;
    json_array_foreach(s->candidates, i, v) {
        if (cand && strcmp(cand, json_string_value(v)) != 0)
            continue;
        json_t *insts = report_instances(s, json_string_value(v));
        cap += json_array_size(insts);
        json_decref(insts);
    }
    size_t npts = (cap ? cap : 1) * (nsz ? nsz : 1);
    chart_data c = {calloc(cap ? cap : 1, sizeof *c.series),
                    calloc(nsz ? nsz : 1, sizeof *c.xs),
                    calloc(npts, sizeof *c.ys), calloc(npts, sizeof *c.los),
                    calloc(npts, sizeof *c.his), json_array(), 0};
    int rc = 0;
    if (!c.series || !c.xs || !c.ys || !c.los || !c.his) {
        rc = hb_fail(err, "chart for %s: out of memory", s->name);
        goto done;
    }
    for (size_t k = 0; k < nsz; k++)
        c.xs[k] = (double)json_integer_value(json_array_get(sizes, k));
    json_array_foreach(s->candidates, i, v) {
        const char *cn = json_string_value(v);
        if (cand && strcmp(cand, cn) != 0)
            continue;
        json_t *insts = report_instances(s, cn);
        size_t k;
        json_t *inst;
        json_array_foreach(insts, k, inst)
            /* a ratio chart draws the baseline as its reference line at 1 */
            if (!(ratio && rundir_is_baseline(cn, json_string_value(inst))))
                chart_add(&c, s, cn, json_string_value(inst), sizes, cand == NULL, ratio);
        json_decref(insts);
    }
    for (size_t k = 0; k < c.n; k++)
        c.series[k].name = json_string_value(json_array_get(c.names, k));
    pages_counter pc;
    pages_counter_of(s, &pc);
    char ylabel[128];
    snprintf(ylabel, sizeof ylabel, ratio ? "ratio to the baseline (1: as fast)"
                                          : "%s per byte", pc.unit);
    svg_chart_spec spec = {title, "message size (log scale)", ylabel, c.series, c.n, 0, 0,
                           ratio, ratio ? 1.0 : 0.0};
    if (svg_chart(fp, &spec) < 0)
        rc = hb_fail(err, "chart for %s: write error", s->name);
done:
    free(c.series);
    free(c.xs);
    free(c.ys);
    free(c.los);
    free(c.his);
    json_decref(c.names);
    json_decref(sizes);
    return rc;
}

int pages_candidate_svg(FILE *fp, const report_system *s, const char *cand, hb_err *err)
{
    char title[512];
    pages_counter pc;
    pages_counter_of(s, &pc);
    snprintf(title, sizeof title, "%s on %s: %s per byte", cand, s->name, pc.unit);
    return pages_chart(fp, s, cand, title, 0, err);
}

int pages_summary_svg(FILE *fp, const report_system *s, hb_err *err)
{
    char title[512];
    pages_counter pc;
    pages_counter_of(s, &pc);
    snprintf(title, sizeof title, "All instances on %s: ratio to the baseline, with "
             "its 95 %% interval", s->name);
    return pages_chart(fp, s, NULL, title, 1, err);
}

static void missing_name(FILE *fp, const char *cand, const char *inst, int qualify)
{
    fputs("- ", fp);
    if (qualify) {
        esc_md(fp, cand);
        fputs(" / ", fp);
    }
    fputs("**", fp);
    esc_md(fp, inst);
    fputs("**: ", fp);
}

/* A message size in the notation of the page the line is on: the summary
 * (QUALIFY) names sizes as "1 KiB", a candidate page as "1024 B". */
static const char *size_text(long long size, int qualify, char *out, size_t outsz)
{
    return qualify ? numfmt_msg_size(size, out, outsz) : numfmt_msg_bytes(size, out, outsz);
}

static int missing_sizes(FILE *fp, const report_system *s, const char *cand,
                         const char *inst, const json_t *sizes, int qualify)
{
    int lines = 0, absent = 0;
    size_t k;
    json_t *v;
    char num[48];
    json_array_foreach(sizes, k, v) {
        const report_record *r = report_find_record(s, cand, inst, json_integer_value(v));
        if (!r) {
            absent++;
            continue;
        }
        if (r->derived)
            continue;
        missing_name(fp, cand, inst, qualify);
        esc_md(fp, report_str(r->json, "status", "FAILED"));
        fprintf(fp, " record at %s: ", size_text(r->size, qualify, num, sizeof num));
        esc_md(fp, report_str(r->json, "failure", "no reason recorded"));
        fputs(" (", fp);
        esc_md(fp, r->file);
        fputs(")\n", fp);
        lines++;
    }
    if (absent) {
        missing_name(fp, cand, inst, qualify);
        fputs("no measurement record at", fp);
        json_array_foreach(sizes, k, v)
            if (!report_find_record(s, cand, inst, json_integer_value(v)))
                fprintf(fp, " %s", size_text(json_integer_value(v), qualify, num, sizeof num));
        fputs("\n", fp);
        lines++;
    }
    return lines;
}

/* 1 when CAND/INST has a record at any size. */
static int has_records(const report_system *s, const char *cand, const char *inst)
{
    for (size_t i = 0; i < s->nrecs; i++)
        if (strcmp(s->recs[i].candidate, cand) == 0 && strcmp(s->recs[i].instance, inst) == 0)
            return 1;
    return 0;
}

void pages_kat_status(const report_system *s, const char *cand, const char *inst,
                      char *buf, size_t bufsz)
{
    const json_t *kat = report_kat_entry(s, cand, inst);
    kat_status_text(kat, buf, bufsz);
    if (!kat || !kat_status_failed(report_str(kat, "status", "")))
        return;
    const char *timing = has_records(s, cand, inst) ? "timed with --time-failed"
                                                    : "not timed";
    size_t n = strlen(buf);
    if (n > 0 && buf[n - 1] == ')')
        snprintf(buf + n - 1, bufsz - (n - 1), "; %s)", timing);
    else if (n + 1 < bufsz)
        snprintf(buf + n, bufsz - n, " (%s)", timing);
}

int pages_missing(FILE *fp, const report_system *s, const char *cand,
                  const char *inst, const json_t *sizes, int qualify)
{
    const json_t *b = report_build_entry(s, cand, inst);
    const char *bstatus = report_str(b, "status", "BUILT");
    const char *excl = report_str(b, "exclude_timing", "");
    if (strcmp(bstatus, "BUILT") != 0) {
        missing_name(fp, cand, inst, qualify);
        esc_md(fp, bstatus);
        fputs(": the instance did not build, so there is no library to time", fp);
        const char *why = report_str(b, "reason", "");
        if (why[0]) {
            fputs(" (", fp);
            esc_md(fp, why);
            fputs(")", fp);
        }
        fputs("\n", fp);
        return 1;
    }
    if (excl[0]) {
        missing_name(fp, cand, inst, qualify);
        fputs("excluded from timing by the candidate's notes: ", fp);
        esc_md(fp, excl);
        fputs("\n", fp);
        return 1;
    }
    const json_t *kat = report_kat_entry(s, cand, inst);
    if (kat && kat_status_failed(report_str(kat, "status", "")) &&
        !has_records(s, cand, inst)) {
        char st[1024];
        pages_kat_status(s, cand, inst, st, sizeof st);
        missing_name(fp, cand, inst, qualify);
        esc_md(fp, st);
        fputs(": an instance that fails its known-answer tests is not timed "
              "(hashbench measure --time-failed times a MISMATCH)\n", fp);
        return 1;
    }
    return missing_sizes(fp, s, cand, inst, sizes, qualify);
}

const char *pages_rate(double hz, char *out, size_t outsz)
{
    char num[48];
    if (!isfinite(hz) || hz <= 0)
        snprintf(out, outsz, "not recorded");
    else if (hz >= 1e9)
        snprintf(out, outsz, "%s GHz", numfmt_sig3(hz / 1e9, num, sizeof num));
    else if (hz >= 1e6)
        snprintf(out, outsz, "%s MHz", numfmt_sig3(hz / 1e6, num, sizeof num));
    else
        snprintf(out, outsz, "%s Hz", numfmt_sig3(hz, num, sizeof num));
    return out;
}

double pages_ratio(const report_system *s, const char *cand, const char *inst,
                   long long size, int *paired, double *lo, double *hi)
{
    *paired = 0;
    *lo = *hi = NAN;
    const report_record *r = report_find_record(s, cand, inst, size);
    if (!r || !r->derived)
        return NAN;
    paired_figure pf;
    if (paired_recorded(r->derived, &pf)) {
        *paired = 1;
        *lo = pf.lo;
        *hi = pf.hi;
        /* the published interval holds the host's ratio drift too */
        ratiodrift_widen(s, size, lo, hi);
        return pf.ratio;
    }
    const report_record *b = report_find_record(s, PAGES_BASELINE_CANDIDATE,
                                                PAGES_BASELINE_INSTANCE, size);
    if (!b || !b->derived)
        return NAN;
    return report_num(r->derived, "ticks_per_byte") / report_num(b->derived, "ticks_per_byte");
}

void pages_ratio_estimator(FILE *fp, const report_system *s, const char *cand,
                           const char *median_words, const char *mean_words)
{
    int median = 0, mean = 0;
    for (size_t i = 0; i < s->nrecs; i++) {
        const report_record *r = &s->recs[i];
        if (!r->derived || (cand && strcmp(r->candidate, cand) != 0))
            continue;
        const json_t *pr = json_object_get(r->derived, "paired_ratio");
        if (!json_is_object(pr) || !isfinite(report_num(pr, "ratio")))
            continue;
        if (!strcmp(report_str(pr, "estimator", ""), STATS_MEDIAN_NAME))
            median = 1;
        else
            mean = 1;
    }
    if (!median) {
        fputs(mean_words, fp);
        return;
    }
    fputs(median_words, fp);
    if (mean)
        fputs("; where a record predates that estimator, the ratio is the geometric "
              "mean of its pairs' ratios", fp);
}

void pages_ratio_cell(FILE *fp, const report_system *s, const char *cand,
                      const char *inst, long long size, int compact)
{
    char num[NUMFMT_MAX], pm[NUMFMT_MAX];
    int paired;
    double lo, hi;
    if (rundir_is_baseline(cand, inst)) {
        fputs(report_find_record(s, cand, inst, size) ? " 1 (baseline) |" : " — |", fp);
        return;
    }
    double v = pages_ratio(s, cand, inst, size, &paired, &lo, &hi);
    if (!isfinite(v)) {
        fputs(" — |", fp);
        return;
    }
    fprintf(fp, " %s×", numfmt_sig3(v, num, sizeof num));
    if (paired && isfinite(lo) && isfinite(hi)) {
        double half = (hi - lo) / 2.0 / v * 100.0;
        if (!compact)
            fprintf(fp, " (±%s %%)", numfmt_sig3(half, pm, sizeof pm));
        else if (half >= 10.0)
            fprintf(fp, " ±%.0f %%", half);
        else if (half >= 0.01)
            fprintf(fp, " ±%.2g %%", half);
        else
            fputs(" ±<0.01 %", fp);
    } else if (!paired) {
        fputs(" unpaired", fp);
    }
    fputs(" |", fp);
}

void pages_drift_warning(FILE *fp, const report_system *s, const char *ext)
{
    const drift_series *d = &s->drift;
    if (isfinite(d->spread_percent) && d->spread_percent > DRIFT_WARN_PERCENT) {
        char num[NUMFMT_MAX];
        fprintf(fp, "> **This host's speed drifted by %s %% during the measurement** "
                "(the baseline's speed, 10th to 90th percentile, over %.0f s): an "
                "absolute figure on this page can be off by about that much depending "
                "on the moment it was taken. Compare instances by their paired ratios "
                "to the baseline, which were taken side by side and hold where the "
                "host's speed does not (",
                numfmt_sig3(d->spread_percent, num, sizeof num), d->duration_s);
        pages_link(fp, "method", "method", ext);
        fputs(").\n\n", fp);
    }
}

int pages_plain_shared(const report_system *s)
{
    return json_is_true(json_object_get(s->build, "plain_shared")) ||
           json_is_true(json_object_get(json_object_get(s->campaign, "settings"),
                                        "plain_shared"));
}

void pages_plain_shared_note(FILE *fp, const report_system *s, const char *ext)
{
    if (!pages_plain_shared(s))
        return;
    fputs("> **A plain shared build (--plain-shared).** Every library of this campaign "
          "was built with the guide's flags and -fPIC -shared only, without hashbench's "
          "other additions (hidden visibility, its header, -fno-semantic-interposition, "
          "its version script): a function of a package may then be interposed, so the "
          "compiler neither inlines calls between its functions nor calls them directly, "
          "and a figure here can be slower than that of a static build of the same "
          "sources (", fp);
    pages_link(fp, "method", "method", ext);
    fputs(").\n\n", fp);
}

void pages_ratio_drift_note(FILE *fp, const report_system *s, const char *ext)
{
    const json_t *sizes = json_object_get(json_object_get(s->campaign, RATIODRIFT_KEY),
                                          "sizes");
    size_t i, n = 0;
    const json_t *e;
    json_array_foreach(sizes, i, e)
        n += isfinite(report_num(e, "margin_percent"));
    if (n == 0) {
        fputs(json_array_size(sizes)
                  ? "Too few groups of this campaign held both baselines to tell the host's "
                    "ratio drift"
                  : "The campaign recorded no ratio drift of the host", fp);
        fputs(": each paired interval is the one measured, and holds the moments of this "
              "campaign only.\n\n", fp);
        return;
    }
    fputs("Each paired interval is widened by the host's **ratio drift** at its size, "
          "how far the host alone moved the ratio of two fixed, different codes "
          "(OpenSSL's SHA-256 against its SM3) over the measurement: ", fp);
    size_t k = 0;
    json_array_foreach(sizes, i, e) {
        double m = report_num(e, "margin_percent");
        if (!isfinite(m))
            continue;
        char pm[NUMFMT_MAX], z[NUMFMT_MAX];
        fprintf(fp, "%s±%s %% at %s", k == 0 ? "" : (k + 1 == n ? " and " : ", "),
                numfmt_sig3(m, pm, sizeof pm),
                numfmt_msg_size(report_num(e, "size_bytes") >= 0
                                    ? (long long)report_num(e, "size_bytes") : 0,
                                z, sizeof z));
        k++;
    }
    size_t unknown = json_array_size(sizes) - n;
    k = 0;
    json_array_foreach(sizes, i, e) {
        if (isfinite(report_num(e, "margin_percent")))
            continue;
        char z[NUMFMT_MAX];
        double b = report_num(e, "size_bytes");
        fprintf(fp, "%s%s", k == 0 ? "; at " : (k + 1 == unknown ? " and " : ", "),
                numfmt_msg_size(b >= 0 ? (long long)b : 0, z, sizeof z));
        k++;
    }
    if (unknown)
        fputs(" too few groups told it, and the interval is the one measured", fp);
    fputs(" (", fp);
    pages_link(fp, "method", "method", ext);
    fputs("), so that it holds what a repeat campaign on a host like this one "
          "gives; the records keep the interval as measured.\n\n", fp);
}

double pages_harness_ns(const report_record *r)
{
    double v = report_num(json_object_get(r->json, "verification"), "harness_ns_per_call");
    return isfinite(v) && v >= 0 ? v : NAN;
}

void pages_harness_cell(FILE *fp, const report_record *r)
{
    char t[NUMFMT_MAX], p[NUMFMT_MAX];
    double h = pages_harness_ns(r), mean = report_num(r->derived, "mean_ns_per_call");
    if (!isfinite(h)) {
        fputs(" | not measured", fp);
        return;
    }
    fprintf(fp, " | %s", numfmt_time_ns(h, t, sizeof t));
    if (isfinite(mean) && mean > 0)
        fprintf(fp, " (%s %%)", numfmt_sig3(h / mean * 100.0, p, sizeof p));
}

void pages_signature_md(FILE *fp, const report_dataset *ds)
{
    fputs("## Signature\n\n", fp);
    if (ds->is_signed && ds->key_fingerprint[0]) {
        fprintf(fp, "This dataset is signed (Ed25519, over `" DATASET_MANIFEST "`, the "
                    "SHA-256 of every file). The signing key it names has the "
                    "fingerprint `SHA256:%s`. Compare it with the fingerprint the "
                    "evaluator publishes elsewhere, then check every file with "
                    "`hashbench validate DATA --key KEY.pub.pem`, KEY.pub.pem being the "
                    "evaluator's public key: it names each file added, removed or changed "
                    "since the signing.\n\n", ds->key_fingerprint);
    } else if (ds->is_signed) {
        fputs("This dataset carries a signature (`" DATASET_MANIFEST "`) but does not "
              "name its key (`" DATASET_SIGNING_KEY "` is missing or unreadable): check "
              "it with `hashbench validate DATA --key KEY.pub.pem` and the evaluator's "
              "public key.\n\n", fp);
    } else {
        fputs("This dataset is not signed: nothing shows that its files are the ones "
              "its evaluator published. An evaluator signs it with `hashbench publish "
              "--sign KEY`.\n\n", fp);
    }
}
