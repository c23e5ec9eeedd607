/* The process limit a sandboxed step of hashbench's own (the runner, the
 * probe, the constant-time and instruction-count drivers) sets on itself
 * before it loads a submitted library. RLIMIT_NPROC counts processes and
 * threads; for the sandbox's host uid (nobody under a root hashbench) it is
 * counted over the whole host, so a library that held a host-wide limit's
 * worth of idle threads would stop every other sandboxed step (a rival's
 * KAT runner, another shard's sessions, the baseline's) from starting.
 * Inside the step's own user namespace the kernel counts the limit of the
 * process that creates a thread over that namespace's processes only, and
 * the host-wide count against the limit bubblewrap had when it made the
 * namespace (common/proc.h: HB_PROC_SANDBOX_NPROC_HOST). So the step lowers
 * its own limit, soft and hard (a library cannot raise it again), to
 * HB_STEP_NPROC: its threads are bounded, and only its own. Outside a user
 * namespace (--no-sandbox) nothing is changed: there the limit would count
 * the user's every process. Header-only: the step executables link libc
 * only. */
#ifndef HB_COMMON_STEPLIMIT_H
#define HB_COMMON_STEPLIMIT_H

#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

/* Processes and threads of one sandboxed step of hashbench's own. */
#define HB_STEP_NPROC 256

/* 1 when this process runs in a user namespace other than the host's: its
 * /proc/self/uid_map is not the identity over every uid. */
static inline int hb_step_in_userns(void)
{
    char buf[128];
    int fd = open("/proc/self/uid_map", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    unsigned long inside, outside, count;
    int end = 0;
    /* the host's map is one line, "0 0 4294967295" (in padded columns) */
    return !(sscanf(buf, " %lu %lu %lu %n", &inside, &outside, &count, &end) == 3 &&
             inside == 0 && outside == 0 && count == 4294967295UL && buf[end] == '\0');
}

/* Lowers this step's RLIMIT_NPROC to HB_STEP_NPROC inside a user
 * namespace (see above); call before loading a library. */
static inline void hb_step_limit_processes(void)
{
    struct rlimit r;
    if (!hb_step_in_userns() || getrlimit(RLIMIT_NPROC, &r) != 0)
        return;
    if (r.rlim_max == RLIM_INFINITY || r.rlim_max > HB_STEP_NPROC)
        r.rlim_max = HB_STEP_NPROC;
    r.rlim_cur = r.rlim_max;
    setrlimit(RLIMIT_NPROC, &r);
}

#endif
