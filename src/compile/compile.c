/* One compiler run per instance, and the compiler's identity: see
 * compile.h. Nothing here goes through a shell; the argument vector is
 * built word by word and handed to execv by hb_proc_exec. */
#include "compile/compile.h"
#include "compile/diag.h"
#include "common/untrusted.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compile/discover.h"
#include "count/count_syms.h"
#include "common/fs.h"
#include "common/proc.h"
#include "common/walk.h"
#include "sandbox/sandbox.h"
#include "sandbox/stage.h"

#define COMPILE_OUTPUT_CAP (256u * 1024u)
#define COMPILE_FSIZE_CAP (512ull << 20)
/* The address space of each compiler process (driver, cc1, as, ld): a
 * preprocessor bomb ends as a failed compile, not as a host out of memory. */
#define COMPILE_AS_CAP (4ull << 30)
/* Where the sandboxed compiler writes the library. */
#define COMPILE_OUT_INSIDE "/out"
/* What the compiler's step may leave in its output folder (a host folder,
 * read back): the library and the two export files, within a few entries,
 * and no more bytes than one file may hold (RLIMIT_FSIZE bounds each file
 * while the step runs; this count, made after it, bounds the folder). */
#define COMPILE_OUT_MAX_ENTRIES 16
#define COMPILE_OUT_MAX_BYTES (COMPILE_FSIZE_CAP + (1ull << 20))

/* The compiler runs with the package as its working folder, so neither it
 * nor the programs it starts (as, ld, ...) may be found through a relative
 * path: that would run a file the package ships. Drops the empty and
 * relative entries of PATH (setenv: call from a single thread). */
static int drop_relative_path_entries(hb_err *err)
{
    const char *path = getenv("PATH");
    if (!path)
        return 0;
    size_t n = strlen(path);
    char *kept = malloc(n + 1), *dirs = strdup(path);
    if (!kept || !dirs) {
        free(kept);
        free(dirs);
        return hb_fail(err, "out of memory");
    }
    kept[0] = '\0';
    for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d;
         d = strtok_r(NULL, ":", &save)) {
        if (d[0] != '/')
            continue;
        if (kept[0])
            strcat(kept, ":");
        strcat(kept, d);
    }
    int rc = 0; /* kept differs from path exactly when an entry was dropped */
    if (strcmp(kept, path) != 0 && setenv("PATH", kept[0] ? kept : "/usr/bin:/bin", 1) != 0)
        rc = hb_fail_errno(err, "cannot set PATH");
    free(kept);
    free(dirs);
    return rc;
}

/* Looks NAME up on PATH (or takes it as a path when it holds a '/') and
 * puts an absolute path into OUT (symbolic links are kept, so that a
 * compiler wrapper that looks at its own name still works). */
static int find_executable(const char *name, char *out, size_t outsz, hb_err *err)
{
    if (strchr(name, '/')) {
        if (access(name, X_OK) != 0 || !hb_is_file(name))
            return hb_fail(err, "compiler %s is not an executable file; give "
                           "another with --cc", name);
        while (name[0] == '.' && name[1] == '/')
            name += 2;
        char cwd[PATH_MAX];
        if (name[0] == '/')
            cwd[0] = '\0';
        else if (!getcwd(cwd, sizeof cwd))
            return hb_fail_errno(err, "cannot read the current folder");
        if (snprintf(out, outsz, "%s%s%s", cwd, cwd[0] ? "/" : "", name) >= (int)outsz)
            return hb_fail(err, "compiler path too long: give a shorter --cc");
        return 0;
    }
    const char *path = getenv("PATH");
    char dirs[8192];
    snprintf(dirs, sizeof dirs, "%s", path && *path ? path : "/usr/bin:/bin");
    for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d;
         d = strtok_r(NULL, ":", &save)) {
        if (snprintf(out, outsz, "%s/%s", d, name) < (int)outsz &&
            access(out, X_OK) == 0 && hb_is_file(out))
            return 0;
    }
    return hb_fail(err, "compiler '%s' not found on PATH; install it or give "
                   "another with --cc", name);
}

