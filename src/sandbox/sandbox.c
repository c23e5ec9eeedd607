/* The sandbox: see sandbox.h. The filter is built with libseccomp and
 * exported as BPF once per profile; bubblewrap loads it (--seccomp) right
 * before it executes the step. Inputs are bound from their staged copies
 * (stage.h), handed to bubblewrap as descriptors hashbench opened itself
 * (--ro-bind-fd), so that nothing can swap a path between the check and the
 * bind. Starting bubblewrap is common/proc.c's; checking that it works and
 * naming it in the records, check.c's. */
#include "sandbox/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/sched.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <pthread.h>
#include <pwd.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/strlist.h"
#include "sandbox/marker.h"
#include "compile/elfsize.h"
#include "sandbox/stage.h"

#define SANDBOX_TMP_BYTES "268435456" /* /tmp inside: 256 MiB of tmpfs */
#define SANDBOX_SESSION_TMP_BYTES "1048576" /* a timed session's: 1 MiB */
#define SANDBOX_BOOT_ID "/proc/sys/kernel/random/boot_id" /* masked inside */
/* Host files masked like the boot_id: the boot time (btime in /proc/stat)
 * and the kernel's command line (a root file system's UUID) identify the
 * host as well; /proc/meminfo's exact host-wide counters would let a
 * process held open signal to one started later (a timed session to the
 * runner that recomputes its digests). */
static const char *const sandbox_masked[] = {SANDBOX_BOOT_ID, "/proc/stat", "/proc/cmdline",
                                             "/proc/meminfo"};

static int enabled = 1;

void hb_sandbox_set_enabled(int on)
{
    enabled = on ? 1 : 0;
}

int hb_sandbox_enabled(void)
{
    return enabled;
}

int hb_sandbox_add_ro(hb_sandbox *sb, const char *path, hb_err *err)
{
    if (sb->n_ro >= HB_SANDBOX_MAX_BINDS)
        return hb_fail(err, "sandbox: more than %d read-only paths", HB_SANDBOX_MAX_BINDS);
    sb->ro[sb->n_ro++] = path;
    return 0;
}

int hb_sandbox_drop_privileges(void)
{
    if (geteuid() != 0)
        return 0;
    unsigned uid, gid;
    hb_stage_host_ids(&uid, &gid);
    if (setgroups(0, NULL) != 0 || setresgid(gid, gid, gid) != 0 ||
        setresuid(uid, uid, uid) != 0)
        return -1;
    return geteuid() == 0 ? -1 : 0;
}

/* ---- the seccomp filter ---- */

/* Denied to every step: debugging and reading other processes, mounting,
 * kernel keyrings, BPF, loading modules or kernels, rebooting, new
 * namespaces, setting clocks, io_uring (a path around the filter), handles
 * that bypass paths, and userfaultfd. */
static const char *const denied_all[] = {
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp",
    "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree",
    "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
    "bpf", "keyctl", "add_key", "request_key",
    "kexec_load", "kexec_file_load", "reboot",
    "init_module", "finit_module", "delete_module",
    "unshare", "setns",
    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
    "swapon", "swapoff", "acct", "syslog", "quotactl", "iopl", "ioperm",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    "open_by_handle_at", "name_to_handle_at", "userfaultfd", "fanotify_init",
    "lookup_dcookie", "personality",
};

/* Denied to the runner and the probe: new processes (threads stay allowed,
 * so that their CPU time is counted with the process's). */
static const char *const denied_run[] = {"fork", "vfork"};

/* Denied besides to a timed session (HB_SANDBOX_SESSION): anything that
 * lets it work when hashbench has not asked it to (timers and their
 * signals), count itself, or move to another core; threads too (a clone
 * with CLONE_THREAD, below), madvise(MADV_MERGEABLE), through which
 * its pages could be shared with another process's, and MADV_PAGEOUT or
 * MADV_COLD (process_madvise too), through which it could swap out its
 * pages of the shared region; mlock in every form, whose host-wide count
 * a process held open could set for one started later to read. */
