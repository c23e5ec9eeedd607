/* Helpers for the robustness tests: run the hashbench executable as a user
 * would (output captured, wall-clock bounded), or contained in a pid
 * namespace of its own so that whatever a hostile library starts or
 * signals stays inside it and can be counted; snapshot a folder (every
 * file's relative path and SHA-256) to prove that nothing changed it; look
 * for strings anywhere under a folder; and read JSON fields. The tests
 * judge hashbench only from outside: its exit status, its output and the
 * files it wrote. Every returned string is malloc'd and owned by the
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

/* How a contained run went (rb_contained_run). */
typedef struct rb_contained {
    int started;        /* 0: the namespace could not be made (see report) */
    int exited;         /* 1: hashbench exited with exit_code */
    int exit_code;
    int signo;          /* the signal that ended it, when it did not exit */
    int timed_out;      /* 1: still running at the limit, so everything was killed */
    int killed;         /* 1: KILL_WHEN asked for it and hashbench got SIGKILL */
    double seconds;     /* hashbench's wall time */
    long maxrss_kb;     /* the largest resident set of any process it started */
    int leftovers;      /* processes alive in the namespace after it ended */
    char *report;       /* their pids and command lines, or why nothing ran */
} rb_contained;

/* Runs hashbench ARGS in a new pid namespace with its own /proc (a mount
 * namespace; when not root, also a user namespace mapping only our own
 * ids) whose init reaps every orphan, with the working folder CWD, stdout
 * and stderr to OUT_PATH, and RLIMIT_AS lowered to AS_NET bytes (0:
 * unchanged) as a net under hashbench's own limits. KILL_WHEN (may be NULL) is polled every 20 ms while it runs: when
 * it returns 1, hashbench gets SIGKILL. Everything is killed after
 * LIMIT_S. When hashbench has ended, waits SETTLE_S, counts the processes
 * still alive in the namespace, then ends it (which kills them). Returns 0
 * when the namespace ran, -1 when it could not be made. */
int rb_contained_run(const char *const *args, const char *cwd, const char *out_path,
                     double limit_s, unsigned long long as_net, double settle_s,
                     int (*kill_when)(void *), void *kill_arg, rb_contained *res);

/* "REL sha256\n" for every regular file under DIR ("REL size N mtime T" for
 * files above 16 MiB, which are not read), "REL/ dir\n" for every folder
 * and "REL -> TARGET\n" for every symbolic link, sorted, so two snapshots
 * compare with strcmp. */
char *rb_snapshot(const char *dir);

/* Lines of A and B that differ ("- line" / "+ line"), at most MAX of them. */
char *rb_snapshot_diff(const char *a, const char *b, int max);

/* Looks for each of the N NEEDLES (case-insensitively) in every regular
 * file under DIR (symbolic links not followed, files read up to 256 MiB).
 * Returns the number of hits and appends "FILE: NAME\n" lines to *report,
 * NAME being NAMES[i] (the needles themselves may be secrets). */
int rb_tree_grep(const char *dir, const char *const *needles, const char *const *names,
                 int n, char **report);

/* Relative paths of the entries under DIR (symbolic links not followed)
 * whose name contains PART, one per line; NULL when there is none. */
char *rb_find_names(const char *dir, const char *part);

/* Removes DIR and everything in it. */
void rb_rmtree(const char *dir);

/* Copies the file SRC to DST, creating DST's folders. Returns 0 or -1. */
int rb_copy(const char *src, const char *dst);

/* Copies the tree SRC to DST (folders, regular files and symbolic links as
 * they are). Returns 0 or -1. */
int rb_copy_tree(const char *src, const char *dst);

/* Writes TEXT to PATH, creating the folders. Returns 0 or -1. */
int rb_write(const char *path, const char *text);

/* The whole file PATH, NUL-terminated, or NULL. */
char *rb_read(const char *path);

/* Number of live processes other than this one whose environment holds
 * the exact entry ENTRY ("NAME=VALUE"), or whose command line, working
 * folder or mapped files mention PATH (when not NULL). Their pids and command lines are
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

/* Appends the printf-formatted text to *buf (a malloc'd string or NULL). */
void rb_appendf(char **buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
