/* The candidate page held against the published layout. Sections 4, 5 and
 * 7 of Whirl's page on x86_1 (the synthetic dataset of tests/report/data)
 * are compared row by row, cell by cell, with tests/report/
 * published_x86_1_Whirl.txt, the same sections written out by hand in the
 * published pages' layout and number style; only the published columns are
 * compared (hashbench's own columns come after them). The Markdown is read
 * as a reader sees it: backslash escapes and code spans removed, so the
 * comparison does not depend on how much Markdown escaping is needed. The
 * page's top is checked too: the heading with the candidate id and display
 * name, the breadcrumb and system switcher, the opening statement, section
 * 2's published rows (the distribution, the core measured, one start/end
 * row), section 3's manifest sentence and short status cells, and the chart
 * before section 1 in the HTML (the first screen). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "report/report.h"
#include "report_test_util.h"

#define MAX_CELLS 16
#define MAX_ROWS 64

typedef struct table {
    char *cells[MAX_ROWS + 1][MAX_CELLS]; /* row 0: the header */
    int ncells[MAX_ROWS + 1];
    int nrows;                            /* without the header */
} table;

static void table_free(table *t)
{
    for (int r = 0; r <= t->nrows; r++)
        for (int c = 0; c < t->ncells[r]; c++)
            free(t->cells[r][c]);
}

static char *trimmed(const char *s, size_t n)
{
    while (n && (*s == ' ' || *s == '\t')) {
        s++;
        n--;
    }
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    /* a code span shows its text */
    if (n >= 2 && s[0] == '`' && s[n - 1] == '`') {
        s++;
        n -= 2;
    }
    return strndup(s, n);
}

/* One Markdown table row "| a | b\|c |" into cells, escapes removed. */
static int md_cells(const char *line, char **out)
{
    char buf[4096];
    size_t k = 0;
    int n = 0;
    const char *p = line;
    if (*p == '|')
        p++;
    for (; *p && *p != '\n'; p++) {
        if (*p == '\\' && p[1] && p[1] != '\n') {
            if (k + 1 < sizeof buf)
                buf[k++] = *++p;
            continue;
        }
        if (*p == '|') {
            if (n < MAX_CELLS)
                out[n++] = trimmed(buf, k);
            k = 0;
            continue;
        }
        if (k + 1 < sizeof buf)
            buf[k++] = *p;
    }
    return n;
}

/* The first table after the heading line HEADING of the Markdown MD. */
static void md_table(const char *md, const char *heading, table *t)
{
    memset(t, 0, sizeof *t);
    const char *at = strstr(md, heading);
    if (!at)
        fail_msg("no heading '%s' in the page", heading);
    const char *next = strstr(at + strlen(heading), "\n## ");
    const char *line = strstr(at, "\n| ");
    if (!line || (next && line > next))
        fail_msg("no table under '%s'", heading);
    line++;
    t->ncells[0] = md_cells(line, t->cells[0]);
    line = strchr(line, '\n') + 1; /* the alignment row */
    while ((line = strchr(line, '\n')) != NULL && line[1] == '|' && t->nrows < MAX_ROWS) {
        line++;
        t->nrows++;
        t->ncells[t->nrows] = md_cells(line, t->cells[t->nrows]);
    }
}

/* The rows under TITLE (a line such as "4. Performance") of the fixture:
 * the header line after the title's blank line, then every line up to the
 * next blank line; cells separated by tabs. */
static void fixture_table(const char *text, const char *title, table *t)
{
    memset(t, 0, sizeof *t);
    char want[128];
    snprintf(want, sizeof want, "\n%s\n\n", title);
    const char *at = strstr(text, want);
    if (!at)
        fail_msg("fixture: no section '%s'", title);
    const char *line = at + strlen(want);
    for (int r = 0; *line && *line != '\n' && r <= MAX_ROWS; r++) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        int n = 0;
        for (const char *c = line; c < line + len && n < MAX_CELLS;) {
            const char *tab = memchr(c, '\t', (size_t)(line + len - c));
            size_t cl = tab ? (size_t)(tab - c) : (size_t)(line + len - c);
            t->cells[r][n++] = strndup(c, cl);
            c += cl + (tab ? 1 : 0);
            if (!tab)
                break;
        }
        t->ncells[r] = n;
        t->nrows = r;
        line = end ? end + 1 : line + len;
    }
}

