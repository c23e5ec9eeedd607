/* The sandbox on this host, observed from inside: a small program
 * (inside.c) is run through hb_proc_exec in each profile and reports what
 * it could do; the test checks every refusal the threat model promises
 * (an unprivileged uid, an empty environment, no new processes in the run
 * profile, no network sockets, no ptrace or reading another process, no
 * mounts, no host files, a read-only system, a writable scratch that is a
 * size-capped tmpfs in the run profile and a host folder for the compiler),
 * and that the staging area keeps a live owner's folder and removes a dead
 * one's. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/fs.h"
#include "common/proc.h"
#include "sandbox/check.h"
#include "sandbox/sandbox.h"
#include "sandbox/stage.h"

static char canary[256];

static char *run_inside(hb_sandbox_profile profile, const char *scratch, int no_new_code)
{
    char exe[4096], *out = NULL;
    hb_err err;
    hb_sandbox sb;
    hb_proc_result r;
    snprintf(exe, sizeof exe, "%s/sandbox_inside", getenv("HB_BUILD_DIR"));
    memset(&sb, 0, sizeof sb);
    sb.profile = profile;
    sb.rw = scratch;
    sb.tmpfs_scratch = scratch == NULL;
    sb.no_new_code = no_new_code;
    assert_int_equal(hb_sandbox_add_ro(&sb, exe, &err), 0);
    char *argv[] = {exe, canary, NULL};
    hb_proc_opts o = hb_proc_defaults();
    o.timeout_s = 30;
    o.capture = &out;
    o.sandbox = &sb;
    if (hb_proc_exec(argv, &o, &r, &err) != 0)
        fail_msg("%s", err.msg);
    if (!r.exited || r.exit_code != 0)
        fail_msg("the program inside did not end normally:\n%s", out ? out : "");
    return out;
}

static void expect(const char *out, const char *line)
{
    char want[256];
    snprintf(want, sizeof want, "%s\n", line);
    if (!strstr(out, want))
        fail_msg("expected '%s' from inside the sandbox; it said:\n%s", line, out);
}

static void test_run_profile(void **state)
{
    hb_err err;
    (void)state;
    assert_int_equal(hb_sandbox_check(&err), 0);
    char *out = run_inside(HB_SANDBOX_RUN, NULL, 0);
    if (geteuid() == 0)
        expect(out, "uid 65534 gid 65534");
    expect(out, "env empty");
    expect(out, "fork EPERM");
    expect(out, "socket_inet EAFNOSUPPORT");
    expect(out, "socket_unix ok");
    expect(out, "ptrace EPERM");
    expect(out, "process_vm_readv EPERM");
    expect(out, "mount EPERM");
    expect(out, "open_outside ENOENT");
    expect(out, "write_usr EROFS");
    expect(out, "write_own_dir EROFS");
    expect(out, "write_dev_shm EROFS");
    expect(out, "write_cwd ok");
    expect(out, "clear_refs EROFS");
    expect(out, "boot_id unreadable"); /* /dev/null bound over it, nodev */
    expect(out, "/proc/stat unreadable");
    expect(out, "/proc/cmdline unreadable");
    expect(out, "/proc/meminfo unreadable");
    expect(out, "tmp_1536k ok");
    char want[64];
    snprintf(want, sizeof want, "cwd tmpfs %llu MiB", HB_SANDBOX_SCRATCH_BYTES >> 20);
    expect(out, want);
    expect(out, "cwd_path " HB_SANDBOX_SCRATCH_DIR);
    free(out);
}

/* A timed session's profile: the run profile's refusals, and no thread,
 * timer, affinity change, counter switch, page merging or paging out
 * either, nor (on native code) memory made executable but by mapping a
 * file; the run profile itself allows threads and timers (the KAT
 * runner's libraries may use them). */
