/* String escaping for Markdown, XML and file names: see esc.h. The UTF-8
 * walk is shared by the Markdown and XML escapers: each passes a function
 * that writes one ASCII character its own way. */
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

typedef void (*ascii_writer)(FILE *fp, char c);

static void walk(FILE *fp, const char *s, ascii_writer put)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        if (*p < 0x20 || *p == 0x7F) {
            fputc(' ', fp);
            p++;
        } else if (*p < 0x80) {
            put(fp, (char)*p);
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

static void put_md(FILE *fp, char c)
{
    if (c != '\0' && strchr("\\`*_{}[]()<>#+!|~&", c))
        fputc('\\', fp);
    fputc(c, fp);
}

static void put_xml(FILE *fp, char c)
{
    switch (c) {
    case '&': fputs("&amp;", fp); break;
    case '<': fputs("&lt;", fp); break;
    case '>': fputs("&gt;", fp); break;
    case '"': fputs("&quot;", fp); break;
    case '\'': fputs("&#39;", fp); break;
    default: fputc(c, fp);
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
