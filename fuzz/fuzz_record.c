/* Fuzz target: measurement records (docs/FORMATS.md). The input is taken
 * as a record file twice: parsed with jansson and handed to
 * stats_derive_record (the recomputation `validate` relies on), and written
 * as DATA/x86_1/records/C/I__hash_32.json of a one-record dataset loaded by
 * report_dataset_load (the report's reader). Checked besides memory safety:
 * errors are one line naming the record file; recomputed figures are
 * consistent (n = calls > 0, min <= median <= max, and the recomputation
 * is a pure function: twice the same input, the same JSON). */
#include <math.h>

#include "measure/stats.h"
#include "dataset/dataset.h"
#include "fuzz_util.h"

static void check_derived(const json_t *d)
{
    json_int_t n = json_integer_value(json_object_get(d, "n"));
    json_int_t calls = json_integer_value(json_object_get(d, "calls"));
    if (!json_is_object(d) || n <= 0 || n != calls)
        abort();
    double lo = json_number_value(json_object_get(d, "min_trial_mean"));
    double med = json_number_value(json_object_get(d, "median_trial_mean"));
    double hi = json_number_value(json_object_get(d, "max_trial_mean"));
    if (isfinite(lo) && isfinite(hi) && isfinite(med) &&
        (med < lo - 1e-9 * fabs(lo) || med > hi + 1e-9 * fabs(hi)))
        abort();
}

static void derive(const uint8_t *data, size_t size)
{
    json_t *rec = json_loadb((const char *)data, size, 0, NULL);
    json_t *d1 = NULL, *d2 = NULL;
    hb_err err = {{0}};
    if (!rec)
        return;
    if (stats_derive_record(rec, "rec.json", &d1, &err) != 0) {
        fuzz_check_err(&err);
        if (!strstr(err.msg, "rec.json"))
            abort();
    } else {
        check_derived(d1);
        if (stats_derive_record(rec, "rec.json", &d2, &err) != 0 ||
            !json_equal(d1, d2))
            abort();
    }
    json_decref(d1);
    json_decref(d2);
    json_decref(rec);
}

static void load_dataset(const uint8_t *data, size_t size)
{
    char data_dir[1024];
    report_dataset ds;
    hb_err err = {{0}};
    fuzz_put("data/x86_1/records/C/I__hash_32.json", data, size, NULL, 0);
    snprintf(data_dir, sizeof data_dir, "%s/data", fuzz_scratch());
    if (report_dataset_load(data_dir, &ds, &err) != 0) {
        fuzz_check_err(&err);
        if (!strstr(err.msg, "I__hash_32.json"))
            abort();
        return;
    }
    for (size_t s = 0; s < ds.nsys; s++)
        for (size_t i = 0; i < ds.sys[s].nrecs; i++) {
            const report_record *r = &ds.sys[s].recs[i];
            if (!r->candidate || !r->instance || !r->file)
                abort();
        }
    report_dataset_free(&ds);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    derive(data, size);
    load_dataset(data, size);
    return 0;
}
