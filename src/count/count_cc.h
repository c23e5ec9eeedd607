/* The compiler as a dimension of the instruction counts (`hashbench count
 * --compilers LIST`, `hashbench run --count --compilers LIST`): every
 * instance the count stage counts is rebuilt with each listed compiler
 * other than the build's own, with the same flags (the profile's guide
 * flags, or the harness-default ones where the KATs kept those, and the
 * same additions), into DIR/lib/<cand>/cc-<tag>/lib<Inst>.so, and counted
 * like the stage counts (count.h: count_library, instructions only) at the
 * stage's sizes, from the same seed as the instance's own count where it
 * has one. One record per instance and compiler,
 * DIR/count/<cand>/<Inst>__count_cc-<tag>.json (kind
 * hashbench-count-compiler, docs/FORMATS.md): the compiler, its version,
 * the flags, the library the rebuild replaces ("from_library_sha256"), the
 * rebuilt library and one point per size in the layout of a curve's
 * points, so `validate` checks it with count_record_check. The pages put
 * each instance's instructions per byte under each compiler side by side
 * (report/pages_compilers.c). */
#ifndef HB_COUNT_COUNT_CC_H
#define HB_COUNT_COUNT_CC_H

#include "common/strlist.h"
#include "count/count.h"

#define COUNT_CC_KIND "hashbench-count-compiler"
#define COUNT_CC_FLAVOUR_PREFIX "cc-"
#define COUNT_CC_MAX 8             /* compilers of one run */

/* The short name of a compiler from its `--version` line VERSION, for
 * tables: "clang 14.0.6", "gcc 12.2.0", else its first word; into OUT. */
void count_cc_label(const char *version, char *out, size_t outsz);

/* The word of --compilers that stands for every compiler installed. */
#define COUNT_CC_INSTALLED "installed"

/* The C compilers installed: the names gcc, clang, gcc-N and clang-N of
 * the executable files in PATH's absolute folders, shortest name first,
 * at most COUNT_CC_MAX, appended to *OUT (one installation found under
 * several names is left out later, by its --version line). Returns the
 * number found, or -1 when out of memory. */
int count_cc_installed(strlist *out);

/* Checks that each of the N compilers CC can be run and builds for the
 * architecture of RUN_DIR's build.json, or, without one, of compiler
 * MAIN_CC (NULL: $CC, else cc), which will build it. ERR names the
 * compiler and says to leave it out. */
int count_cc_check(const char *run_dir, const char *main_cc, const char *const *cc, int n,
                   hb_err *err);

/* Counts every instance of O (its run directory, instances, sizes, budget)
 * under each of the N compilers CC other than the build's own (the same
 * `--version`), skipping hashbench's own baselines. A compiler that cannot
 * be run is an error before anything is built. *N_COUNTED and *N_NOT count
 * the records whose every size was counted, and the others (a failed build
 * is a record whose sizes are NOT_COUNTABLE with the compiler's reason).
 * *N_SAME counts the compilers left out as the build's own. An instance's
 * record is kept when its library, compiler, sizes and rebuilt library are
 * unchanged. Returns -1 on an input error. */
int count_cc_run(const count_options *o, const char *const *cc, int n, int *n_counted,
                 int *n_not, int *n_same, hb_err *err);

#endif
