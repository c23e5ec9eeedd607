/* Discovery of instances in a submission package: see discover.h. The
 * folder layout is the data model; headers are read as text (never
 * compiled or run) for DIGEST_BIT_LENGTH and ALGORITHM_INSTANCE. */
#include "compile/discover.h"

#include <ctype.h>
#include <limits.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/fs.h"
#include "common/walk.h"

static const char *const variant_dirs[] = {
    "Reference_Implementation", "Optimized_Implementation",
    "Additional_Implementation"};

/* What one header says about its instance. */
typedef struct header_facts {
    char path[PATH_MAX];   /* package-relative */
    long bits_line;        /* 0: no DIGEST_BIT_LENGTH */
    long bits;             /* -1: defined but not a number */
    long name_line;        /* 0: no literal ALGORITHM_INSTANCE */
    char name[256];
} header_facts;

/* OUT (PATH_MAX bytes) = A/B; -1 when it does not fit. */
static int join(char *out, const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    if (na + nb + 2 > PATH_MAX) {
        out[0] = '\0';
        return -1;
    }
    memcpy(out, a, na);
    out[na] = '/';
    memcpy(out + na + 1, b, nb + 1);
    return 0;
}

/* Records why the instance cannot be built (printf-style). */
__attribute__((format(printf, 2, 3)))
static void set_error(discover_instance *in, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(in->error, sizeof in->error, fmt, ap);
    va_end(ap);
}

typedef struct list_ctx {
    int dirs;
    strlist *out;
} list_ctx;

/* list_dir's visitor. An entry is classified by what it names, as the
 * compiler will see it: a link to a file counts as that file. */
static int list_entry(const hb_walk_entry *e, void *ctx, hb_err *err)
{
    list_ctx *c = ctx;
    if (e->name[0] == '.')
        return HB_WALK_CONTINUE;
    if (c->dirs ? hb_is_dir(e->path) : hb_is_file(e->path))
        return strlist_push(c->out, e->name) != 0 ? hb_fail(err, "out of memory")
                                                  : HB_WALK_CONTINUE;
    return HB_WALK_CONTINUE;
}

/* Sorted names of the entries of folder PATH that are folders (dirs = 1)
 * or regular files (dirs = 0). */
static int list_dir(const char *path, int dirs, strlist *out, hb_err *err)
{
    list_ctx c = {dirs, out};
    if (hb_walk(path, 1, 0, list_entry, &c, err) != 0)
        return -1;
    strlist_sort(out);
    return 0;
}

/* Lists the regular files of PACKAGE/DIR_REL (that path into DIR). */
static int list_files_in(const char *package, const char *dir_rel, char *dir,
                         strlist *files, hb_err *err)
{
    join(dir, package, dir_rel);
    return list_dir(dir, 0, files, err);
}

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcasecmp(s + n - k, suffix) == 0;
}

static int starts_with(const char *s, const char *prefix)
{
    return strncasecmp(s, prefix, strlen(prefix)) == 0;
}

/* TEXT with its comments replaced by blanks (line breaks kept), string and
 * character literals passed over as they are. */
static void blank_comments(char *text)
{
    for (char *p = text; *p; p++) {
        if (*p == '"' || *p == '\'') {
            char q = *p;
            for (p++; *p && *p != q && *p != '\n'; p++)
                if (*p == '\\' && p[1])
                    p++;
            if (!*p)
                return;
        } else if (p[0] == '/' && p[1] == '/') {
            for (; *p && *p != '\n'; p++)
                *p = ' ';
            if (!*p)
                return;
        } else if (p[0] == '/' && p[1] == '*') {
            p[0] = p[1] = ' ';
            for (p += 2; *p && !(p[0] == '*' && p[1] == '/'); p++)
                if (*p != '\n')
                    *p = ' ';
            if (!*p)
                return;
            p[0] = p[1] = ' ';
            p++;
        }
    }
}

/* 1 when TEXT matches the extended regular expression PATTERN. */
static int text_matches(const char *text, const char *pattern)
{
    regex_t re;
    if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB) != 0)
        return 0;
    int hit = regexec(&re, text, 0, NULL, 0) == 0;
    regfree(&re);
    return hit;
}

