/* The command-line layer: one file per subcommand (cli/<name>.c holds
 * cmd_<name>), dispatched from the single table in main.c. A command parses
 * its options with getopt_long (the options several commands share, and
 * their ranges, are in options.h), calls library code, prints the library's
 * error message and returns the process exit status: 0 success, 1 the work
 * found failures (e.g. instances that failed), 2 a usage or input error. */
#ifndef HB_CLI_CLI_H
#define HB_CLI_CLI_H

#include <stdio.h>

typedef struct hb_command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
    const char *usage; /* full help text, starting with the usage line */
} hb_command;

/* Looks a command up by name; NULL when there is none. */
const hb_command *hb_cli_find(const char *name);

/* Prints "usage: ..." of the command to FP. */
void hb_cli_usage(FILE *fp, const char *name);

/* Prints "hashbench <cmd>: MSG" to stderr, then one line pointing at the
 * command's help (not the help itself: the line that matters stays on the
 * screen), and returns 2 (for usage errors). */
int hb_cli_usage_error(const char *name, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Reads "DATASET [OPT VALUE]" for command NAME (getopt_long, OPT spelled
 * "--name"): the one positional argument into *DATA, the value of option
 * OPT into *VALUE (each left as it was when absent). Returns 0, or the
 * status of hb_cli_usage_error for an unknown option, a missing value or a
 * second folder. */
int hb_cli_dataset_args(const char *name, int argc, char **argv, const char *opt,
                        const char **data, const char **value);

/* Folder holding the hashbench executable (to find hashbench-probe and the
 * bundled files); filled by main(). */
extern char hb_cli_exe_dir[4096];

/* The counts under other compilers (count/count_cc.h) after the count
 * stage of O, for count and run --count: prints what it left out and what
 * it counted, adds the records not counted to *NOT. Returns 0, or -1 with
 * ERR (cli/count.c). */
struct count_options;
struct hb_err;
struct strlist;
int count_compilers(const struct count_options *o, const char *const *cc, int n, int *not,
                    struct hb_err *err);
/* The compilers of a --compilers LIST (comma-separated, or "installed":
 * every gcc and clang on PATH) into *OUT, each checked to run and to build
 * for the architecture of RUN_DIR's build (count/count_cc.h:
 * count_cc_check; MAIN_CC builds it when there is none yet), so that a
 * wrong one is said before any work. Returns 0, or -1 with ERR. */
int count_compilers_list(const char *list, const char *run_dir, const char *main_cc,
                         struct strlist *out, struct hb_err *err);

#define HB_COMMANDS(X) \
    X(init) X(build) X(kat) X(drng) X(clock) X(measure) X(check) X(run) X(merge) \
    X(publish) X(report) X(validate) X(export) X(ct) X(compare) X(count) X(status) \
    X(new) X(soak)

#define HB_DECLARE(name) int cmd_##name(int argc, char **argv); \
    extern const char hb_usage_##name[]; extern const char hb_summary_##name[];
HB_COMMANDS(HB_DECLARE)
#undef HB_DECLARE

#endif
