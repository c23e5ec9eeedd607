/* Compiling one instance into a shared library: one compiler command with
 * every source and the link at once (so -flto works), run with
 * hb_proc_exec (no shell) from the package root, with a timeout. The
 * library is written next to its final name and renamed into place only
 * when the compiler succeeded and the result exports CryptHash, so a killed
 * build never leaves a half-written library. The log (written atomically)
 * starts with the exact command line. Also: finding and identifying the
 * compiler. */
#ifndef HB_COMPILE_COMPILE_H
#define HB_COMPILE_COMPILE_H

#include "compile/elfsize.h"
#include "common/strlist.h"
#include "common/digest.h"
#include "common/err.h"

#define COMPILE_TIMEOUT_S 300.0

typedef struct compile_toolchain {
    char name[4096];    /* as given, e.g. "gcc"; a path is made absolute */
    char path[4096];    /* the executable, an absolute path */
    char version[512];  /* first line of `NAME --version` */
    char target[256];   /* `NAME -dumpmachine`, e.g. x86_64-linux-gnu */
    char arch[64];      /* first field of target, e.g. x86_64 */
    int no_semantic_interposition; /* 1: accepts -fno-semantic-interposition */
} compile_toolchain;

/* Finds CC (a name looked up on PATH, or a path) and asks it for its
 * version and target. Drops the empty and relative entries of PATH first
 * (the compiler runs inside the package, where such an entry would find
 * programs the package ships), so call it from a single thread. */
int compile_toolchain_probe(const char *cc, compile_toolchain *tc, hb_err *err);

/* The two files hashbench gives the compiler so that a library runs the
 * code a static build of the same sources would (SPEC §2): a version script
 * that exports CryptHash alone (every other symbol is bound inside the
 * library, so calls between the package's files are direct and, under
 * -flto, inlined) and a header, read first with -include, that keeps
 * CryptHash visible under -fvisibility=hidden. compile_instance writes them
 * before each compile, at EXPORT_PREFIX followed by these names. */
#define COMPILE_EXPORT_MAP "exports.map"
#define COMPILE_VISIBILITY_H "visibility.h"

/* Where the compiler of LIBRARY finds the two files, as a prefix of their
 * names: /out/hashbench_ in the sandbox's scratch folder (as it appears
 * inside), or, without the sandbox, "LIBRARY." beside the library (each
 * library its own, as libraries are compiled in parallel). OUT gets at
 * most OUTSZ bytes. */
void compile_export_prefix(const char *library, char *out, size_t outsz);

/* What compile_make_flags adds to the profile's flags. */
enum compile_added {
    COMPILE_ADDED_NO_HEADER = 0, /* the version script and
                                    -fno-semantic-interposition only */
    COMPILE_ADDED_ALL = 1,       /* those, hidden visibility and the header */
    COMPILE_ADDED_NONE = 2       /* nothing: the plain shared build
                                    (--plain-shared) */
};

/* Appends to *flags the words of PROFILE_FLAGS (space-separated), then what
 * keeps the library as fast as a static build: with ADDED
 * COMPILE_ADDED_ALL, -fvisibility=hidden and -include EXPORT_PREFIX
 * COMPILE_VISIBILITY_H (the guide's profiles); unless ADDED is
 * COMPILE_ADDED_NONE, -fno-semantic-interposition where TC accepts it and
 * -Wl,--version-script=EXPORT_PREFIX COMPILE_EXPORT_MAP; then -D<define>
 * for each define and -I<folder> for each include folder. The permissive
 * harness-default flags pass COMPILE_ADDED_NO_HEADER, so that a package
 * whose own declaration of CryptHash clashes with the header still
 * builds. */
int compile_make_flags(const compile_toolchain *tc, const char *profile_flags,
                       enum compile_added added, const char *export_prefix,
                       const strlist *defines, const strlist *includes, strlist *flags);

typedef struct compile_job {
    const compile_toolchain *tc;
    const char *package;       /* absolute; the compiler's working folder */
    const strlist *flags;      /* every option except -o and the sources */
    const strlist *sources;    /* relative to package */
    const strlist *excluded;   /* left-out files, noted in the log; may be NULL */
    const char *library;       /* final library path */
    const char *log;           /* log path */
    double timeout_s;          /* 0: COMPILE_TIMEOUT_S */
    const char *override_at;   /* where the sources were listed, e.g.
                                  "/pkg/hashbench.ini:12 [instance X]"; NULL
                                  for a discovered instance. A failure's
                                  advice names it instead of pointing at
                                  hashbench init */
    int keep_unloaded;         /* 1: keep the bytes the loader never maps
                                  (the constant-time stage's -g rebuild
                                  needs its debug information); 0: they are
                                  zeroed (elfsize_blank_unloaded), so that
                                  the library runs on its loaded image
                                  alone */
} compile_job;

typedef struct compile_outcome {
    int built;                 /* 1: library in place and exports CryptHash */
    char reason[HB_ERR_MAX];   /* one line when built == 0 */
    char library_sha256[HB_SHA256_HEX];
    elfsize_info size;
} compile_outcome;

/* Runs the job and fills *out (a failed compile is an outcome, not an
 * error). Returns -1 only when the harness itself failed (folders or log
 * could not be written); err says why. */
int compile_instance(const compile_job *job, compile_outcome *out, hb_err *err);

/* Compiles JOB's one source into the object file JOB->library (JOB->flags
 * must hold -c; JOB->log is not written), in the compile sandbox as a
 * library is. *compiled gets 1 when the object is in place; 0 when the
 * compiler refused the source, with its first complaint in WHY (WHYSZ
 * bytes). Returns -1 only when the harness itself failed. */
int compile_object(const compile_job *job, int *compiled, char *why, size_t whysz,
                   hb_err *err);

/* Writes a log that records an instance which was not compiled, with REASON. */
int compile_write_refusal(const char *log, const char *reason, hb_err *err);

/* Fills *out from an already built LIBRARY (its SHA-256, size and the
 * CryptHash check), as compile_instance would after compiling. */
int compile_inspect(const char *library, compile_outcome *out, hb_err *err);

#endif
