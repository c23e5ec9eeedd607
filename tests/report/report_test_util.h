/* Helpers for the report tests: temporary folders, copying the synthetic
 * dataset (tests/report/data) so a test can edit its copy, reading files and
 * editing one JSON field. Failures abort the test through cmocka. */
#ifndef HB_TESTS_REPORT_UTIL_H
#define HB_TESTS_REPORT_UTIL_H

#include <stddef.h>
#include <jansson.h>

/* OUT (4096 bytes) = A "/" B; fails the test when it does not fit. */
void rt_join(char *out, const char *a, const char *b);

/* A new empty folder under TMPDIR; the path is written into OUT (4096). */
void rt_tempdir(char *out);

/* Copies the synthetic dataset into a new temporary folder (OUT, 4096). */
void rt_copy_dataset(char *out);

/* Path of the synthetic dataset in the source tree. */
const char *rt_dataset(void);

/* Removes a folder tree. */
void rt_rmtree(const char *path);

/* The whole file as a malloc'd NUL-terminated string (NULL when unreadable). */
char *rt_read(const char *path, size_t *len);

/* Writes TEXT to PATH (replacing it). */
void rt_write(const char *path, const char *text);

/* Loads DIR/REL as JSON; rt_save_json writes it back. */
json_t *rt_load_json(const char *dir, const char *rel);
void rt_save_json(const char *dir, const char *rel, json_t *j);

/* Relative paths of the regular files under DIR, sorted (caller decrefs). */
json_t *rt_list_files(const char *dir);

/* Number of occurrences of NEEDLE in HAY. */
int rt_count(const char *hay, const char *needle);

/* The page REL of the site SITE (malloc'd); fails the test when missing. */
char *rt_site_file(const char *site, const char *rel);

/* MD as a reader sees it: backslash escapes removed (malloc'd). */
char *rt_plain(const char *md);

#endif