/* Runs PATH ARG and keeps the first line of its output in OUT. */
static int first_line_of(const char *path, const char *arg, char *out,
                         size_t outsz, hb_err *err)
{
    char *argv[] = {(char *)path, (char *)arg, NULL};
    char *text = NULL, how[128];
    hb_proc_opts o = hb_proc_defaults();
    o.timeout_s = 30;
    o.capture = &text;
    o.capture_cap = 65536;
    hb_proc_result r;
    if (hb_proc_exec(argv, &o, &r, err) != 0)
        return -1;
    int ok = r.exited && r.exit_code == 0 && text && text[0];
    if (ok) {
        text[strcspn(text, "\r\n")] = '\0';
        snprintf(out, outsz, "%s", text);
    }
    free(text);
    if (!ok)
        return hb_fail(err, "%s %s failed (%s); is it a C compiler? give another "
                       "with --cc", path, arg, hb_proc_describe(&r, how, sizeof how));
    return 0;
}

/* 1 when the compiler at PATH accepts FLAG (checked on an empty C input,
 * warnings as errors, so that a compiler which ignores an unknown option
 * with a warning counts as not having it). */
static int accepts_flag(const char *path, const char *flag)
{
    char *argv[] = {(char *)path, (char *)flag, "-Werror", "-fsyntax-only", "-x", "c",
                    "/dev/null", NULL};
    char *text = NULL;
    hb_err ignored;
    hb_proc_opts o = hb_proc_defaults();
    o.timeout_s = 30;
    o.capture = &text;
    o.capture_cap = 65536;
    o.stderr_to_stdout = 1;
    hb_proc_result r;
    int ok = hb_proc_exec(argv, &o, &r, &ignored) == 0 && r.exited && r.exit_code == 0;
    free(text);
    return ok;
}

int compile_toolchain_probe(const char *cc, compile_toolchain *tc, hb_err *err)
{
    memset(tc, 0, sizeof *tc);
    if (strlen(cc) >= sizeof tc->name)
        return hb_fail(err, "compiler name too long: give a shorter --cc");
    snprintf(tc->name, sizeof tc->name, "%s", cc);
    if (drop_relative_path_entries(err) != 0 ||
        find_executable(cc, tc->path, sizeof tc->path, err) != 0 ||
        first_line_of(tc->path, "--version", tc->version, sizeof tc->version, err) != 0 ||
        first_line_of(tc->path, "-dumpmachine", tc->target, sizeof tc->target, err) != 0)
        return -1;
    tc->no_semantic_interposition = accepts_flag(tc->path, "-fno-semantic-interposition");
    if (strchr(cc, '/')) /* a relative path means nothing to a later stage */
        snprintf(tc->name, sizeof tc->name, "%s", tc->path);
    size_t n = strcspn(tc->target, "-");
    if (n >= sizeof tc->arch)
        n = sizeof tc->arch - 1;
    memcpy(tc->arch, tc->target, n);
    tc->arch[n] = '\0';
    return 0;
}

/* Appends PREFIX+word for each word of WORDS (may be NULL). */
static int push_prefixed(strlist *flags, const char *prefix, const strlist *words)
{
    for (int i = 0; words && i < words->n; i++) {
        char *w = malloc(strlen(prefix) + strlen(words->v[i]) + 1);
        if (!w)
            return -1;
        strcpy(w, prefix);
        strcat(w, words->v[i]);
        int rc = strlist_push(flags, w);
        free(w);
        if (rc != 0)
            return -1;
    }
    return 0;
}

#define COMPILE_EXPORT_SCRATCH_PREFIX "hashbench_"

void compile_export_prefix(const char *library, char *out, size_t outsz)
{
    if (hb_sandbox_enabled())
        snprintf(out, outsz, "%s/%s", COMPILE_OUT_INSIDE, COMPILE_EXPORT_SCRATCH_PREFIX);
    else
        snprintf(out, outsz, "%s.", library);
}

