/* String escaping for Markdown, XML and file names: see esc.h. The UTF-8
 * walk is shared by the Markdown and XML escapers: each passes a function
 * that writes one ASCII character its own way, given the characters around
 * it (the Markdown escaper decides by context, so that text stays readable). */
#include "report/esc.h"

#include <string.h>

/* Length of the valid UTF-8 sequence starting at S (2..4), or 0. */
static int utf8_seq_len(const unsigned char *s)
{
    int n;
    unsigned min;
    unsigned cp;
    if (s[0] >= 0xC2 && s[0] <= 0xDF) {
        n = 2; cp = s[0] & 0x1F; min = 0x80;
    } else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
        n = 3; cp = s[0] & 0x0F; min = 0x800;
    } else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
        n = 4; cp = s[0] & 0x07; min = 0x10000;
    } else {
        return 0;
    }
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

/* Writes the ASCII character P[0]; START is the string's first byte, so
 * that P[-1] may be read when P > START. Control characters around P read
 * as the spaces they are written as. */
typedef void (*ascii_writer)(FILE *fp, const unsigned char *p, const unsigned char *start);

static void walk(FILE *fp, const char *s, ascii_writer put)
{
    const unsigned char *start = (const unsigned char *)(s ? s : "");
    const unsigned char *p = start;
    while (*p) {
        if (*p < 0x20 || *p == 0x7F) {
            fputc(' ', fp);
            p++;
        } else if (*p < 0x80) {
            put(fp, p, start);
            p++;
        } else {
            int n = utf8_seq_len(p);
            if (n == 0) {
                fputs("\xEF\xBF\xBD", fp);
                p++;
            } else {
                fwrite(p, 1, (size_t)n, fp);
                p += n;
            }
        }
    }
}

static int is_alnum(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

static int is_punct(unsigned char c)
{
    return c > 0x20 && c < 0x7F && !is_alnum(c);
}

/* The first byte after the run of C that P is in, and the last before it. */
static unsigned char after_run(const unsigned char *p)
{
    while (p[1] == p[0])
        p++;
    return p[1];
}

static unsigned char before_run(const unsigned char *p, const unsigned char *start)
{
    while (p > start && p[-1] == p[0])
        p--;
    return p > start ? p[-1] : ' ';
}

/* Markdown (CommonMark with the table extension, as md4c and common
 * renderers read it), for text that never starts a line: a backslash only
 * before punctuation or at the end (where it would escape or break a line);
 * '_' only where its run is not inside a word (an underscore between
 * letters or digits cannot start or end emphasis: x86_1, mem_total_kb); '&'
 * only where an entity could follow; '#' only after a blank or at the start
 * (where a run could close a heading); '`', '*', '[', ']', '<', '|' and
 * '~' always (code, emphasis, links, autolinks, table cells, strike-out).
 * Parentheses, '+', '-', '!', '>' and the rest mean nothing inside a line. */
static void put_md(FILE *fp, const unsigned char *p, const unsigned char *start)
{
    unsigned char c = *p, prev = p > start ? p[-1] : ' ';
    int esc;
    switch (c) {
    case '\\': esc = p[1] == '\0' || is_punct(p[1]); break;
    case '_': esc = !(is_alnum(before_run(p, start)) && is_alnum(after_run(p))); break;
    case '&': esc = is_alnum(p[1]) || p[1] == '#'; break;
    case '#': esc = prev == ' ' || prev < 0x20 || p == start; break;
    case '`': case '*': case '[': case ']': case '<': case '|': case '~': esc = 1; break;
    default: esc = 0;
    }
    if (esc)
        fputc('\\', fp);
    fputc(c, fp);
}

static void put_xml(FILE *fp, const unsigned char *p, const unsigned char *start)
{
    (void)start;
    switch (*p) {
    case '&': fputs("&amp;", fp); break;
    case '<': fputs("&lt;", fp); break;
    case '>': fputs("&gt;", fp); break;
    case '"': fputs("&quot;", fp); break;
    case '\'': fputs("&#39;", fp); break;
    default: fputc(*p, fp);
    }
}

void esc_md(FILE *fp, const char *s)
{
    walk(fp, s, put_md);
}

void esc_xml(FILE *fp, const char *s)
{
    walk(fp, s, put_xml);
}

void esc_file_component(const char *name, char *out, size_t outsz)
{
    size_t j = 0;
    if (outsz == 0)
        return;
    for (size_t i = 0; name && name[i] && j + 1 < outsz; i++) {
        char c = name[i];
        int ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                 (c >= '0' && c <= '9') || c == '_' || c == '-' ||
                 (c == '.' && j > 0);
        out[j++] = ok ? c : '_';
    }
    if (j == 0 && outsz > 1)
        out[j++] = '_';
    out[j] = '\0';
}
