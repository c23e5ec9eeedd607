/* JSON helpers over jansson: see json.h. */
#include "common/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/fs.h"
#include "common/walk.h"

int hb_json_load(const char *path, json_t **out, hb_err *err)
{
    json_error_t je;
    *out = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!*out) {
        if (je.line <= 0)
            return hb_fail(err, "%s: %s", path, je.text);
        return hb_fail_at(err, path, je.line, "invalid JSON: %s; repair or "
                          "remove the file", je.text);
    }
    return 0;
}

int hb_json_save(const char *path, const json_t *root, hb_err *err)
{
    char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
                                  JSON_REAL_PRECISION(17));
    if (!text)
        return hb_fail(err, "%s: cannot encode JSON", path);
    size_t n = strlen(text);
    char *buf = malloc(n + 2);
    if (!buf) {
        free(text);
        return hb_fail(err, "%s: out of memory", path);
    }
    memcpy(buf, text, n);
    buf[n] = '\n';
    free(text);
    int rc = hb_write_atomic(path, buf, n + 1, err);
    free(buf);
    return rc;
}

static int missing(const char *name, const char *type, const char *file, hb_err *err)
{
    return hb_fail(err, "%s: field '%s' missing or not %s; repair the file or "
                   "regenerate it with hashbench", file, name, type);
}

const char *hb_json_str(const json_t *obj, const char *name)
{
    const char *v = json_string_value(json_object_get(obj, name));
    return v ? v : "";
}

int hb_json_get_str(const json_t *obj, const char *name, const char **out,
                    const char *file, hb_err *err)
{
    json_t *v = json_object_get(obj, name);
    if (!json_is_string(v))
        return missing(name, "a string", file, err);
    *out = json_string_value(v);
    return 0;
}

int hb_json_get_int(const json_t *obj, const char *name, long long *out,
                    const char *file, hb_err *err)
{
    json_t *v = json_object_get(obj, name);
    if (!json_is_integer(v))
        return missing(name, "an integer", file, err);
    *out = json_integer_value(v);
    return 0;
}

int hb_json_get_num(const json_t *obj, const char *name, double *out,
                    const char *file, hb_err *err)
{
    json_t *v = json_object_get(obj, name);
    if (!json_is_number(v))
        return missing(name, "a number", file, err);
    *out = json_number_value(v);
    return 0;
}

int hb_json_get_obj(const json_t *obj, const char *name, json_t **out,
                    const char *file, hb_err *err)
{
    json_t *v = json_object_get(obj, name);
    if (!json_is_object(v))
        return missing(name, "an object", file, err);
    *out = v;
    return 0;
}

int hb_json_get_arr(const json_t *obj, const char *name, json_t **out,
                    const char *file, hb_err *err)
{
    json_t *v = json_object_get(obj, name);
    if (!json_is_array(v))
        return missing(name, "an array", file, err);
    *out = v;
    return 0;
}

/* hb_json_list_files's visitor: every entry but a folder it enters. */
static int list_entry(const hb_walk_entry *e, void *ctx, hb_err *err)
{
    (void)err;
    if (e->type != HB_WALK_DIR || e->depth >= HB_WALK_MAX_DEPTH)
        json_array_append_new((json_t *)ctx, json_string(e->rel));
    return HB_WALK_CONTINUE;
}

void hb_json_list_files(const char *root, json_t *list)
{
    hb_err ignored;
    hb_walk(root, HB_WALK_MAX_DEPTH, HB_WALK_MISSING_OK, list_entry, list, &ignored);
}
