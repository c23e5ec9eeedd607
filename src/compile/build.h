/* The build stage: discovers the instances of submission packages,
 * compiles each with the profile's guide flags into
 * DIR/lib/<cand>/lib<Inst>.so (in parallel), checks that it exports
 * CryptHash, measures its static size, and writes DIR/build.json
 * (docs/FORMATS.md). Re-running on the same DIR resumes: an instance whose
 * sources, flags and compiler are unchanged and whose library is intact is
 * not compiled again. After the KAT stage, the campaign asks
 * build_harness_default for the fallback rebuilds with permissive flags
 * (SPEC §2) of the guide builds that failed their KATs; each is recorded
 * in its build.json entry ("harness_default"), which the KAT stage then
 * tests. */
#ifndef HB_COMPILE_BUILD_H
#define HB_COMPILE_BUILD_H

#include <jansson.h>

#include "common/err.h"
#include "common/progress.h"
#include "rundir/rundir.h"

#define BUILD_JSON RUNDIR_BUILD_JSON
/* The key of a build.json entry that records its harness-default rebuild. */
#define BUILD_HARNESS_DEFAULT_KEY RUNDIR_HARNESS_DEFAULT_KEY

typedef struct build_options {
    const char *run_dir;               /* required */
    const char *profile;               /* reference, performance or
                                          resource; NULL: the profile of
                                          DIR/build.json, else reference */
    const char *cc;                    /* NULL: $CC, else "cc" */
    int jobs;                          /* parallel compiles; <= 0: online CPUs */
    const char *const *packages;       /* package folders (regular files
                                          are skipped silently, so that a
                                          shell glob such as "examples/ *"
                                          works) */
    int n_packages;
    const char *baseline_lib;          /* the library of the primary
                                          built-in baseline (rundir/
                                          baselines.h; the others are
                                          taken from its folder), or NULL:
                                          no built-in baseline */
    hb_progress_fn progress;           /* may be NULL */
    void *progress_ctx;
    const char *const *baseline_packages; /* packages the evaluator names as
                                          baselines (--baseline): built with
                                          the others (added to PACKAGES when
                                          missing there), their entries
                                          marked "baseline" and
                                          "baseline_package" */
    int n_baseline_packages;
    int plain_shared;                  /* 1: the guide's flags and -fPIC
                                          -shared only (compile.h
                                          COMPILE_ADDED_NONE); -1: with
                                          hashbench's additions; 0: as DIR
                                          was built, else -1. Recorded as
                                          "plain_shared" in build.json and
                                          each entry */
} build_options;

/* Builds every instance of the packages and writes DIR/build.json (keeping
 * entries of candidates not in this run). *n_failed gets the number of
 * BUILDFAIL instances. Returns 0 when build.json was written (even with
 * failures), -1 on a usage or input error (bad package, bad hashbench.ini,
 * a DIR built with another profile, no compiler); err says what to do. */
int build_run(const build_options *opt, int *n_failed, hb_err *err);

/* Checks before any work that the compiler CC (NULL: $CC, else cc) can be
 * run: found on PATH (or at its path), executable, and answering --version
 * and -dumpmachine like a C compiler. ERR names the compiler and says to
 * give another with --cc. Call it from a single thread (see
 * compile_toolchain_probe). */
int build_check_compiler(const char *cc, hb_err *err);

/* Rebuilds the build.json entry ENTRY (of run directory RUN_DIR) once with
 * the harness-default flags into DIR/lib/<cand>/harness-default/lib<Inst>.so
 * (log DIR/logs/build/<cand>/<Inst>.harness-default.log). *out is a new
 * entry (owned by the caller) in the build.json layout, with flags_kind
 * "harness-default" and status BUILT or BUILDFAIL. Returns -1 (and *out
 * NULL) only when the entry is unusable or the harness failed. */
int build_rebuild_default(const char *run_dir, const json_t *entry, json_t **out,
                          hb_err *err);

/* Rebuilds the build.json entry ENTRY (of run directory RUN_DIR) with the
 * compiler CC and the flags of PROFILE (a profile name, or
 * PROFILE_HARNESS_DEFAULT for the permissive ones; the build's additions
 * as for any build) into DIR/lib/<cand>/<FLAVOUR>/lib<Inst>.so (log
 * DIR/logs/build/<cand>/<Inst>.<FLAVOUR>.log): the same code under another
 * compiler. *out is a new entry (owned by the caller) in the build.json
 * layout, with that compiler, its version, the flags, and status BUILT or
 * BUILDFAIL. Returns -1 (and *out NULL) when the compiler cannot be run,
 * the entry is unusable or the harness failed. */
int build_rebuild_with(const char *run_dir, const json_t *entry, const char *profile,
                       const char *cc, const char *flavour, json_t **out, hb_err *err);

/* Rebuilds with the harness-default flags (build_rebuild_default) the
 * guide builds among KEYS ("cand/Inst", N_KEYS of them) of DIR/build.json
 * and records each in its entry as "harness_default": "from_sha256" (the
 * guide library it replaces), then the rebuilt entry's flags_kind, flags,
 * compiler, compiler_version, sources, library, library_sha256,
 * static_size, status (BUILT or BUILDFAIL; ERROR with a reason when the
 * entry could not be rebuilt at all), reason, log and log_sha256.
 * build.json is saved after each. A rebuild already recorded for the same
 * guide library, whose library is intact, is kept. *n_rebuilt gets the
 * number of new records. Returns -1 only when build.json cannot be read or
 * written. */
int build_harness_default(const char *run_dir, const char *const *keys, int n_keys,
                          int *n_rebuilt, hb_err *err);

/* The name the submission gives the instance of build.json entry ENTRY,
 * shared by its variants and carried by its KAT files: algorithm_instance,
 * or (an older build.json) instance; "" when neither is there. */
const char *build_algorithm_instance(const json_t *entry);

#endif
