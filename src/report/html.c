/* HTML rendering of the report pages: see html.h. md4c writes the body into
 * a memory stream; the chart's <img> element that md4c produced for the
 * Markdown image is then replaced by the SVG text itself.
 *
 * Layout: the page is up to 86rem wide, so that a summary table of the
 * guide's eight sizes fits a 1400 px window without scrolling, while running
 * text keeps a readable measure (72rem). Figures never wrap inside their
 * cell; in the summary's two tables of figures (its first two tables), no
 * cell does (class "summary"). A word breaks only where it cannot fit a
 * line of its own (overflow-wrap:break-word, which, unlike "anywhere", does
 * not let a narrow column break names and options mid-word: a column is at
 * least as wide as its longest word); a command-line option does not wrap
 * at its hyphens. */
#include "report/html.h"

#include <md4c-html.h>
#include <stdlib.h>
#include <string.h>
#include "report/esc.h"
#include "report/pages.h"

static const char css[] =
    "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;"
    "line-height:1.5;color:#1b1b1b;background:#fff;margin:0 auto;"
    "max-width:86rem;padding:1rem 1.5rem 3rem}"
    "p,li,blockquote{max-width:72rem}"
    "nav{font-size:.95rem;margin:.3rem 0}"
    "nav.crumbs{border-bottom:1px solid #ccc;padding-bottom:.4rem}"
    "a{color:#0b57a4}"
    "h1{font-size:1.7rem;margin:.8rem 0}"
    "h2{font-size:1.3rem;margin-top:2rem;border-bottom:1px solid #ddd}"
    "table{border-collapse:collapse;margin:.6rem 0 1rem;display:block;"
    "overflow-x:auto;max-width:100%;font-size:.9rem}"
    "th,td{border:1px solid #c8c8c8;padding:.25rem .55rem;vertical-align:top;"
    "overflow-wrap:break-word}"
    "th{background:#eef2f6;text-align:left}"
    "td[align=right],th[align=right]{text-align:right;white-space:nowrap}"
    ".summary>table:nth-of-type(-n+2){font-size:.85rem}"
    ".summary>table:nth-of-type(-n+2) td,.summary>table:nth-of-type(-n+2) th"
    "{white-space:nowrap;padding:.25rem .4rem}"
    "tr:nth-child(even) td{background:#f8f9fb}"
    ".chart svg{max-width:100%;height:auto;border:1px solid #ddd}"
    ".nw{white-space:nowrap}"
    "footer{margin-top:3rem;font-size:.85rem;color:#555}";

/* Where md4c's output goes: FP, with every command-line option of the
 * text ("--full", "--time-failed", after a space, '(' or a tag) in a span
 * that does not wrap, since a line break after a hyphen of an option reads
 * as two words. IN_TAG and LAST carry over from one piece to the next. */
typedef struct md_sink {
    FILE *fp;
    int in_tag;
    char last;
} md_sink;

static int option_start(const MD_CHAR *t, MD_SIZE size, MD_SIZE i, char before)
{
    return t[i] == '-' && i + 2 < size && t[i + 1] == '-' && t[i + 2] >= 'a' &&
           t[i + 2] <= 'z' && (before == ' ' || before == '(' || before == '>');
}

static void md_out(const MD_CHAR *text, MD_SIZE size, void *ctx)
{
    md_sink *s = ctx;
    MD_SIZE i = 0, from = 0;
    while (i < size) {
        char before = i ? text[i - 1] : s->last;
        if (s->in_tag) {
            s->in_tag = text[i] != '>';
        } else if (text[i] == '<') {
            s->in_tag = 1;
        } else if (option_start(text, size, i, before)) {
            MD_SIZE end = i + 2;
            while (end < size && (strchr("abcdefghijklmnopqrstuvwxyz0123456789-_", text[end]) &&
                                  text[end] != '\0'))
                end++;
            fwrite(text + from, 1, i - from, s->fp);
            fputs("<span class=\"nw\">", s->fp);
            fwrite(text + i, 1, end - i, s->fp);
            fputs("</span>", s->fp);
            i = from = end;
            continue;
        }
        i++;
    }
    fwrite(text + from, 1, size - from, s->fp);
    if (size)
        s->last = text[size - 1];
}

static void link_to(FILE *fp, const char *href, const char *text)
{
    fprintf(fp, "<a href=\"%s\">", href);
    esc_xml(fp, text);
    fputs("</a>", fp);
}

