/* The evaluator's notes file (see notes.h): a line-based parser in the
 * manner of the override file, each mistake named by file and line with
 * what to do. Values are plain text, kept as written (trimmed); escaping is
 * the page writers' job. */
#include "dataset/notes.h"

#include <stdlib.h>
#include <string.h>
#include "common/fs.h"

#define NOTES_DOC "see docs/FORMATS.md, notes.txt"
#define NOTES_LIMIT (1ULL << 20)

typedef struct notes_parser {
    const char *name;
    long line;
    json_t *notes;
    json_t *cur;      /* the section being filled, NULL before the first */
    long cur_line;
    hb_err *err;
} notes_parser;

static int fail(notes_parser *p, const char *fmt, const char *a, const char *b)
{
    return hb_fail_at(p->err, p->name, p->line, fmt, a, b);
}

static int name_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-';
}

/* 1 when S[0..N) is 1-64 characters from [A-Za-z0-9_-]. */
static int valid_name(const char *s, size_t n)
{
    if (n == 0 || n > 64)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!name_char(s[i]))
            return 0;
    return 1;
}

/* Length of the valid UTF-8 sequence at S (1..4), or 0. */
static int utf8_len(const unsigned char *s)
{
    if (s[0] < 0x80)
        return 1;
    int n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
    if (s[0] >= 0xf5)
        return 0;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    return n;
}

/* 1 when S is valid UTF-8 without control characters. */
static int clean_text(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        if (*p < 0x20 || *p == 0x7f)
            return 0;
        int n = utf8_len(p);
        if (!n)
            return 0;
        p += n;
    }
    return 1;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

/* A section that got no key is a mistake: the file says nothing there. */
static int close_section(notes_parser *p)
{
    if (p->cur && json_object_size(p->cur) <= 1) {
        long here = p->line;
        p->line = p->cur_line;
        fail(p, "section without caveat or kat; add one of them or remove the "
                "section (%s)%s", NOTES_DOC, "");
        p->line = here;
        return -1;
    }
    return 0;
}

static int section(notes_parser *p, char *s)
{
    size_t n = strlen(s);
    if (s[n - 1] != ']')
        return fail(p, "a section line is [CANDIDATE/INSTANCE]; close the bracket "
                       "(%s)%s", NOTES_DOC, "");
    s[n - 1] = '\0';
    char *name = trim(s + 1);
    char *slash = strchr(name, '/');
    if (!slash || !valid_name(name, (size_t)(slash - name)) ||
        !valid_name(slash + 1, strlen(slash + 1)))
        return fail(p, "section [%.140s] must be [CANDIDATE/INSTANCE], each 1-64 "
                       "characters from A-Z a-z 0-9 _ - (%s)", name, NOTES_DOC);
    if (close_section(p) < 0)
        return -1;
    const json_t *seen = json_object_get(p->notes, name);
    if (seen) {
        char first[32];
        snprintf(first, sizeof first, "%lld",
                 (long long)json_integer_value(json_object_get(seen, "line")));
        return fail(p, "[%.140s] given again (first on line %s); merge the two "
                       "sections", name, first);
    }
    p->cur = json_pack("{s:I}", "line", (json_int_t)p->line);
    p->cur_line = p->line;
    json_object_set_new(p->notes, name, p->cur);
    return 0;
}

static int key_value(notes_parser *p, char *s)
{
    char *eq = strchr(s, '=');
    if (!eq)
        return fail(p, "'%.60s' is neither a comment, a [CANDIDATE/INSTANCE] section "
                       "nor KEY = TEXT (%s)", s, NOTES_DOC);
    *eq = '\0';
    char *key = trim(s), *value = trim(eq + 1);
    size_t max;
    if (strcmp(key, "caveat") == 0)
        max = NOTES_CAVEAT_MAX;
    else if (strcmp(key, "kat") == 0)
        max = NOTES_KAT_MAX;
    else
        return fail(p, "unknown key '%.60s'; the keys are caveat and kat (%s)", key,
                    NOTES_DOC);
    if (!p->cur)
        return fail(p, "'%s' before any section; put it under the "
                       "[CANDIDATE/INSTANCE] it is about%s", key, "");
    if (json_object_get(p->cur, key))
        return fail(p, "'%s' given twice in this section; keep one (write the text "
                       "on one line)%s", key, "");
    if (!value[0])
        return fail(p, "'%s' has no text; write it after '=' or remove the line%s",
                    key, "");
    if (strlen(value) > max) {
        char lim[32];
        snprintf(lim, sizeof lim, "%zu", max);
        return fail(p, "'%s' is longer than %s bytes; shorten it", key, lim);
    }
    if (!clean_text(value))
        return fail(p, "'%s' holds a control character or invalid UTF-8; write plain "
                       "UTF-8 text%s", key, "");
    json_object_set_new(p->cur, key, json_string(value));
    return 0;
}

int notes_parse(const char *text, size_t len, const char *name, json_t **out, hb_err *err)
{
    notes_parser p = {name, 0, json_object(), NULL, 0, err};
    *out = NULL;
    if (memchr(text, '\0', len)) {
        json_decref(p.notes);
        return hb_fail(err, "%s: holds a NUL byte; a notes file is UTF-8 text (%s)",
                       name, NOTES_DOC);
    }
    char *copy = strndup(text, len);
    if (!copy) {
        json_decref(p.notes);
        return hb_fail(err, "%s: out of memory", name);
    }
    char *cursor = copy;
    if (strncmp(cursor, "\xef\xbb\xbf", 3) == 0)
        cursor += 3;
    int rc = 0;
    while (cursor && *cursor && rc == 0) {
        char *nl = strchr(cursor, '\n');
        if (nl)
            *nl = '\0';
        p.line++;
        char *s = trim(cursor);
        if (s[0] == '[')
            rc = section(&p, s);
        else if (s[0] && s[0] != '#')
            rc = key_value(&p, s);
        cursor = nl ? nl + 1 : NULL;
    }
    if (rc == 0) {
        p.line++;
        rc = close_section(&p);
    }
    free(copy);
    if (rc < 0) {
        json_decref(p.notes);
        return -1;
    }
    *out = p.notes;
    return 0;
}

int notes_load(const char *path, json_t **out, hb_err *err)
{
    char *text = NULL;
    size_t len = 0;
    *out = NULL;
    if (hb_read_file_limited(path, NOTES_LIMIT, "a notes file", &text, &len, err) < 0)
        return -1;
    int rc = notes_parse(text, len, path, out, err);
    free(text);
    return rc;
}

const json_t *notes_of(const json_t *notes, const char *cand, const char *inst)
{
    char key[160];
    if (!notes || snprintf(key, sizeof key, "%s/%s", cand, inst) >= (int)sizeof key)
        return NULL;
    return json_object_get(notes, key);
}

const char *notes_caveat(const json_t *notes, const char *cand, const char *inst)
{
    return json_string_value(json_object_get(notes_of(notes, cand, inst), "caveat"));
}

const char *notes_kat(const json_t *notes, const char *cand, const char *inst)
{
    return json_string_value(json_object_get(notes_of(notes, cand, inst), "kat"));
}
