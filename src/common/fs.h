/* File-system helpers shared by every stage: atomic writes (temporary file in
 * the same folder, fsync, rename), whole-file reads, size-limited reads of
 * submitted files, recursive mkdir and path joining. Every file hashbench
 * writes into a run directory goes through hb_write_atomic or
 * hb_atomic_open/commit, so that a killed campaign never leaves a
 * half-written file under its final name; every file a submission supplies
 * is read through hb_open_limited (or the helpers built on it), so that no
 * submitted file is read past its limit. */
#ifndef HB_COMMON_FS_H
#define HB_COMMON_FS_H

#include <stdio.h>
#include <stddef.h>
#include "common/err.h"

/* Creates PATH and its missing parents (mode 0755). */
int hb_mkdirs(const char *path, hb_err *err);

/* Creates the parent folders of the file PATH. */
int hb_mkdirs_for(const char *path, hb_err *err);

/* Writes LEN bytes to PATH atomically, creating parent folders. */
int hb_write_atomic(const char *path, const void *data, size_t len, hb_err *err);

/* Streaming atomic write: hb_atomic_open returns a FILE* on a temporary file
 * next to PATH; hb_atomic_commit closes, fsyncs and renames it to PATH;
 * hb_atomic_abort closes and removes it. The handle owns a copy of PATH. */
typedef struct hb_atomic {
    FILE *fp;
    char path[4096];
    char tmp[4096];
} hb_atomic;
int hb_atomic_open(hb_atomic *a, const char *path, hb_err *err);
int hb_atomic_commit(hb_atomic *a, hb_err *err);
void hb_atomic_abort(hb_atomic *a);

/* Reads the whole file into a NUL-terminated malloc'd buffer (*out, owned by
 * the caller); *len gets the size without the NUL (may be NULL). */
int hb_read_file(const char *path, char **out, size_t *len, hb_err *err);

/* The most hashbench reads of one submitted file (SPEC §8): sources,
 * headers, hashbench.ini and the kat.sha256 manifest; KAT texts and CAVP
 * vector files. */
#define HB_LIMIT_TEXT (64ULL << 20)
#define HB_LIMIT_VECTORS (256ULL << 20)
#define HB_NO_LIMIT (~0ULL)

/* Opens PATH for reading when it is a regular file of at most LIMIT bytes.
 * A larger file fails with "PATH: N bytes, more than the L MiB limit for
 * WHAT; ..." and anything but a regular file (a FIFO, a device) is refused
 * without blocking. */
FILE *hb_open_limited(const char *path, unsigned long long limit, const char *what,
                      hb_err *err);

/* hb_read_file for a submitted file: at most LIMIT bytes (also when the file
 * grows while it is read), WHAT naming it in the error. */
int hb_read_file_limited(const char *path, unsigned long long limit, const char *what,
                         char **out, size_t *len, hb_err *err);

/* The error of a failed read from a stream of hb_open_limited (errno as
 * the read left it): past the limit, or the system's reason. Returns -1. */
int hb_read_limited_failed(const char *path, unsigned long long limit, const char *what,
                           hb_err *err);

/* Removes below RUN_DIR (following no symbolic link) the temporary files
 * "NAME.tmp.PID" of hb_atomic_open that a process which no longer runs left
 * behind (a campaign killed with SIGKILL); a running process's files are
 * kept (a zombie does not run). *n_removed (may be NULL) gets their number. A missing RUN_DIR is
 * not an error. */
int hb_remove_stale_tmp(const char *run_dir, int *n_removed, hb_err *err);

/* 1 when PATH exists as a regular file / folder, else 0. */
int hb_is_file(const char *path);
int hb_is_dir(const char *path);

/* Removes PATH and everything below it, following no symbolic link, with
 * no limit of depth (entries are removed relative to their folder's
 * descriptor, never by a path built below PATH); a missing PATH is not an
 * error. Returns 0, or -1 with ERR naming PATH and what could not be
 * removed (what could be is gone). */
int hb_remove_tree(const char *path, hb_err *err);

/* Joins A and B with one '/' into OUT (size OUTSZ); fails when it does not fit. */
/* The path of NAME in the folder of this process's executable
 * (/proc/self/exe) into OUT; "" when it cannot be told or does not fit.
 * Returns OUT. */
const char *hb_exe_sibling(const char *name, char *out, size_t outsz);

int hb_path_join(char *out, size_t outsz, const char *a, const char *b, hb_err *err);

/* Last path component of PATH (a pointer into PATH). */
const char *hb_basename(const char *path);

/* Copies the file SRC to DST atomically (creating DST's folders). */
int hb_copy_file(const char *src, const char *dst, hb_err *err);

/* 0 when no process PID runs: none exists, or it has ended and waits to be
 * reaped (a zombie, whose files are as stale as a dead process's); 1
 * otherwise (also where /proc cannot tell). */
int hb_pid_running(long pid);

#endif
