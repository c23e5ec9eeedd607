/* report_export_json: the dataset as one JSON document for programs (the
 * layout is documented, with its JSON Schema, in docs/FORMATS.md "Export
 * (JSON)"). Figures are the records' own values, unrounded; the paired
 * ratio is read through report/paired.h like every other reader. See
 * report.h. */
#include "report/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "dataset/dataset.h"
#include "report/pages.h"
#include "report/paired.h"
#include "report/ratiodrift.h"

static json_t *str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *num_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *copy_or_null(const json_t *v)
{
    return v ? json_deep_copy(v) : json_null();
}

static json_t *counter_of(const report_system *s)
{
    pages_counter pc;
    pages_counter_of(s, &pc);
    return json_pack("{s:s, s:b, s:o, s:s}", "name", pc.name, "is_cycles", pc.is_cycles,
                     "rate_hz", num_or_null(pc.rate_hz), "unit", pc.unit);
}

static json_t *paired_of(const report_system *s, const report_record *r)
{
    paired_figure pf;
    if (!r->derived || paired_read(r->json, &pf) < 0)
        return json_null();
    json_t *o = json_null();
    double wl = pf.lo, wh = pf.hi;
    ratiodrift_widen(s, r->size, &wl, &wh);
    if (isfinite(pf.ratio))
        o = json_pack("{s:o, s:o, s:o, s:I, s:s, s:o, s:o, s:o}", "ratio",
                      num_or_null(pf.ratio), "ci95_low", num_or_null(pf.lo), "ci95_high",
                      num_or_null(pf.hi), "pairs", (json_int_t)pf.pairs, "estimator",
                      pf.est == PAIRED_MEDIAN ? "median" : "geometric_mean",
                      "widened_ci95_low", num_or_null(wl), "widened_ci95_high",
                      num_or_null(wh), "ratio_drift_margin_percent",
                      num_or_null(ratiodrift_recorded_margin(s, r->size)));
    paired_free(&pf);
    return o;
}

static json_t *size_entry(const report_system *s, const report_record *r)
{
    json_t *fig = json_null();
    if (r->derived) {
        fig = json_deep_copy(r->derived);
        json_object_del(fig, "paired_ratio");
    }
    return json_pack("{s:I, s:s, s:s, s:s, s:o, s:o, s:o, s:o}", "size_bytes",
                     (json_int_t)r->size, "status", report_str(r->json, "status", "OK"),
                     "failure", report_str(r->json, "failure", ""), "record", r->file,
                     "figures", fig, "paired_ratio", paired_of(s, r), "memory",
                     copy_or_null(json_object_get(r->json, "memory")),
                     "harness_ns_per_call", num_or_null(pages_harness_ns(r)));
}

static json_t *instance_entry(const report_system *s, const char *cand, const char *inst)
{
    const json_t *b = report_build_entry(s, cand, inst);
    const json_t *k = report_kat_entry(s, cand, inst);
    const char *ct_file = NULL;
    const json_t *ct = report_ct_record(s, cand, inst, &ct_file);
    char kat_text[1024];
    pages_kat_status(s, cand, inst, kat_text, sizeof kat_text);
    json_t *sizes = json_array();
    for (size_t i = 0; i < s->nrecs; i++) {
        const report_record *r = &s->recs[i];
        if (!strcmp(r->candidate, cand) && !strcmp(r->instance, inst))
            json_array_append_new(sizes, size_entry(s, r));
    }
    json_t *ctj = ct ? json_pack("{s:s, s:s}", "verdict", report_str(ct, "verdict", ""),
                                 "record", ct_file ? ct_file : "")
                     : json_null();
    return json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:s, s:o, s:o, s:o}", "name", inst,
                     "variant", str_or_null(report_str(b, "variant", NULL)),
                     "digest_bits", copy_or_null(json_object_get(b, "digest_bits")),
                     "build_status", str_or_null(report_str(b, "status", NULL)),
                     "flags_kind", str_or_null(report_str(b, "flags_kind", NULL)),
                     "flags", str_or_null(report_str(b, "flags", NULL)),
                     "kat_status", str_or_null(report_str(k, "status", NULL)),
                     "kat_text", kat_text,
                     "static_size", copy_or_null(json_object_get(b, "static_size")),
                     "constant_time", ctj, "sizes", sizes);
}

static json_t *system_entry(const report_system *s, int *records)
{
    json_t *cands = json_array();
    size_t i, k;
    json_t *c, *inst;
    json_array_foreach(s->candidates, i, c) {
        json_t *insts = report_instances(s, json_string_value(c)), *list = json_array();
        json_array_foreach(insts, k, inst)
            json_array_append_new(list, instance_entry(s, json_string_value(c),
                                                       json_string_value(inst)));
        json_decref(insts);
        json_array_append_new(cands, json_pack("{s:s, s:o}", "name", json_string_value(c),
                                               "instances", list));
    }
    *records += (int)s->nrecs;
    const json_t *camp = s->campaign;
    json_t *campaign = camp ? json_pack("{s:o, s:o, s:o}", "start_utc",
                                        copy_or_null(json_object_get(camp, "start_utc")),
                                        "end_utc", copy_or_null(json_object_get(camp, "end_utc")),
                                        "settings", copy_or_null(json_object_get(camp, "settings")))
                            : json_null();
    return json_pack("{s:s, s:o, s:o, s:o, s:o}", "name", s->name, "campaign", campaign,
                     "environment", copy_or_null(pages_environment(s)), "counter",
                     counter_of(s), "candidates", cands);
}

int report_export_json(const char *data_dir, const char *json_path, int *records,
                       hb_err *err)
{
    report_dataset ds;
    int n = 0;
    if (report_dataset_load(data_dir, &ds, err) < 0)
        return -1;
    json_t *systems = json_array();
    for (size_t i = 0; i < ds.nsys; i++)
        json_array_append_new(systems, system_entry(&ds.sys[i], &n));
    json_t *doc = json_pack("{s:s, s:i, s:s, s:o}", "kind", "hashbench-export", "schema", 1,
                            "tool", "hashbench " HB_VERSION, "systems", systems);
    report_dataset_free(&ds);
    char *text = doc ? json_dumps(doc, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) : NULL;
    json_decref(doc);
    if (!text)
        return hb_fail(err, "%s: out of memory while writing the export", json_path);
    size_t len = strlen(text);
    text[len] = '\0';
    char *with_nl = realloc(text, len + 2);
    if (!with_nl) {
        free(text);
        return hb_fail(err, "%s: out of memory while writing the export", json_path);
    }
    with_nl[len] = '\n';
    with_nl[len + 1] = '\0';
    int rc = report_export_write(json_path, with_nl, len + 1, err);
    free(with_nl);
    if (records)
        *records = n;
    return rc;
}