/* The texts of the two files (compile.h); the header is skipped by the
 * preprocessor of assembly sources (.S), which -include reaches too. */
static const char export_map_text[] =
    "/* hashbench: the library exports CryptHash alone */\n"
    "{ global: CryptHash; local: *; };\n";
static const char visibility_h_text[] =
    "/* hashbench: CryptHash stays visible under -fvisibility=hidden */\n"
    "#ifndef __ASSEMBLER__\n"
    "#pragma GCC system_header\n"
    "#pragma GCC visibility push(default)\n"
    "int CryptHash();\n"
    "#pragma GCC visibility pop\n"
    "#endif\n";

/* Pushes OPTION PREFIX NAME as one word. */
static int push_path(strlist *flags, const char *option, const char *prefix, const char *name)
{
    char w[PATH_MAX + 64];
    if (snprintf(w, sizeof w, "%s%s%s", option, prefix, name) >= (int)sizeof w)
        return -1;
    return strlist_push(flags, w);
}

int compile_make_flags(const compile_toolchain *tc, const char *profile_flags,
                       enum compile_added added, const char *export_prefix,
                       const strlist *defines, const strlist *includes, strlist *flags)
{
    char *words = strdup(profile_flags);
    if (!words)
        return -1;
    int rc = 0;
    for (char *save = NULL, *w = strtok_r(words, " ", &save); w && rc == 0;
         w = strtok_r(NULL, " ", &save))
        rc = strlist_push(flags, w);
    free(words);
    if (rc == 0 && added == COMPILE_ADDED_ALL)
        rc = strlist_push(flags, "-fvisibility=hidden") ||
             strlist_push(flags, "-include") ||
             push_path(flags, "", export_prefix, COMPILE_VISIBILITY_H);
    if (rc == 0 && added != COMPILE_ADDED_NONE && tc->no_semantic_interposition)
        rc = strlist_push(flags, "-fno-semantic-interposition");
    if (rc == 0 && added != COMPILE_ADDED_NONE)
        rc = push_path(flags, "-Wl,--version-script=", export_prefix, COMPILE_EXPORT_MAP);
    if (rc == 0)
        rc = push_prefixed(flags, "-D", defines);
    if (rc == 0)
        rc = push_prefixed(flags, "-I", includes);
    return rc;
}

/* Writes WORD to FP, single-quoted when a shell would need it. */
static void put_word(FILE *fp, const char *word)
{
    int plain = word[0] != '\0';
    for (const char *c = word; plain && *c; c++)
        plain = isalnum((unsigned char)*c) || strchr("_-./=+,:@%", *c);
    if (plain) {
        fputs(word, fp);
        return;
    }
    fputc('\'', fp);
    for (const char *c = word; *c; c++) {
        if (*c == '\'')
            fputs("'\\''", fp);
        else
            fputc(*c, fp);
    }
    fputc('\'', fp);
}

/* The argument vector: compiler, flags, -o TMP, sources. A source whose
 * name starts with '-' gets a leading "./" so that it cannot pass for an
 * option. */
static int make_argv(const compile_job *job, const char *tmp, strlist *argv)
{
    if (strlist_push(argv, job->tc->path) || strlist_push_all(argv, job->flags) ||
        strlist_push(argv, "-o") || strlist_push(argv, tmp))
        return -1;
    for (int i = 0; i < job->sources->n; i++) {
        const char *src = job->sources->v[i];
        char safe[PATH_MAX];
        if (src[0] == '-' && snprintf(safe, sizeof safe, "./%s", src) < (int)sizeof safe)
            src = safe;
        else if (src[0] == '-')
            return -1;
        if (strlist_push(argv, src) != 0)
            return -1;
    }
    return 0;
}

static void put_command(FILE *fp, const strlist *argv, const compile_job *job)
{
    fputs("$ ", fp);
    for (int i = 0; i < argv->n; i++) {
        if (i)
            fputc(' ', fp);
        put_word(fp, argv->v[i]);
    }
    fprintf(fp, "\n" COMPILE_LOG_WORKDIR "%s/\n", job->package);
    for (int i = 0; job->excluded && i < job->excluded->n; i++)
        fprintf(fp, "# left out: %s\n", job->excluded->v[i]);
}

