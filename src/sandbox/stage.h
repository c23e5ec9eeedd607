/* The staging area of the sandbox. A sandboxed step runs as `nobody` when
 * hashbench is root, and bubblewrap, running as that user, must reach every
 * host path it binds; a run directory or a package below /root (mode 0700)
 * is out of its reach. So every read-only input of a step (the runner or
 * probe executable, a library, a package's sources) is bound from a copy in
 * one root-owned folder per hashbench process, /tmp/hashbench-stage.PID.*
 * (mode 0711: nobody can open what it is told the name of, list and change
 * nothing), at its original path inside the sandbox. Copies are made once
 * per process and path; symbolic links are copied as links (so that a link
 * to a host file points at nothing inside the sandbox), and no file larger
 * than HB_STAGE_MAX_FILE is copied. Writable scratch folders live there
 * too. Without root no staging is needed and the original paths are bound. */
#ifndef HB_SANDBOX_STAGE_H
#define HB_SANDBOX_STAGE_H

#include <stddef.h>
#include "common/err.h"

#define HB_STAGE_MAX_FILE (64ULL << 20)   /* bytes of one staged file */
#define HB_STAGE_MAX_TREE (512ULL << 20)  /* bytes of one staged folder */
#define HB_STAGE_MAX_ENTRIES 100000       /* entries of one staged folder */

/* The uid and gid a sandboxed child runs as on the host: nobody's when
 * hashbench is root, ours otherwise (looked up once, in the parent). */
void hb_stage_host_ids(unsigned *uid, unsigned *gid);

/* 1 when inputs must be staged (hashbench runs as root). */
int hb_stage_needed(void);

/* The path to bind for SRC (a file or a folder) into OUT: its staged copy,
 * made now or earlier in this process, or SRC itself when no staging is
 * needed. Fails naming the file that is too large or cannot be read. */
int hb_stage_input(const char *src, char *out, size_t outsz, hb_err *err);

/* 1 when the sandboxed uid can reach PATH as it is: every folder on the
 * way searchable by others, and PATH itself readable by others. */
int hb_stage_reachable(const char *path);

/* A new empty scratch folder, writable by the sandboxed uid only, into
 * OUT: the compiler's output folder, or a folder for files hashbench opens
 * itself for a step (never bound into a step that runs submitted code; see
 * sandbox.h, tmpfs_scratch). The caller removes it with
 * hb_stage_scratch_remove, which removes everything below it whatever its
 * depth (common/fs.h, hb_remove_tree) and returns -1 with ERR when
 * something could not be removed. */
int hb_stage_scratch(char *out, size_t outsz, hb_err *err);
int hb_stage_scratch_remove(const char *dir, hb_err *err);

/* Removes this process's staging area (also done at exit), and those left
 * by hashbench processes that no longer run. */
void hb_stage_cleanup(void);

#endif
