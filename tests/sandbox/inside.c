/* Run inside the sandbox by test_sandbox.c: tries, one line per attempt,
 * what a hostile submission would, and prints what happened ("name ok" when
 * the attempt succeeded, "name errno" when the kernel refused it), so that
 * the test can check each refusal. Plain libc, no test framework. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <time.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/uio.h>
#include <linux/magic.h>
#include <sys/wait.h>
#include <unistd.h>

static void *idle(void *arg)
{
    return arg;
}

static void report(const char *name, int ok)
{
    printf("%s %s\n", name, ok ? "ok" : strerrorname_np(errno));
}

int main(int argc, char **argv)
{
    const char *outside = argc > 1 ? argv[1] : "/etc/hostname";
    printf("uid %u gid %u\n", (unsigned)getuid(), (unsigned)getgid());
    printf("env %s\n", getenv("HOME") ? "HOME" : "empty");
    printf("pid %ld ppid %ld\n", (long)getpid(), (long)getppid());
    pid_t p = fork();
    if (p == 0)
        _exit(0);
    if (p > 0)
        waitpid(p, NULL, 0);
    report("fork", p >= 0);
    report("socket_inet", socket(AF_INET, SOCK_STREAM, 0) >= 0);
    report("socket_unix", socket(AF_UNIX, SOCK_STREAM, 0) >= 0);
    report("ptrace", ptrace(PTRACE_ATTACH, 1, NULL, NULL) == 0);
    char buf[8];
    struct iovec l = {buf, sizeof buf}, r = {buf, sizeof buf};
    report("process_vm_readv", process_vm_readv(1, &l, 1, &r, 1, 0) >= 0);
    report("mount", mount("none", "/tmp", "tmpfs", 0, NULL) == 0);
    report("open_outside", open(outside, O_RDONLY) >= 0);
    report("write_usr", open("/usr/hb-sandbox-test", O_WRONLY | O_CREAT, 0644) >= 0);
    report("write_cwd", open("written-here", O_WRONLY | O_CREAT, 0644) >= 0);
    /* what a timed session may not do (the SESSION profile) */
    pthread_t t;
    errno = pthread_create(&t, NULL, idle, NULL);
    report("thread", errno == 0);
    timer_t timer;
    struct sigevent ev = {.sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR1};
    report("timer_create", timer_create(CLOCK_MONOTONIC, &ev, &timer) == 0);
    struct itimerval it = {{0, 0}, {1, 0}};
    report("setitimer", setitimer(ITIMER_REAL, &it, NULL) == 0);
    it.it_value.tv_sec = 0;
    setitimer(ITIMER_REAL, &it, NULL);
    cpu_set_t set;
    sched_getaffinity(0, sizeof set, &set);
    report("sched_setaffinity", sched_setaffinity(0, sizeof set, &set) == 0);
    report("perf_events_disable", prctl(PR_TASK_PERF_EVENTS_DISABLE, 0, 0, 0, 0) == 0);
    void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    report("madvise_mergeable", page != MAP_FAILED && madvise(page, 4096, MADV_MERGEABLE) == 0);
    report("madvise_pageout", page != MAP_FAILED && madvise(page, 4096, MADV_PAGEOUT) == 0);
    report("madvise_cold", page != MAP_FAILED && madvise(page, 4096, MADV_COLD) == 0);
    report("mlock", page != MAP_FAILED && mlock(page, 4096) == 0);
    /* memory made executable other than by mapping a file */
    report("mprotect_exec", page != MAP_FAILED &&
                                mprotect(page, 4096, PROT_READ | PROT_EXEC) == 0);
    report("mmap_anon_exec", mmap(NULL, 4096, PROT_READ | PROT_EXEC,
                                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) != MAP_FAILED);
    report("memfd_create", memfd_create("x", 0) >= 0);
    /* a file beside its own program (a folder bubblewrap made for the
     * bind) or in /dev/shm, which could then be mapped executable */
    char own[4096];
    ssize_t n = readlink("/proc/self/exe", own, sizeof own - 32);
    char *slash = n > 0 ? memrchr(own, '/', (size_t)n) : NULL;
    if (slash)
        strcpy(slash, "/libc.so.6");
    report("write_own_dir", slash && open(own, O_WRONLY | O_CREAT, 0755) >= 0);
    report("write_dev_shm", open("/dev/shm/hb-sandbox-test", O_WRONLY | O_CREAT, 0644) >= 0);
    /* another library of the system than its own: libcrypto beside the C
     * library it maps */
    char crypto[4352] = "", line[4352];
    FILE *maps = fopen("/proc/self/maps", "r");
    while (maps && !crypto[0] && fgets(line, sizeof line, maps)) {
        char *path = strstr(line, " /"), *end;
        if (path && strstr(path, "/libc.so.6") && (end = strrchr(path, '/')) != NULL)
            snprintf(crypto, sizeof crypto, "%.*s/libcrypto.so.3", (int)(end - path - 1),
                     path + 1);
    }
    if (maps)
        fclose(maps);
    report("open_libcrypto", crypto[0] && open(crypto, O_RDONLY) >= 0);
    /* the host's identity: this boot's id */
    char id[64] = "";
    int bf = open("/proc/sys/kernel/random/boot_id", O_RDONLY);
    ssize_t got = bf >= 0 ? read(bf, id, sizeof id - 1) : -1;
    printf("boot_id %s\n", bf < 0 ? "unreadable" : got > 0 ? "read" : "empty");
    if (bf >= 0)
        close(bf);
    /* the host's boot time, kernel command line and memory counters */
    const char *host[] = {"/proc/stat", "/proc/cmdline", "/proc/meminfo"};
    for (size_t i = 0; i < sizeof host / sizeof host[0]; i++) {
        char b[64];
        int hf = open(host[i], O_RDONLY);
        ssize_t n = hf >= 0 ? read(hf, b, sizeof b) : -1;
        printf("%s %s\n", host[i], hf < 0 ? "unreadable" : n > 0 ? "read" : "empty");
        if (hf >= 0)
            close(hf);
    }
    /* memory kept in /tmp, which no figure counts: two files of 768 KiB */
    int tmp_ok = 1;
    for (int i = 0; i < 2 && tmp_ok; i++) {
        char name[32], chunk[4096];
        memset(chunk, 'x', sizeof chunk);
        snprintf(name, sizeof name, "/tmp/hold%d", i);
        int tf = open(name, O_WRONLY | O_CREAT, 0600);
        tmp_ok = tf >= 0;
        for (int k = 0; tmp_ok && k < 192; k++)
            tmp_ok = write(tf, chunk, sizeof chunk) == (ssize_t)sizeof chunk;
        if (tf >= 0)
            close(tf);
    }
    report("tmp_1536k", tmp_ok);
    /* resetting its own peak RSS, which hashbench reads as the peak */
    int cr = open("/proc/self/clear_refs", O_WRONLY);
    report("clear_refs", cr >= 0 && write(cr, "5", 1) == 1);
    struct statfs fs;
    if (statfs(".", &fs) == 0)
        printf("cwd %s %llu MiB\n", fs.f_type == TMPFS_MAGIC ? "tmpfs" : "host",
               (unsigned long long)fs.f_blocks * (unsigned long long)fs.f_bsize >> 20);
    char cwd[256];
    printf("cwd_path %s\n", getcwd(cwd, sizeof cwd) ? cwd : "?");
    fflush(stdout);
    return 0;
}
