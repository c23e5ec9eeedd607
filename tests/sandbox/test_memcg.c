/* The memory cgroup of a session (sandbox/memcg.h): which hierarchy
 * hashbench's own cgroup is found in, from captured /proc/self/cgroup text
 * and folders laid out like /sys/fs/cgroup (v1 only, hybrid with memory in
 * v1, v2 with the memory controller, neither); and on this host, as root,
 * a child moved into a cgroup of its own with its limit, the cgroup gone
 * after the child. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/fs.h"
#include "sandbox/memcg.h"

static char root[4096];

static void put(const char *rel, const char *text)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_parent(void **state)
{
    (void)state;
    char out[4200], want[4200], d[4200];
    int v2 = -1;
    snprintf(root, sizeof root, "/tmp/hb-memcg-XXXXXX");
    assert_non_null(mkdtemp(root));
    const char *hybrid = "9:name=systemd:/\n4:memory:/jobs/a1\n0::/\n";
    /* no controller file at all: v1 */
    assert_int_equal(hb_memcg_parent(root, hybrid, out, sizeof out, &v2), 0);
    assert_int_equal(v2, 0);
    snprintf(want, sizeof want, "%s/memory/jobs/a1", root);
    assert_string_equal(out, want);
    /* a v2 hierarchy without the memory controller: still v1 */
    snprintf(d, sizeof d, "%s/unified", root);
    assert_int_equal(mkdir(d, 0700), 0);
    put("unified/cgroup.controllers", "cpu io pids\n");
    assert_int_equal(hb_memcg_parent(root, hybrid, out, sizeof out, &v2), 0);
    assert_int_equal(v2, 0);
    /* v2 with memory: its own path */
    put("cgroup.controllers", "cpuset cpu io memory pids\n");
    assert_int_equal(hb_memcg_parent(root, "0::/user.slice/hb\n", out, sizeof out, &v2), 0);
    assert_int_equal(v2, 1);
    snprintf(want, sizeof want, "%s/user.slice/hb", root);
    assert_string_equal(out, want);
    /* memory joined with another controller in v1 */
    put("cgroup.controllers", "cpu\n");
    assert_int_equal(hb_memcg_parent(root, "5:cpu,memory:/x\n", out, sizeof out, &v2), 0);
    assert_int_equal(v2, 0);
    snprintf(want, sizeof want, "%s/memory/x", root);
    assert_string_equal(out, want);
    assert_int_equal(hb_memcg_parent(root, "5:memory,cpu:/x\n", out, sizeof out, &v2), 0);
    /* a controller merely starting with "memory" is not it */
    assert_int_equal(hb_memcg_parent(root, "5:memoryx:/x\n", out, sizeof out, &v2), -1);
    hb_err err;
    assert_int_equal(hb_remove_tree(root, &err), 0);
}

static void test_enter_here(void **state)
{
    (void)state;
    if (geteuid() != 0) {
        /* not root: no cgroup can be made, and nothing is left */
        hb_memcg g;
        assert_int_equal(hb_memcg_enter(&g, NULL, "hb-test", (long)getpid(), 1 << 30), -1);
        assert_string_equal(g.dir, "");
        return;
    }
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        pause();
        _exit(0);
    }
    char name[64];
    snprintf(name, sizeof name, "hb-test-%ld", (long)getpid());
    hb_memcg g;
    assert_int_equal(hb_memcg_enter(&g, NULL, name, (long)child, 256ULL << 20), 0);
    char path[4200], *text = NULL;
    snprintf(path, sizeof path, "/proc/%ld/cgroup", (long)child);
    assert_int_equal(hb_read_file(path, &text, NULL, NULL), 0);
    assert_non_null(strstr(text, name));
    free(text);
    snprintf(path, sizeof path, "%s/%s", g.dir, g.v2 ? "memory.max" : "memory.limit_in_bytes");
    assert_int_equal(hb_read_file(path, &text, NULL, NULL), 0);
    assert_int_equal(strtoull(text, NULL, 10), 256ULL << 20);
    free(text);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", g.dir);
    hb_memcg_remove(&g);
    assert_false(hb_is_dir(dir));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parent),
        cmocka_unit_test(test_enter_here),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
