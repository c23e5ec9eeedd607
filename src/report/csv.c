/* RFC 4180 CSV reading: see csv.h. No Debian package of this system offers
 * a C CSV reader, so this is the small state machine the RFC describes. */
#include "report/csv.h"

#include <stdlib.h>
#include <string.h>

typedef struct buf {
    char *s;
    size_t n, cap;
} buf;

static int put(buf *b, char c)
{
    if (b->n + 1 >= b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 64;
        char *g = realloc(b->s, cap);
        if (!g)
            return -1;
        b->s = g;
        b->cap = cap;
    }
    b->s[b->n++] = c;
    b->s[b->n] = '\0';
    return 0;
}

static int end_field(csv_row *row, buf *b)
{
    char **g = realloc(row->field, (row->n + 1) * sizeof *g);
    if (!g)
        return -1;
    row->field = g;
    row->field[row->n] = strdup(b->s ? b->s : "");
    if (!row->field[row->n])
        return -1;
    row->n++;
    b->n = 0;
    if (b->s)
        b->s[0] = '\0';
    return 0;
}

static int end_row(csv_table *t, csv_row *row)
{
    /* a line holding nothing is no record */
    if (row->n == 1 && !row->field[0][0]) {
        free(row->field[0]);
        free(row->field);
    } else {
        csv_row *g = realloc(t->rows, (t->n + 1) * sizeof *g);
        if (!g)
            return -1;
        t->rows = g;
        t->rows[t->n++] = *row;
    }
    memset(row, 0, sizeof *row);
    return 0;
}

int csv_parse(const char *text, size_t len, const char *file, csv_table *t, hb_err *err)
{
    buf b = {0};
    csv_row row = {0};
    long line = 1, quote_line = 0;
    int quoted = 0, after_quote = 0, rc = 0;
    memset(t, 0, sizeof *t);
    row.line = 1;
    for (size_t i = 0; i < len && rc == 0; i++) {
        char c = text[i];
        if (c == '\0') {
            rc = hb_fail_at(err, file, line, "a NUL byte; save the file as text (CSV)");
            break;
        }
        if (quoted) {
            if (c == '"' && i + 1 < len && text[i + 1] == '"') {
                rc = put(&b, '"');
                i++;
            } else if (c == '"') {
                quoted = 0;
                after_quote = 1;
            } else {
                line += c == '\n';
                rc = put(&b, c);
            }
            continue;
        }
        if (c == ',') {
            rc = end_field(&row, &b);
            after_quote = 0;
        } else if (c == '\n' || (c == '\r' && i + 1 < len && text[i + 1] == '\n')) {
            i += c == '\r';
            rc = end_field(&row, &b);
            if (rc == 0)
                rc = end_row(t, &row);
            row.line = ++line;
            after_quote = 0;
        } else if (after_quote) {
            rc = hb_fail_at(err, file, line, "'%c' after a closing quote; a quoted field "
                            "ends at a comma or the line's end (write \"\" for a quote)", c);
        } else if (c == '"' && b.n == 0) {
            quoted = 1;
            quote_line = line;
        } else if (c == '"') {
            rc = hb_fail_at(err, file, line, "a quote inside an unquoted field; quote the "
                            "whole field and write \"\" for the quote");
        } else {
            rc = put(&b, c);
        }
    }
    if (rc == 0 && quoted)
        rc = hb_fail_at(err, file, quote_line, "a quoted field is never closed; add the "
                        "closing quote");
    if (rc == 0 && (b.n > 0 || row.n > 0)) {
        rc = end_field(&row, &b);
        if (rc == 0)
            rc = end_row(t, &row);
    }
    if (rc != 0 && err && !err->msg[0])
        hb_fail(err, "%s: out of memory", file);
    free(b.s);
    for (size_t k = 0; k < row.n; k++)
        free(row.field[k]);
    free(row.field);
    if (rc != 0)
        csv_free(t);
    return rc ? -1 : 0;
}

void csv_free(csv_table *t)
{
    for (size_t i = 0; i < t->n; i++) {
        for (size_t k = 0; k < t->rows[i].n; k++)
            free(t->rows[i].field[k]);
        free(t->rows[i].field);
    }
    free(t->rows);
    memset(t, 0, sizeof *t);
}

int csv_column(const csv_row *row, const char *name)
{
    for (size_t i = 0; i < row->n; i++)
        if (strcmp(row->field[i], name) == 0)
            return (int)i;
    return -1;
}