/* Every fixture row against the page's row at the same place: the same
 * number of rows, and the published columns equal cell by cell. */
static void compare_section(const char *page, const char *heading, const char *fixture,
                            const char *title)
{
    table got, want;
    md_table(page, heading, &got);
    fixture_table(fixture, title, &want);
    for (int r = 0; r <= want.nrows && r <= got.nrows; r++) {
        if (got.ncells[r] < want.ncells[r])
            fail_msg("%s, row %d: %d cells, the published layout has %d", title, r,
                     got.ncells[r], want.ncells[r]);
        for (int c = 0; c < want.ncells[r]; c++)
            if (strcmp(got.cells[r][c], want.cells[r][c]) != 0)
                fail_msg("%s, %s %d, column %d: page '%s', published layout '%s'", title,
                         r ? "row" : "header", r, c + 1, got.cells[r][c],
                         want.cells[r][c]);
    }
    if (got.nrows != want.nrows)
        fail_msg("%s: %d rows on the page, %d in the published layout", title, got.nrows,
                 want.nrows);
    table_free(&got);
    table_free(&want);
}

static void test_sections_as_published(void **state)
{
    (void)state;
    char site[4096], fixture_path[4096];
    hb_err err = {{0}};
    rt_tempdir(site);
    if (report_site(rt_dataset(), site, &err) != 0)
        fail_msg("report_site: %s", err.msg);
    const char *src = getenv("HB_SOURCE_DIR");
    assert_non_null(src);
    rt_join(fixture_path, src, "tests/report/published_x86_1_Whirl.txt");
    char *fixture = rt_read(fixture_path, NULL);
    assert_non_null(fixture);
    char *page = rt_site_file(site, "x86_1/Whirl.md");
    compare_section(page, "\n## 4. Performance\n", fixture, "4. Performance");
    compare_section(page, "\n## 5. Resource consumption\n", fixture,
                    "5. Resource consumption");
    compare_section(page, "\n## 7. Raw evidence index\n", fixture, "7. Raw evidence index");
    free(page);
    free(fixture);
    rt_rmtree(site);
}

/* The visible text of HTML between FROM and TO: tags dropped. */
static size_t text_between(const char *from, const char *to)
{
    size_t n = 0;
    int tag = 0;
    for (const char *p = from; p < to; p++) {
        if (*p == '<')
            tag = 1;
        else if (*p == '>')
            tag = 0;
        else if (!tag && *p != '\n')
            n++;
    }
    return n;
}

/* Sets every Whirl entry's algorithm (the override file's display name)
 * and the distribution of x86_1's environment. */
static void name_and_os(const char *data)
{
    json_t *b = rt_load_json(data, "x86_1/build.json");
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(b, "instances"), i, e)
        if (strcmp(json_string_value(json_object_get(e, "candidate")), "Whirl") == 0)
            json_object_set_new(e, "algorithm", json_string("Whirlwind"));
    rt_save_json(data, "x86_1/build.json", b);
    json_decref(b);
    json_t *c = rt_load_json(data, "x86_1/campaign.json");
    json_object_set_new(json_object_get(json_object_get(c, "environment"), "start"), "os",
                        json_string("Debian GNU/Linux 12 (bookworm)"));
    rt_save_json(data, "x86_1/campaign.json", c);
    json_decref(c);
}

/* LINE is a whole line of the plain text TEXT. */
static void assert_line(const char *text, const char *line)
{
    char want[1024];
    snprintf(want, sizeof want, "\n%s\n", line);
    if (!strstr(text, want))
        fail_msg("no line '%s' on the page", line);
}

