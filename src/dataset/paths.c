/* The path rule of a published dataset (see paths.h). */
#include "dataset/paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/fs.h"
#include "rundir/rundir.h"

static int is_path_key(const char *key)
{
    static const char *const keys[] = {"log", "library", "kat_log", "path", "source_dir",
                                       "package", "file", "dir"};
    size_t n = strlen(key);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strcmp(key, keys[i]) == 0)
            return 1;
    return (n > 5 && strcmp(key + n - 5, "_path") == 0) ||
           (n > 4 && strcmp(key + n - 4, "_dir") == 0) ||
           (n > 4 && strcmp(key + n - 4, "_log") == 0);
}

int report_path_is_bad(const char *p)
{
    if (p[0] == '/')
        return 1;
    for (const char *c = p; (c = strstr(c, "..")) != NULL; c += 2)
        if ((c == p || c[-1] == '/') && (c[2] == '\0' || c[2] == '/'))
            return 1;
    return 0;
}

/* One break: the line for FILE, field WHERE, path P. */
static void report_bad(report_path_fn bad, void *ctx, const char *file, const char *where,
                       const char *p)
{
    char *line = NULL;
    if (asprintf(&line, "%s: field %s: path '%s' must be relative to the dataset "
                        "without '..'; publish the campaign again", file, where, p) < 0) {
        bad(ctx, "out of memory while reporting a problem");
        return;
    }
    bad(ctx, line);
    free(line);
}

/* Walks J; WHERE is the JSON path for messages. */
static void walk(const char *file, const json_t *j, const char *where, report_path_fn bad,
                 void *ctx)
{
    char sub[512];
    if (json_is_object(j)) {
        const char *key;
        json_t *val;
        json_object_foreach((json_t *)j, key, val) {
            snprintf(sub, sizeof sub, "%s%s%s", where, where[0] ? "." : "", key);
            if (json_is_string(val) && is_path_key(key) &&
                report_path_is_bad(json_string_value(val))) {
                report_bad(bad, ctx, file, sub, json_string_value(val));
            } else if (strcmp(key, "probe_command") == 0 && json_is_array(val)) {
                size_t i;
                json_t *a;
                json_array_foreach(val, i, a)
                    if (json_is_string(a) && report_path_is_bad(json_string_value(a))) {
                        char elem[600];
                        snprintf(elem, sizeof elem, "%s[%zu]", sub, i);
                        report_bad(bad, ctx, file, elem, json_string_value(a));
                    }
            } else {
                walk(file, val, sub, bad, ctx);
            }
        }
    } else if (json_is_array(j)) {
        size_t i;
        json_t *a;
        json_array_foreach(j, i, a) {
            snprintf(sub, sizeof sub, "%s[%zu]", where, i);
            walk(file, a, sub, bad, ctx);
        }
    }
}

void report_paths_of(const char *file, const json_t *j, report_path_fn bad, void *ctx)
{
    walk(file, j, "", bad, ctx);
}

void report_paths_of_system(const report_system *s, report_path_fn bad, void *ctx)
{
    char file[512];
    const json_t *files[] = {s->campaign, s->build, s->kat};
    const char *names[] = {RUNDIR_CAMPAIGN_JSON, RUNDIR_BUILD_JSON, RUNDIR_KAT_JSON};
    for (size_t i = 0; i < 3; i++) {
        if (hb_path_join(file, sizeof file, s->name, names[i], NULL) != 0)
            continue;
        if (files[i])
            walk(file, files[i], "", bad, ctx);
    }
}

/* Keeps the first break in the hb_err CTX. */
static void keep_first(void *ctx, const char *line)
{
    hb_err *err = ctx;
    if (!err->msg[0])
        hb_fail(err, "%s", line);
}

int report_check_paths(const report_dataset *ds, hb_err *err)
{
    hb_err_clear(err);
    for (size_t i = 0; i < ds->nsys && !err->msg[0]; i++) {
        for (size_t k = 0; k < ds->sys[i].nrecs && !err->msg[0]; k++)
            walk(ds->sys[i].recs[k].file, ds->sys[i].recs[k].json, "", keep_first, err);
        report_paths_of_system(&ds->sys[i], keep_first, err);
    }
    return err->msg[0] ? -1 : 0;
}
