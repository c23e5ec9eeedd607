/* Discovery of the algorithm instances in a submission package (SPEC §1):
 * every Implementations/{Reference,Optimized,Additional}_Implementation/<X>/
 * folder (also under one extra top folder; when neither holds the tree, the
 * shallowest level below that does, up to DISCOVER_TREE_DEPTH folders deep,
 * whatever the folders are called) whose header defines DIGEST_BIT_LENGTH
 * is an instance; hashbench.ini (override.h) adds,
 * replaces, skips or completes instances. The result says, per instance,
 * exactly what to compile; nothing is compiled or run here.
 *
 * Sources: every .c file of the instance folder except the drivers that
 * carry their own main(): files named KAT_*.c, main*.c, test*, bench*,
 * speed* (case-insensitive), the official DRNG drng.c (used by the KAT
 * driver only), any other .c file whose text, comments left out, defines
 * `int main(`, and a symbolic link that leads outside the package. Every
 * other .c file whose text names main (comments included) is a suspect:
 * drivers.h settles it on its compiled object.
 * Each left-out file is listed in `excluded` with the reason. No source or
 * header is read past HB_LIMIT_TEXT (common/fs.h): a larger source makes
 * its instance fail to build, a larger header fails the package. A header
 * that leads outside the package is not read.
 *
 * Variants: when folders of several X_Implementation variants define the
 * same instance name, the first (Reference, Optimized, Additional order)
 * keeps it and each other becomes <name>-<Variant> (when that is a free
 * name of at most 64 characters); algorithm_instance keeps the shared name,
 * so that the KAT stage can compare the variants (variants.h of the KAT
 * stage). */
#ifndef HB_COMPILE_DISCOVER_H
#define HB_COMPILE_DISCOVER_H

#include "compile/override.h"
#include "common/strlist.h"
#include "common/err.h"

typedef struct discover_instance {
    char candidate[OVERRIDE_NAME_MAX + 1];
    char algorithm[OVERRIDE_NAME_MAX + 1];
    char instance[OVERRIDE_NAME_MAX + 1]; /* always a valid name (see error) */
    char algorithm_instance[OVERRIDE_NAME_MAX + 1]; /* the submission's own name
                                of the instance, shared by its variants */
    int digest_bits;
    char variant[32];
    char package[4096];      /* absolute path of the package */
    char source_dir[1024];   /* instance folder, relative to package */
    strlist sources;         /* package-relative .c files, sorted */
    strlist excluded;        /* "path (reason)" of left-out .c files */
    strlist suspects;        /* sources or excluded files whose text names
                                main: for drivers_settle (drivers.h) */
    strlist defines;         /* NAME or NAME=VALUE, passed as -D */
    strlist includes;        /* package-relative folders, passed as -I */
    char skip[256];          /* non-empty: not built, for this reason */
    char exclude_timing[256];
    char error[1024];        /* non-empty: BUILDFAIL before compiling; the
                                instance name was then made valid by
                                replacing bad characters with '_' */
    char override_at[4400];  /* "<path>/hashbench.ini:LINE [instance NAME]"
                                for an instance of the override file, ""
                                for a discovered one */
} discover_instance;

typedef struct discover_list {
    discover_instance *v;
    int n;
    strlist notes;   /* what discovery chose that the user should know:
                        an official tree found below the package folder,
                        a candidate id taken from an enclosing folder */
} discover_list;

/* How many folders the official tree may sit below the package folder. */
#define DISCOVER_TREE_DEPTH 6

/* Appends the instances of PACKAGE (a folder; made absolute here) to *out.
 * Fails (naming the file and line) on a bad hashbench.ini or a package with
 * no instance at all; problems of a single instance go into its error. */
int discover_package(const char *package, discover_list *out, hb_err *err);

/* As discover_package; with DISCOVER_NO_SECTIONS, the [instance] sections of
 * hashbench.ini are passed over (its [candidate] still counts): what
 * discovery alone finds, for `hashbench init --update`. */
#define DISCOVER_NO_SECTIONS 1
int discover_package_with(const char *package, int flags, discover_list *out,
                          hb_err *err);

void discover_free(discover_list *l);

/* 1 when the C source TEXT defines CryptHash (the name, its parameter list,
 * then '{'), read as text (init.h splits a folder by it where a source does
 * not compile on its own; a build failure's advice names such files). */
int discover_defines_crypthash(const char *text);

#endif
