/* Comparisons linked from a report site: see site_compare.h. A comparison
 * is installed from what `hashbench compare --out` wrote; its page is the
 * one thing rendered again here (html_render with the site's breadcrumb),
 * the rest is copied byte for byte. */
#include "report/site_compare.h"

#include <stdlib.h>
#include <string.h>
#include "common/fs.h"
#include "common/json.h"
#include "report/compare.h"
#include "report/esc.h"
#include "report/html.h"
#include "report/pages.h"

int site_compare_load(const char *dir, site_comparison *out, hb_err *err)
{
    char path[4096], last[4096];
    memset(out, 0, sizeof *out);
    if (snprintf(out->from, sizeof out->from, "%s", dir) >= (int)sizeof out->from)
        return hb_fail(err, "%s: path too long", dir);
    /* the folder's own name, without trailing slashes */
    snprintf(last, sizeof last, "%s", dir);
    for (size_t n = strlen(last); n > 1 && last[n - 1] == '/'; n--)
        last[n - 1] = '\0';
    esc_file_component(hb_basename(last), out->name, sizeof out->name);
    if (hb_path_join(path, sizeof path, dir, COMPARE_SUMMARY_FILE, err) < 0)
        return -1;
    if (!hb_is_file(path))
        return hb_fail(err, "%s: no comparison here (no %s); write one with "
                       "'hashbench compare A B --out %s' first", dir, COMPARE_SUMMARY_FILE,
                       dir);
    if (hb_json_load(path, &out->summary, err) < 0)
        return -1;
    if (strcmp(hb_json_str(out->summary, "kind"), COMPARE_SUMMARY_KIND) != 0 ||
        !json_is_string(json_object_get(out->summary, "a")) ||
        !json_is_string(json_object_get(out->summary, "b"))) {
        site_compare_free(out);
        return hb_fail(err, "%s: not a comparison's summary (kind \"%s\" with systems a "
                       "and b); write it again with 'hashbench compare A B --out %s'",
                       path, COMPARE_SUMMARY_KIND, dir);
    }
    static const char *const need[] = {"compare.md", "compare.svg"};
    for (size_t i = 0; i < 2; i++) {
        if (hb_path_join(path, sizeof path, dir, need[i], err) < 0 || !hb_is_file(path)) {
            site_compare_free(out);
            return hb_fail(err, "%s/%s: missing; write the comparison again with "
                           "'hashbench compare A B --out %s'", dir, need[i], dir);
        }
    }
    return 0;
}

void site_compare_free(site_comparison *c)
{
    json_decref(c->summary);
    c->summary = NULL;
}

int site_compare_names_distinct(const site_comparison *c, size_t n, hb_err *err)
{
    for (size_t i = 0; i < n; i++)
        for (size_t k = i + 1; k < n; k++)
            if (strcmp(c[i].name, c[k].name) == 0)
                return hb_fail(err, "%s and %s: both would be the site's comparison "
                               "'%s'; give the comparisons folders of different names",
                               c[i].from, c[k].from, c[i].name);
    return 0;
}

/* Reads FROM/NAME into *TEXT (malloc'd) and writes it to TO/NAME. */
static int copy_one(const char *from, const char *to, const char *name, char **text,
                    size_t *len, hb_err *err)
{
    char src[4096], dst[4096];
    if (hb_path_join(src, sizeof src, from, name, err) < 0 ||
        hb_path_join(dst, sizeof dst, to, name, err) < 0)
        return -1;
    if (hb_read_file(src, text, len, err) < 0)
        return -1;
    return hb_write_atomic(dst, *text, *len, err);
}

int site_compare_install(const site_comparison *c, const char *site, hb_err *err)
{
    char dir[4096], rel[600], path[4096];
    snprintf(rel, sizeof rel, "%s/%s", SITE_COMPARE_DIR, c->name);
    if (hb_path_join(dir, sizeof dir, site, rel, err) < 0 || hb_mkdirs(dir, err) < 0)
        return -1;
    char *md = NULL, *svg = NULL, *sum = NULL, *html = NULL;
    size_t nmd = 0, nsvg = 0, nsum = 0, nhtml = 0;
    /* read all before writing: FROM may be this very folder */
    int rc = copy_one(c->from, dir, "compare.md", &md, &nmd, err);
    if (rc == 0)
        rc = copy_one(c->from, dir, "compare.svg", &svg, &nsvg, err);
    if (rc == 0)
        rc = copy_one(c->from, dir, COMPARE_SUMMARY_FILE, &sum, &nsum, err);
    /* compare.md has no link (compare.h), so it is also the Markdown the
     * HTML is rendered from */
    html_page hp = {NULL, NULL, NULL, "comparison", "compare", "compare.svg", svg, "../../"};
    FILE *f = rc == 0 ? open_memstream(&html, &nhtml) : NULL;
    if (rc == 0 && !f)
        rc = hb_fail_errno(err, "%s: rendering the comparison", dir);
    if (f) {
        rc = html_render(f, &hp, md, nmd, err);
        fclose(f);
    }
    if (rc == 0 && hb_path_join(path, sizeof path, dir, "compare.html", err) < 0)
        rc = -1;
    if (rc == 0)
        rc = hb_write_atomic(path, html, nhtml, err);
    free(md);
    free(svg);
    free(sum);
    free(html);
    return rc;
}

static long long count(const json_t *sum, const char *key)
{
    return json_integer_value(json_object_get(sum, key));
}

void site_compare_index(FILE *fp, const site_comparison *c, size_t n, const char *ext)
{
    char target[600], text[600];
    if (n == 0)
        return;
    fputs("## Comparisons\n\nTwo systems (or two campaigns) held against each other, "
          "instance by instance: B / A with its 95 % interval and a verdict.\n\n", fp);
    for (size_t i = 0; i < n; i++) {
        const json_t *s = c[i].summary;
        snprintf(target, sizeof target, "%s/%s/compare", SITE_COMPARE_DIR, c[i].name);
        snprintf(text, sizeof text, "%s against %s", hb_json_str(s, "b"),
                 hb_json_str(s, "a"));
        fputs("- ", fp);
        pages_link(fp, text, target, ext);
        fprintf(fp, ": %lld rows compared, %lld slower, %lld faster, %lld with no "
                    "difference detected", count(s, "rows"), count(s, "slower"),
                count(s, "faster"), count(s, "no_difference"));
        if (count(s, "undecided"))
            fprintf(fp, ", %lld undecided", count(s, "undecided"));
        fprintf(fp, "; %lld not compared.\n", count(s, "not_compared"));
    }
    fputs("\n", fp);
}

int site_compare_found(const char *site, json_t *dirs, hb_err *err)
{
    char root[4096], path[4096];
    if (hb_path_join(root, sizeof root, site, SITE_COMPARE_DIR, err) < 0)
        return -1;
    if (!hb_is_dir(root))
        return 0;
    json_t *files = json_array();
    hb_json_list_files(root, files);
    size_t i;
    json_t *f;
    size_t suffix = strlen("/" COMPARE_SUMMARY_FILE);
    json_array_foreach(files, i, f) {
        const char *rel = json_string_value(f);
        const char *slash = strchr(rel, '/');
        if (!slash || strlen(slash) != suffix || strcmp(slash + 1, COMPARE_SUMMARY_FILE))
            continue;
        if (hb_path_join(path, sizeof path, root, rel, err) < 0) {
            json_decref(files);
            return -1;
        }
        path[strlen(path) - suffix] = '\0';
        json_array_append_new(dirs, json_string(path));
    }
    json_decref(files);
    return 0;
}
