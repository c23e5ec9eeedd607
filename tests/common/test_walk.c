/* The directory walker of src/common/walk.c: entries come in bytewise name
 * order, folder before its entries; a symbolic link is reported as a link
 * and never entered (a link to its own folder does not loop); the depth
 * limit reports a folder without entering it; a root named through a link
 * is walked; a visitor can skip a folder
 * or stop the walk; hb_remove_tree removes a tree deeper than the limit
 * and no link's target; a missing root is an error unless told otherwise. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_links_depth),
        cmocka_unit_test(test_skip_stop_missing),
        cmocka_unit_test(test_remove_deep_tree),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
