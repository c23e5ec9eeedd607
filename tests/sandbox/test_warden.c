/* The marker test of src/sandbox/warden.c, by which the watcher picks the
 * processes it kills: HB_CAMPAIGN=MARKER must be a whole entry of the
 * environment (first, in the middle, last, with or without its final
 * NUL), never a marker that only begins or ends with MARKER, another
 * variable holding it, or an empty marker. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <string.h>

#include "sandbox/warden.h"

#define ENV(lit) lit, sizeof(lit) - 1

static void test_whole_entry_only(void **state)
{
    (void)state;
    const char *m = "run7.123-0badcafe";
    assert_true(hb_warden_env_has(ENV("HB_CAMPAIGN=run7.123-0badcafe\0PATH=/bin\0"), m));
    assert_true(hb_warden_env_has(ENV("A=1\0HB_CAMPAIGN=run7.123-0badcafe\0B=2\0"), m));
    assert_true(hb_warden_env_has(ENV("A=1\0HB_CAMPAIGN=run7.123-0badcafe\0"), m));
    assert_true(hb_warden_env_has(ENV("A=1\0HB_CAMPAIGN=run7.123-0badcafe"), m));
    /* another campaign's marker that shares a prefix or a suffix */
    assert_false(hb_warden_env_has(ENV("HB_CAMPAIGN=run7.123-0badcafe1\0"), m));
    assert_false(hb_warden_env_has(ENV("HB_CAMPAIGN=xrun7.123-0badcafe\0"), m));
    assert_false(hb_warden_env_has(ENV("HB_CAMPAIGN=run7\0"), m));
    /* the marker under another name, or quoted in another value */
    assert_false(hb_warden_env_has(ENV("XHB_CAMPAIGN=run7.123-0badcafe\0"), m));
    assert_false(hb_warden_env_has(ENV("A=HB_CAMPAIGN=run7.123-0badcafe\0"), m));
    assert_false(hb_warden_env_has(ENV("HB_CAMPAIGN run7.123-0badcafe\0"), m));
    /* nothing, or no marker: no process is ever picked */
    assert_false(hb_warden_env_has("", 0, m));
    assert_false(hb_warden_env_has(ENV("HB_CAMPAIGN=\0"), ""));
    assert_false(hb_warden_env_has(ENV("A=1\0"), ""));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_whole_entry_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
