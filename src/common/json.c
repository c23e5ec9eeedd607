/* JSON helpers over jansson: see json.h. */
#include "common/json.h"

#include <dirent.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/fs.h"

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

/* Lists the files below ROOT/REL; a symbolic link is listed, never
 * followed (a link to "." would loop), and folders deeper than 64 are not
 * entered. */
static void list_below(const char *root, const char *rel, json_t *list, int depth)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s%s%s", root, rel[0] ? "/" : "", rel);
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char sub[4096], full[8192];
        snprintf(sub, sizeof sub, "%s%s%s", rel, rel[0] ? "/" : "", e->d_name);
        snprintf(full, sizeof full, "%s/%s", root, sub);
        struct stat st;
        if (lstat(full, &st) == 0 && S_ISDIR(st.st_mode) && depth < 64)
            list_below(root, sub, list, depth + 1);
        else
            json_array_append_new(list, json_string(sub));
    }
    closedir(d);
}

void hb_json_list_files(const char *root, json_t *list)
{
    list_below(root, "", list, 0);
}
