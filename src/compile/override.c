/* Parser and path checks of hashbench.ini: see override.h and
 * docs/OVERRIDE.md. The parser is line-based: `[candidate]` and
 * `[instance NAME]` sections, `key = value` lines, `#` comments (a whole
 * line, or after a blank outside double quotes). */
#include "compile/override.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/fs.h"

/* Every key of either section, to find a key given twice in one section. */
static const char *const all_keys[] = {"id", "algorithm", "dir", "sources",
    "digest_bits", "variant", "defines", "includes", "skip", "exclude_timing"};
#define N_KEYS (sizeof all_keys / sizeof all_keys[0])

typedef struct parser {
    override_file *o;
    override_instance *cur; /* NULL while in [candidate] */
    int in_candidate;
    long line;
    long key_line[N_KEYS];  /* where each key was given in this section, 0: not */
    hb_err *err;
} parser;

int override_name_valid(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > OVERRIDE_NAME_MAX)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-')
            return 0;
    return 1;
}

static int fail(parser *p, const char *fmt, const char *arg)
{
    char msg[512];
    snprintf(msg, sizeof msg, fmt, arg);
    return hb_fail_at(p->err, p->o->path, p->line, "%s", msg);
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* Cuts a comment: '#' at the start or after a blank, outside quotes. */
static void strip_comment(char *s)
{
    int quoted = 0;
    for (char *c = s; *c; c++) {
        if (*c == '"')
            quoted = !quoted;
        else if (*c == '#' && !quoted && (c == s || isspace((unsigned char)c[-1]))) {
            *c = '\0';
            return;
        }
    }
}

/* Splits VALUE into words at blanks (and commas when COMMAS), keeping
 * double-quoted parts together with their quotes. */
static int split_words(parser *p, const char *value, int commas, strlist *out)
{
    char word[1024];
    size_t n = 0;
    int quoted = 0;
    for (const char *c = value;; c++) {
        int sep = *c == '\0' || (!quoted && (isspace((unsigned char)*c) ||
                                             (commas && *c == ',')));
        if (sep) {
            if (n > 0) {
                word[n] = '\0';
                if (strlist_push(out, word) != 0)
                    return hb_fail(p->err, "out of memory");
                n = 0;
            }
            if (*c == '\0')
                break;
            continue;
        }
        if (*c == '"')
            quoted = !quoted;
        if (n + 1 >= sizeof word)
            return fail(p, "a word is longer than 1023 characters%s", "");
        word[n++] = *c;
    }
    if (quoted)
        return fail(p, "unbalanced double quote; close the quoted text%s", "");
    return 0;
}

static int valid_define(const char *d)
{
    if (!isalpha((unsigned char)d[0]) && d[0] != '_')
        return 0;
    for (const char *c = d; *c && *c != '='; c++)
        if (!isalnum((unsigned char)*c) && *c != '_')
            return 0;
    return 1;
}

static int copy_value(parser *p, char *dst, size_t dstsz, const char *value)
{
    if (strlen(value) >= dstsz)
        return fail(p, "value too long (at most %s characters); shorten it",
                    dstsz > 1000 ? "1023" : "255");
    snprintf(dst, dstsz, "%s", value);
    return 0;
}

static int set_candidate_key(parser *p, const char *key, const char *value)
{
    if (strcmp(key, "id") == 0) {
        if (!override_name_valid(value))
            return fail(p, "id must be 1-64 characters from A-Z a-z 0-9 _ -%s; "
                           "change it", "");
        snprintf(p->o->id, sizeof p->o->id, "%s", value);
        return 0;
    }
    if (strcmp(key, "algorithm") == 0) {
        size_t n = strlen(value);
        if (n == 0 || n > OVERRIDE_NAME_MAX)
            return fail(p, "algorithm must be 1-64 characters%s; shorten it", "");
        for (size_t i = 0; i < n; i++)
            if (!isprint((unsigned char)value[i]) || strchr("<>&\"'", value[i]))
                return fail(p, "algorithm may hold printable characters other "
                               "than < > & \" '%s; change it", "");
        snprintf(p->o->algorithm, sizeof p->o->algorithm, "%s", value);
        return 0;
    }
    return fail(p, "unknown key '%.64s' in [candidate]; the keys are id and "
                   "algorithm (see docs/OVERRIDE.md)", key);
}

static int set_digest_bits(parser *p, override_instance *in, const char *value)
{
    char *end;
    long v = strtol(value, &end, 10);
    if (*value == '\0' || *end != '\0' || v <= 0 || v > 65536 || v % 8 != 0)
        return fail(p, "digest_bits must be a positive multiple of 8 up to "
                       "65536%s; fix the value", "");
    in->digest_bits = (int)v;
    return 0;
}

static int set_variant(parser *p, override_instance *in, const char *value)
{
    size_t n = strlen(value);
    int ok = n > 0 && n < sizeof in->variant;
    for (size_t i = 0; ok && i < n; i++)
        ok = isalnum((unsigned char)value[i]) || value[i] == '_' || value[i] == '-';
    if (!ok)
        return fail(p, "variant must be 1-31 characters from A-Z a-z 0-9 _ -%s; "
                       "change it", "");
    snprintf(in->variant, sizeof in->variant, "%s", value);
    in->variant_line = p->line;
    return 0;
}

static int set_defines(parser *p, override_instance *in, const char *value)
{
    int first = in->defines.n;
    if (split_words(p, value, 0, &in->defines) != 0)
        return -1;
    for (int i = first; i < in->defines.n; i++)
        if (!valid_define(in->defines.v[i]))
            return fail(p, "'%.64s' is not NAME or NAME=VALUE; fix the define",
                        in->defines.v[i]);
    return 0;
}

static int set_instance_key(parser *p, const char *key, const char *value)
{
    override_instance *in = p->cur;
    if (strcmp(key, "dir") == 0) {
        in->dir_line = p->line;
        return copy_value(p, in->dir, sizeof in->dir, value);
    }
    if (strcmp(key, "sources") == 0) {
        in->sources_line = p->line;
        return split_words(p, value, 1, &in->sources_raw);
    }
    if (strcmp(key, "includes") == 0) {
        in->includes_line = p->line;
        return split_words(p, value, 1, &in->includes_raw);
    }
    if (strcmp(key, "digest_bits") == 0)
        return set_digest_bits(p, in, value);
    if (strcmp(key, "variant") == 0)
        return set_variant(p, in, value);
    if (strcmp(key, "defines") == 0)
        return set_defines(p, in, value);
    if (strcmp(key, "skip") == 0)
        return copy_value(p, in->skip, sizeof in->skip, *value ? value : "skipped");
    if (strcmp(key, "exclude_timing") == 0)
        return copy_value(p, in->exclude_timing, sizeof in->exclude_timing,
                          *value ? value : "excluded");
    return fail(p, "unknown key '%.64s' in an [instance] section; the keys are "
                   "dir, sources, digest_bits, variant, defines, includes, skip, "
                   "exclude_timing (see docs/OVERRIDE.md)", key);
}

/* Checks the instance section just closed. */
static int finish_instance(parser *p)
{
    override_instance *in = p->cur;
    if (!in || in->skip[0])
        return 0;
    if (in->dir[0] && in->digest_bits == 0)
        return hb_fail_at(p->err, p->o->path, in->line,
                          "[instance %s] gives dir but no digest_bits; add "
                          "digest_bits = N", in->name);
    return 0;
}

static int open_instance(parser *p, const char *name)
{
    if (!override_name_valid(name))
        return fail(p, "instance name must be 1-64 characters from A-Z a-z 0-9 "
                       "_ -%s; rename the section", "");
    if (override_find(p->o, name))
        return fail(p, "[instance %s] appears twice; merge the sections", name);
    override_instance *v = realloc(p->o->inst, (size_t)(p->o->n + 1) * sizeof *v);
    if (!v)
        return hb_fail(p->err, "out of memory");
    p->o->inst = v;
    p->cur = &v[p->o->n++];
    memset(p->cur, 0, sizeof *p->cur);
    snprintf(p->cur->name, sizeof p->cur->name, "%s", name);
    p->cur->line = p->line;
    p->in_candidate = 0;
    return 0;
}

static int parse_section(parser *p, char *s)
{
    size_t n = strlen(s);
    if (s[n - 1] != ']')
        return fail(p, "section header without ']'%s; write [candidate] or "
                       "[instance NAME]", "");
    s[n - 1] = '\0';
    char *body = trim(s + 1);
    if (finish_instance(p) != 0)
        return -1;
    memset(p->key_line, 0, sizeof p->key_line);
    if (strcmp(body, "candidate") == 0) {
        p->cur = NULL;
        p->in_candidate = 1;
        return 0;
    }
    if (strncmp(body, "instance", 8) == 0 && isspace((unsigned char)body[8]))
        return open_instance(p, trim(body + 9));
    return fail(p, "unknown section [%.64s]; write [candidate] or [instance NAME]",
                body);
}

static int parse_line(parser *p, char *raw)
{
    strip_comment(raw);
    char *s = trim(raw);
    if (*s == '\0')
        return 0;
    if (*s == '[')
        return parse_section(p, s);
    char *eq = strchr(s, '=');
    if (!eq)
        return fail(p, "expected 'key = value'%s", "");
    *eq = '\0';
    char *key = trim(s), *value = trim(eq + 1);
    for (size_t k = 0; k < N_KEYS; k++) {
        if (strcmp(key, all_keys[k]) != 0)
            continue;
        if (p->key_line[k]) {
            char msg[160];
            snprintf(msg, sizeof msg, "'%s' is given twice in this section (first "
                     "on line %ld); give it once", all_keys[k], p->key_line[k]);
            return fail(p, "%s", msg);
        }
        p->key_line[k] = p->line;
    }
    if (p->cur)
        return set_instance_key(p, key, value);
    if (p->in_candidate)
        return set_candidate_key(p, key, value);
    return fail(p, "key '%.64s' outside a section; put it under [candidate] or "
                   "[instance NAME]", key);
}

static int parse_text(parser *p, char *text)
{
    char *line = text;
    if (strncmp(line, "\xEF\xBB\xBF", 3) == 0)
        line += 3; /* a UTF-8 byte order mark, as some editors write */
    while (line) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        p->line++;
        if (parse_line(p, line) != 0)
            return -1;
        line = nl ? nl + 1 : NULL;
    }
    return finish_instance(p);
}