static void test_page_top(void **state)
{
    (void)state;
    char data[4096], site[4096];
    hb_err err = {{0}};
    rt_copy_dataset(data);
    name_and_os(data);
    rt_tempdir(site);
    if (report_site(data, site, &err) != 0)
        fail_msg("report_site: %s", err.msg);
    char *raw = rt_site_file(site, "x86_1/Whirl.md"), *raw_arm = rt_site_file(site, "arm_1/Whirl.md");
    char *md = rt_plain(raw), *arm = rt_plain(raw_arm);
    char *html = rt_site_file(site, "x86_1/Whirl.html");
    /* the heading: id, display name, architecture and system */
    assert_ptr_equal(strstr(md, "# Whirl Whirlwind — performance on x86-64 (system x86_1)\n"),
                     md);
    assert_ptr_equal(strstr(arm, "# Whirl — performance on AArch64 (system arm_1)\n"), arm);
    /* the breadcrumb names the system; the switcher links the other one */
    assert_line(md, "[hashbench results](../index.md) › [x86_1](summary.md) › Whirl · "
                    "system: [arm_1](../arm_1/Whirl.md) · **x86_1** · [method](method.md)");
    assert_non_null(strstr(arm, "system: **arm_1** · [x86_1](../x86_1/Whirl.md) · "));
    assert_non_null(strstr(md, "not the submission's own self-assessment"));
    /* section 2: the published rows */
    assert_line(md, "| processor | AMD EPYC 7B13 64-Core Processor (CPU 1, one core) |");
    assert_line(md, "| clock | max unavailable, governor unavailable, turbo unavailable, "
                    "SMT off |");
    assert_line(md, "| memory | 24055 MiB |");
    assert_line(md, "| OS / kernel | Debian GNU/Linux 12 (bookworm) / 6.1.0-28-cloud-amd64 |");
    assert_line(md, "| compiler / build tool | gcc (Debian 12.2.0-14+deb12u1) 12.2.0 / "
                    "hashbench 0.1.0 |");
    assert_line(md, "| campaign start / end (UTC) | 2026-11-20T09:00:00 / 2026-11-20T09:42:10 |");
    assert_line(arm, "| OS / kernel | Linux (distribution not recorded) / "
                     "6.1.0-28-cloud-amd64 |");
    /* section 3: the manifest, short cells, the detail in footnotes */
    assert_non_null(strstr(md, "manifest (Whirl/kat.sha256"));
    assert_line(md, "| Whirl_512 | harness-default | MISMATCH [1] (timed with --time-failed) "
                    "| 2_12, 2_23, Loop |");
    assert_line(md, "| Whirl_256 | guide | PASS | 2_12, 2_23, Loop |");
    assert_line(md, "| Whirl_1024 | BUILDFAIL | not tested [2] | — |");
    assert_non_null(strstr(md, "\n[1] **Whirl_512**: MISMATCH"));
    /* TSC ticks are not called cycles where the published page says cycles */
    assert_line(md, "| instance | message | mean TSC ticks | TSC ticks/byte | mean time | "
                    "MB/s | n | CV | 95 % CI of mean TSC ticks | of which harness ≈ |");
    assert_line(arm, "| instance | message | mean cycles | cycles/byte | mean time | MB/s | "
                     "n | CV | 95 % CI of mean cycles | of which harness ≈ |");
    /* the HTML: the chart before section 1, little text above it */
    const char *body = strstr(html, "<main>"), *svg = strstr(html, "<svg ");
    const char *s1 = strstr(html, "<h2>1. Basic information</h2>");
    assert_non_null(body);
    assert_non_null(svg);
    assert_non_null(s1);
    assert_true(body < svg && svg < s1);
    size_t above = text_between(body, svg);
    if (above > 900)
        fail_msg("%zu characters of text above the chart", above);
    /* the Markdown breadcrumb is the template's job in the HTML */
    assert_null(strstr(html, "› Whirl · system:"));
    assert_non_null(strstr(html, "<nav class=\"systems\">"));
    free(raw);
    free(raw_arm);
    free(md);
    free(arm);
    free(html);
    rt_rmtree(site);
    rt_rmtree(data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sections_as_published),
        cmocka_unit_test(test_page_top),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