/* Checks the freshly compiled TMP and moves it to the final name. */
static void finish_library(const compile_job *job, const char *tmp,
                           compile_outcome *out, FILE *log)
{
    hb_err e;
    unsigned long long blanked = 0;
    /* the functions' names for the count's shares, before the symbol
     * table is zeroed (count/count_syms.h) */
    json_t *syms = NULL;
    if (job->keep_unloaded || count_syms_read(tmp, &syms, &e) != 0)
        syms = NULL; /* a build that keeps its symbol table names them itself */
    /* what is measured, checked and timed is the loaded image alone */
    if ((!job->keep_unloaded && elfsize_blank_unloaded(tmp, &blanked, &e) != 0) ||
        compile_inspect(tmp, out, &e) != 0) {
        snprintf(out->reason, sizeof out->reason, "%s", e.msg);
    } else if (!out->built) {
        snprintf(out->reason, sizeof out->reason, "the library does not export "
                 "CryptHash; define int CryptHash(...) with external linkage");
    } else if (rename(tmp, job->library) != 0) {
        out->built = 0;
        snprintf(out->reason, sizeof out->reason, "cannot rename the library "
                 "into %s", job->library);
    } else if (syms && count_syms_write(job->library, syms, &e) != 0) {
        fprintf(log, "# functions' names not kept for the count: %s\n", e.msg);
    }
    json_decref(syms);
    if (blanked)
        fprintf(log, "# bytes never loaded, zeroed: %llu (symbol tables, comments)\n", blanked);
    fprintf(log, "# CryptHash exported: %s\n", out->built ? "yes" : "no");
}

/* 1 when LINE (N bytes) only reports that an earlier step failed (the
 * driver's "collect2: error: ld returned 1 exit status", clang's "linker
 * command failed"): the cause is on an earlier line. */
static int is_summary_line(const char *line, size_t n)
{
    static const char *const summaries[] = {"collect2:", "ld returned",
        "linker command failed", "lto-wrapper: fatal error", "compilation terminated"};
    for (size_t i = 0; i < sizeof summaries / sizeof summaries[0]; i++) {
        const char *hit = strstr(line, summaries[i]);
        if (hit && hit < line + n)
            return 1;
    }
    return 0;
}

/* 1 when LINE (N bytes) says what is wrong: a compiler's "error" or a
 * linker's complaint, which does not always hold the word. */
static int is_cause_line(const char *line, size_t n)
{
    static const char *const causes[] = {"error", "multiple definition of",
        "undefined reference to", "cannot find -l", "undefined symbol"};
    if (is_summary_line(line, n))
        return 0;
    for (size_t i = 0; i < sizeof causes / sizeof causes[0]; i++) {
        const char *hit = strstr(line, causes[i]);
        if (hit && hit + strlen(causes[i]) <= line + n)
            return 1;
    }
    return 0;
}

/* The symbol a linker's "multiple definition of `NAME'" complaint in
 * CAUSE names, into NAME ("" when CAUSE is not such a complaint). */
static void twice_defined(const char *cause, char *name, size_t size)
{
    const char *p = strstr(cause, "multiple definition of");
    name[0] = '\0';
    if (!p)
        return;
    p += strlen("multiple definition of");
    p += strspn(p, " `'\"\xe2\x80\x98"); /* ` ' " or a typographic quote */
    size_t n = strcspn(p, "`'\" ;\xe2");
    if (n >= size)
        n = size - 1;
    memcpy(name, p, n);
    name[n] = '\0';
}

/* Appends to REASON (of SIZE bytes) what to change when several of the
 * job's sources define CryptHash, or the linker found a function defined
 * twice (several variant files of one folder). The way out depends on
 * where the source list came from: for a discovered instance, an override
 * file (hashbench init writes one, split per variant file); for a section
 * of hashbench.ini (written by hand or by init), that section's sources,
 * never init again. */
