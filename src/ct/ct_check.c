/* The check `validate` applies to a constant-time record (ct.h:
 * ct_record_check): its shape, every finding's fields, each timing test's t
 * recomputed from its per-class count, mean and variance, the reported t
 * (the largest |t| of the tests) and the timing verdict against the
 * threshold, and the record's verdict from its parts. */
#include "ct/ct.h"

#include <math.h>
#include <string.h>

static const char *str(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static int one_of(const char *s, const char *const *words, size_t n)
{
    for (size_t i = 0; s && i < n; i++)
        if (strcmp(s, words[i]) == 0)
            return 1;
    return 0;
}

static int close_to(double a, double b)
{
    return fabs(a - b) <= 1e-6 * (1.0 + fabs(a) + fabs(b));
}

static int check_findings(const json_t *taint, const char *file, hb_err *err)
{
    static const char *const status[] = {"ANALYSED", "NOT_ANALYSABLE"};
    static const char *const kinds[] = {"branch", "memory_index"};
    const json_t *findings = json_object_get(taint, "findings");
    if (!json_is_object(taint) || !one_of(str(taint, "status"), status, 2) ||
        !json_is_array(findings) || !str(taint, "reason"))
        return hb_fail(err, "%s: taint: needs status ANALYSED or NOT_ANALYSABLE, a "
                       "reason and a findings array", file);
    if (strcmp(str(taint, "status"), "NOT_ANALYSABLE") == 0 &&
        (json_array_size(findings) || !str(taint, "reason")[0]))
        return hb_fail(err, "%s: taint: NOT_ANALYSABLE with findings or without a reason",
                       file);
    size_t i, j;
    json_t *f, *g;
    json_array_foreach(findings, i, f) {
        json_t *line = json_object_get(f, "line"), *count = json_object_get(f, "count");
        if (!one_of(str(f, "kind"), kinds, 2) || !str(f, "file") || !str(f, "function") ||
            !str(f, "excerpt") || !json_is_integer(line) || json_integer_value(line) < 0 ||
            !json_is_integer(count) || json_integer_value(count) < 1)
            return hb_fail(err, "%s: taint finding %zu: needs kind branch or memory_index, "
                           "file, line >= 0, function, excerpt and count >= 1", file, i);
        json_array_foreach(findings, j, g) {
            if (j >= i)
                break;
            if (!strcmp(str(f, "kind"), str(g, "kind")) && !strcmp(str(f, "file"), str(g, "file")) &&
                json_integer_value(line) == json_integer_value(json_object_get(g, "line")) &&
                !strcmp(str(f, "function"), str(g, "function")) && str(f, "file")[0])
                return hb_fail(err, "%s: taint findings %zu and %zu name the same location "
                               "(findings are deduplicated by location)", file, j, i);
        }
    }
    return 0;
}

static double num_at(const json_t *arr, size_t i)
{
    const json_t *v = json_array_get(arr, i);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static int check_timing(const json_t *tm, const char *file, hb_err *err)
{
    static const char *const status[] = {"MEASURED", "FAILED"};
    if (!json_is_object(tm) || !one_of(str(tm, "status"), status, 2) ||
        !json_is_integer(json_object_get(tm, "measurements")))
        return hb_fail(err, "%s: timing: needs status MEASURED or FAILED and measurements",
                       file);
    if (strcmp(str(tm, "status"), "FAILED") == 0)
        return str(tm, "reason") && str(tm, "reason")[0] ? 0
             : hb_fail(err, "%s: timing: FAILED without a reason", file);
    const json_t *tests = json_object_get(tm, "tests");
    double best = NAN;
    size_t i;
    json_t *x;
    if (!json_is_array(tests) || json_array_size(tests) == 0)
        return hb_fail(err, "%s: timing: no tests", file);
    json_array_foreach(tests, i, x) {
        const json_t *n = json_object_get(x, "n"), *m = json_object_get(x, "mean_ticks"),
                     *v = json_object_get(x, "var_ticks"), *t = json_object_get(x, "t");
        double want = ct_welch_t(num_at(n, 0), num_at(m, 0), num_at(v, 0), num_at(n, 1),
                                 num_at(m, 1), num_at(v, 1));
        if (isnan(want) ? !json_is_null(t) : !json_is_number(t) ||
                                                 !close_to(json_number_value(t), want))
            return hb_fail(err, "%s: timing test %zu: t is not Welch's t of its n, "
                           "mean_ticks and var_ticks (%.6g)", file, i, want);
        if (!isnan(want) && (isnan(best) || fabs(want) > fabs(best)))
            best = want;
        if (json_integer_value(json_array_get(n, 0)) + json_integer_value(json_array_get(n, 1)) >
            json_integer_value(json_object_get(tm, "measurements")))
            return hb_fail(err, "%s: timing test %zu counts more measurements than the "
                           "record", file, i);
    }
    const json_t *t = json_object_get(tm, "t");
    if (isnan(best) ? !json_is_null(t) : !json_is_number(t) ||
                                             !close_to(json_number_value(t), best))
        return hb_fail(err, "%s: timing: t is not the largest |t| of its tests", file);
    const char *want = !isnan(best) && fabs(best) > CT_T_THRESHOLD ? "DIFFERENCE"
                                                                    : "NOT_DETECTED";
    if (!str(tm, "verdict") || strcmp(str(tm, "verdict"), want) != 0 ||
        json_number_value(json_object_get(tm, "threshold")) != CT_T_THRESHOLD)
        return hb_fail(err, "%s: timing: verdict should be %s (|t| against %.1f)", file,
                       want, CT_T_THRESHOLD);
    return 0;
}

int ct_record_check(const json_t *rec, const char *file, hb_err *err)
{
    if (json_integer_value(json_object_get(rec, "schema")) != 1 || !str(rec, "kind") ||
        strcmp(str(rec, "kind"), "hashbench-ct") != 0 || !str(rec, "candidate") ||
        !str(rec, "instance") || !str(rec, "library_sha256"))
        return hb_fail(err, "%s: not a constant-time record (schema 1, kind hashbench-ct, "
                       "candidate, instance, library_sha256)", file);
    const json_t *taint = json_object_get(rec, "taint"), *tm = json_object_get(rec, "timing");
    if (check_findings(taint, file, err) != 0 || check_timing(tm, file, err) != 0)
        return -1;
    const char *want = ct_verdict(taint, tm);
    if (!str(rec, "verdict") || strcmp(str(rec, "verdict"), want) != 0)
        return hb_fail(err, "%s: verdict should be %s from its taint and timing parts", file,
                       want);
    return 0;
}