/* Why the .c file NAME (text TEXT, modified) is a driver, or NULL when it is
 * not; *suspect gets 1 when its text names main at all. */
static const char *driver_reason(const char *name, char *text, int *suspect)
{
    static const char *const prefixes[] = {"KAT_", "main", "test", "bench", "speed"};
    *suspect = 0;
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (starts_with(name, prefixes[i]))
            return "driver: file name";
    if (strcasecmp(name, "drng.c") == 0)
        return "official DRNG of the KAT driver";
    *suspect = text_matches(text, "(^|[^A-Za-z0-9_])main([^A-Za-z0-9_]|$)");
    blank_comments(text);
    return text_matches(text, "(^|[^A-Za-z0-9_])(int|void)[[:space:]]+main[[:space:]]*\\(")
               ? "driver: defines main()" : NULL;
}

/* Lists the library sources of DIR_REL into IN's sources, drivers into its
 * excluded. A file that leads outside the package is not read; one that
 * cannot be read (larger than HB_LIMIT_TEXT, say) makes the instance fail
 * to build, naming the file. */
static int default_sources(const char *package, const char *dir_rel,
                           discover_instance *in, hb_err *err)
{
    char dir[PATH_MAX];
    strlist files = {0};
    if (list_files_in(package, dir_rel, dir, &files, err) != 0)
        return -1;
    int rc = 0;
    for (int i = 0; rc == 0 && i < files.n; i++) {
        if (!has_suffix(files.v[i], ".c"))
            continue;
        char full[PATH_MAX], rel[PATH_MAX], *text = NULL, norm[1024];
        const char *why = NULL;
        hb_err rerr;
        join(full, dir, files.v[i]);
        join(rel, dir_rel, files.v[i]);
        if (override_inside(package, rel, 0, norm, sizeof norm) != 0)
            why = "leads outside the package";
        else if (hb_read_file_limited(full, HB_LIMIT_TEXT, "a source file", &text,
                                      NULL, &rerr) != 0 && !in->error[0])
            set_error(in, "%s%s", rel, strncmp(rerr.msg, full, strlen(full)) == 0
                                            ? rerr.msg + strlen(full) : rerr.msg);
        int suspect = 0;
        if (!why && text)
            why = driver_reason(files.v[i], text, &suspect);
        free(text);
        if (suspect && strlist_push(&in->suspects, rel) != 0)
            rc = hb_fail(err, "out of memory");
        char line[PATH_MAX + 64];
        snprintf(line, sizeof line, "%s (%s)", rel, why ? why : "");
        if (why ? strlist_push(&in->excluded, line) : strlist_push(&in->sources, rel))
            rc = hb_fail(err, "out of memory");
    }
    strlist_free(&files);
    return rc;
}

/* Reads DIGEST_BIT_LENGTH and a literal ALGORITHM_INSTANCE from one header. */
static int read_header(const char *package, const char *rel, header_facts *f,
                       hb_err *err)
{
    char full[PATH_MAX], *text;
    memset(f, 0, sizeof *f);
    memcpy(f->path, rel, strlen(rel) + 1); /* rel fits: it is PATH_MAX */
    join(full, package, rel);
    if (hb_read_file_limited(full, HB_LIMIT_TEXT, "a header", &text, NULL, err) != 0)
        return -1;
    regex_t re;
    regcomp(&re, "^[[:space:]]*#[[:space:]]*define[[:space:]]+"
                 "(DIGEST_BIT_LENGTH|ALGORITHM_INSTANCE)([[:space:]]+(.*))?$",
            REG_EXTENDED);
    long lineno = 0;
    for (char *line = text; line; ) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        lineno++;
        regmatch_t m[4];
        if (regexec(&re, line, 4, m, 0) == 0) {
            const char *value = m[3].rm_so >= 0 ? line + m[3].rm_so : "";
            if (line[m[1].rm_so] == 'D' && !f->bits_line) {
                f->bits_line = lineno;
                while (*value == '(' || isspace((unsigned char)*value))
                    value++;
                char *end;
                f->bits = strtol(value, &end, 10);
                while (*end == ')' || *end == 'U' || *end == 'u' || isspace((unsigned char)*end))
                    end++;
                if (end == value || (*end && strncmp(end, "//", 2) && strncmp(end, "/*", 2)))
                    f->bits = -1;
            } else if (line[m[1].rm_so] == 'A' && !f->name_line && value[0] == '"') {
                const char *close = strchr(value + 1, '"');
                if (close) {
                    size_t n = (size_t)(close - value - 1);
                    if (n >= sizeof f->name)
                        n = sizeof f->name - 1; /* still too long: refused */
                    f->name_line = lineno;
                    memcpy(f->name, value + 1, n);
                    f->name[n] = '\0';
                }
            }
        }
        line = nl ? nl + 1 : NULL;
    }
    regfree(&re);
    free(text);
    return 0;
}