static void append_override_hint(const compile_job *job, const char *cause,
                                 char *reason, size_t size)
{
    char names[512] = "", twice[128];
    size_t used = 0;
    int defs = 0;
    for (int i = 0; i < job->sources->n; i++) {
        char path[PATH_MAX], *text = NULL;
        hb_err ignored;
        if (snprintf(path, sizeof path, "%s/%s", job->package, job->sources->v[i]) >=
                (int)sizeof path ||
            hb_read_file_limited(path, HB_LIMIT_TEXT, "a source file", &text, NULL,
                                 &ignored) != 0)
            continue;
        if (discover_defines_crypthash(text)) {
            defs++;
            if (used < sizeof names)
                used += (size_t)snprintf(names + used, sizeof names - used, "%s%s",
                                         used ? ", " : "", hb_basename(job->sources->v[i]));
        }
        free(text);
    }
    twice_defined(cause, twice, sizeof twice);
    if (defs < 2 && !twice[0])
        return;
    size_t n = strlen(reason);
    if (defs >= 2)
        n += (size_t)snprintf(reason + n, n < size ? size - n : 0, "; %d of its sources "
                              "define CryptHash (%s)", defs, names);
    else
        n += (size_t)snprintf(reason + n, n < size ? size - n : 0, "; a function is "
                              "defined in more than one of its sources (the linker's "
                              "message names it)");
    if (n >= size)
        return;
    if (job->override_at)
        snprintf(reason + n, size - n, ": each library links one variant, so list in %s "
                 "only one of the files that define %s, and give each other one a section "
                 "of its own (same dir, its own name and digest_bits; docs/OVERRIDE.md)",
                 job->override_at, defs >= 2 ? "CryptHash" : "that function");
    else
        snprintf(reason + n, size - n, ": the folder probably %s, so an override file "
                 "is needed: hashbench init %s writes one with a section per variant "
                 "file (docs/OVERRIDE.md)", defs >= 2 ? "serves several instances"
                 : "holds several variant files", job->package);
}

/* The first line of OUTPUT that says what is wrong (a compiler error or a
 * linker complaint such as "multiple definition of", never the driver's
 * "ld returned 1 exit status" summary, which is taken only when nothing
 * else is there), cut to 300 characters, into CAUSE ("" when none). */
static void first_cause(const char *output, char *cause, size_t size)
{
    const char *line = output ? output : "", *fallback = NULL;
    size_t n = 0, fallback_n = 0;
    while (*line) {
        n = strcspn(line, "\n");
        if (is_cause_line(line, n))
            break;
        if (!fallback && is_summary_line(line, n)) {
            fallback = line;
            fallback_n = n;
        }
        line += n + (line[n] == '\n');
        n = 0;
    }
    if (n == 0 && fallback) {
        line = fallback;
        n = fallback_n;
    }
    if (n > 300)
        n = 300;
    snprintf(cause, size, "%.*s", (int)n, line);
}

/* The reason of a failed compile: HOW, plus the first line of OUTPUT that
 * says what is wrong (first_cause), and when the folder looks like it
 * serves several instances, what to change (append_override_hint). */
static void compile_failure_reason(const compile_job *job, const char *output,
                                   const char *how, char *reason, size_t size)
{
    char cause[320], where[160];
    first_cause(output, cause, sizeof cause);
    /* the cause quotes the submitted source: its location and class are
     * hashbench's wording, its text is raw (compile/diag.h) */
    if (diag_parse(cause, strlen(cause), where, sizeof where))
        snprintf(reason, size, "compiler failed (%s): %s", how, where);
    else
        snprintf(reason, size, "compiler failed (%s)", how);
    append_override_hint(job, cause, reason, size);
    size_t len = strlen(reason);
    snprintf(reason + len, size - len, "; see the log");
    hb_untrusted_append(reason, size, cause, sizeof cause);
}

/* OUTPUT into LOG, each line behind DIAG_OUTPUT_PREFIX. */
static void put_output(FILE *log, const char *output)
{
    for (const char *l = output; l && *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0))
        fprintf(log, DIAG_OUTPUT_PREFIX "%.*s\n", (int)strcspn(l, "\n"), l);
}

