/* Helpers shared by the KAT stage tests: temporary run directories with a
 * hand-made build.json whose libraries are test fixtures or example
 * instances, and small file probes. Strings returned are malloc'd and owned
 * by the caller; failures abort the test through cmocka. */
#ifndef HB_TESTS_KAT_TEST_UTIL_H
#define HB_TESTS_KAT_TEST_UTIL_H

#include <jansson.h>

/* A new empty folder under $TMPDIR (or /tmp). */
char *kt_mkdtemp(const char *tag);

/* Removes PATH and everything below it. */
void kt_rm_rf(const char *path);

/* Ends a test's temporary folder ROOT from kt_mkdtemp: removes it unless
 * HB_KAT_KEEP is set (to inspect a failed run), then frees the string. */
void kt_release(char *root);

/* A build.json skeleton ({"schema": 1, "instances": []}). */
json_t *kt_build_new(void);

/* Copies LIB into RUN/lib/CAND/lib<INST>.so and appends a BUILT entry to
 * BUILD for it (PACKAGE may be NULL; FLAGS_KIND "guide" or
 * "harness-default"). */
void kt_build_add(json_t *build, const char *run, const char *cand, const char *inst,
                  int digest_bits, const char *lib, const char *package,
                  const char *flags_kind);

/* Saves BUILD as RUN/build.json. */
void kt_build_save(const json_t *build, const char *run);

/* The last non-empty line of the file PATH (without LF). */
char *kt_last_line(const char *path);

/* 1 when the file PATH contains NEEDLE. */
int kt_contains(const char *path, const char *needle);

/* The kat.json entry of CAND/INST in RUN (a new reference), or NULL. */
json_t *kt_kat_entry(const char *run, const char *cand, const char *inst);

#endif
