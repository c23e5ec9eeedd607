/* Helpers for the robustness tests: run the hashbench executable as a user
 * would (output captured, wall-clock bounded), snapshot a folder (every
 * file's relative path and SHA-256) to prove a failing command changed
 * nothing, find processes a run left behind, and read JSON fields. The
 * tests judge hashbench only from outside: its exit status, its output and
 * the files it wrote. Every returned string is malloc'd and owned by the
 * caller. */
#ifndef HB_TESTS_RB_UTIL_H
#define HB_TESTS_RB_UTIL_H

#include <jansson.h>
#include <stddef.h>

/* The hashbench executable and the source tree, from HB_BUILD_DIR and
 * HB_SOURCE_DIR (set by ctest). */
const char *rb_hashbench(void);
const char *rb_source_dir(void);

/* A fresh empty folder under HB_BUILD_DIR/robustness-tmp named after TAG;
 * returns its malloc'd path. */
char *rb_tempdir(const char *tag);

/* Runs hashbench with ARGS (NULL-terminated, without argv[0]), stdout and
 * stderr joined and captured (at most 1 MiB) into *output, killed after
 * TIMEOUT_S. Returns the exit code, or -1 when it did not exit normally
 * (signal or timeout; *output then says how). */
int rb_hashbench_run(const char *const *args, double timeout_s, char **output);

/* "REL sha256\n" for every regular file under DIR (and "REL/ dir\n" for
 * every folder), sorted, so two snapshots compare with strcmp. */
char *rb_snapshot(const char *dir);

/* Removes DIR and everything in it. */
void rb_rmtree(const char *dir);

/* Copies the file SRC to DST, creating DST's folders. Returns 0 or -1. */
int rb_copy(const char *src, const char *dst);

/* Writes TEXT to PATH, creating the folders. Returns 0 or -1. */
int rb_write(const char *path, const char *text);

/* Number of live processes other than this one whose environment holds
 * the exact entry ENTRY ("NAME=VALUE"), or whose command line or working
 * folder mentions PATH (when not NULL). Their pids and command lines are
 * appended to *report (may be NULL). */
int rb_leftover_processes(const char *entry, const char *path, char **report);

/* 1 when process PID exists and is not a zombie. */
int rb_pid_alive(long pid);

/* The number of lines of TEXT (a final line without newline counts). */
int rb_count_lines(const char *text);

/* The string field NAME of OBJ, or "" when missing or not a string. */
const char *rb_str(const json_t *obj, const char *name);

/* The entry of the JSON array ARR whose fields "candidate" (when CAND is
 * not NULL) and "instance" equal the given values, or NULL. */
json_t *rb_find_instance(const json_t *arr, const char *cand, const char *inst);

/* Loads DIR/REL as JSON (NULL when missing or malformed). */
json_t *rb_load_json(const char *dir, const char *rel);

#endif
