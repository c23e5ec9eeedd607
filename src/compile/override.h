/* The per-candidate override file `hashbench.ini` at the root of a
 * submission package (format: docs/OVERRIDE.md). It names the candidate id
 * and algorithm and, per instance, the folder, sources, digest size,
 * variant, extra defines and include folders, or marks an instance as
 * skipped or excluded from timing. Loading checks the syntax and every
 * value it can check on its own; paths are resolved against the package by
 * override_resolve once the instance folder is known. Every error names
 * hashbench.ini:LINE and says what to do. */
#ifndef HB_COMPILE_OVERRIDE_H
#define HB_COMPILE_OVERRIDE_H

#include "common/strlist.h"
#include "common/err.h"

#define OVERRIDE_FILE "hashbench.ini"
#define OVERRIDE_NAME_MAX 64

typedef struct override_instance {
    char name[OVERRIDE_NAME_MAX + 1];
    long line;                 /* line of the [instance NAME] header */
    char dir[1024];            /* as written ("" = not given) */
    long dir_line;
    strlist sources_raw;       /* as written, relative to dir */
    long sources_line;
    strlist includes_raw;      /* as written, relative to dir */
    long includes_line;
    strlist defines;           /* NAME or NAME=VALUE, quotes kept */
    int digest_bits;           /* 0 = not given */
    char variant[32];          /* "" = from the X_Implementation folder */
    long variant_line;
    char skip[256];            /* non-empty: not built, with this reason */
    char exclude_timing[256];  /* non-empty: not timed, with this reason */
} override_instance;

typedef struct override_file {
    int present;               /* 0 when the package has no hashbench.ini */
    char path[4096];           /* full path of the file, for messages */
    char id[OVERRIDE_NAME_MAX + 1];        /* "" = package folder name */
    char algorithm[OVERRIDE_NAME_MAX + 1]; /* "" = not given */
    override_instance *inst;   /* n entries, in file order */
    int n;
} override_file;

/* 1 when S is a valid candidate or instance name: 1-64 characters from
 * [A-Za-z0-9_-] (SPEC §1). */
int override_name_valid(const char *s);

/* Reads PACKAGE/hashbench.ini into *out (zeroed first; present = 0 and
 * success when there is no such file). Free with override_free. */
int override_load(const char *package, override_file *out, hb_err *err);

void override_free(override_file *o);

/* The instance section named NAME, or NULL. */
const override_instance *override_find(const override_file *o, const char *name);

/* Resolves the instance's paths inside the package. DIR is the instance
 * folder relative to PACKAGE (the override's own dir, or the discovered
 * folder). On success *dir_rel gets the normalised folder (relative to the
 * package, at most 1024 bytes), and sources / includes get the normalised
 * package-relative paths of the listed sources / include folders (sources
 * stays empty when none are listed). Fails, naming hashbench.ini:LINE, for
 * a path that does not exist or leaves the package. */
int override_resolve(const override_file *o, const override_instance *in,
                     const char *package, const char *dir, char *dir_rel,
                     strlist *sources, strlist *includes, hb_err *err);

/* 1 when PATH names a file hashbench compiles: .c, .s or .S. */
int override_is_source_name(const char *path);

/* Normalises PACKAGE/REL (realpath) and checks it stays inside PACKAGE and
 * is a folder (want_dir) or a regular file; *out_rel gets the path relative
 * to PACKAGE ("." for the package itself). Returns 0, or -1 without filling
 * err (the caller knows what to say). */
int override_inside(const char *package, const char *rel, int want_dir,
                    char *out_rel, size_t outsz);

#endif
