/* What a hashbench command that runs submitted code leaves behind when it
 * ends, however it ends (Ctrl-C, SIGTERM, SIGKILL, a crash, the OOM
 * killer): nothing. Every process it starts carries the command's marker,
 * HB_CAMPAIGN=<marker>, in its environment (the sandbox sets it inside
 * too), and a small watcher process, forked before anything else, waits
 * for the command and every process it forked to end, then kills whatever
 * still carries the marker, removes the staging folders nobody holds and
 * the sessions' memory cgroups. The processes themselves die with their
 * parents first (the parent-death signal, common/proc.c); the watcher is
 * the second line, and the one that clears the folders after a SIGKILL. */
#ifndef HB_SANDBOX_WARDEN_H
#define HB_SANDBOX_WARDEN_H

#include <stddef.h>

#include "sandbox/marker.h"

/* Gives this process its marker and starts the watcher. The marker is
 * PREFIX.PID-RANDOM, where PREFIX is an HB_CAMPAIGN found in the
 * environment (letters, digits, '.', '_', '-'; at most 48), so that a
 * caller that names its campaigns finds every process of one by that
 * prefix. The marker must be in the process's own environment block, where
 * /proc shows it for every process forked from this one: ARGV is executed
 * again (same pid) with the marker added, once; a call in that new image
 * only starts the watcher. Call first in main, before any thread starts
 * and before any file is opened. Best effort: nothing is said on failure
 * (the parent-death signals still hold). */
void hb_warden_start(char **argv);

/* At the command's normal end: lets the watcher see the end now and waits
 * for it (5 s at most), so that a command that ends well leaves no process
 * behind, the watcher included. Nothing happens without a watcher. */
void hb_warden_finish(void);

/* The marker: hb_warden_marker (marker.h). */

/* 1 when the NUL-separated environment ENV (LEN bytes, as
 * /proc/PID/environ holds it) has HB_CAMPAIGN=MARKER exactly. */
int hb_warden_env_has(const char *env, size_t len, const char *marker);

#endif