/* The sandbox of a compile (SPEC §8): the package read-only at its own
 * path and as the working folder, a scratch folder at /out for the library,
 * and a compiler that lives outside /usr: its installation folder (the one
 * above its bin/) as it is when the sandbox can reach it, else a copy of
 * the compiler file alone (enough for a wrapper script). ROOT receives the
 * folder's path. */
static void compile_sandbox(const compile_job *job, const char *scratch, char *root,
                            size_t rootsz, hb_sandbox *sb)
{
    char real[PATH_MAX];
    memset(sb, 0, sizeof *sb);
    sb->profile = HB_SANDBOX_COMPILE;
    sb->ro[sb->n_ro++] = job->package;
    sb->rw = scratch;
    sb->rw_at = COMPILE_OUT_INSIDE;
    sb->cwd = job->package;
    root[0] = '\0';
    if (realpath(job->tc->path, real) && strncmp(real, "/usr/", 5) != 0) {
        /* <root>/bin/<cc>: the folder above bin holds its helpers */
        char *slash = strrchr(real, '/');
        if (slash)
            *slash = '\0';
        slash = strrchr(real, '/');
        if (slash && slash != real)
            *slash = '\0';
        snprintf(root, rootsz, "%s", real);
        if (hb_stage_reachable(root))
            sb->ro_direct = root;
        else
            sb->ro[sb->n_ro++] = job->tc->path;
    }
}

/* Writes the version script and the visibility header (compile.h) into
 * SCRATCH, or without the sandbox beside LIBRARY, where
 * compile_export_prefix said the compiler finds them. */
static int write_export_files(const char *scratch, const char *library, hb_err *err)
{
    char prefix[PATH_MAX], map[PATH_MAX + 64], hdr[PATH_MAX + 64];
    if (scratch) {
        if (hb_path_join(prefix, sizeof prefix, scratch, COMPILE_EXPORT_SCRATCH_PREFIX, err) < 0)
            return -1;
    } else {
        compile_export_prefix(library, prefix, sizeof prefix);
    }
    snprintf(map, sizeof map, "%s%s", prefix, COMPILE_EXPORT_MAP);
    snprintf(hdr, sizeof hdr, "%s%s", prefix, COMPILE_VISIBILITY_H);
    if (hb_write_atomic(map, export_map_text, sizeof export_map_text - 1, err) != 0 ||
        hb_write_atomic(hdr, visibility_h_text, sizeof visibility_h_text - 1, err) != 0)
        return -1;
    return 0;
}

/* Notes in LOG the text of the two files the compiler was given. */
static void note_export_files(FILE *log)
{
    const char *names[] = {"version script (" COMPILE_EXPORT_MAP ")",
                           "visibility header (" COMPILE_VISIBILITY_H ")"};
    const char *texts[] = {export_map_text, visibility_h_text};
    for (int i = 0; i < 2; i++) {
        fprintf(log, "# %s:\n", names[i]);
        for (const char *l = texts[i]; *l; l += strcspn(l, "\n") + 1)
            fprintf(log, "# | %.*s\n", (int)strcspn(l, "\n"), l);
    }
}

typedef struct out_count {
    unsigned long entries;
    unsigned long long bytes;
} out_count;

static int count_entry(const hb_walk_entry *e, void *ctx, hb_err *err)
{
    (void)err;
    out_count *c = ctx;
    c->entries++;
    if (e->type == HB_WALK_FILE)
        c->bytes += (unsigned long long)e->st->st_size;
    /* past the bound the count stops: the verdict is known */
    return c->entries > COMPILE_OUT_MAX_ENTRIES ? -2 : HB_WALK_CONTINUE;
}

/* Checks what the compiler's step left in SCRATCH against the bounds above;
 * 0, or 1 with the reason in WHY. */
