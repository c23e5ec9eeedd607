/* A sandboxed step's processes and threads are counted as its own
 * (common/steplimit.h, common/proc.h), and a process that runs submitted
 * code natively may start none (runner/start.h: every role has the timed
 * session's profile). A runner whose library starts idle threads until the
 * kernel refuses one gets none, and another sandboxed step started while
 * it tries (a second runner, as a rival's KAT runner beside it would be)
 * still starts and answers. With one host-wide RLIMIT_NPROC for the steps'
 * uid, a runner that held threads took what was left of it and the second
 * could not be created. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "common/steplimit.h"
#include "runner/client.h"

static long held_of(const unsigned char *d)
{
    return (long)d[0] << 24 | (long)d[1] << 16 | (long)d[2] << 8 | (long)d[3];
}

/* Opens a runner on the hoarding library and makes its first call: the
 * number of threads it got. */
static long hoard(runner_session *s)
{
    runner_target t = {HB_NPROC_LIB, 256, 60.0, 0};
    char loadfail[256] = "";
    unsigned char msg[1] = {0}, d[32];
    kat_fault f;
    hb_err err;
    int rc = runner_open(s, &t, loadfail, sizeof loadfail, &err);
    if (rc != 0)
        fail_msg("the runner did not start: %s%s", rc < 0 ? err.msg : "", loadfail);
    memset(&f, 0, sizeof f);
    rc = runner_hash(s, msg, 8, d, &f, &err);
    if (rc != RUNNER_CALL_OK)
        fail_msg("the runner did not answer (%d): %s %s", rc, f.detail, s->why);
    return held_of(d);
}

static void test_threads_are_the_steps_own(void **state)
{
    (void)state;
    runner_session a, b;
    hb_proc_result res;
    long first = hoard(&a);
    printf("# the first runner holds %ld idle threads\n", first);
    assert_true(first == 0);
    long second = hoard(&b);
    printf("# a second runner started beside it holds %ld\n", second);
    assert_true(second == 0);
    runner_close(&b, &res);
    runner_close(&a, &res);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_are_the_steps_own),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
