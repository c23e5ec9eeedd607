/* Run-directory and core locks (see lock.h): flock(2) on a small file
 * whose text names the holder. */
#include "rundir/lock.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common/clock.h"
#include "common/fs.h"
#include "rundir/rundir.h"

/* The holder's line of lock file FD into OUT ("" when empty); its pid in
 * *PID (0 when none). */
static void read_holder(int fd, char *out, size_t sz, long *pid)
{
    ssize_t n = pread(fd, out, sz - 1, 0);
    out[n > 0 ? n : 0] = '\0';
    out[strcspn(out, "\n")] = '\0';
    hb_one_line(out);
    *pid = strncmp(out, "pid ", 4) == 0 ? strtol(out + 4, NULL, 10) : 0;
}

/* Writes this process as the holder of FD. */
static void write_holder(int fd, const char *what)
{
    char line[PATH_MAX + 128], now[32];
    hb_utc_now(now, sizeof now);
    int n = snprintf(line, sizeof line, "pid %ld, %s, since %s\n", (long)getpid(), what,
                     now);
    if (n < 0)
        return;
    if (ftruncate(fd, 0) == 0 && pwrite(fd, line, strlen(line), 0) < 0)
        return;
}


static int still_runs(long pid)
{
    return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

/* The run directory's lock this process holds (-1: none), for
 * rundir_lock_clear_on_signal. */
static volatile int held_fd = -1;

void rundir_lock_clear_on_signal(void)
{
    int fd = held_fd;
    if (fd >= 0 && ftruncate(fd, 0) != 0)
        return;
}

int rundir_lock(const char *run_dir, const char *command, FILE *log, hb_lock *lk,
                hb_err *err)
{
    char path[PATH_MAX];
    lk->fd = -1;
    if (rundir_path(path, sizeof path, run_dir, RUNDIR_LOCK, err) != 0)
        return -1;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return hb_fail_errno(err, "%s: cannot open the run directory's lock file; make "
                             "the run directory writable, or give another --run-dir",
                             path);
    char holder[512];
    long pid;
    int got = flock(fd, LOCK_EX | LOCK_NB);
    /* A holder that no longer runs leaves its lock to the children it
     * forked until they have died with it (a moment): wait for that. */
    for (int tries = 0; got != 0 && errno == EWOULDBLOCK && tries < 100; tries++) {
        read_holder(fd, holder, sizeof holder, &pid);
        if (pid <= 0 || still_runs(pid))
            break;
        usleep(50000);
        got = flock(fd, LOCK_EX | LOCK_NB);
    }
    if (got != 0) {
        int e = errno;
        read_holder(fd, holder, sizeof holder, &pid);
        close(fd);
        if (e != EWOULDBLOCK)
            return hb_fail(err, "%s: cannot lock the run directory: %s", path, strerror(e));
        return hb_fail(err, "%s is in use by another hashbench command (%s; lock file %s): "
                       "wait for it to end, or give this command another --run-dir",
                       run_dir, holder[0] ? holder : "its pid is not written yet", path);
    }
    read_holder(fd, holder, sizeof holder, &pid);
    if (pid > 0 && pid != (long)getpid() && log)
        fprintf(log, "%s: took over the lock of %s left by a command that no longer "
                "runs (%s%s)\n", command, run_dir, holder,
                still_runs(pid) ? "; its pid is now another process's" : "");
    char what[PATH_MAX + 64];
    snprintf(what, sizeof what, "hashbench %s", command);
    write_holder(fd, what);
    lk->fd = fd;
    held_fd = fd;
    return 0;
}

const char *core_lock_dir(void)
{
    const char *env = getenv("HB_LOCK_DIR");
    if (env && *env)
        return env;
    return hb_is_dir("/run/lock") ? "/run/lock" : "/var/lock";
}

int core_lock(int cpu, const char *what, int wait, FILE *log, hb_lock *lk, hb_err *err)
{
    char path[PATH_MAX];
    lk->fd = -1;
    snprintf(path, sizeof path, "%s/hashbench-cpu%d.lock", core_lock_dir(), cpu);
    /* the lock file is shared by every user of the host */
    mode_t old = umask(0);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    umask(old);
    if (fd < 0) {
        if (log)
            fprintf(log, "cannot lock CPU %d host-wide (%s: %s): another campaign on "
                    "this host is not kept off it; set HB_LOCK_DIR to a folder every "
                    "user of the host can write\n", cpu, path, strerror(errno));
        return 0;
    }
    char holder[512];
    long pid;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK) {
            int e = errno;
            close(fd);
            return hb_fail(err, "%s: cannot lock CPU %d: %s", path, cpu, strerror(e));
        }
        read_holder(fd, holder, sizeof holder, &pid);
        if (!wait) {
            close(fd);
            return hb_fail(err, "CPU %d is being measured on by another campaign (%s; "
                           "lock file %s): measure on another core (--cpu), or let "
                           "this one wait for it (leave out --no-wait)", cpu,
                           holder[0] ? holder : "its pid is not written yet", path);
        }
        if (log) {
            fprintf(log, "CPU %d is being measured on by another campaign (%s): "
                    "waiting for it to end\n", cpu, holder[0] ? holder : "pid unknown");
            fflush(log);
        }
        while (flock(fd, LOCK_EX) != 0) {
            if (errno != EINTR) {
                int e = errno;
                close(fd);
                return hb_fail(err, "%s: cannot lock CPU %d: %s", path, cpu, strerror(e));
            }
        }
        if (log)
            fprintf(log, "CPU %d is free: measuring\n", cpu);
    }
    write_holder(fd, what);
    lk->fd = fd;
    return 0;
}

void hb_unlock(hb_lock *lk)
{
    if (lk->fd >= 0) {
        if (held_fd == lk->fd)
            held_fd = -1;
        /* emptied first: a lock file that still names a pid was left by a
         * process that did not end cleanly */
        if (ftruncate(lk->fd, 0) != 0) {
            /* the lock is released all the same */
        }
        close(lk->fd);
        lk->fd = -1;
    }
}

void rundir_unmake(const char *run_dir)
{
    char path[PATH_MAX];
    hb_err ignored;
    if (rundir_path(path, sizeof path, run_dir, RUNDIR_LOCK, &ignored) != 0)
        return;
    if (rmdir(run_dir) == 0)
        return;
    if (errno == ENOTEMPTY || errno == EEXIST) {
        /* only the lock file: removed, then the folder */
        if (unlink(path) == 0 && rmdir(run_dir) != 0) {
            int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
            if (fd >= 0)
                close(fd);
        }
    }
}
