/* The check `validate` applies to an instruction-count record (count.h:
 * count_record_check): its shape; a COUNTED record has the raw totals of
 * both runs, call counts N1 < N2, and derived figures equal to those
 * recomputed from the totals (count_derive); any other status has a reason
 * and no figure. */
#include "count/count.h"

#include <math.h>
#include <string.h>

static const char *str(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static int same_number(const json_t *a, const json_t *b)
{
    if (json_is_null(a) || json_is_null(b))
        return json_is_null(a) && json_is_null(b);
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
        if (!same_number(json_object_get(d, "per_call"), json_object_get(w, "per_call")) ||
            !same_number(json_object_get(d, "per_byte"), json_object_get(w, "per_byte")))
            return 0;
    }
    return 1;
}

static int check_run(const json_t *run, const char *which, const char *file, hb_err *err)
{
    const json_t *cmd = json_object_get(run, "command"), *tot = json_object_get(run, "totals");
    size_t i;
    json_t *x;
    if (!json_is_array(cmd) || json_array_size(cmd) == 0 ||
        !json_is_integer(json_object_get(run, "calls")) || !json_is_object(tot) ||
        !json_is_integer(json_object_get(tot, "Ir")))
        return hb_fail(err, "%s: %s: needs a command, calls and totals with Ir", file, which);
    json_array_foreach(cmd, i, x)
        if (!json_is_string(x))
            return hb_fail(err, "%s: %s: command element %zu is not a string", file, which, i);
    const char *name;
    json_object_foreach((json_t *)tot, name, x)
        if (!json_is_integer(x) || json_integer_value(x) < 0)
            return hb_fail(err, "%s: %s: total %s is not a count", file, which, name);
    return 0;
}

int count_record_check(const json_t *rec, const char *file, hb_err *err)
{
    static const char *const status[] = {"COUNTED", "NOT_COUNTABLE", "INCONSISTENT",
                                         "TIMEOUT"};
    const char *st = str(rec, "status");
    int known = 0;
    for (size_t i = 0; st && i < sizeof status / sizeof status[0]; i++)
        known |= strcmp(st, status[i]) == 0;
    const json_t *size = json_object_get(rec, "size_bytes");
    if (json_integer_value(json_object_get(rec, "schema")) != 1 || !str(rec, "kind") ||
        strcmp(str(rec, "kind"), "hashbench-count") != 0 || !str(rec, "candidate") ||
        !str(rec, "instance") || !str(rec, "library_sha256") || !json_is_integer(size) ||
        json_integer_value(size) < 0 || !str(rec, "valgrind") ||
        !json_is_array(json_object_get(rec, "tool_options")))
        return hb_fail(err, "%s: not an instruction-count record (schema 1, kind "
                       "hashbench-count, candidate, instance, library_sha256, size_bytes, "
                       "valgrind, tool_options)", file);
    if (!known || !str(rec, "reason"))
        return hb_fail(err, "%s: status must be COUNTED, NOT_COUNTABLE, INCONSISTENT or TIMEOUT, "
                       "with a reason", file);
    const json_t *derived = json_object_get(rec, "derived");
    if (strcmp(st, "COUNTED") != 0) {
        if (!str(rec, "reason")[0] || !json_is_null(derived))
            return hb_fail(err, "%s: a %s record needs a reason and no derived figures",
                           file, st);
        return 0;
    }
    const json_t *base = json_object_get(rec, "base"), *more = json_object_get(rec, "more");
    if (check_run(base, "base", file, err) != 0 || check_run(more, "more", file, err) != 0)
        return -1;
    const json_t *m = json_object_get(rec, "method");
    if (json_integer_value(json_object_get(base, "calls")) !=
            json_integer_value(json_object_get(m, "n1")) ||
        json_integer_value(json_object_get(more, "calls")) !=
            json_integer_value(json_object_get(m, "n2")) ||
        json_integer_value(json_object_get(base, "calls")) >=
            json_integer_value(json_object_get(more, "calls")))
        return hb_fail(err, "%s: the runs' calls must be the method's n1 < n2", file);
    json_t *want = count_derive(base, more, json_integer_value(size));
    int ok = want && same_derived(derived, want);
    json_decref(want);
    if (!ok)
        return hb_fail(err, "%s: derived: not the figures recomputed from the totals of "
                       "the base and more runs ((more - base) / (n2 - n1))", file);
    return 0;
}
