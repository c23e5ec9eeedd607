/* The wall budget of an instance (src/rundir/ibudget.c): what is left goes
 * down with every charge and is read back from the run directory (a
 * resumed campaign keeps counting), stages are counted apart, a step's
 * limit is the smaller of its own and what is left, a spent budget says
 * so with a reason that names the budget, instances do not share a
 * budget, no budget writes nothing, and a malformed file is an error
 * naming it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fs.h"
#include "common/json.h"
#include "rundir/ibudget.h"

static char dir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/hb-ibudget-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    hb_err err;
    return hb_remove_tree(dir, &err);
}

static void test_charge_and_resume(void **state)
{
    (void)state;
    hb_err err;
    double left, t;
    int limited;
    ibudget b = {dir, "SM3", "SM3_ref", 60};
    ibudget other = {dir, "SM3", "SM3_opt", 60};
    assert_int_equal(ibudget_left(&b, &left, &err), 0);
    assert_true(fabs(left - 60) < 1e-9);
    assert_int_equal(ibudget_charge(&b, IBUDGET_KAT, 20, &err), 0);
    assert_int_equal(ibudget_charge(&b, IBUDGET_MEASURE, 15.5, &err), 0);
    assert_int_equal(ibudget_charge(&b, IBUDGET_KAT, 4, &err), 0);
    /* a fresh handle, as a resumed campaign would make, reads what was spent */
    ibudget again = {dir, "SM3", "SM3_ref", 60};
    assert_int_equal(ibudget_left(&again, &left, &err), 0);
    assert_true(fabs(left - 20.5) < 1e-6);
    assert_int_equal(ibudget_spent(&again, &err), 0);
    assert_int_equal(ibudget_left(&other, &left, &err), 0);
    assert_true(fabs(left - 60) < 1e-9);
    /* the step's own limit when smaller, else what is left */
    assert_int_equal(ibudget_step_timeout(&again, 5, &t, &limited, &err), 0);
    assert_true(fabs(t - 5) < 1e-9);
    assert_int_equal(limited, 0);
    assert_int_equal(ibudget_step_timeout(&again, 600, &t, &limited, &err), 0);
    assert_true(fabs(t - 20.5) < 1e-6);
    assert_int_equal(limited, 1);
    /* the file says what each stage spent */
    char path[512];
    json_t *doc;
    snprintf(path, sizeof path, "%s/budget/SM3/SM3_ref.json", dir);
    assert_int_equal(hb_json_load(path, &doc, &err), 0);
    json_t *stages = json_object_get(doc, "stages");
    assert_true(fabs(json_number_value(json_object_get(stages, "kat")) - 24) < 1e-6);
    assert_true(fabs(json_number_value(json_object_get(stages, "measure")) - 15.5) < 1e-6);
    assert_true(fabs(json_number_value(json_object_get(doc, "spent_s")) - 39.5) < 1e-6);
    json_decref(doc);
    /* spent: no step is started with less than the minimum */
    assert_int_equal(ibudget_charge(&again, IBUDGET_CT, 20.3, &err), 0);
    assert_int_equal(ibudget_spent(&again, &err), 1);
    char why[400];
    ibudget_reason(&again, why, sizeof why);
    assert_non_null(strstr(why, "wall budget of the instance spent: 60 s (--instance-budget)"));
    assert_non_null(strstr(why, "kat 24 s"));
    assert_non_null(strstr(why, "ct 20 s"));
    assert_null(strchr(why, '\n'));
    assert_true(ibudget_stopped(why));
    assert_false(ibudget_stopped("no result within 6 s in KAT_2_12_X.txt"));
}

static void test_no_budget_and_errors(void **state)
{
    (void)state;
    hb_err err;
    double left;
    ibudget none = {dir, "X", "Y", 0};
    assert_int_equal(ibudget_charge(&none, IBUDGET_KAT, 100, &err), 0);
    assert_int_equal(ibudget_left(&none, &left, &err), 0);
    assert_true(isinf(left));
    assert_int_equal(ibudget_spent(&none, &err), 0);
    char path[512];
    snprintf(path, sizeof path, "%s/budget/X/Y.json", dir);
    assert_int_equal(access(path, F_OK), -1);
    ibudget bad = {dir, "..", "Y", 10};
    assert_int_equal(ibudget_charge(&bad, IBUDGET_KAT, 1, &err), -1);
    ibudget broken = {dir, "B", "Z", 10};
    snprintf(path, sizeof path, "%s/budget/B/Z.json", dir);
    assert_int_equal(hb_write_atomic(path, "{\"stages\": {\"kat\": \"x\"}}\n", 25, &err), 0);
    assert_int_equal(ibudget_left(&broken, &left, &err), -1);
    assert_non_null(strstr(err.msg, path));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_charge_and_resume),
        cmocka_unit_test(test_no_budget_and_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
