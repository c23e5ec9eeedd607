/* A starting hashbench.ini from discovery: see init.h. */
#include "compile/init.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/discover.h"
#include "compile/override.h"
#include "common/fs.h"

int init_defines_crypthash(const char *text)
{
    for (const char *p = strstr(text, "CryptHash"); p; p = strstr(p + 1, "CryptHash")) {
        const char *q = p + 9;
        if ((p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) ||
            isalnum((unsigned char)*q) || *q == '_')
            continue;
        while (isspace((unsigned char)*q))
            q++;
        if (*q != '(')
            continue;
        int depth = 0;
        for (; *q; q++) {
            depth += (*q == '(') - (*q == ')');
            if (depth == 0)
                break;
        }
        if (!*q)
            return 0;
        for (q++; isspace((unsigned char)*q); q++)
            ;
        if (*q == '{')
            return 1;
    }
    return 0;
}

/* 1 when package source REL (package-relative) defines CryptHash. */
static int source_defines(const discover_instance *in, const char *rel)
{
    char path[PATH_MAX], *text = NULL;
    hb_err ignored;
    if (snprintf(path, sizeof path, "%s/%s", in->package, rel) >= (int)sizeof path ||
        hb_read_file_limited(path, HB_LIMIT_TEXT, "a source file", &text, NULL,
                             &ignored) != 0)
        return 0;
    int yes = init_defines_crypthash(text);
    free(text);
    return yes;
}

/* REL relative to the instance folder (sources are package-relative). */
static const char *in_dir(const discover_instance *in, const char *rel)
{
    size_t n = strlen(in->source_dir);
    if (n && strncmp(rel, in->source_dir, n) == 0 && rel[n] == '/')
        return rel + n + 1;
    return rel;
}

/* NAME_STEM of FILE (its name without .c), bad characters made '_', cut to
 * a valid name's length. */
static void split_name(const char *name, const char *file, char *out, size_t outsz)
{
    char stem[PATH_MAX];
    snprintf(stem, sizeof stem, "%s", hb_basename(file));
    char *dot = strrchr(stem, '.');
    if (dot)
        *dot = '\0';
    char full[2 * PATH_MAX];
    snprintf(full, sizeof full, "%.*s_%s", OVERRIDE_NAME_MAX / 2, name, stem);
    for (char *c = full; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '_' && *c != '-')
            *c = '_';
    size_t n = strnlen(full, OVERRIDE_NAME_MAX);
    if (n >= outsz)
        n = outsz - 1;
    memcpy(out, full, n);
    out[n] = '\0';
}

/* One [instance] section: NAME, the folder, the sources of IN whose index
 * has KEEP set (all when KEEP is NULL), digest size and variant. */
static void put_section(FILE *fp, const discover_instance *in, const char *name,
                        const char *keep)
{
    fprintf(fp, "[instance %s]\ndir = %s\nsources =", name, in->source_dir);
    for (int i = 0; i < in->sources.n; i++)
        if (!keep || keep[i])
            fprintf(fp, " %s", in_dir(in, in->sources.v[i]));
    fprintf(fp, "\ndigest_bits = %d\nvariant = %s\n", in->digest_bits, in->variant);
}

static void put_instance(FILE *fp, const discover_instance *in, int *n_sections)
{
    char *defining = calloc((size_t)in->sources.n + 1, 1);
    int defs = 0;
    for (int i = 0; defining && i < in->sources.n; i++)
        defs += defining[i] = (char)source_defines(in, in->sources.v[i]);
    fprintf(fp, "\n# found: %s (folder %s)\n", in->instance, in->source_dir);
    for (int i = 0; i < in->excluded.n; i++)
        fprintf(fp, "# left out: %s\n", in_dir(in, in->excluded.v[i]));
    if (in->error[0])
        fprintf(fp, "# unsure: discovery refused it: %s\n", in->error);
    if (defs < 2 || !defining) {
        put_section(fp, in, in->instance, NULL);
        ++*n_sections;
        free(defining);
        return;
    }
    fprintf(fp, "# unsure: %d of its sources define CryptHash, so the folder probably "
            "serves several\n# instances: one section per defining file below, each "
            "with the shared\n# sources. Check each name and digest_bits (the header "
            "says %d for all);\n# when the sources take the instance name or digest "
            "size from outside, add\n# defines = ALGORITHM_INSTANCE=\"NAME\" "
            "DIGEST_BIT_LENGTH=BITS\n", defs, in->digest_bits);
    for (int i = 0; i < in->sources.n; i++) {
        if (!defining[i])
            continue;
        char name[OVERRIDE_NAME_MAX + 1];
        split_name(in->instance, in->sources.v[i], name, sizeof name);
        char *keep = malloc((size_t)in->sources.n + 1);
        if (!keep)
            break;
        for (int k = 0; k < in->sources.n; k++)
            keep[k] = (char)(!defining[k] || k == i);
        fputs("\n", fp);
        put_section(fp, in, name, keep);
        ++*n_sections;
        free(keep);
    }
    free(defining);
}

int init_override_text(const char *package, char **text, int *n_sections, hb_err *err)
{
    char ini[PATH_MAX];
    *text = NULL;
    *n_sections = 0;
    if (snprintf(ini, sizeof ini, "%s/%s", package, OVERRIDE_FILE) >= (int)sizeof ini)
        return hb_fail(err, "%s: path too long", package);
    if (hb_is_file(ini))
        return hb_fail(err, "%s exists: edit it (see docs/OVERRIDE.md), or remove it to "
                       "start again from what discovery finds", ini);
    discover_list l = {0};
    if (discover_package(package, &l, err) != 0) {
        discover_free(&l);
        return -1;
    }
    size_t len = 0;
    FILE *fp = open_memstream(text, &len);
    if (!fp) {
        discover_free(&l);
        return hb_fail(err, "out of memory");
    }
    fprintf(fp, "# hashbench.ini: written by hashbench init from what discovery found "
            "in this package.\n# Check and edit it (format: docs/OVERRIDE.md), then "
            "run hashbench build.\n# Sources and folders are relative to dir; every "
            "instance is listed, so the\n# file alone says what is built.\n\n"
            "[candidate]\nid = %s\nalgorithm = %s\n", l.n ? l.v[0].candidate : "",
            l.n ? l.v[0].algorithm : "");
    for (int i = 0; i < l.n; i++)
        put_instance(fp, &l.v[i], n_sections);
    fclose(fp);
    discover_free(&l);
    if (!*text)
        return hb_fail(err, "out of memory");
    return 0;
}
