/* Submitted KAT vectors: discovering the text files in a package's
 * Test_Vector/Test_Vectors folders (any nesting, any case), and the compact
 * `kat.sha256` manifest at the package root, one line per file:
 *   <sha256 of the canonical text> strict <label>/<file name>
 * where the label is the instance name (or its folder's name: the caller
 * tries both, kat_instance.c). Blank lines and lines starting with
 * '#' are ignored. Lists and manifests own their strings; free them with the
 * matching _free function. */
#ifndef HB_KAT_MANIFEST_H
#define HB_KAT_MANIFEST_H

#include <stddef.h>
#include "common/strlist.h"
#include "common/digest.h"
#include "common/err.h"

#define KAT_MANIFEST_NAME "kat.sha256"
#define KAT_MANIFEST_MAX_LINES 1000000

typedef struct kat_manifest_entry {
    char sha256[HB_SHA256_HEX]; /* lowercase */
    char *label;
    char *name;
    long line;
} kat_manifest_entry;

typedef struct kat_manifest {
    kat_manifest_entry *v;
    size_t n;
    long n_bad;            /* lines skipped as malformed or repeated */
    char bad[HB_ERR_MAX];  /* the first of them: "PATH:LINE: ..." */
} kat_manifest;

/* Parses PATH; a malformed line fails with "PATH:LINE: ..." and what to do,
 * and so does a line that repeats an earlier instance/file name. PATH must
 * be a regular file of its folder (not a link leading out of it) of at most
 * HB_LIMIT_TEXT bytes and KAT_MANIFEST_MAX_LINES lines; loading takes
 * O(n log n) time. */
int kat_manifest_load(const char *path, kat_manifest *m, hb_err *err);

/* Like kat_manifest_load, but a malformed line, or one that repeats an
 * earlier instance/file name, is skipped and counted (M->n_bad, the first
 * one's message in M->bad) and the other lines are kept, so that they can
 * still be compared. Fails only when the file as a whole cannot be read
 * (a link leading out of the package, too large, too many lines). */
int kat_manifest_load_lines(const char *path, kat_manifest *m, hb_err *err);
const kat_manifest_entry *kat_manifest_find(const kat_manifest *m, const char *label,
                                            const char *name);
void kat_manifest_free(kat_manifest *m);

/* Appends to OUT the paths (PACKAGE-prefixed, sorted) of every regular file
 * inside a Test_Vector or Test_Vectors folder of PACKAGE, at any depth.
 * Symbolic links to folders are not followed, nor links to files outside
 * PACKAGE. */
int kat_vectors_list(const char *package, strlist *out, hb_err *err);

/* The file of FILES named NAME (case-insensitive), preferring one whose
 * path contains PREFER (may be NULL); NULL when there is none. */
const char *kat_vectors_match(const strlist *files, const char *name, const char *prefer);

/* The instance label of a KAT file name "KAT_<kind>_<Inst>.txt" into OUT;
 * -1 when NAME is not such a name. */
int kat_label_of(const char *name, char *out, size_t outsz);

/* Writes PACKAGE/kat.sha256 from the submitted KAT text files; *n_files
 * gets the number of lines. */
int kat_manifest_write_package(const char *package, int *n_files, hb_err *err);

/* Writes PACKAGE/kat.sha256 from the texts generated in RUN_DIR for the
 * instances built from PACKAGE (their KATs must have run to completion);
 * when none was, for a package moved or copied since, those of the
 * candidate PACKAGE's folder names. Fails naming RUN_DIR/build.json, what
 * it looked for and the packages the run built when neither is there. */
int kat_manifest_write_run(const char *package, const char *run_dir, int *n_files,
                           hb_err *err);

#endif
