/* The directory walker of src/common/walk.c: entries come in bytewise name
 * order, folder before its entries; a symbolic link is reported as a link
 * and never entered (a link to its own folder does not loop); the depth
 * limit reports a folder without entering it; a root named through a link
 * is walked; a visitor can skip a folder
 * or stop the walk; hb_remove_tree removes a tree deeper than the limit
 * and no link's target, a chain of folders far deeper than PATH_MAX with
 * files at every level, and reports what it cannot remove; a missing root
 * is an error unless told otherwise. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/fs.h"
#include "common/walk.h"

static char dir[256];

static int setup(void **state)
{
    (void)state;
    const char *t = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/hb-walk-XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(dir))
        return -1;
    char p[512];
    const char *dirs[] = {"b", "b/d", "b/d/e", "a"};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, dirs[i]);
        if (mkdir(p, 0755) != 0)
            return -1;
    }
    const char *files[] = {"z", "b/c", "b/d/e/f", "a/y"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, files[i]);
        FILE *fp = fopen(p, "w");
        if (!fp)
            return -1;
        fclose(fp);
    }
    snprintf(p, sizeof p, "%s/b/loop", dir);
    return symlink(".", p);
}

static int teardown(void **state)
{
    (void)state;
    hb_err err;
    return hb_remove_tree(dir, &err);
}

typedef struct seen {
    char text[1024];
    const char *stop_at;
    const char *skip;
} seen;

static int visit(const hb_walk_entry *e, void *ctx, hb_err *err)
{
    seen *s = ctx;
    static const char code[] = "?fdpLo";
    size_t n = strlen(s->text);
    snprintf(s->text + n, sizeof s->text - n, "%s%c:%d ", e->rel, code[e->type], e->depth);
    if (s->stop_at && strcmp(e->rel, s->stop_at) == 0)
        return hb_fail(err, "stopped at %s", e->rel);
    if (s->skip && strcmp(e->rel, s->skip) == 0)
        return HB_WALK_SKIP;
    return HB_WALK_CONTINUE;
}

static void test_order_links_depth(void **state)
{
    (void)state;
    hb_err err;
    seen s = {"", NULL, NULL};
    assert_int_equal(hb_walk(dir, 0, 0, visit, &s, &err), 0);
    assert_string_equal(s.text, "ad:1 a/yf:2 bd:1 b/cf:2 b/dd:2 b/d/ed:3 b/d/e/ff:4 "
                                "b/loopL:2 zf:1 ");
    memset(&s, 0, sizeof s);
    assert_int_equal(hb_walk(dir, 2, 0, visit, &s, &err), 0);
    assert_string_equal(s.text, "ad:1 a/yf:2 bd:1 b/cf:2 b/dd:2 b/loopL:2 zf:1 ");
    memset(&s, 0, sizeof s);
    assert_int_equal(hb_walk(dir, 1, HB_WALK_POST, visit, &s, &err), 0);
    assert_string_equal(s.text, "ad:1 ap:1 bd:1 bp:1 zf:1 ");
    memset(&s, 0, sizeof s);
    assert_int_equal(hb_walk(dir, 0, HB_WALK_POST, visit, &s, &err), 0);
    assert_string_equal(s.text, "ad:1 a/yf:2 ap:1 bd:1 b/cf:2 b/dd:2 b/d/ed:3 b/d/e/ff:4 "
                                "b/d/ep:3 b/dp:2 b/loopL:2 bp:1 zf:1 ");
}

static void test_skip_stop_missing(void **state)
{
    (void)state;
    hb_err err;
    seen s = {"", NULL, "b"};
    assert_int_equal(hb_walk(dir, 0, 0, visit, &s, &err), 0);
    assert_string_equal(s.text, "ad:1 a/yf:2 bd:1 zf:1 ");
    memset(&s, 0, sizeof s);
    s.stop_at = "b/c";
    assert_int_equal(hb_walk(dir, 0, 0, visit, &s, &err), -1);
    assert_string_equal(s.text, "ad:1 a/yf:2 bd:1 b/cf:2 ");
    assert_non_null(strstr(err.msg, "stopped at b/c"));
    char missing[512];
    snprintf(missing, sizeof missing, "%s/none", dir);
    memset(&s, 0, sizeof s);
    assert_int_equal(hb_walk(missing, 0, HB_WALK_MISSING_OK, visit, &s, &err), 0);
    assert_string_equal(s.text, "");
    assert_int_equal(hb_walk(missing, 0, 0, visit, &s, &err), -1);
    assert_non_null(strstr(err.msg, missing));
    char link[512];
    snprintf(link, sizeof link, "%s/b/loop", dir);
    memset(&s, 0, sizeof s); /* a root named through a link is walked, once */
    assert_int_equal(hb_walk(link, 0, 0, visit, &s, &err), 0);
    assert_string_equal(s.text, "cf:1 dd:1 d/ed:2 d/e/ff:3 loopL:1 ");
    char file[512];
    snprintf(file, sizeof file, "%s/z", dir);
    assert_int_equal(hb_walk(file, 0, 0, visit, &s, &err), -1);
    assert_non_null(strstr(err.msg, "not a folder"));
}

/* hb_remove_tree, built on the walker: a tree deeper than the walk's depth
 * limit goes whole, and a link inside it goes without what it points at. */
