/* The Markdown escaping of dataset strings (esc_md) against the renderer the
 * site uses (md4c with the table extension, raw HTML off, as html.c calls
 * it): every string, however hostile, renders as exactly its own text in a
 * paragraph, in a table cell and in a link text; and ordinary strings
 * (compiler versions, names with underscores, flags) come out unchanged, so
 * the published Markdown reads as plain text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <md4c-html.h>

#include "report/esc.h"

static char *escaped(const char *s)
{
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    assert_non_null(fp);
    esc_md(fp, s);
    assert_int_equal(fclose(fp), 0);
    return text;
}

static void collect(const MD_CHAR *text, MD_SIZE size, void *fp)
{
    fwrite(text, 1, size, (FILE *)fp);
}

/* MD rendered as the site renders it. */
static char *render(const char *md)
{
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    assert_non_null(fp);
    assert_int_equal(md_html(md, (MD_SIZE)strlen(md), collect, fp,
                             MD_FLAG_TABLES | MD_FLAG_NOHTML, 0), 0);
    assert_int_equal(fclose(fp), 0);
    return text;
}

/* S as md4c writes text in HTML: & < > " as entities, nothing else. */
static char *as_html_text(const char *s)
{
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    assert_non_null(fp);
    for (const char *p = s; *p; p++) {
        switch (*p) {
        case '&': fputs("&amp;", fp); break;
        case '<': fputs("&lt;", fp); break;
        case '>': fputs("&gt;", fp); break;
        case '"': fputs("&quot;", fp); break;
        default: fputc(*p, fp);
        }
    }
    assert_int_equal(fclose(fp), 0);
    return text;
}

static void expect_rendered(const char *md, const char *want_html, const char *s)
{
    char *html = render(md);
    if (!strstr(html, want_html))
        fail_msg("'%s' escaped as Markdown '%s' renders as\n%s\nwant it to hold\n%s", s, md,
                 html, want_html);
    free(html);
}

/* Each of these must come back as itself through esc_md and md4c. */
static const char *const hostile[] = {
    "a*b*c", "*em*", "**strong**", "_x_", "x_y_z", "__init__", "snake_case_",
    "_lead", "trail_", "a_ _b", "`code`", "``", "[x](http://example.invalid)",
    "![i](a.png)", "[ref]", "<script>alert(1)</script>", "<http://example.invalid>",
    "a|b|c", "~~gone~~", "~x~", "&amp;", "&#35;", "&copy", "AT&T", "a & b",
    "back\\slash", "end\\", "\\*", "\\\\", "# not a heading", "x #y", "closing ##",
    "1. item", "- item", "+ plus", "> quote", "(paren) [bracket] {brace}",
    "!bang", "a  b", "url www.example.invalid", "x86_1", "tab\there",
    "ünïcødé_ñame", "a\\_b", "_", "*", "`", "|",
};

static void test_hostile_strings_render_as_themselves(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
        const char *s = hostile[i];
        char *e = escaped(s);
        /* control characters become spaces */
        char plain[256];
        snprintf(plain, sizeof plain, "%s", s);
        for (char *p = plain; *p; p++)
            if ((unsigned char)*p < 0x20)
                *p = ' ';
        char *want = as_html_text(plain);
        char md[1024], html[1024];
        /* in a paragraph */
        snprintf(md, sizeof md, "before %s after\n", e);
        snprintf(html, sizeof html, "<p>before %s after</p>", want);
        expect_rendered(md, html, s);
        /* in a table cell: the pipe did not split it */
        snprintf(md, sizeof md, "| A | B |\n| --- | --- |\n| x %s | y |\n", e);
        snprintf(html, sizeof html, "<td>x %s</td>", want);
        expect_rendered(md, html, s);
        /* as a link text */
        snprintf(md, sizeof md, "see [x %s](page.html)\n", e);
        snprintf(html, sizeof html, "<a href=\"page.html\">x %s</a>", want);
        expect_rendered(md, html, s);
        free(e);
        free(want);
    }
}

static void test_ordinary_strings_unchanged(void **state)
{
    (void)state;
    static const char *const plain[] = {
        "gcc (Debian 12.2.0-14+deb12u1) 12.2.0", "x86_1", "mem_total_kb",
        "Whirl_256-Optimized", "Whirl_512__hash_65536.json",
        "-O3 -march=x86-64 -mavx2 -flto -fomit-frame-pointer -std=c99",
        "PASS (2_12, 2_23, Loop; 2_33 not checked: needs --full)",
        "whirl1024.c:12: error: unknown type name u128", "AMD EPYC 7B13 64-Core Processor",
        "1.46× ±0.57 %", "a > b", "!important", "C++ (g++)",
    };
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
        char *e = escaped(plain[i]);
        assert_string_equal(e, plain[i]);
        free(e);
    }
    /* where an escape is needed, it is the only change */
    char *e = escaped("a|b <c> d*e _f");
    assert_string_equal(e, "a\\|b \\<c> d\\*e \\_f");
    free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hostile_strings_render_as_themselves),
        cmocka_unit_test(test_ordinary_strings_unchanged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
