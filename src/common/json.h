/* JSON files through jansson: loading with errors that name the file and
 * line, atomic saving with a stable layout (insertion order, two-space
 * indent, trailing newline) so regenerated files are byte-identical, and
 * typed field getters that report a missing or mistyped field by name; also
 * the list of a folder's files as a JSON array of strings. */
#ifndef HB_COMMON_JSON_H
#define HB_COMMON_JSON_H

#include <jansson.h>
#include "common/err.h"

/* Loads PATH; *out is a new reference owned by the caller. */
int hb_json_load(const char *path, json_t **out, hb_err *err);

/* Saves ROOT to PATH atomically (does not steal the reference). */
int hb_json_save(const char *path, const json_t *root, hb_err *err);

/* The string member NAME of OBJ, or "" when it is missing or not a string
 * (for names and labels, where absence needs no error). Borrowed. */
const char *hb_json_str(const json_t *obj, const char *name);

/* Field getters: fail with "FILE: field 'NAME' missing or not a T; ..."
 * (and what to do) where FILE is the name given for messages. Strings point
 * into OBJ. */
int hb_json_get_str(const json_t *obj, const char *name, const char **out,
                    const char *file, hb_err *err);
int hb_json_get_int(const json_t *obj, const char *name, long long *out,
                    const char *file, hb_err *err);
int hb_json_get_num(const json_t *obj, const char *name, double *out,
                    const char *file, hb_err *err);
int hb_json_get_obj(const json_t *obj, const char *name, json_t **out,
                    const char *file, hb_err *err);
int hb_json_get_arr(const json_t *obj, const char *name, json_t **out,
                    const char *file, hb_err *err);

/* Appends to LIST the paths, relative to ROOT, of the entries below ROOT
 * but the folders it enters (common/walk.h: sorted, no link followed, a
 * folder past the depth limit listed as an entry); an unreadable folder
 * ends the list there. */
void hb_json_list_files(const char *root, json_t *list);

#endif