int override_load(const char *package, override_file *out, hb_err *err)
{
    memset(out, 0, sizeof *out);
    if (hb_path_join(out->path, sizeof out->path, package, OVERRIDE_FILE, err) != 0)
        return -1;
    if (!hb_is_file(out->path))
        return 0;
    out->present = 1;
    char *text, norm[16];
    if (override_inside(package, OVERRIDE_FILE, 0, norm, sizeof norm) != 0)
        return hb_fail(err, "%s: leads outside the package (a symbolic link?); "
                       "put the override file itself at the package root", out->path);
    if (hb_read_file_limited(out->path, HB_LIMIT_TEXT, OVERRIDE_FILE, &text, NULL,
                             err) != 0)
        return -1;
    parser p = {out, NULL, 0, 0, {0}, err};
    int rc = parse_text(&p, text);
    free(text);
    if (rc != 0)
        override_free(out);
    return rc;
}

void override_free(override_file *o)
{
    for (int i = 0; i < o->n; i++) {
        strlist_free(&o->inst[i].sources_raw);
        strlist_free(&o->inst[i].includes_raw);
        strlist_free(&o->inst[i].defines);
    }
    free(o->inst);
    o->inst = NULL;
    o->n = 0;
}

const override_instance *override_find(const override_file *o, const char *name)
{
    for (int i = 0; i < o->n; i++)
        if (strcmp(o->inst[i].name, name) == 0)
            return &o->inst[i];
    return NULL;
}

