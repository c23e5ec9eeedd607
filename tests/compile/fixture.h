/* Helpers of the build-stage tests: a temporary folder per test program,
 * writing fixture files (parents created), removing a tree, and small
 * package templates in the official layout. Failures abort the test. */
#ifndef HB_TESTS_BUILD_FIXTURE_H
#define HB_TESTS_BUILD_FIXTURE_H

#include <jansson.h>

/* The temporary folder of the running test program: fx_setup creates it
 * (group setup for cmocka_run_group_tests), fx_teardown removes it. */
extern char *fx_root;
int fx_setup(void **state);
int fx_teardown(void **state);

/* A new empty folder under $TMPDIR (or /tmp); malloc'd path. */
char *fx_tmpdir(void);

/* Writes TEXT to ROOT/REL, creating parent folders. */
void fx_write(const char *root, const char *rel, const char *text);

/* Writes ROOT/REL and makes it executable. */
void fx_write_exec(const char *root, const char *rel, const char *text);

/* Removes the tree at PATH. */
void fx_rmtree(const char *path);

/* A header defining ALGORITHM_INSTANCE NAME and DIGEST_BIT_LENGTH BITS, as
 * the official CryptHash_AlgorithmInstance.h does; static buffer. */
const char *fx_header(const char *name, int bits);

/* A source implementing CryptHash for DIGEST_BIT_LENGTH: it returns 1 for
 * another digest length, else fills the digest with 0xAB and returns 0;
 * it also defines instance_name() returning ALGORITHM_INSTANCE, which the
 * library must not export (hashbench exports CryptHash alone). */
extern const char fx_source[];

/* Writes an instance folder ROOT/PKG/Implementations/Reference_Implementation/
 * INST holding fx_header(name, bits) and fx_source (as impl.c). */
void fx_instance(const char *root, const char *pkg, const char *inst,
                 const char *name, int bits);

/* The entry of CAND/INST in a build.json root, or NULL. */
json_t *fx_entry(const json_t *build, const char *cand, const char *inst);

/* Loads DIR/build.json (fails the test when it cannot). */
json_t *fx_load_build(const char *dir);

/* ROOT/REL into a static buffer (one at a time). */
const char *fx_path(const char *root, const char *rel);

#endif