/* Finds the header of folder DIR_REL that defines DIGEST_BIT_LENGTH
 * (CryptHash_*.h first, then any .h). *found is 0 when none does. */
static int find_header(const char *package, const char *dir_rel, header_facts *f,
                       int *found, hb_err *err)
{
    char dir[PATH_MAX];
    strlist files = {0};
    *found = 0;
    if (list_files_in(package, dir_rel, dir, &files, err) != 0)
        return -1;
    int rc = 0;
    for (int pass = 0; pass < 2 && !*found && rc == 0; pass++) {
        for (int i = 0; i < files.n && !*found; i++) {
            const char *n = files.v[i];
            if (!has_suffix(n, ".h") || starts_with(n, "CryptHash_") != (pass == 0))
                continue;
            char rel[PATH_MAX], norm[1024];
            join(rel, dir_rel, n);
            if (override_inside(package, rel, 0, norm, sizeof norm) != 0)
                continue; /* a link out of the package is not read */
            if ((rc = read_header(package, rel, f, err)) != 0)
                break;
            *found = f->bits_line > 0;
        }
    }
    strlist_free(&files);
    return rc;
}

/* Copies NAME into OUT (65 bytes), replacing characters outside
 * [A-Za-z0-9_-] with '_' and cutting at 64. */
static void sanitize_name(const char *name, char *out)
{
    size_t i = 0;
    for (; name[i] && i < OVERRIDE_NAME_MAX; i++) {
        unsigned char c = (unsigned char)name[i];
        out[i] = (char)(isalnum(c) || c == '-' ? c : '_');
    }
    out[i] = '\0';
    if (i == 0)
        snprintf(out, OVERRIDE_NAME_MAX + 1, "unnamed");
}

static int push_instance(discover_list *l, discover_instance **out, hb_err *err)
{
    discover_instance *v = realloc(l->v, (size_t)(l->n + 1) * sizeof *v);
    if (!v)
        return hb_fail(err, "out of memory");
    l->v = v;
    *out = &v[l->n++];
    memset(*out, 0, sizeof **out);
    return 0;
}

/* The variant named by the X_Implementation component of DIR_REL, or "". */
static void variant_of(const char *dir_rel, char variant[32])
{
    variant[0] = '\0';
    const char *p = dir_rel;
    while (p && *p) {
        const char *slash = strchr(p, '/');
        size_t n = slash ? (size_t)(slash - p) : strlen(p);
        const char *suffix = "_Implementation";
        size_t k = strlen(suffix);
        if (n > k && n - k < 32 && strncmp(p + n - k, suffix, k) == 0) {
            memcpy(variant, p, n - k);
            variant[n - k] = '\0';
        }
        p = slash ? slash + 1 : NULL;
    }
}

/* Records the instance of folder DIR_REL when its header defines
 * DIGEST_BIT_LENGTH. */