static int check_output_folder(const char *scratch, char *why, size_t whysz)
{
    out_count c = {0, 0};
    hb_err ignored;
    int rc = hb_walk(scratch, HB_WALK_MAX_DEPTH, 0, count_entry, &c, &ignored);
    if (c.entries > COMPILE_OUT_MAX_ENTRIES) {
        snprintf(why, whysz, "the compiler's step left more than %d files and folders in "
                 "its output folder", COMPILE_OUT_MAX_ENTRIES);
        return 1;
    }
    if (rc != 0 || c.bytes > COMPILE_OUT_MAX_BYTES) {
        snprintf(why, whysz, "the compiler's step left %s in its output folder (at most "
                 "%llu MiB)", rc != 0 ? "entries hashbench cannot read" : "too many bytes",
                 COMPILE_OUT_MAX_BYTES >> 20);
        return 1;
    }
    return 0;
}

/* Removes the compiler's output folder; a failure is an error. */
static int remove_scratch(const char *scratch, int rc, hb_err *err)
{
    hb_err e;
    if (!scratch[0] || hb_stage_scratch_remove(scratch, &e) == 0)
        return rc;
    if (rc == 0)
        *err = e;
    return -1;
}

/* Runs the compiler of JOB, writing the library to TMP (directly, or via
 * the sandbox's scratch folder), with its output in *OUTPUT. When the step
 * left more in its output folder than it may, no library is taken and
 * REFUSED (REFUSEDSZ bytes) says why; else REFUSED is "". */
static int run_compiler(const compile_job *job, const char *tmp, FILE *log, char **output,
                        hb_proc_result *r, char *refused, size_t refusedsz, hb_err *err)
{
    char scratch[PATH_MAX] = "", inside[PATH_MAX], made[PATH_MAX], root[PATH_MAX];
    int sandboxed = hb_sandbox_enabled();
    strlist argv = {0};
    hb_sandbox sb;
    refused[0] = '\0';
    if (sandboxed && hb_stage_scratch(scratch, sizeof scratch, err) != 0)
        return -1;
    if (write_export_files(sandboxed ? scratch : NULL, job->library, err) != 0)
        return remove_scratch(scratch, -1, err);
    if (hb_path_join(inside, sizeof inside, COMPILE_OUT_INSIDE, hb_basename(tmp), err) < 0)
        return remove_scratch(scratch, -1, err);
    if (make_argv(job, sandboxed ? inside : tmp, &argv) != 0) {
        strlist_free(&argv);
        return remove_scratch(scratch, hb_fail(err, "out of memory"), err);
    }
    put_command(log, &argv, job);
    note_export_files(log);
    fflush(log);
    hb_proc_opts o = hb_proc_defaults();
    o.timeout_s = job->timeout_s > 0 ? job->timeout_s : COMPILE_TIMEOUT_S;
    o.cpu_s = (unsigned long)o.timeout_s;
    o.as_bytes = COMPILE_AS_CAP;
    o.fsize_bytes = COMPILE_FSIZE_CAP;
    o.cwd = job->package;
    o.capture = output;
    o.capture_cap = COMPILE_OUTPUT_CAP;
    o.stderr_to_stdout = 1;
    if (sandboxed) {
        compile_sandbox(job, scratch, root, sizeof root, &sb);
        o.sandbox = &sb;
    }
    unlink(tmp);
    int rc = hb_proc_exec(argv.v, &o, r, err);
    strlist_free(&argv);
    if (rc == 0 && sandboxed && check_output_folder(scratch, refused, refusedsz) == 0 &&
        r->exited && r->exit_code == 0) {
        if (hb_path_join(made, sizeof made, scratch, hb_basename(tmp), err) < 0 ||
            (hb_is_file(made) && hb_copy_file(made, tmp, err) != 0))
            rc = -1;
    }
    return remove_scratch(scratch, rc, err);
}

