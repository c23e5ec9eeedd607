/* Exclusive use of a run directory, and of a measuring core of the host.
 * A run directory is used by one command at a time: the command holds an
 * flock(2) on DIR/.hashbench.lock (RUNDIR_LOCK), whose text names the
 * holder (pid, command, start time); a second command refuses at once,
 * naming the holder. The lock dies with its process, so the lock file of a
 * killed command is taken over, and said so. A core is measured on by one
 * campaign of the host at a time: the same kind of lock on
 * hashbench-cpu<N>.lock in the host-wide lock folder (HB_LOCK_DIR, else
 * /run/lock, else /var/lock), waited for or refused as the caller asks.
 * Every lock file descriptor is close-on-exec, so no child inherits it
 * past exec. */
#ifndef HB_RUNDIR_LOCK_H
#define HB_RUNDIR_LOCK_H

#include <stdio.h>
#include "common/err.h"

/* The lock file in the run directory (never published or merged). */
#define RUNDIR_LOCK ".hashbench.lock"

typedef struct hb_lock {
    int fd;                  /* -1: not held */
} hb_lock;

#define HB_LOCK_NONE {-1}

/* Takes the run directory RUN_DIR (which must exist) for COMMAND (e.g.
 * "run"). Fails at once, naming the holder's pid and command, the lock
 * file and what to do, when another process holds it. A lock file left by
 * a process that no longer runs is taken over, with a line on LOG (may be
 * NULL). */
int rundir_lock(const char *run_dir, const char *command, FILE *log, hb_lock *lk,
                hb_err *err);

/* The host-wide lock folder: $HB_LOCK_DIR when set, else /run/lock, else
 * /var/lock (the first that is a folder). */
const char *core_lock_dir(void);

/* Takes core CPU of this host for WHAT (e.g. the run directory). When
 * another campaign holds it: with WAIT, a line on LOG naming the holder,
 * then waits for it; without, fails naming the holder and the options to
 * use. When the host-wide lock folder cannot be written the core is not
 * locked: *LK stays free and a line on LOG says so (returns 0). */
int core_lock(int cpu, const char *what, int wait, FILE *log, hb_lock *lk,
              hb_err *err);

/* Removes the run directory RUN_DIR when it holds nothing but its lock
 * file (a command that made it, then refused, leaves nothing behind). */
void rundir_unmake(const char *run_dir);

/* Empties the file of the run directory's lock this process holds, if
 * any, so that a run ended by a signal leaves no holder named (the lock
 * itself goes with the process). Async-signal-safe: for signal handlers. */
void rundir_lock_clear_on_signal(void);

/* Releases LK (nothing when not held), emptying its file first. */
void hb_unlock(hb_lock *lk);

#endif
