/* Test helpers for the report module: see report_test_util.h. */
#include "report_test_util.h"

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "common/fs.h"
#include "common/json.h"

void rt_join(char *out, const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    assert_true(la + 1 + lb < 4096);
    memcpy(out, a, la);
    out[la] = '/';
    memcpy(out + la + 1, b, lb + 1);
}

const char *rt_dataset(void)
{
    static char path[4096];
    const char *src = getenv("HB_SOURCE_DIR");
    snprintf(path, sizeof path, "%s/tests/report/data", src ? src : HB_SOURCE_DIR);
    return path;
}

void rt_tempdir(char *out)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(out, 4096, "%s/hb-report-test-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    assert_non_null(mkdtemp(out));
}

static void copy_tree(const char *from, const char *to)
{
    DIR *d = opendir(from);
    assert_non_null(d);
    mkdir(to, 0755);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char a[4096], b[4096];
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        rt_join(a, from, e->d_name);
        rt_join(b, to, e->d_name);
        if (hb_is_dir(a)) {
            copy_tree(a, b);
        } else {
            size_t len = 0;
            char *text = rt_read(a, &len);
            assert_non_null(text);
            FILE *fp = fopen(b, "wb");
            assert_non_null(fp);
            assert_int_equal(fwrite(text, 1, len, fp), len);
            fclose(fp);
            free(text);
        }
    }
    closedir(d);
}

void rt_copy_dataset(char *out)
{
    rt_tempdir(out);
    copy_tree(rt_dataset(), out);
}

void rt_rmtree(const char *path)
{
    hb_err ignored;
    hb_remove_tree(path, &ignored);
}

char *rt_read(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    size_t got = fread(buf, 1, (size_t)n, fp);
    fclose(fp);
    buf[got] = '\0';
    if (len)
        *len = got;
    return buf;
}

void rt_write(const char *path, const char *text)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

json_t *rt_load_json(const char *dir, const char *rel)
{
    char path[4096];
    json_error_t je;
    rt_join(path, dir, rel);
    json_t *j = json_load_file(path, 0, &je);
    assert_non_null(j);
    return j;
}

void rt_save_json(const char *dir, const char *rel, json_t *j)
{
    char path[4096];
    rt_join(path, dir, rel);
    assert_int_equal(json_dump_file(j, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
                                             JSON_REAL_PRECISION(17)), 0);
}

static int cmp_json_str(const void *a, const void *b)
{
    return strcmp(json_string_value(*(json_t *const *)a),
                  json_string_value(*(json_t *const *)b));
}

json_t *rt_list_files(const char *dir)
{
    json_t *raw = json_array();
    hb_json_list_files(dir, raw);
    size_t n = json_array_size(raw);
    json_t **items = malloc((n ? n : 1) * sizeof *items);
    for (size_t i = 0; i < n; i++)
        items[i] = json_array_get(raw, i);
    qsort(items, n, sizeof *items, cmp_json_str);
    json_t *out = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append(out, items[i]);
    free(items);
    json_decref(raw);
    return out;
}

int rt_count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

char *rt_site_file(const char *site, const char *rel)
{
    char path[4096];
    rt_join(path, site, rel);
    char *text = rt_read(path, NULL);
    if (!text)
        fail_msg("missing %s", rel);
    return text;
}

char *rt_plain(const char *md)
{
    char *out = malloc(strlen(md) + 1), *o = out;
    assert_non_null(out);
    for (const char *p = md; *p; p++) {
        if (*p == '\\' && p[1] && p[1] != '\n')
            p++;
        *o++ = *p;
    }
    *o = '\0';
    return out;
}
