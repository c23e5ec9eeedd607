/* The dataset layout's rules (src/dataset/layout.h): which system ids are
 * accepted, and which folders of a dataset are systems. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "dataset/layout.h"
#include "common/fs.h"

static void test_system_ids(void **state)
{
    (void)state;
    hb_err err;
    char longest[DATASET_SYSTEM_MAX + 2];
    memset(longest, 'a', sizeof longest);
    longest[DATASET_SYSTEM_MAX] = '\0';
    assert_int_equal(dataset_check_system("x86_1", &err), 0);
    assert_int_equal(dataset_check_system("arm-2", &err), 0);
    assert_int_equal(dataset_check_system(longest, &err), 0);
    longest[DATASET_SYSTEM_MAX] = 'a';
    longest[DATASET_SYSTEM_MAX + 1] = '\0';
    assert_int_equal(dataset_check_system(longest, &err), -1);
    assert_int_equal(dataset_check_system("", &err), -1);
    assert_int_equal(dataset_check_system("../x", &err), -1);
    assert_non_null(strstr(err.msg, "'../x'"));
    assert_non_null(strstr(err.msg, "[A-Za-z0-9_-]"));
    assert_int_equal(dataset_check_system("a b", &err), -1);
    assert_int_equal(dataset_check_system(".hidden", &err), -1);
}

static void test_system_dirs(void **state)
{
    (void)state;
    char root[] = "/tmp/hb-layout-XXXXXX", p[512];
    hb_err err;
    assert_non_null(mkdtemp(root));
    const char *dirs[] = {"sys_a", "sys_a/records", "sys_b", "empty", "other",
                          "other/logs"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", root, dirs[i]);
        assert_int_equal(mkdir(p, 0700), 0);
    }
    snprintf(p, sizeof p, "%s/sys_b/campaign.json", root);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs("{}\n", f);
    fclose(f);
    assert_int_equal(dataset_is_system_dir(root, "sys_a"), 1);
    assert_int_equal(dataset_is_system_dir(root, "sys_b"), 1);
    assert_int_equal(dataset_is_system_dir(root, "empty"), 0);
    assert_int_equal(dataset_is_system_dir(root, "other"), 0);
    assert_int_equal(dataset_is_system_dir(root, "missing"), 0);
    assert_int_equal(hb_remove_tree(root, &err), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_system_ids),
        cmocka_unit_test(test_system_dirs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
