/* The size-limited reads of src/common/fs.c: a file over the limit fails at
 * once (a sparse 6 GiB file is not read) with an error naming the file and
 * the limit; a file at the limit is read whole; a FIFO or a device is
 * refused without blocking; a file that grows past the limit after it was
 * opened is not read past it; the SHA-256 with a limit. The clean-up of the
 * temporary files that writers which no longer run left in a run
 * directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/digest.h"
#include "common/fs.h"

static char dir[256];

static int setup(void **state)
{
    (void)state;
    const char *t = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/hb-fs-XXXXXX", t && *t ? t : "/tmp");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    hb_err err;
    return hb_remove_tree(dir, &err);
}

static const char *at(const char *name)
{
    static char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return p;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void test_sparse_file_over_limit(void **state)
{
    (void)state;
    char path[PATH_MAX], hex[HB_SHA256_HEX], *text = NULL;
    hb_err err;
    snprintf(path, sizeof path, "%s", at("huge.c"));
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, 6LL << 30), 0); /* 6 GiB, no block written */
    close(fd);
    double t0 = now_s();
    assert_int_equal(hb_read_file_limited(path, HB_LIMIT_TEXT, "a source file", &text,
                                          NULL, &err), -1);
    assert_null(text);
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, "6442450944 bytes"));
    assert_non_null(strstr(err.msg, "64 MiB limit for a source file"));
    assert_int_equal(hb_sha256_file_limited(path, HB_LIMIT_VECTORS, "a KAT text file",
                                            hex, &err), -1);
    assert_non_null(strstr(err.msg, "256 MiB limit for a KAT text file"));
    assert_null(hb_open_limited(path, HB_LIMIT_TEXT, "kat.sha256", &err));
    assert_non_null(strstr(err.msg, "64 MiB limit for kat.sha256"));
    assert_true(now_s() - t0 < 5.0); /* refused, not read */
}

static void test_at_limit_read_whole(void **state)
{
    (void)state;
    char *text = NULL, hex[HB_SHA256_HEX], want[HB_SHA256_HEX];
    size_t len = 0;
    hb_err err;
    assert_int_equal(hb_write_atomic(at("ten"), "0123456789", 10, &err), 0);
    assert_int_equal(hb_read_file_limited(at("ten"), 10, "a test file", &text, &len,
                                          &err), 0);
    assert_int_equal(len, 10);
    assert_string_equal(text, "0123456789");
    free(text);
    assert_int_equal(hb_sha256_file_limited(at("ten"), 10, "a test file", hex, &err), 0);
    hb_sha256_buf_hex("0123456789", 10, want);
    assert_string_equal(hex, want);
    assert_int_equal(hb_read_file_limited(at("ten"), 9, "a test file", &text, &len,
                                          &err), -1);
    assert_non_null(strstr(err.msg, "10 bytes"));
}

static void test_fifo_and_device_refused(void **state)
{
    (void)state;
    char *text = NULL, hex[HB_SHA256_HEX];
    hb_err err;
    assert_int_equal(mkfifo(at("fifo"), 0644), 0);
    /* with no writer, a blocking open would never return */
    assert_int_equal(hb_read_file_limited(at("fifo"), HB_LIMIT_TEXT, "a header", &text,
                                          NULL, &err), -1);
    assert_non_null(strstr(err.msg, "not a regular file"));
    assert_int_equal(hb_sha256_file_limited("/dev/zero", HB_NO_LIMIT, "a file", hex,
                                            &err), -1);
    assert_non_null(strstr(err.msg, "not a regular file"));
}

static void test_growth_after_open_stops(void **state)
{
    (void)state;
    hb_err err;
    char buf[64];
    assert_int_equal(hb_write_atomic(at("grows"), "12345", 5, &err), 0);
    FILE *fp = hb_open_limited(at("grows"), 8, "a test file", &err);
    assert_non_null(fp);
    FILE *w = fopen(at("grows"), "ab");
    assert_non_null(w);
    fputs("6789abcdef", w); /* now 15 bytes, over the limit of 8 */
    fclose(w);
    size_t n = fread(buf, 1, sizeof buf, fp);
    assert_true(n <= 8);
    assert_true(ferror(fp));
    fclose(fp);
}

/* A pid that no process has: a child that has ended and been reaped. */
static long dead_pid(void)
{
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    assert_true(pid > 0);
    assert_int_equal(waitpid(pid, NULL, 0), pid);
    return (long)pid;
}

static void touch(const char *rel)
{
    hb_err err;
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    assert_int_equal(hb_mkdirs_for(p, &err), 0);
    FILE *f = fopen(p, "wb"); /* not hb_write_atomic: its own .tmp.PID */
    assert_non_null(f);
    fclose(f);
}

static void test_remove_stale_tmp(void **state)
{
    (void)state;
    char name[128], live[128], outside[128], link[PATH_MAX];
    hb_err err;
    int n = -1;
    long dead = dead_pid();
    snprintf(name, sizeof name, "run/records/SM3/SM3__hash_32.json.tmp.%ld", dead);
    touch(name);
    snprintf(name, sizeof name, "run/campaign.json.tmp.%ld", dead);
    touch(name);
    snprintf(live, sizeof live, "run/kat.json.tmp.%ld", (long)getpid());
    touch(live);
    touch("run/notes.tmp.abc");
    touch("run/x.tmp.0");
    touch("run/kat.json");
    pid_t zombie = fork(); /* ended, not yet reaped: it does not run */
    if (zombie == 0)
        _exit(0);
    assert_true(zombie > 0);
    usleep(200000);
    snprintf(name, sizeof name, "run/kat/A/KAT_2_23_A.txt.tmp.%ld", (long)zombie);
    touch(name);
    snprintf(outside, sizeof outside, "elsewhere/a.json.tmp.%ld", dead);
    touch(outside);
    snprintf(link, sizeof link, "%s/run/link", dir);
    assert_int_equal(symlink("../elsewhere", link), 0);
    assert_int_equal(hb_remove_stale_tmp(at("run"), &n, &err), 0);
    assert_int_equal(n, 3);
    assert_int_equal(waitpid(zombie, NULL, 0), zombie);
    snprintf(name, sizeof name, "run/records/SM3/SM3__hash_32.json.tmp.%ld", dead);
    assert_false(hb_is_file(at(name)));
    assert_true(hb_is_file(at(live)));  /* its writer still runs */
    assert_true(hb_is_file(at("run/notes.tmp.abc")));
    assert_true(hb_is_file(at("run/x.tmp.0")));
    assert_true(hb_is_file(at("run/kat.json")));
    assert_true(hb_is_file(at(outside))); /* not followed through the link */
    assert_int_equal(hb_remove_stale_tmp(at("missing"), &n, &err), 0);
    assert_int_equal(n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sparse_file_over_limit),
        cmocka_unit_test(test_at_limit_read_whole),
        cmocka_unit_test(test_fifo_and_device_refused),
        cmocka_unit_test(test_growth_after_open_stops),
        cmocka_unit_test(test_remove_stale_tmp),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