int compile_instance(const compile_job *job, compile_outcome *out, hb_err *err)
{
    memset(out, 0, sizeof *out);
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s.part", job->library) >= (int)sizeof tmp)
        return hb_fail(err, "%s: path too long", job->library);
    if (hb_mkdirs_for(job->library, err) != 0)
        return -1;
    char *text = NULL, *output = NULL, how[128];
    size_t len = 0;
    FILE *log = open_memstream(&text, &len);
    if (!log)
        return hb_fail(err, "out of memory");
    hb_proc_result r;
    char refused[200];
    int rc = run_compiler(job, tmp, log, &output, &r, refused, sizeof refused, err);
    if (rc == 0) {
        put_output(log, output);
        if (r.truncated)
            fprintf(log, "\n# (compiler output cut at %u bytes)\n", COMPILE_OUTPUT_CAP);
        fprintf(log, "# compiler: %s after %.1f s\n", hb_proc_describe(&r, how, sizeof how),
                r.wall_s);
        if (refused[0])
            snprintf(out->reason, sizeof out->reason, "%s", refused);
        else if (r.exited && r.exit_code == 0 && hb_is_file(tmp))
            finish_library(job, tmp, out, log);
        else if (r.exited && r.exit_code == 0)
            snprintf(out->reason, sizeof out->reason, "the compiler wrote no library");
        else
            compile_failure_reason(job, output, how, out->reason, sizeof out->reason);
        fprintf(log, "# result: %s%s%.*s\n", out->built ? "BUILT" : "BUILDFAIL",
                out->built ? "" : ": ", (int)hb_untrusted_split(out->reason, NULL),
                out->built ? "" : out->reason);
    }
    free(output);
    unlink(tmp);
    fclose(log);
    if (rc == 0)
        rc = hb_write_atomic(job->log, text, len, err);
    free(text);
    return rc;
}

int compile_object(const compile_job *job, int *compiled, char *why, size_t whysz,
                   hb_err *err)
{
    char tmp[PATH_MAX], *text = NULL, *output = NULL, how[128], refused[200];
    size_t len = 0;
    *compiled = 0;
    why[0] = '\0';
    if (job->sources->n != 1)
        return hb_fail(err, "compile_object takes one source, not %d", job->sources->n);
    if (snprintf(tmp, sizeof tmp, "%s.part", job->library) >= (int)sizeof tmp)
        return hb_fail(err, "%s: path too long", job->library);
    FILE *log = open_memstream(&text, &len); /* the command, not kept */
    if (!log)
        return hb_fail(err, "out of memory");
    hb_proc_result r;
    int rc = run_compiler(job, tmp, log, &output, &r, refused, sizeof refused, err);
    fclose(log);
    free(text);
    if (rc == 0) {
        if (refused[0])
            snprintf(why, whysz, "%s", refused);
        else if (r.exited && r.exit_code == 0 && hb_is_file(tmp) &&
                 rename(tmp, job->library) == 0)
            *compiled = 1;
        else if (r.exited && r.exit_code == 0)
            snprintf(why, whysz, "the compiler wrote no object file");
        else {
            char cause[320];
            char where[160];
            first_cause(output, cause, sizeof cause);
            diag_parse(cause, strlen(cause), where, sizeof where);
            snprintf(why, whysz, "compiler failed (%s)%s%s",
                     hb_proc_describe(&r, how, sizeof how), where[0] ? ": " : "", where);
            hb_untrusted_append(why, whysz, cause, sizeof cause);
        }
    }
    free(output);
    unlink(tmp);
    return rc;
}

int compile_write_refusal(const char *log, const char *reason, hb_err *err)
{
    char text[2048];
    int n = snprintf(text, sizeof text, "# not compiled\n# result: BUILDFAIL: %s\n",
                     reason);
    if (n < 0 || n >= (int)sizeof text)
        n = (int)sizeof text - 1;
    return hb_write_atomic(log, text, (size_t)n, err);
}

int compile_inspect(const char *library, compile_outcome *out, hb_err *err)
{
    memset(out, 0, sizeof *out);
    int exported = 0;
    if (elfsize_exports(library, "CryptHash", &exported, err) != 0 ||
        elfsize_measure(library, &out->size, err) != 0 ||
        hb_sha256_file_hex(library, out->library_sha256, err) != 0)
        return -1;
    out->built = exported;
    return 0;
}
