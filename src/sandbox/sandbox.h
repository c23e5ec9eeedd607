/* The sandbox every run of submitted code goes through (SPEC §8): the
 * compiler on submitted sources, the runner (KATs, vector checks, digest
 * recomputation) and the probe. A sandboxed child drops to the unprivileged
 * uid/gid of `nobody` when hashbench runs as root, then executes Debian's
 * bubblewrap, which gives it its own user, pid, mount, network, IPC, UTS and
 * cgroup namespaces, no capabilities, no_new_privs, an empty environment, a
 * filesystem of the system's /usr (read-only) plus the few host paths the
 * step needs (read-only) and one private writable scratch folder (for
 * submitted code a size-capped tmpfs that is gone with the sandbox; a host
 * folder only for the compiler, whose output hashbench reads back), and a
 * seccomp filter built here with libseccomp. The pid namespace dies with its
 * init, so nothing a step starts outlives it. hb_proc (common/proc.h) applies
 * a sandbox given in its options; this module builds the command line and
 * the filter and says whether the sandbox can be set up on this host. */
#ifndef HB_SANDBOX_SANDBOX_H
#define HB_SANDBOX_SANDBOX_H

#include <stddef.h>
#include "common/err.h"

#define HB_SANDBOX_MAX_BINDS 16
#define HB_SANDBOX_BWRAP "/usr/bin/bwrap"

/* The private scratch of a step that runs submitted code (runner, probe,
 * constant-time driver): a tmpfs of at most HB_SANDBOX_SCRATCH_BYTES at
 * HB_SANDBOX_SCRATCH_DIR, its working folder. Nothing of it is on the
 * host's disks, and it is gone when the sandbox ends. */
#define HB_SANDBOX_SCRATCH_DIR "/scratch"
#define HB_SANDBOX_SCRATCH_BYTES (64ULL << 20)
#define HB_SANDBOX_SESSION_SCRATCH_BYTES (1ULL << 20) /* a timed session's */

/* What a step may do beyond computing. */
typedef enum hb_sandbox_profile {
    HB_SANDBOX_RUN,      /* runner, probe: no new processes, threads only */
    HB_SANDBOX_COMPILE,  /* the compiler: may start its own programs */
    HB_SANDBOX_SESSION   /* a timed probe session: RUN without threads,
                            timers, perf_event_open, affinity changes or
                            MADV_MERGEABLE, so that hashbench's outside
                            figure covers everything it runs */
} hb_sandbox_profile;

typedef struct hb_sandbox {
    hb_sandbox_profile profile;
    const char *ro[HB_SANDBOX_MAX_BINDS]; /* host paths, bound read-only at the
                                             same path inside */
    int n_ro;
    const char *rw;     /* a private scratch folder on the host (stage.h:
                           hb_stage_scratch), writable; NULL for none. Only
                           for the compiler, whose output is read back */
    int tmpfs_scratch;  /* 1: a private tmpfs scratch (HB_SANDBOX_SCRATCH_DIR,
                           HB_SANDBOX_SCRATCH_BYTES) as the working folder;
                           for every step that runs submitted code */
    int allow_perf;     /* 1: perf_event_open allowed (the probe's counter) */
    const char *rw_at;  /* where the scratch appears inside; NULL: its own path */
    const char *cwd;    /* the working folder inside; NULL: the scratch
                           (host or tmpfs), or / without one */
    int no_new_code;    /* HB_SANDBOX_SESSION on native code: no memory made
                           executable but by mapping a file (mprotect to
                           executable, anonymous executable mappings, memory
                           files and System V shared memory refused) */
    const char *ro_direct; /* a host folder bound read-only as it is, without a
                              staging copy (a compiler installed outside /usr);
                              NULL for none */
} hb_sandbox;

/* Process-wide choice made once by the command line: 1 (the default) runs
 * submitted code sandboxed, 0 (--no-sandbox) runs it directly, with limits
 * only; the campaign records the choice. */
void hb_sandbox_set_enabled(int on);
int hb_sandbox_enabled(void);

/* Adds PATH to the read-only binds of SB; fails when there is no room. */
int hb_sandbox_add_ro(hb_sandbox *sb, const char *path, hb_err *err);

/* For hb_proc, in the parent before fork: the seccomp program of PROFILE as
 * raw BPF (a buffer owned by this module, valid for the process's life). */
int hb_sandbox_filter(const hb_sandbox *sb, const void **bpf, size_t *len, hb_err *err);

/* For hb_proc, in the parent before fork: the argument vector that runs
 * ARGV inside SB, with the filter read from descriptor SECCOMP_FD. Every
 * bound path is opened here (FDS, *NFDS of them, inherited by the child):
 * the caller closes them after the fork with hb_sandbox_close_fds. *OUT is
 * malloc'd (free it with hb_sandbox_argv_free). */
int hb_sandbox_argv(const hb_sandbox *sb, char *const argv[], int seccomp_fd,
                    char ***out, int fds[HB_SANDBOX_MAX_BINDS + 1], int *nfds,
                    hb_err *err);
void hb_sandbox_argv_free(char **argv);
void hb_sandbox_close_fds(int *fds, int nfds);

/* For hb_proc, in the forked child: drops root to the sandbox's host ids.
 * Returns 0 or -1 (the child then exits). */
int hb_sandbox_drop_privileges(void);

#endif