static const char *const denied_session[] = {
    "perf_event_open", "timer_create", "timer_settime", "setitimer", "alarm",
    "timerfd_create", "timerfd_settime", "sched_setaffinity", "sched_setscheduler",
    "sched_setattr", "sched_setparam", "setpriority", "rt_sigtimedwait",
    "process_madvise", "mlock", "mlock2", "mlockall",
};

static int deny_name(scmp_filter_ctx ctx, const char *name, int errnum)
{
    int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR)
        return 0; /* not a system call on any architecture of the filter */
    return seccomp_rule_add(ctx, SCMP_ACT_ERRNO((unsigned)errnum), nr, 0);
}

/* Refused to a session on native code (hb_sandbox.no_new_code): every way
 * to make memory executable but mapping a file, which the loader needs;
 * the files it can map are the read-only binds (the root, /dev and /proc
 * are read-only; /tmp and the scratch are not, but the probe refuses every
 * executable mapping once the library is loaded: probe_seccomp.c). Shared
 * memory files and System V segments are refused outright, as they would
 * be memory the probe could write and then map. */
static const char *const denied_new_code[] = {"memfd_create", "shmat", "shmget",
                                              "remap_file_pages"};

static int deny_new_code(scmp_filter_ctx ctx)
{
    int rc = 0;
    for (size_t i = 0; i < sizeof denied_new_code / sizeof denied_new_code[0] && rc == 0; i++)
        rc = deny_name(ctx, denied_new_code[i], EPERM);
    /* anything that adds PROT_EXEC to a mapping */
    if (rc == 0)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(mprotect), 1,
                              SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
    if (rc == 0 && seccomp_syscall_resolve_name("pkey_mprotect") != __NR_SCMP_ERROR)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(pkey_mprotect), 1,
                              SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
    /* executable memory backed by no file */
    if (rc == 0)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(mmap), 2,
                              SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC),
                              SCMP_A3(SCMP_CMP_MASKED_EQ, MAP_ANONYMOUS, MAP_ANONYMOUS));
    return rc;
}