int override_is_source_name(const char *path)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash) || dot == path || dot[-1] == '/')
        return 0;
    return strcmp(dot, ".c") == 0 || strcmp(dot, ".s") == 0 || strcmp(dot, ".S") == 0;
}

int override_inside(const char *package, const char *rel, int want_dir,
                    char *out_rel, size_t outsz)
{
    char joined[PATH_MAX], real[PATH_MAX], root[PATH_MAX];
    struct stat st;
    if (rel[0] == '/' || hb_path_join(joined, sizeof joined, package, rel, NULL) != 0)
        return -1;
    if (!realpath(package, root) || !realpath(joined, real) || stat(real, &st) != 0)
        return -1;
    if (want_dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))
        return -1;
    size_t n = strlen(root);
    if (strncmp(real, root, n) != 0 || (real[n] != '/' && real[n] != '\0'))
        return -1;
    const char *tail = real[n] == '/' ? real + n + 1 : ".";
    if (strlen(tail) >= outsz)
        return -1;
    snprintf(out_rel, outsz, "%s", tail);
    return 0;
}

/* Resolves each path of RAW (relative to DIR_REL) into OUT. */
static int resolve_list(const override_file *o, const strlist *raw, long line,
                        const char *package, const char *dir_rel, int want_dir,
                        strlist *out, hb_err *err)
{
    for (int i = 0; i < raw->n; i++) {
        char rel[PATH_MAX], norm[1024];
        if (hb_path_join(rel, sizeof rel, dir_rel, raw->v[i], NULL) != 0 ||
            override_inside(package, rel, want_dir, norm, sizeof norm) != 0)
            return hb_fail_at(err, o->path, line,
                              "%s '%.200s' does not exist inside the package "
                              "(paths are relative to %s); fix the path",
                              want_dir ? "include folder" : "source", raw->v[i],
                              dir_rel);
        if (!want_dir && !override_is_source_name(norm))
            return hb_fail_at(err, o->path, line,
                              "source '%.200s' is not a .c, .s or .S file; list "
                              "only source files (headers are found through "
                              "#include, objects and libraries are not used)",
                              raw->v[i]);
        if (strlist_push(out, norm) != 0)
            return hb_fail(err, "out of memory");
    }
    return 0;
}

int override_resolve(const override_file *o, const override_instance *in,
                     const char *package, const char *dir, char *dir_rel,
                     strlist *sources, strlist *includes, hb_err *err)
{
    if (override_inside(package, dir, 1, dir_rel, 1024) != 0)
        return hb_fail_at(err, o->path, in->dir_line ? in->dir_line : in->line,
                          "dir '%.200s' is not a folder inside the package; give "
                          "a path relative to the package root", dir);
    if (resolve_list(o, &in->sources_raw, in->sources_line, package, dir_rel, 0,
                     sources, err) != 0)
        return -1;
    return resolve_list(o, &in->includes_raw, in->includes_line, package, dir_rel,
                        1, includes, err);
}
