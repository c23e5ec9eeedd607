/* Compiler diagnostics reduced to location and class: see diag.h. */
#include "compile/diag.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* The first occurrence of WORD in the N bytes at S, or NULL. */
static const char *find_n(const char *s, size_t n, const char *word)
{
    size_t w = strlen(word);
    for (size_t i = 0; i + w <= n; i++)
        if (memcmp(s + i, word, w) == 0)
            return s + i;
    return NULL;
}

static int file_char(char c)
{
    return isalnum((unsigned char)c) || strchr("._/+-", c);
}

/* Walks back from END over ":DIGITS" groups (at most two) before a class
 * word; returns where the location's numbers start (END when none). */
static const char *numbers_before(const char *start, const char *end)
{
    const char *p = end;
    for (int k = 0; k < 2; k++) {
        const char *q = p;
        while (q > start && isdigit((unsigned char)q[-1]))
            q--;
        if (q == p || q == start || q[-1] != ':')
            break;
        p = q - 1;
    }
    return p;
}

int diag_parse(const char *line, size_t n, char *out, size_t sz)
{
    static const struct { const char *word, *cls; } classes[] = {
        {"fatal error", "fatal error"}, {"error", "error"}, {"warning", "warning"},
        {"note", "note"}, {"Error", "assembler error"}, {"Warning", "assembler warning"}};
    static const struct { const char *word, *cls; } linker[] = {
        {"undefined reference to", "undefined reference"},
        {"multiple definition of", "multiple definition"},
        {"undefined symbol", "undefined symbol"},
        {"cannot find -l", "missing library"}};
    out[0] = '\0';
    for (size_t c = 0; c < sizeof classes / sizeof classes[0]; c++) {
        char word[32];
        snprintf(word, sizeof word, ": %s:", classes[c].word);
        const char *hit = find_n(line, n, word);
        if (!hit)
            continue;
        const char *nums = numbers_before(line, hit);
        if (nums == hit) /* "cc1: error:", "ld: error:": no location */
            continue;
        const char *file = nums;
        while (file > line && file[-1] != ' ' && file[-1] != '\t')
            file--;
        char name[121];
        size_t k = 0;
        for (const char *p = file; p < nums && k + 1 < sizeof name; p++)
            name[k++] = file_char(*p) ? *p : '?';
        name[k] = '\0';
        snprintf(out, sz, "%s%.*s: %s", k ? name : "?", (int)(hit - nums), nums,
                 classes[c].cls);
        return 1;
    }
    for (size_t c = 0; c < sizeof linker / sizeof linker[0]; c++)
        if (find_n(line, n, linker[c].word)) {
            snprintf(out, sz, "linker: %s", linker[c].cls);
            return 1;
        }
    return 0;
}

int diag_is_stated(const char *s, size_t n)
{
    static const char *const classes[] = {"fatal error", "assembler error",
        "assembler warning", "error", "warning", "note",
        "undefined reference", "multiple definition", "undefined symbol",
        "missing library"};
    for (size_t c = 0; c < sizeof classes / sizeof classes[0]; c++) {
        size_t w = strlen(classes[c]);
        if (n < w + 3 || memcmp(s + n - w, classes[c], w) != 0 ||
            memcmp(s + n - w - 2, ": ", 2) != 0)
            continue;
        const char *end = s + n - w - 2;
        if (c >= 6) /* a linker's */
            return end - s == 6 && memcmp(s, "linker", 6) == 0;
        const char *nums = numbers_before(s, end);
        if (nums == end || nums == s)
            return 0;
        for (const char *p = s; p < nums; p++)
            if (!file_char(*p) && !strchr("?<>", *p))
                return 0;
        return 1;
    }
    return 0;
}