static void test_remove_deep_tree(void **state)
{
    (void)state;
    hb_err err;
    char top[512], p[4096], keep[512];
    snprintf(top, sizeof top, "%s/deep", dir);
    snprintf(keep, sizeof keep, "%s/a/y", dir);
    snprintf(p, sizeof p, "%s", top);
    for (int i = 0; i < HB_WALK_MAX_DEPTH + 6; i++) {
        assert_int_equal(mkdir(p, 0755), 0);
        strcat(p, "/d");
    }
    strcat(p, "ln");
    assert_int_equal(symlink(keep, p), 0);
    assert_int_equal(hb_remove_tree(top, &err), 0);
    struct stat st;
    assert_int_not_equal(lstat(top, &st), 0);
    assert_int_equal(lstat(keep, &st), 0);
}

/* A chain of DEPTH folders named with 255 characters below TOP, made
 * descriptor by descriptor (its paths are far longer than PATH_MAX), with a
 * file at every level and a few at the bottom. */
static void make_chain(const char *top, int depth)
{
    char name[256];
    memset(name, 'x', 255);
    name[255] = '\0';
    assert_int_equal(mkdir(top, 0755), 0);
    int fd = open(top, O_RDONLY | O_DIRECTORY);
    assert_true(fd >= 0);
    for (int i = 0; i < depth; i++) {
        int f = openat(fd, "file", O_WRONLY | O_CREAT, 0644);
        assert_true(f >= 0);
        close(f);
        assert_int_equal(mkdirat(fd, name, 0755), 0);
        int next = openat(fd, name, O_RDONLY | O_DIRECTORY);
        assert_true(next >= 0);
        close(fd);
        fd = next;
    }
    for (int i = 0; i < 20; i++) {
        char leaf[16];
        snprintf(leaf, sizeof leaf, "leaf%d", i);
        int f = openat(fd, leaf, O_WRONLY | O_CREAT, 0644);
        assert_true(f >= 0);
        assert_int_equal(write(f, "data", 4), 4);
        close(f);
    }
    assert_int_equal(symlinkat(dir, fd, "up"), 0); /* not followed */
    close(fd);
}

/* hb_remove_tree on a chain of 300 folders of 255-character names (about
 * 77 000 characters of path): all of it goes, and nothing outside it. */
static void test_remove_beyond_path_max(void **state)
{
    (void)state;
    hb_err err;
    char top[512], keep[512];
    snprintf(top, sizeof top, "%s/chain", dir);
    snprintf(keep, sizeof keep, "%s/a/y", dir);
    make_chain(top, 300);
    assert_true(300 * 256 > PATH_MAX);
    if (hb_remove_tree(top, &err) != 0)
        fail_msg("%s", err.msg);
    struct stat st;
    assert_int_not_equal(lstat(top, &st), 0);
    assert_int_equal(errno, ENOENT);
    assert_int_equal(lstat(keep, &st), 0);
}

/* A removal that fails is an error naming the root and the entry, and the
 * rest of what could go is gone. The entry is a file in a folder its
 * remover may not write (run as nobody when the test is root). */
static void test_remove_failure_reported(void **state)
{
    (void)state;
    char top[512], p[600];
    snprintf(top, sizeof top, "%s/locked", dir);
    assert_int_equal(mkdir(top, 0755), 0);
    snprintf(p, sizeof p, "%s/file", top);
    FILE *fp = fopen(p, "w");
    assert_non_null(fp);
    fclose(fp);
    snprintf(p, sizeof p, "%s/sealed", top);
    assert_int_equal(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/sealed/stuck", top);
    fp = fopen(p, "w");
    assert_non_null(fp);
    fclose(fp);
    snprintf(p, sizeof p, "%s/sealed", top);
    assert_int_equal(chmod(p, 0555), 0);
    assert_int_equal(chmod(dir, 0755), 0);
    if (geteuid() == 0)
        assert_int_equal(chmod(top, 0777), 0);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t child = fork();
    if (child == 0) {
        close(fds[0]);
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
            _exit(3);
        hb_err err;
        int rc = hb_remove_tree(top, &err);
        if (write(fds[1], err.msg, strlen(err.msg) + 1) < 0)
            _exit(4);
        _exit(rc == -1 ? 0 : 1);
    }
    close(fds[1]);
    char msg[1100] = "";
    ssize_t got = read(fds[0], msg, sizeof msg - 1);
    close(fds[0]);
    int status = 0;
    assert_int_equal(waitpid(child, &status, 0), child);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("hb_remove_tree did not fail on a file it cannot remove (%s)",
                 got > 0 ? msg : "");
    assert_non_null(strstr(msg, top));
    assert_non_null(strstr(msg, "stuck"));
    struct stat st;
    snprintf(p, sizeof p, "%s/file", top);
    assert_int_not_equal(lstat(p, &st), 0); /* what could go is gone */
    snprintf(p, sizeof p, "%s/sealed", top);
    assert_int_equal(chmod(p, 0755), 0);
    hb_err err;
    assert_int_equal(hb_remove_tree(top, &err), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_links_depth),
        cmocka_unit_test(test_skip_stop_missing),
        cmocka_unit_test(test_remove_deep_tree),
        cmocka_unit_test(test_remove_beyond_path_max),
        cmocka_unit_test(test_remove_failure_reported),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