static int build_filter(hb_sandbox_profile profile, int allow_perf, int no_new_code,
                        void **out, size_t *len, hb_err *err)
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx)
        return hb_fail(err, "sandbox: libseccomp cannot create a filter");
    int rc = 0;
    /* hashbench may itself run under emulation (an AArch64 build under
     * qemu-user): the kernel then sees the emulator's system calls. The
     * filter covers both 64-bit architectures; any other (i386, x32) is
     * killed, so no second system call table is left open. */
    uint32_t arches[] = {SCMP_ARCH_X86_64, SCMP_ARCH_AARCH64};
    for (size_t i = 0; i < sizeof arches / sizeof arches[0] && rc == 0; i++) {
        if (arches[i] == seccomp_arch_native())
            continue;
        rc = seccomp_arch_add(ctx, arches[i]);
        if (rc == -EEXIST)
            rc = 0;
    }
    /* Killing the whole process needs a kernel API level that an emulator
     * may not report; killing the thread is the older equivalent. */
    if (rc == 0 && seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS) != 0)
        rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL);
    for (size_t i = 0; i < sizeof denied_all / sizeof denied_all[0] && rc == 0; i++)
        rc = deny_name(ctx, denied_all[i], EPERM);
    if (rc == 0 && !allow_perf)
        rc = deny_name(ctx, "perf_event_open", EPERM);
    /* Sockets: only local ones (AF_UNIX); the network namespace is empty
     * anyway. */
    if (rc == 0)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket), 1,
                              SCMP_A0(SCMP_CMP_NE, AF_UNIX, 0));
    if (rc == 0)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socketpair), 1,
                              SCMP_A0(SCMP_CMP_NE, AF_UNIX, 0));
    /* clone3 passes its flags in memory, where a filter cannot look:
     * ENOSYS makes the C library fall back to clone, whose flags it can. */
    if (rc == 0)
        rc = deny_name(ctx, "clone3", ENOSYS);
    if (rc == 0 && profile != HB_SANDBOX_COMPILE) {
        for (size_t i = 0; i < sizeof denied_run / sizeof denied_run[0] && rc == 0; i++)
            rc = deny_name(ctx, denied_run[i], EPERM);
        if (rc == 0)
            rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                                  SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
    }
    if (rc == 0 && profile == HB_SANDBOX_SESSION) {
        for (size_t i = 0; i < sizeof denied_session / sizeof denied_session[0] && rc == 0;
             i++)
            rc = deny_name(ctx, denied_session[i], EPERM);
        if (rc == 0)
            rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                                  SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD));
        /* MADV_MERGEABLE would share its pages with another process's;
         * MADV_PAGEOUT and MADV_COLD would swap out its own pages of the
         * shared region (which hashbench counts as resident or swapped,
         * session_probe.c) */
        static const int denied_advice[] = {MADV_MERGEABLE, MADV_PAGEOUT, MADV_COLD};
        for (size_t i = 0; i < sizeof denied_advice / sizeof denied_advice[0] && rc == 0;
             i++)
            rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(madvise), 1,
                                  SCMP_A2(SCMP_CMP_EQ, (scmp_datum_t)denied_advice[i], 0));
        /* a task may switch off every counter attached to it, whoever
         * opened it: not the one hashbench holds on a session */
        if (rc == 0)
            rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(prctl), 1,
                                  SCMP_A0(SCMP_CMP_EQ, PR_TASK_PERF_EVENTS_DISABLE, 0));
        if (rc == 0)
            rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(prctl), 1,
                                  SCMP_A0(SCMP_CMP_EQ, PR_TASK_PERF_EVENTS_ENABLE, 0));
    }
    if (rc == 0 && profile == HB_SANDBOX_SESSION && no_new_code)
        rc = deny_new_code(ctx);
    if (rc != 0) {
        seccomp_release(ctx);
        return hb_fail(err, "sandbox: libseccomp refused a rule (%s)", strerror(-rc));
    }
    /* Export through a memory file, then keep the bytes. */
    int fd = memfd_create("hb-seccomp", MFD_CLOEXEC);
    if (fd < 0) {
        seccomp_release(ctx);
        return hb_fail_errno(err, "sandbox: cannot create a memory file");
    }
    rc = seccomp_export_bpf(ctx, fd);
    seccomp_release(ctx);
    off_t size = rc == 0 ? lseek(fd, 0, SEEK_END) : -1;
    void *buf = size > 0 ? malloc((size_t)size) : NULL;
    if (!buf || pread(fd, buf, (size_t)size, 0) != size) {
        free(buf);
        close(fd);
        return hb_fail(err, "sandbox: cannot export the seccomp filter");
    }
    close(fd);
    *out = buf;
    *len = (size_t)size;
    return 0;
}

int hb_sandbox_filter(const hb_sandbox *sb, const void **bpf, size_t *len, hb_err *err)
{
    static void *cache[3][2][2];
    static size_t cache_len[3][2][2];
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    int p = (int)sb->profile, f = sb->allow_perf ? 1 : 0, x = sb->no_new_code ? 1 : 0,
        rc = 0;
    pthread_mutex_lock(&lock); /* the build stage compiles from several threads */
    if (!cache[p][f][x])
        rc = build_filter(sb->profile, sb->allow_perf, x, &cache[p][f][x],
                          &cache_len[p][f][x], err);
    *bpf = cache[p][f][x];
    *len = cache_len[p][f][x];
    pthread_mutex_unlock(&lock);
    return rc;
}

/* ---- the command line ---- */