static int discover_folder(const char *package, const char *dir_rel,
                           discover_list *out, hb_err *err)
{
    header_facts f;
    int found;
    if (find_header(package, dir_rel, &f, &found, err) != 0)
        return -1;
    if (!found)
        return 0;
    discover_instance *in = NULL;
    if (push_instance(out, &in, err) != 0)
        return -1;
    snprintf(in->source_dir, sizeof in->source_dir, "%s", dir_rel);
    variant_of(dir_rel, in->variant);
    const char *name = f.name_line ? f.name : hb_basename(dir_rel);
    sanitize_name(name, in->instance);
    snprintf(in->algorithm_instance, sizeof in->algorithm_instance, "%s", in->instance);
    if (!override_name_valid(name) && f.name_line)
        set_error(in,
                 "%s:%ld: ALGORITHM_INSTANCE is not 1-64 characters from "
                 "A-Z a-z 0-9 _ -; fix the header or name the instance in "
                 "hashbench.ini", f.path, f.name_line);
    else if (!override_name_valid(name))
        set_error(in,
                 "%s: the folder name is not 1-64 characters from A-Z a-z 0-9 "
                 "_ -; rename it or name the instance in hashbench.ini", dir_rel);
    else if (f.bits <= 0 || f.bits % 8 != 0)
        set_error(in,
                 "%s:%ld: DIGEST_BIT_LENGTH is not a positive multiple of 8; "
                 "give digest_bits in hashbench.ini", f.path, f.bits_line);
    in->digest_bits = f.bits > 0 ? (int)f.bits : 0;
    return default_sources(package, dir_rel, in, err);
}

