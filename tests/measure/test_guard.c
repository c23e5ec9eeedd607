/* The guard (measure/guard.h): its table is in id order with every field
 * set; every rule's text, made by guard_text, is found again as that rule
 * by guard_rule_of_text (what names the rule in a record), the longest
 * lead winning where one starts another; a library's own failure (CRASH,
 * ERROR) names no rule; and each check on numbers fires exactly past its
 * threshold. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "measure/guard.h"

static void test_table_complete(void **state)
{
    (void)state;
    for (int i = 0; i < GUARD_N; i++) {
        const guard_rule *r = &guard_rules[i];
        assert_int_equal(r->id, i);
        assert_non_null(r->name);
        assert_true(strlen(r->name) > 0 && strlen(r->lead) > 0);
        assert_true(!strcmp(r->status, "INCONSISTENT") || !strcmp(r->status, "FAILED") ||
                    !strcmp(r->status, "TIMEOUT"));
        assert_true(strlen(r->threshold) > 0 && strlen(r->explanation) > 0);
        for (int k = 0; k < i; k++)
            assert_string_not_equal(guard_rules[k].name, r->name);
    }
}

static void test_text_names_its_rule(void **state)
{
    (void)state;
    char text[512];
    for (int i = 0; i < GUARD_N; i++) {
        guard_text(text, sizeof text, (guard_id)i, "some detail %d", 42);
        const guard_rule *r = guard_rule_of_text(text);
        if (!r || r->id != (guard_id)i)
            fail_msg("rule %s: its text '%s' reads as %s", guard_rules[i].name, text,
                     r ? r->name : "no rule");
        assert_non_null(strstr(text, "some detail 42"));
    }
    /* "the probe runs code ..." is foreign code, "the probe runs 3 threads" threads */
    guard_text(text, sizeof text, GUARD_FOREIGN_CODE, "at open");
    assert_string_equal(guard_rule_of_text(text)->name, "foreign-code");
    guard_text(text, sizeof text, GUARD_THREADS, "3 threads where it may run one");
    assert_string_equal(guard_rule_of_text(text)->name, "threads");
    assert_null(guard_rule_of_text("CRASH: the probe ended at open (SIGSEGV)"));
    assert_null(guard_rule_of_text("ERROR: the call returned 1"));
    assert_null(guard_rule_of_text(""));
}

static void test_checks_thresholds(void **state)
{
    (void)state;
    char why[512];
    assert_int_equal(guard_gained_cpu(0, why, sizeof why), 0);
    assert_int_equal(guard_gained_cpu(1, why, sizeof why), 1);
    assert_string_equal(guard_rule_of_text(why)->name, "gained-cpu");

    assert_int_equal(guard_waits(5, -1, 10, why, sizeof why), 0);
    assert_int_equal(guard_waits(3 + GUARD_WAIT_SLACK, 3, 10, why, sizeof why), 0);
    assert_int_equal(guard_waits(4 + GUARD_WAIT_SLACK, 3, 10, why, sizeof why), 1);
    assert_string_equal(guard_rule_of_text(why)->name, "waits");

    double expect = 10e6, limit = GUARD_CALIB_FACTOR * expect + GUARD_WARMUP_SLACK_NS;
    assert_int_equal(guard_warmups(limit, expect, why, sizeof why), 0);
    assert_int_equal(guard_warmups(limit + 1, expect, why, sizeof why), 1);
    assert_string_equal(guard_rule_of_text(why)->name, "warm-ups");

    assert_int_equal(guard_pinned_cpu(1, 1, why, sizeof why), 0);
    assert_int_equal(guard_pinned_cpu(-1, 1, why, sizeof why), 0);
    assert_int_equal(guard_pinned_cpu(0, 1, why, sizeof why), 1);
    assert_string_equal(guard_rule_of_text(why)->name, "pinned-cpu");

    assert_int_equal(guard_calibration(100, 300, 0, why, sizeof why), 0);
    assert_int_equal(guard_calibration(99, 300, 0, why, sizeof why), 1);
    assert_int_equal(guard_calibration(99, 300, 1, why, sizeof why), 2);
    assert_string_equal(guard_rule_of_text(why)->name, "calibration");

    assert_int_equal(guard_growth(600, 1000, 1, 1600, 100, 100, 400, why, sizeof why), 0);
    assert_int_equal(guard_growth(601, 1000, 1, 1601, 100, 100, 400, why, sizeof why), 1);
    assert_string_equal(guard_rule_of_text(why)->name, "growth");
    assert_non_null(strstr(why, "INCONSISTENT: the timed session grew by 601 KiB"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_complete),
        cmocka_unit_test(test_text_names_its_rule),
        cmocka_unit_test(test_checks_thresholds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
