/* The check `validate` applies to an instruction-count record (count.h:
 * count_record_check): its shape; a COUNTED record holds the raw per-call
 * counts of its length (as many as its calls), the empty windows' counts,
 * and derived figures equal to those recomputed from them (count_derive);
 * any other status has a reason and no figure. A curve record
 * (kind hashbench-count-curve) is checked point by point, the same way,
 * and so is a record under another compiler (count_cc.h). */
#include "count/count.h"
#include "count/count_cc.h"
#include "count/count_fns.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *str(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static int same_number(const json_t *a, const json_t *b)
{
    if (json_is_null(a) || json_is_null(b))
        return json_is_null(a) && json_is_null(b);
    if (json_is_boolean(a) || json_is_boolean(b))
        return json_is_boolean(a) && json_is_boolean(b) && json_equal(a, b);
    if (!json_is_number(a) || !json_is_number(b))
        return 0;
    double x = json_number_value(a), y = json_number_value(b);
    return fabs(x - y) <= 1e-9 * (1.0 + fabs(x) + fabs(y));
}

/* 1 when DERIVED holds exactly the figures of WANT. */
static int same_derived(const json_t *derived, const json_t *want)
{
    if (!json_is_object(derived) || json_object_size(derived) != json_object_size(want))
        return 0;
    const char *name;
    json_t *w;
    json_object_foreach((json_t *)want, name, w) {
        const json_t *d = json_object_get(derived, name);
        if (!json_is_object(w)) {
            if (!same_number(d, w))
                return 0;
            continue;
        }
        if (!json_is_object(d) || json_object_size(d) != json_object_size(w))
            return 0;
        const char *k;
        json_t *x;
        json_object_foreach(w, k, x)
            if (!same_number(json_object_get(d, k), x))
                return 0;
    }
    return 1;
}

/* RAW: {"Ir": [N counts], ...}, each list of N non-negative integers. */
static int check_counts(const json_t *raw, size_t n, const char *what, const char *file,
                        hb_err *err)
{
    if (!json_is_object(raw) || !json_is_array(json_object_get(raw, "Ir")))
        return hb_fail(err, "%s: %s: needs the per-call counts of Ir", file, what);
    const char *name;
    json_t *list;
    json_object_foreach((json_t *)raw, name, list) {
        size_t i;
        json_t *x;
        if (!json_is_array(list) || json_array_size(list) != n)
            return hb_fail(err, "%s: %s: %s needs %zu counts", file, what, name, n);
        json_array_foreach(list, i, x)
            if (!json_is_integer(x) || json_integer_value(x) < 0)
                return hb_fail(err, "%s: %s: %s[%zu] is not a count", file, what, name, i);
    }
    return 0;
}

/* One length: REC's (or a curve point's) status, raw counts and figures,
 * against the record's empty windows EMPTY. */
static int check_length(const json_t *rec, const json_t *empty, const char *what,
                        const char *file, hb_err *err)
{
    static const char *const status[] = {"COUNTED", "NOT_COUNTABLE", "INCONSISTENT",
                                         "TIMEOUT"};
    const char *st = str(rec, "status");
    int known = 0;
    for (size_t i = 0; st && i < sizeof status / sizeof status[0]; i++)
        known |= strcmp(st, status[i]) == 0;
    const json_t *size = json_object_get(rec, "size_bytes"), *calls = json_object_get(rec, "calls");
    if (!json_is_integer(size) || json_integer_value(size) < 0 || !json_is_integer(calls) ||
        json_integer_value(calls) < 1)
        return hb_fail(err, "%s: %s: needs size_bytes and calls", file, what);
    if (!known || !str(rec, "reason"))
        return hb_fail(err, "%s: %s: status must be COUNTED, NOT_COUNTABLE, INCONSISTENT or "
                       "TIMEOUT, with a reason", file, what);
    const json_t *derived = json_object_get(rec, "derived");
    if (strcmp(st, "COUNTED") != 0) {
        if (!str(rec, "reason")[0] || !json_is_null(derived))
            return hb_fail(err, "%s: %s: a %s record needs a reason and no derived figures",
                           file, what, st);
        return 0;
    }
    const json_t *raw = json_object_get(rec, "raw");
    if (check_counts(raw, (size_t)json_integer_value(calls), what, file, err) != 0)
        return -1;
    json_t *want = count_derive(raw, empty, json_integer_value(size));
    int ok = want && same_derived(derived, want);
    json_decref(want);
    if (!ok)
        return hb_fail(err, "%s: %s: derived: not the figures recomputed from the raw "
                       "counts (median, minimum and maximum of each call's count less the "
                       "median of the empty windows)", file, what);
    const json_t *fns = json_object_get(rec, "functions");
    char why[256];
    if (fns && !json_is_null(fns) &&
        cg_functions_check(fns, json_object_get(raw, "Ir"), why, sizeof why) != 0)
        return hb_fail(err, "%s: %s: %s", file, what, why);
    return 0;
}

int count_record_check(const json_t *rec, const char *file, hb_err *err)
{
    const char *kind = str(rec, "kind");
    /* a record of counts under another compiler (count_cc.h) holds one
     * point per size, checked like a curve's */
    int curve = kind && (strcmp(kind, "hashbench-count-curve") == 0 ||
                         strcmp(kind, COUNT_CC_KIND) == 0);
    if (json_integer_value(json_object_get(rec, "schema")) != 2 || !kind ||
        (!curve && strcmp(kind, "hashbench-count") != 0) || !str(rec, "candidate") ||
        !str(rec, "instance") || !str(rec, "library_sha256") || !str(rec, "valgrind") ||
        !json_is_array(json_object_get(rec, "tool_options")) || !str(rec, "status") ||
        !str(rec, "reason"))
        return hb_fail(err, "%s: not an instruction-count record (schema 2, kind "
                       "hashbench-count or hashbench-count-curve, candidate, instance, "
                       "library_sha256, valgrind, tool_options, status, reason)", file);
    const json_t *empty = json_object_get(rec, "empty");
    if (!json_is_null(empty) &&
        check_counts(empty, json_array_size(json_object_get(empty, "Ir")), "empty", file,
                     err) != 0)
        return -1;
    if (!curve)
        return check_length(rec, empty, "record", file, err);
    const json_t *points = json_object_get(rec, "points");
    if (!json_is_array(points) || json_array_size(points) == 0)
        return hb_fail(err, "%s: a curve needs its points", file);
    size_t i;
    json_t *p;
    int failed = 0;
    json_array_foreach(points, i, p) {
        char what[48];
        snprintf(what, sizeof what, "points[%zu]", i);
        if (check_length(p, empty, what, file, err) != 0)
            return -1;
        failed += strcmp(str(p, "status"), "COUNTED") != 0;
    }
    if ((strcmp(str(rec, "status"), "COUNTED") == 0) != !failed)
        return hb_fail(err, "%s: status: COUNTED only when every point is", file);
    return 0;
}