/* "system: x86_1 · arm_1": the same page on each system that has it. */
static void system_switch(FILE *fp, const html_page *p)
{
    char href[1024];
    int n = 0;
    fputs("<nav class=\"systems\">system: ", fp);
    for (size_t i = 0; i < p->ds->nsys; i++) {
        const report_system *s = &p->ds->sys[i];
        if (p->cand && !report_has_candidate(s, p->cand))
            continue;
        if (n++)
            fputs(" · ", fp);
        if (s == p->sys) {
            fputs("<strong>", fp);
            esc_xml(fp, s->name);
            fputs("</strong>", fp);
            continue;
        }
        char dir[512];
        esc_file_component(s->name, dir, sizeof dir);
        snprintf(href, sizeof href, "../%s/%s.html", dir, p->stem);
        link_to(fp, href, s->name);
    }
    fputs("</nav>\n", fp);
}

static void navigation(FILE *fp, const html_page *p)
{
    fputs("<nav class=\"crumbs\">", fp);
    if (!p->sys && p->root) {
        char href[1024];
        snprintf(href, sizeof href, "%sindex.html", p->root);
        link_to(fp, href, "hashbench results");
        fputs(" › <strong>", fp);
        esc_xml(fp, p->label);
        fputs("</strong></nav>\n", fp);
        return;
    }
    if (!p->sys) {
        fputs("<strong>hashbench results</strong></nav>\n", fp);
        return;
    }
    link_to(fp, "../index.html", "hashbench results");
    fputs(" › ", fp);
    link_to(fp, "summary.html", p->sys->name);
    fputs(" › <strong>", fp);
    esc_xml(fp, p->label);
    fputs("</strong></nav>\n", fp);
    system_switch(fp, p);
}

static void head(FILE *fp, const html_page *p)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; img-src data:\">\n"
          "<link rel=\"icon\" href=\"data:,\">\n<title>", fp);
    if (p->sys) {
        esc_xml(fp, p->label);
        fputs(" · ", fp);
        esc_xml(fp, p->sys->name);
        fputs(" · ", fp);
    }
    fputs("hashbench results</title>\n<style>", fp);
    fputs(css, fp);
    fputs("</style>\n</head>\n<body>\n", fp);
}

/* Writes the LEN bytes of TEXT to FP, the heading of the KAT notes in
 * full (pages.h) with the id the footnotes link to. */
static void put_part(FILE *fp, const char *text, size_t len)
{
    static const char h[] = "<h3>" PAGES_KAT_NOTES_HEADING "</h3>";
    const char *end = text + len;
    for (const char *at; (at = memmem(text, (size_t)(end - text), h, sizeof h - 1));
         text = at + sizeof h - 1) {
        fwrite(text, 1, (size_t)(at - text), fp);
        fputs("<h3 id=\"" PAGES_KAT_NOTES_ANCHOR "\">" PAGES_KAT_NOTES_HEADING "</h3>", fp);
    }
    fwrite(text, 1, (size_t)(end - text), fp);
}

/* Writes BODY to FP with the <img> of the chart replaced by the SVG. */
static void body_with_chart(FILE *fp, const char *body, const html_page *p)
{
    const char *at = NULL;
    char needle[600];
    if (p->svg_name && p->svg_text) {
        snprintf(needle, sizeof needle, "<img src=\"%s\"", p->svg_name);
        at = strstr(body, needle);
    }
    const char *end = at ? strchr(at, '>') : NULL;
    if (!end) {
        put_part(fp, body, strlen(body));
        return;
    }
    put_part(fp, body, (size_t)(at - body));
    fputs("<span class=\"chart\">", fp);
    fputs(p->svg_text, fp);
    fputs("</span>", fp);
    put_part(fp, end + 1, strlen(end + 1));
}

int html_render(FILE *fp, const html_page *p, const char *md, size_t len, hb_err *err)
{
    char *body = NULL;
    size_t body_len = 0;
    FILE *mem = open_memstream(&body, &body_len);
    if (!mem)
        return hb_fail_errno(err, "rendering %s", p->stem);
    md_sink sink = {mem, 0, '>'};
    int rc = md_html(md, (MD_SIZE)len, md_out, &sink, MD_FLAG_TABLES | MD_FLAG_NOHTML, 0);
    fclose(mem);
    if (rc != 0) {
        free(body);
        return hb_fail(err, "rendering %s: the Markdown renderer failed", p->stem);
    }
    head(fp, p);
    navigation(fp, p);
    /* the summary's names and status cells stay on one line (css above) */
    fputs(p->sys && !p->cand && p->stem && !strcmp(p->stem, "summary")
              ? "<main class=\"summary\">\n" : "<main>\n", fp);
    body_with_chart(fp, body, p);
    fputs("</main>\n<footer>Generated by hashbench " HB_VERSION " from the published "
          "dataset; every figure can be re-derived from the raw records with "
          "<code>hashbench validate</code>.</footer>\n</body>\n</html>\n", fp);
    free(body);
    if (ferror(fp))
        return hb_fail(err, "rendering %s: write error", p->stem);
    return 0;
}
