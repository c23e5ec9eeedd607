/* hashbench's entry point: the table of subcommands, `help`, `--version`,
 * and dispatch. Each command lives in its own file in this folder. */
#include "cli/cli.h"
#include "common/proc.h"
#include "cli/options.h"
#include "sandbox/check.h"
#include "sandbox/warden.h"
#include "sandbox/sandbox.h"

#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

char hb_cli_exe_dir[4096] = ".";

static int cmd_help(int argc, char **argv);
static int cmd_version(int argc, char **argv);

static const char hb_summary_help[] = "show the commands, or one command's help";
static const char hb_usage_help[] = "usage: hashbench help [COMMAND]\n";
static const char hb_summary_version[] = "print the version";
static const char hb_usage_version[] = "usage: hashbench version\n";

static const hb_command commands[] = {
#define HB_ENTRY(name) {#name, cmd_##name, hb_summary_##name, hb_usage_##name},
    HB_COMMANDS(HB_ENTRY)
#undef HB_ENTRY
    {"help", cmd_help, hb_summary_help, hb_usage_help},
    {"version", cmd_version, hb_summary_version, hb_usage_version},
};

const hb_command *hb_cli_find(const char *name)
{
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

void hb_cli_usage(FILE *fp, const char *name)
{
    const hb_command *c = hb_cli_find(name);
    if (c)
        fputs(c->usage, fp);
}

int hb_cli_usage_error(const char *name, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "hashbench %s: ", name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nsee hashbench help %s (or hashbench %s --help)\n", name, name);
    return 2;
}

int hb_cli_dataset_args(const char *name, int argc, char **argv, const char *opt,
                        const char **data, const char **value)
{
    const struct option longopts[] = {
        {opt + 2, required_argument, NULL, HB_OPT_OWN}, HB_OPTIONS_END};
    hb_err err;
    int ch;
    hb_opt_start();
    while ((ch = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        if (ch != HB_OPT_OWN) {
            hb_opt_getopt_error(ch, argv, &err);
            return hb_cli_usage_error(name, "%s", err.msg);
        }
        *value = optarg;
    }
    for (int i = optind; i < argc; i++) {
        if (*data)
            return hb_cli_usage_error(name, "one dataset folder only ('%s')", argv[i]);
        *data = argv[i];
    }
    return 0;
}

static void list_commands(FILE *fp)
{
    fprintf(fp, "usage: hashbench [--version] COMMAND [OPTIONS]\n\n"
                "hashbench assesses hash implementations submitted in the "
                "official package layout:\nbuild, KAT, measurement, reports.\n\n"
                "commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(fp, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(fp, "\nbuild, kat, measure and run execute submitted code in a sandbox\n"
                "(bubblewrap and a seccomp filter; docs/THREAT_MODEL.md). They refuse to\n"
                "start when it cannot be set up; --no-sandbox runs the code unisolated\n"
                "and is recorded in build.json, kat.json and campaign.json.\n"
                "\n'hashbench help COMMAND' shows one command's options.\n");
}

static int cmd_help(int argc, char **argv)
{
    if (argc < 2) {
        list_commands(stdout);
        return 0;
    }
    const hb_command *c = hb_cli_find(argv[1]);
    if (!c) {
        fprintf(stderr, "hashbench help: no command '%s'; 'hashbench help' "
                        "lists them\n", argv[1]);
        return 2;
    }
    fputs(c->usage, stdout);
    return 0;
}

static int cmd_version(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("hashbench %s\n", HB_VERSION);
    return 0;
}

static void find_exe_dir(const char *argv0)
{
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n > 0) {
        buf[n] = '\0';
    } else {
        snprintf(buf, sizeof buf, "%s", argv0);
    }
    snprintf(hb_cli_exe_dir, sizeof hb_cli_exe_dir, "%s", dirname(buf));
}

/* The commands that run submitted code (the compiler on its sources, its
 * library): they take --no-sandbox, and refuse to start when the sandbox
 * cannot be set up. */
static int runs_submitted_code(const char *name)
{
    static const char *const names[] = {"build", "kat", "measure", "run", "ct", "count", "soak",
                                        "init"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0)
            return 1;
    return 0;
}

/* Takes --no-sandbox out of ARGV (it may stand anywhere after the command
 * name) and checks that the sandbox can run. Returns 0, or the exit status. */
static int sandbox_option(const char *name, int *argc, char **argv)
{
    int out = 1;
    for (int i = 1; i < *argc; i++) {
        if (strcmp(argv[i], "--no-sandbox") == 0)
            hb_sandbox_set_enabled(0);
        else
            argv[out++] = argv[i];
    }
    argv[out] = NULL;
    *argc = out;
    hb_err err;
    if (hb_sandbox_check(&err) != 0) {
        fprintf(stderr, "hashbench %s: %s\n", name, err.msg);
        return 2;
    }
    if (!hb_sandbox_enabled())
        fprintf(stderr, "hashbench %s: --no-sandbox: submitted code runs without "
                "isolation, as this user; the records say so\n", name);
    hb_sandbox_describe(); /* once, before any thread starts */
    return 0;
}

int main(int argc, char **argv)
{
    find_exe_dir(argv[0]);
    hb_proc_protect_self(); /* submitted code is killed first when memory runs out */
    if (argc < 2) {
        list_commands(stderr);
        return 2;
    }
    const char *name = argv[1];
    if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0)
        return cmd_version(argc - 1, argv + 1);
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0)
        return cmd_help(argc - 1, argv + 1);
    const hb_command *c = hb_cli_find(name);
    if (!c) {
        fprintf(stderr, "hashbench: no command '%s'; 'hashbench help' lists "
                        "them\n", name);
        return 2;
    }
    if (argc > 2 && (strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0)) {
        fputs(c->usage, stdout);
        return 0;
    }
    int n = argc - 1;
    if (runs_submitted_code(name)) {
        /* first: it may execute this program again, and its watcher must
         * hold nothing the command opens */
        hb_warden_start(argv);
        int rc = sandbox_option(name, &n, argv + 1);
        if (rc != 0)
            return rc;
    }
    int rc = c->run(n, argv + 1);
    hb_warden_finish();
    return rc;
}