static void test_session_profile(void **state)
{
    (void)state;
    char *out = run_inside(HB_SANDBOX_SESSION, NULL, 1);
    expect(out, "fork EPERM");
    expect(out, "ptrace EPERM");
    expect(out, "thread EPERM");
    expect(out, "timer_create EPERM");
    expect(out, "setitimer EPERM");
    expect(out, "sched_setaffinity EPERM");
    expect(out, "perf_events_disable EPERM");
    expect(out, "madvise_mergeable EPERM");
    expect(out, "madvise_pageout EPERM");
    expect(out, "madvise_cold EPERM");
    expect(out, "mlock EPERM");
    expect(out, "clear_refs EROFS");
    expect(out, "mprotect_exec EACCES");
    expect(out, "mmap_anon_exec EACCES");
    expect(out, "memfd_create EPERM");
    expect(out, "write_own_dir EROFS");
    expect(out, "write_dev_shm EROFS");
    expect(out, "open_libcrypto ENOENT"); /* only its loader and its libraries */
    expect(out, "boot_id unreadable"); /* /dev/null bound over it, nodev */
    expect(out, "/proc/stat unreadable");
    expect(out, "/proc/cmdline unreadable");
    expect(out, "/proc/meminfo unreadable");
    expect(out, "tmp_1536k ENOSPC"); /* a session's /tmp holds 1 MiB */
    free(out);
    /* an emulated probe's session: its emulator makes its own code */
    out = run_inside(HB_SANDBOX_SESSION, NULL, 0);
    expect(out, "mprotect_exec ok");
    expect(out, "mmap_anon_exec ok");
    expect(out, "open_libcrypto ok"); /* the system's /usr */
    free(out);
    out = run_inside(HB_SANDBOX_RUN, NULL, 0);
    expect(out, "thread ok");
    expect(out, "madvise_pageout ok");
    expect(out, "timer_create ok");
    expect(out, "sched_setaffinity ok");
    free(out);
}

/* The compiler's profile may start processes; everything else holds. */
static void test_compile_profile(void **state)
{
    char scratch[4096];
    hb_err err;
    (void)state;
    assert_int_equal(hb_stage_scratch(scratch, sizeof scratch, &err), 0);
    char *out = run_inside(HB_SANDBOX_COMPILE, scratch, 0), path[4200];
    expect(out, "fork ok");
    expect(out, "socket_inet EAFNOSUPPORT");
    expect(out, "ptrace EPERM");
    expect(out, "open_outside ENOENT");
    expect(out, "write_cwd ok");
    assert_non_null(strstr(out, "\ncwd host "));
    free(out);
    snprintf(path, sizeof path, "%s/written-here", scratch);
    assert_true(hb_is_file(path));
    assert_int_equal(hb_stage_scratch_remove(scratch, &err), 0);
    assert_false(hb_is_dir(scratch));
}

/* A staging folder whose owner still holds its lock survives another
 * process's clean-up, whatever pid the owner had; an unlocked one goes. */
static void test_stage_liveness(void **state)
{
    char live[4096], dead[4096], lock[4200];
    hb_err err;
    (void)state;
    snprintf(live, sizeof live, "/tmp/hashbench-stage.1.testlive%ld", (long)getpid());
    snprintf(dead, sizeof dead, "/tmp/hashbench-stage.1.testdead%ld", (long)getpid());
    assert_int_equal(hb_mkdirs(live, &err), 0);
    assert_int_equal(hb_mkdirs(dead, &err), 0);
    snprintf(lock, sizeof lock, "%s/.owner.lock", live);
    int fd = open(lock, O_RDWR | O_CREAT, 0600);
    assert_true(fd >= 0);
    pid_t owner = fork();
    if (owner == 0) { /* another process holds the live folder's lock */
        flock(fd, LOCK_EX);
        pause();
        _exit(0);
    }
    close(fd);
    snprintf(lock, sizeof lock, "%s/.owner.lock", dead);
    fd = open(lock, O_RDWR | O_CREAT, 0600);
    assert_true(fd >= 0);
    close(fd);
    usleep(200000);
    hb_stage_cleanup();
    assert_true(hb_is_dir(live));
    assert_false(hb_is_dir(dead));
    kill(owner, SIGKILL);
    waitpid(owner, NULL, 0);
    hb_stage_cleanup();
    assert_false(hb_is_dir(live));
}

int main(void)
{
    snprintf(canary, sizeof canary, "/tmp/hb-sandbox-canary.%ld", (long)getpid());
    FILE *f = fopen(canary, "w");
    if (!f)
        return 1;
    fputs("outside\n", f);
    fclose(f);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_profile),
        cmocka_unit_test(test_session_profile),
        cmocka_unit_test(test_compile_profile),
        cmocka_unit_test(test_stage_liveness),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    unlink(canary);
    return rc;
}