typedef struct words {
    char **v;
    size_t n, cap;
    int failed;
} words;

static void add(words *w, const char *s)
{
    if (w->failed)
        return;
    if (w->n + 2 > w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 64;
        char **v = realloc(w->v, cap * sizeof *v);
        if (!v) {
            w->failed = 1;
            return;
        }
        w->v = v;
        w->cap = cap;
    }
    if (!(w->v[w->n] = strdup(s))) {
        w->failed = 1;
        return;
    }
    w->v[++w->n] = NULL;
}

static void add_fd(words *w, int fd)
{
    char num[16];
    snprintf(num, sizeof num, "%d", fd);
    add(w, num);
}

/* The system's top-level folders: a symbolic link (merged /usr) becomes
 * the same link inside, a real folder a read-only bind. */
static void add_system(words *w)
{
    static const char *const tops[] = {"/bin", "/sbin", "/lib", "/lib64", "/lib32",
                                       "/libx32"};
    add(w, "--ro-bind");
    add(w, "/usr");
    add(w, "/usr");
    for (size_t i = 0; i < sizeof tops / sizeof tops[0]; i++) {
        char target[256];
        ssize_t n = readlink(tops[i], target, sizeof target - 1);
        struct stat st;
        if (n > 0) {
            target[n] = '\0';
            add(w, "--symlink");
            add(w, target);
            add(w, tops[i]);
        } else if (lstat(tops[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            add(w, "--ro-bind");
            add(w, tops[i]);
            add(w, tops[i]);
        }
    }
}

/* Removes "." and ".." from the absolute PATH, in place, as words: the
 * folders before them are known to be no links (bind_path). */
static void normalise(char *path)
{
    char out[PATH_MAX * 2] = "";
    size_t n = 0;
    for (const char *p = path; *p;) {
        while (*p == '/')
            p++;
        size_t len = strcspn(p, "/");
        if (len == 0)
            break;
        if (len == 2 && !strncmp(p, "..", 2)) {
            while (n > 0 && out[--n] != '/')
                ;
            out[n] = '\0';
        } else if (!(len == 1 && p[0] == '.') && n + len + 2 < sizeof out) {
            out[n++] = '/';
            memcpy(out + n, p, len);
            n += len;
            out[n] = '\0';
        }
        p += len;
    }
    snprintf(path, PATH_MAX * 2, "%s", n ? out : "/");
}

/* Binds the host file PATH read-only at the same place, with every link on
 * the way made again inside (a loader's path such as /lib64/ld-linux...
 * goes through two), each once (SEEN). 0, or -1 when PATH cannot be
 * followed to a file. */
static int bind_path(words *w, strlist *seen, const char *path, int depth)
{
    char cur[PATH_MAX * 2] = "";
    if (depth > 16 || path[0] != '/')
        return -1;
    for (const char *p = path; *p;) {
        while (*p == '/')
            p++;
        size_t len = strcspn(p, "/"), at = strlen(cur);
        if (len == 0)
            break;
        if (at + len + 2 >= PATH_MAX)
            return -1;
        snprintf(cur + at, sizeof cur - at, "/%.*s", (int)len, p);
        p += len;
        struct stat st;
        if (lstat(cur, &st) != 0)
            return -1;
        if (!S_ISLNK(st.st_mode))
            continue;
        char target[PATH_MAX], next[PATH_MAX * 2];
        ssize_t t = readlink(cur, target, sizeof target - 1);
        if (t <= 0)
            return -1;
        target[t] = '\0';
        if (!strlist_contains(seen, cur)) {
            if (strlist_push(seen, cur) != 0)
                return -1;
            add(w, "--symlink");
            add(w, target);
            add(w, cur);
        }
        if (target[0] == '/')
            snprintf(next, sizeof next, "%s%s", target, p);
        else
            snprintf(next, sizeof next, "%.*s/%s%s", (int)(strrchr(cur, '/') - cur), cur,
                     target, p);
        normalise(next);
        return bind_path(w, seen, next, depth + 1);
    }
    if (!strlist_contains(seen, cur)) {
        if (strlist_push(seen, cur) != 0)
            return -1;
        add(w, "--ro-bind");
        add(w, cur);
        add(w, cur);
    }
    return 0;
}

/* A native session's system: instead of /usr, only the dynamic loader and
 * the libraries of each bound program's and library's DT_NEEDED closure,
 * found as the loader finds them (in its own folder, the multiarch one,
 * then /lib and /usr/lib; a library's own search paths are not followed,
 * so what it finds there is missing and it fails to load). No other
 * system code is inside to be mapped. */
static int add_minimal_system(words *w, const hb_sandbox *sb, hb_err *err)
{
    strlist seen = {0}, todo = {0};
    char dirs[3][PATH_MAX] = {"", "/lib", "/usr/lib"};
    int rc = 0;
    hb_err ignored;
    for (int i = 0; i < sb->n_ro && rc == 0; i++) {
        char interp[PATH_MAX], real[PATH_MAX];
        if (elfsize_interp(sb->ro[i], interp, sizeof interp, &ignored) != 0 || !interp[0])
            continue;
        if (bind_path(w, &seen, interp, 0) != 0 || !realpath(interp, real))
            rc = hb_fail(err, "sandbox: %s names the loader %s, which cannot be bound",
                         sb->ro[i], interp);
        else if (!dirs[0][0])
            snprintf(dirs[0], sizeof dirs[0], "%.*s", (int)(strrchr(real, '/') - real), real);
    }
    for (int i = 0; i < sb->n_ro && rc == 0; i++)
        elfsize_needed(sb->ro[i], &todo, &ignored); /* not an ELF file: none */
    for (int i = 0; i < todo.n && rc == 0; i++) {
        if (strchr(todo.v[i], '/'))
            continue;
        for (int d = 0; d < 3; d++) {
            char path[PATH_MAX * 2];
            struct stat st;
            snprintf(path, sizeof path, "%.4095s/%.1024s", dirs[d], todo.v[i]);
            if (!dirs[d][0] || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
                continue;
            if (bind_path(w, &seen, path, 0) != 0) {
                rc = hb_fail(err, "sandbox: cannot bind %s", path);
            } else {
                char real[PATH_MAX];
                if (realpath(path, real))
                    elfsize_needed(real, &todo, &ignored);
            }
            break;
        }
    }
    strlist_free(&seen);
    strlist_free(&todo);
    return rc;
}

/* Replaces the last word added (w must not have failed). */
static void replace_last(words *w, const char *s)
{
    if (w->failed || w->n == 0)
        return;
    char *c = strdup(s);
    if (!c) {
        w->failed = 1;
        return;
    }
    free(w->v[w->n - 1]);
    w->v[w->n - 1] = c;
}

void hb_sandbox_argv_free(char **argv)
{
    for (size_t i = 0; argv && argv[i]; i++)
        free(argv[i]);
    free(argv);
}

/* Opens PATH for a bind (O_PATH, inherited by the child) and adds
 * OPTION FD PATH. A read-only input is bound from its staged copy
 * (stage.h); the scratch folder is already in the staging area. */
/* The folders of SB's read-only binds that lie under /tmp, into DIRS,
 * shortest first (an outer one is mounted before an inner one), each once;
 * their number. */
static int tmp_bind_dirs(const hb_sandbox *sb, char dirs[][PATH_MAX])
{
    int n = 0;
    for (int i = 0; i < sb->n_ro && n < HB_SANDBOX_MAX_BINDS; i++) {
        const char *p = sb->ro[i];
        const char *slash = strrchr(p, '/');
        if (strncmp(p, "/tmp/", 5) != 0 || !slash || slash - p <= 4 ||
            (size_t)(slash - p) >= PATH_MAX)
            continue;
        char d[PATH_MAX];
        snprintf(d, sizeof d, "%.*s", (int)(slash - p), p);
        int seen = 0;
        for (int k = 0; k < n && !seen; k++)
            seen = strcmp(dirs[k], d) == 0;
        if (seen)
            continue;
        int at = n++;
        while (at > 0 && strlen(dirs[at - 1]) > strlen(d)) {
            memcpy(dirs[at], dirs[at - 1], PATH_MAX);
            at--;
        }
        memcpy(dirs[at], d, strlen(d) + 1);
    }
    return n;
}

static int add_bind(words *w, const char *option, const char *path, int stage, int *fds,
                    int *nfds, hb_err *err)
{
    char src[PATH_MAX];
    if (stage && hb_stage_input(path, src, sizeof src, err) != 0)
        return -1;
    int fd = open(stage ? src : path, O_PATH | O_CLOEXEC); /* see proc.c */
    if (fd < 0)
        return hb_fail_errno(err, "sandbox: cannot open %s", path);
    fds[(*nfds)++] = fd;
    add(w, option);
    add_fd(w, fd);
    add(w, path);
    return 0;
}

void hb_sandbox_close_fds(int *fds, int nfds)
{
    for (int i = 0; i < nfds; i++)
        close(fds[i]);
}

int hb_sandbox_argv(const hb_sandbox *sb, char *const argv[], int seccomp_fd,
                    char ***out, int fds[HB_SANDBOX_MAX_BINDS + 1], int *nfds,
                    hb_err *err)
{
    words w = {0};
    unsigned uid, gid;
    char num[16];
    hb_stage_host_ids(&uid, &gid);
    *out = NULL;
    *nfds = 0;
    add(&w, HB_SANDBOX_BWRAP);
    add(&w, "--unshare-all"); /* user, pid, net, ipc, uts, cgroup */
    add(&w, "--die-with-parent");
    add(&w, "--new-session");
    add(&w, "--cap-drop");
    add(&w, "ALL");
    add(&w, "--uid");
    snprintf(num, sizeof num, "%u", uid);
    add(&w, num);
    add(&w, "--gid");
    snprintf(num, sizeof num, "%u", gid);
    add(&w, num);
    add(&w, "--hostname");
    add(&w, "sandbox");
    add(&w, "--clearenv");
    if (hb_warden_marker()[0]) { /* the command's marker (sandbox/marker.h) */
        add(&w, "--setenv");
        add(&w, HB_WARDEN_ENV);
        add(&w, hb_warden_marker());
    }
    if (sb->profile == HB_SANDBOX_COMPILE) {
        add(&w, "--setenv");
        add(&w, "PATH");
        add(&w, "/usr/bin:/bin");
        add(&w, "--setenv");
        add(&w, "LC_ALL");
        add(&w, "C");
    }
    if (sb->profile == HB_SANDBOX_SESSION && sb->no_new_code) {
        if (add_minimal_system(&w, sb, err) != 0)
            goto fail_early;
    } else {
        add_system(&w);
    }
    if (sb->profile == HB_SANDBOX_COMPILE && access("/etc/alternatives", F_OK) == 0) {
        /* Debian's cc, c++ and friends are links through here */
        add(&w, "--ro-bind");
        add(&w, "/etc/alternatives");
        add(&w, "/etc/alternatives");
    }
    add(&w, "--proc");
    add(&w, "/proc");
    /* read-only: through /proc/self/clear_refs a library could reset its
     * peak RSS (VmHWM), which hashbench reads from outside as the session's
     * peak and holds against its memory run; nothing inside writes to /proc */
    add(&w, "--remount-ro");
    add(&w, "/proc");
    /* the host's identity, the first thing a library would smuggle out
     * through a figure or a failure: unreadable inside (the null device
     * bound over it, on a mount without devices) */
    for (size_t i = 0; i < sizeof sandbox_masked / sizeof sandbox_masked[0]; i++)
        if (access(sandbox_masked[i], F_OK) == 0) {
            add(&w, "--ro-bind");
            add(&w, "/dev/null");
            add(&w, sandbox_masked[i]);
        }
    add(&w, "--dev");
    add(&w, "/dev");
    add(&w, "--size");
    /* a timed session needs no /tmp: what a library kept there would be
     * memory in no figure, held while every session of the stage is open */
    add(&w, sb->profile == HB_SANDBOX_SESSION ? SANDBOX_SESSION_TMP_BYTES : SANDBOX_TMP_BYTES);
    add(&w, "--tmpfs");
    add(&w, "/tmp");
    *nfds = 0;
    /* a file bound under /tmp lands in the sandbox's own /tmp, which is
     * writable: its folder (a probe's own, where a library would put a
     * file named like a system library) gets a tmpfs of its own first,
     * made read-only once every bind is in */
    char ro_dirs[HB_SANDBOX_MAX_BINDS][PATH_MAX];
    int n_ro_dirs = tmp_bind_dirs(sb, ro_dirs);
    for (int i = 0; i < n_ro_dirs; i++) {
        add(&w, "--tmpfs");
        add(&w, ro_dirs[i]);
    }
    for (int i = 0; i < sb->n_ro; i++)
        if (add_bind(&w, "--ro-bind-fd", sb->ro[i], 1, fds, nfds, err) != 0)
            goto fail;
    if (sb->ro_direct) {
        add(&w, "--ro-bind");
        add(&w, sb->ro_direct);
        add(&w, sb->ro_direct);
    }
    if (sb->rw && add_bind(&w, "--bind-fd", sb->rw, 0, fds, nfds, err) != 0)
        goto fail;
    if (sb->rw && sb->rw_at) /* the bind's destination: the word after the fd */
        replace_last(&w, sb->rw_at);
    if (sb->tmpfs_scratch) {
        char size[24];
        snprintf(size, sizeof size, "%llu", sb->profile == HB_SANDBOX_SESSION
                                                ? HB_SANDBOX_SESSION_SCRATCH_BYTES
                                                : HB_SANDBOX_SCRATCH_BYTES);
        add(&w, "--size");
        add(&w, size);
        add(&w, "--perms");
        add(&w, "0700");
        add(&w, "--tmpfs");
        add(&w, HB_SANDBOX_SCRATCH_DIR);
    }
    for (int i = 0; i < n_ro_dirs; i++) {
        add(&w, "--remount-ro");
        add(&w, ro_dirs[i]);
    }
    if (sb->profile != HB_SANDBOX_COMPILE) {
        /* Submitted code may write only to /tmp and its scratch: not to the
         * folders bubblewrap made for the binds (a probe's own folder, when
         * it is not under /usr, would otherwise take a file named like a
         * library of the system), nor to /dev (its /dev/shm) */
        add(&w, "--remount-ro");
        add(&w, "/");
        add(&w, "--remount-ro");
        add(&w, "/dev");
    }
    add(&w, "--chdir");
    add(&w, sb->cwd ? sb->cwd
                    : sb->rw ? (sb->rw_at ? sb->rw_at : sb->rw)
                    : sb->tmpfs_scratch ? HB_SANDBOX_SCRATCH_DIR : "/");
    add(&w, "--seccomp");
    add_fd(&w, seccomp_fd);
    add(&w, "--");
    for (size_t i = 0; argv[i]; i++)
        add(&w, argv[i]);
    if (w.failed) {
        hb_fail(err, "out of memory for the sandbox's command line");
        goto fail;
    }
    *out = w.v;
    return 0;
fail:
    hb_sandbox_close_fds(fds, *nfds);
    *nfds = 0;
fail_early:
    hb_sandbox_argv_free(w.v);
    return -1;
}