/* Discovers the instances under the Implementations folder IMPL_REL. */
static int discover_impl(const char *package, const char *impl_rel,
                         discover_list *out, hb_err *err)
{
    for (size_t v = 0; v < sizeof variant_dirs / sizeof variant_dirs[0]; v++) {
        char rel[PATH_MAX], full[PATH_MAX];
        join(rel, impl_rel, variant_dirs[v]);
        join(full, package, rel);
        if (!hb_is_dir(full))
            continue;
        strlist dirs = {0};
        int rc = list_dir(full, 1, &dirs, err);
        for (int i = 0; rc == 0 && i < dirs.n; i++) {
            char inst_rel[PATH_MAX], norm[1024];
            join(inst_rel, rel, dirs.v[i]);
            if (override_inside(package, inst_rel, 1, norm, sizeof norm) == 0)
                rc = discover_folder(package, norm, out, err);
        }
        strlist_free(&dirs);
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* 1 when PACKAGE/REL is an Implementations folder of the official tree: it
 * holds at least one X_Implementation folder. */
static int is_official_tree(const char *package, const char *rel)
{
    if (strcmp(hb_basename(rel), "Implementations") != 0)
        return 0;
    for (size_t v = 0; v < sizeof variant_dirs / sizeof variant_dirs[0]; v++) {
        char sub[PATH_MAX], full[PATH_MAX];
        join(sub, rel, variant_dirs[v]);
        join(full, package, sub);
        if (hb_is_dir(full))
            return 1;
    }
    return 0;
}

/* Appends to TREES the official trees DEPTH folders below PACKAGE/REL
 * ("" = the package itself), never going into a tree found, a vector folder
 * or a folder that leads outside the package. */
static int trees_at_depth(const char *package, const char *rel, int depth,
                          strlist *trees, hb_err *err)
{
    char full[PATH_MAX];
    if (depth == 0)
        return rel[0] && is_official_tree(package, rel) &&
                       strlist_push(trees, rel) != 0 ? hb_fail(err, "out of memory") : 0;
    if (rel[0] && is_official_tree(package, rel))
        return 0;
    strlist dirs = {0};
    if (rel[0])
        join(full, package, rel);
    else
        snprintf(full, sizeof full, "%s", package);
    int rc = list_dir(full, 1, &dirs, err);
    for (int i = 0; rc == 0 && i < dirs.n; i++) {
        char sub[PATH_MAX], norm[1024];
        if (strcasecmp(dirs.v[i], "Test_Vector") == 0 ||
            strcasecmp(dirs.v[i], "Test_Vectors") == 0)
            continue;
        if (rel[0])
            join(sub, rel, dirs.v[i]);
        else
            snprintf(sub, sizeof sub, "%s", dirs.v[i]);
        if (override_inside(package, sub, 1, norm, sizeof norm) == 0)
            rc = trees_at_depth(package, norm, depth - 1, trees, err);
    }
    strlist_free(&dirs);
    return rc;
}

/* Searches PACKAGE/Implementations and PACKAGE/<top>/Implementations; when
 * neither holds the official tree, the shallowest level below (up to
 * DISCOVER_TREE_DEPTH folders) that does, and says so in NOTES. */
static int discover_layout(const char *package, discover_list *out, strlist *notes,
                           hb_err *err)
{
    strlist trees = {0};
    int rc = trees_at_depth(package, "", 1, &trees, err);
    if (rc == 0)
        rc = trees_at_depth(package, "", 2, &trees, err);
    for (int depth = 3; rc == 0 && trees.n == 0 && depth <= DISCOVER_TREE_DEPTH + 1;
         depth++)
        rc = trees_at_depth(package, "", depth, &trees, err);
    for (int i = 0; rc == 0 && i < trees.n; i++) {
        int before = out->n;
        rc = discover_impl(package, trees.v[i], out, err);
        char note[PATH_MAX + 200];
        if (rc == 0 && strchr(trees.v[i], '/') && out->n > before) {
            snprintf(note, sizeof note, "the official tree is at %s (below the package "
                     "folder): %d instance%s found there", trees.v[i], out->n - before,
                     out->n - before == 1 ? "" : "s");
            if (strlist_push(notes, note) != 0)
                rc = hb_fail(err, "out of memory");
        }
    }
    strlist_free(&trees);
    return rc;
}

/* Index of the instance of FOUND[from..end) with this NAME or DIR, or -1. */
static int find_discovered(const discover_list *l, int from, int end,
                           const char *name, const char *dir)
{
    for (int i = from; i < end; i++)
        if ((name && strcmp(l->v[i].instance, name) == 0) ||
            (dir && strcmp(l->v[i].source_dir, dir) == 0))
            return i;
    return -1;
}

/* Gives each variant twin of FOUND[from..end) (an instance whose name an
 * instance of another variant found earlier already has) the name
 * <name>-<Variant>, when that fits and is free; a twin left with its name is
 * refused by the build stage. */
static void name_variant_twins(discover_list *found, int from, int end)
{
    for (int i = from; i < end; i++) {
        discover_instance *d = &found->v[i];
        int j = find_discovered(found, from, i, d->instance, NULL);
        if (j < 0 || d->error[0] || strcmp(found->v[j].variant, d->variant) == 0)
            continue;
        char name[sizeof d->instance];
        int n = snprintf(name, sizeof name, "%s-%s", d->instance, d->variant);
        if (n > 0 && (size_t)n < sizeof name && override_name_valid(name) &&
            find_discovered(found, from, end, name, NULL) < 0)
            memcpy(d->instance, name, (size_t)n + 1);
    }
}

/* The name given by an ALGORITHM_INSTANCE="NAME" word of DEFINES, or NULL. */
static const char *defined_instance_name(const strlist *defines, char *buf, size_t sz)
{
    static const char key[] = "ALGORITHM_INSTANCE=\"";
    for (int i = 0; i < defines->n; i++) {
        const char *v = defines->v[i];
        size_t n = strlen(v);
        if (strncmp(v, key, sizeof key - 1) == 0 && n > sizeof key && v[n - 1] == '"' &&
            n - sizeof key < sz) {
            memcpy(buf, v + sizeof key - 1, n - sizeof key);
            buf[n - sizeof key] = '\0';
            return override_name_valid(buf) ? buf : NULL;
        }
    }
    return NULL;
}

/* Fills IN from the override section OI, completing it from the discovered
 * instance BASE (may be NULL). */
static int apply_override(const override_file *o, const override_instance *oi,
                          const discover_instance *base, const char *package,
                          discover_instance *in, hb_err *err)
{
    char defined[OVERRIDE_NAME_MAX + 1];
    const char *shared = defined_instance_name(&oi->defines, defined, sizeof defined);
    snprintf(in->instance, sizeof in->instance, "%s", oi->name);
    snprintf(in->algorithm_instance, sizeof in->algorithm_instance, "%s",
             shared ? shared : base ? base->algorithm_instance : oi->name);
    snprintf(in->override_at, sizeof in->override_at, "%s:%ld [instance %s]", o->path,
             oi->line, oi->name);
    snprintf(in->skip, sizeof in->skip, "%s", oi->skip);
    snprintf(in->exclude_timing, sizeof in->exclude_timing, "%s", oi->exclude_timing);
    const char *dir = oi->dir[0] ? oi->dir : base ? base->source_dir : NULL;
    if (!dir) {
        if (oi->skip[0])
            return 0;
        return hb_fail_at(err, o->path, oi->line, "[instance %s] has no dir and no "
                          "discovered instance has this name; add dir = FOLDER",
                          oi->name);
    }
    if (override_resolve(o, oi, package, dir, in->source_dir, &in->sources,
                         &in->includes, err) != 0)
        return -1;
    if (in->sources.n == 0 && default_sources(package, in->source_dir, in, err) != 0)
        return -1;
    strlist_sort(&in->sources);
    if (strlist_push_all(&in->defines, &oi->defines) != 0)
        return hb_fail(err, "out of memory");
    in->digest_bits = oi->digest_bits ? oi->digest_bits : base ? base->digest_bits : 0;
    if (oi->variant[0])
        snprintf(in->variant, sizeof in->variant, "%s", oi->variant);
    else
        variant_of(in->source_dir, in->variant);
    if (!in->variant[0] && !oi->skip[0])
        return hb_fail_at(err, o->path, oi->line, "[instance %s]: dir is not under "
                          "an X_Implementation folder; add variant = NAME", oi->name);
    return 0;
}

/* Appends the override's instances after the discovered FOUND[from..end)
 * and sets replaced[i - from] for each discovered instance that one of them
 * replaces (same name or same folder). */
static int merge_override(const override_file *o, const char *package,
                          discover_list *found, int from, int end,
                          unsigned char *replaced, hb_err *err)
{
    for (int i = 0; i < o->n; i++) {
        const override_instance *oi = &o->inst[i];
        int base = find_discovered(found, from, end, oi->name, NULL);
        discover_instance *in = NULL;
        if (push_instance(found, &in, err) != 0 ||
            apply_override(o, oi, base >= 0 ? &found->v[base] : NULL, package,
                           in, err) != 0)
            return -1;
        if (base >= 0)
            replaced[base - from] = 1;
        for (int k = from; in->source_dir[0] && k < end; k++)
            if (strcmp(found->v[k].source_dir, in->source_dir) == 0)
                replaced[k - from] = 1;
    }
    return 0;
}

static void free_instance(discover_instance *d)
{
    strlist_free(&d->sources);
    strlist_free(&d->excluded);
    strlist_free(&d->suspects);
    strlist_free(&d->defines);
    strlist_free(&d->includes);
}

/* Sets the candidate fields of FOUND[from..] and removes the replaced ones. */
static void finish_candidate(discover_list *found, int from,
                             const unsigned char *replaced, int n_replaced,
                             const char *id, const char *algorithm,
                             const char *package)
{
    int w = from;
    for (int i = from; i < found->n; i++) {
        discover_instance *d = &found->v[i];
        if (i - from < n_replaced && replaced[i - from]) {
            free_instance(d);
            continue;
        }
        snprintf(d->candidate, sizeof d->candidate, "%s", id);
        snprintf(d->algorithm, sizeof d->algorithm, "%s", algorithm);
        snprintf(d->package, sizeof d->package, "%s", package);
        found->v[w++] = *d;
    }
    found->n = w;
}

/* Discovers and merges; the caller checks the candidate id first. */
static int discover_candidate(const char *abs, const override_file *o,
                              const char *id, discover_list *out, hb_err *err)
{
    int from = out->n;
    if (discover_layout(abs, out, &out->notes, err) != 0)
        return -1;
    int end = out->n;
    name_variant_twins(out, from, end);
    unsigned char *replaced = calloc((size_t)(end - from) + 1, 1);
    if (!replaced)
        return hb_fail(err, "out of memory");
    int rc = merge_override(o, abs, out, from, end, replaced, err);
    if (rc == 0) {
        finish_candidate(out, from, replaced, end - from, id,
                         o->algorithm[0] ? o->algorithm : id, abs);
        if (out->n == from)
            rc = hb_fail(err, "%s: no instance found (no header under "
                         "Implementations/*_Implementation/*/ defines "
                         "DIGEST_BIT_LENGTH, up to %d folders below the package); "
                         "name the instances in %s", abs, DISCOVER_TREE_DEPTH,
                         OVERRIDE_FILE);
    }
    free(replaced);
    return rc;
}

/* 1 when NAME is a folder name of the official layout, never a candidate's. */
static int layout_name(const char *name)
{
    size_t n = strlen(name), k = strlen("_Implementation");
    return strcmp(name, "Implementations") == 0 || strcasecmp(name, "Test_Vector") == 0 ||
           strcasecmp(name, "Test_Vectors") == 0 ||
           (n > k && strcmp(name + n - k, "_Implementation") == 0);
}

/* The candidate id of the package at ABS when its override names none: the
 * package folder's name, else the name of the nearest enclosing folder (up
 * to DISCOVER_TREE_DEPTH + 1 levels out) that is a valid id and not a folder
 * of the official layout, with a note saying so. */
static int fallback_id(const char *abs, char *id, strlist *notes, hb_err *err)
{
    const char *base = hb_basename(abs);
    if (override_name_valid(base)) {
        snprintf(id, OVERRIDE_NAME_MAX + 1, "%s", base);
        return 0;
    }
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s", abs);
    for (int up = 0; up <= DISCOVER_TREE_DEPTH; up++) {
        char *slash = strrchr(path, '/');
        if (!slash || slash == path)
            break;
        *slash = '\0';
        const char *name = hb_basename(path);
        if (override_name_valid(name) && !layout_name(name)) {
            char note[PATH_MAX + 400];
            snprintf(id, OVERRIDE_NAME_MAX + 1, "%s", name);
            snprintf(note, sizeof note, "candidate id %s, from the enclosing folder %s "
                     "(the package folder's name is not 1-64 characters from A-Z a-z "
                     "0-9 _ -; [candidate] id = NAME in %s sets another)", id, path,
                     OVERRIDE_FILE);
            return strlist_push(notes, note) != 0 ? hb_fail(err, "out of memory") : 0;
        }
    }
    return hb_fail(err, "%s: no candidate id: neither this folder's name nor an "
                   "enclosing one is 1-64 characters from A-Z a-z 0-9 _ -; add "
                   "[candidate] id = NAME to %s/%s", abs, abs, OVERRIDE_FILE);
}

int discover_package_with(const char *package, int flags, discover_list *out,
                          hb_err *err)
{
    char abs[PATH_MAX], id[OVERRIDE_NAME_MAX + 1];
    if (!realpath(package, abs) || !hb_is_dir(abs))
        return hb_fail(err, "%s: not a folder; give the path of a submission "
                       "package", package);
    override_file o;
    if (override_load(abs, &o, err) != 0)
        return -1;
    if (flags & DISCOVER_NO_SECTIONS) {
        for (int i = 0; i < o.n; i++) {
            strlist_free(&o.inst[i].sources_raw);
            strlist_free(&o.inst[i].includes_raw);
            strlist_free(&o.inst[i].defines);
        }
        o.n = 0;
    }
    int rc = 0;
    if (o.id[0])
        snprintf(id, sizeof id, "%s", o.id);
    else
        rc = fallback_id(abs, id, &out->notes, err);
    if (rc == 0)
        rc = discover_candidate(abs, &o, id, out, err);
    override_free(&o);
    return rc;
}

int discover_package(const char *package, discover_list *out, hb_err *err)
{
    return discover_package_with(package, 0, out, err);
}

void discover_free(discover_list *l)
{
    for (int i = 0; i < l->n; i++)
        free_instance(&l->v[i]);
    free(l->v);
    l->v = NULL;
    l->n = 0;
    strlist_free(&l->notes);
}

int discover_defines_crypthash(const char *text)
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
