/* RFC 4180 CSV reading: see csv.h. Debian's libcsv (libcsv-dev) does the
 * parsing, in strict mode and with no trimming of spaces; this module feeds
 * it the text one line at a time, so that it knows the line each record
 * starts on and the line of a malformed character (libcsv's callbacks give
 * no position), copies the fields into a csv_table, and turns libcsv's
 * errors into messages that name FILE:LINE. */
#include "report/csv.h"

#include <csv.h>
#include <stdlib.h>
#include <string.h>

typedef struct reader {
    csv_table *t;
    csv_row row;     /* the record being read; row.line is 0 until it starts */
    long line;       /* the line being fed to libcsv */
    long field_line; /* the line the next field starts on; 0: the record's */
    int nomem;
} reader;

/* RFC 4180: spaces belong to the field (libcsv trims them by default). */
static int no_space(unsigned char c)
{
    (void)c;
    return 0;
}

static void free_row(csv_row *row)
{
    for (size_t k = 0; k < row->n; k++)
        free(row->field[k]);
    free(row->field);
    memset(row, 0, sizeof *row);
}

/* libcsv's field callback: S holds N bytes, not NUL-terminated. */
static void on_field(void *s, size_t n, void *data)
{
    reader *r = data;
    if (r->nomem)
        return;
    if (!r->row.line) /* a record after a lone CR, within the line */
        r->row.line = r->line;
    char **g = realloc(r->row.field, (r->row.n + 1) * sizeof *g);
    char *f = g ? malloc(n + 1) : NULL;
    if (g)
        r->row.field = g;
    if (!f) {
        r->nomem = 1;
        return;
    }
    if (n)
        memcpy(f, s, n);
    f[n] = '\0';
    r->row.field[r->row.n++] = f;
    r->field_line = r->line;
}

/* libcsv's record callback (C is the terminator, or -1 at the text's end). */
static void on_record(int c, void *data)
{
    reader *r = data;
    (void)c;
    if (r->nomem)
        return;
    /* a line holding nothing is no record */
    if (r->row.n == 0 || (r->row.n == 1 && !r->row.field[0][0])) {
        free_row(&r->row);
    } else {
        csv_row *g = realloc(r->t->rows, (r->t->n + 1) * sizeof *g);
        if (!g) {
            r->nomem = 1;
            return;
        }
        r->t->rows = g;
        r->t->rows[r->t->n++] = r->row;
        memset(&r->row, 0, sizeof r->row);
    }
    r->field_line = 0;
}

static int blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != '\r' && s[i] != '\n')
            return 0;
    return 1;
}

/* The message for libcsv's strict-mode stop at character C of LINE: in
 * strict mode it stops only on a quote inside an unquoted field and on a
 * character other than a comma or line end after a closing quote. */
static int parse_error(struct csv_parser *p, char c, const char *file, long line,
                       hb_err *err)
{
    if (csv_error(p) != CSV_EPARSE)
        return hb_fail_at(err, file, line, "%s", csv_strerror(csv_error(p)));
    if (c == '"')
        return hb_fail_at(err, file, line, "a quote inside an unquoted field; quote the "
                          "whole field and write \"\" for the quote");
    return hb_fail_at(err, file, line, "'%c' after a closing quote; a quoted field "
                      "ends at a comma or the line's end (write \"\" for a quote)", c);
}

int csv_table_read(const char *text, size_t len, const char *file, csv_table *t,
                   hb_err *err)
{
    struct csv_parser p;
    reader r = {.t = t, .line = 0};
    int rc = 0;
    memset(t, 0, sizeof *t);
    if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI) != 0)
        return hb_fail(err, "%s: cannot start the CSV parser", file);
    csv_set_space_func(&p, no_space);
    for (size_t at = 0; at < len && rc == 0 && !r.nomem;) {
        const char *s = text + at;
        const char *nl = memchr(s, '\n', len - at);
        size_t n = nl ? (size_t)(nl - s) + 1 : len - at;
        r.line++;
        if (memchr(s, '\0', n)) {
            rc = hb_fail_at(err, file, r.line, "a NUL byte; save the file as text (CSV)");
            break;
        }
        if (!r.row.line && !blank(s, n))
            r.row.line = r.line;
        size_t done = csv_parse(&p, s, n, on_field, on_record, &r);
        if (done < n && !r.nomem)
            rc = parse_error(&p, s[done], file, r.line, err);
        at += n;
    }
    if (rc == 0 && !r.nomem && csv_fini(&p, on_field, on_record, &r) != 0) {
        /* CSV_STRICT_FINI: the last field opened a quote and never closed it;
         * in strict mode that quote is the field's first character */
        long open = r.field_line ? r.field_line : r.row.line ? r.row.line : r.line;
        if (csv_error(&p) == CSV_EPARSE)
            rc = hb_fail_at(err, file, open, "a quoted field is never closed; add the "
                            "closing quote");
        else
            rc = hb_fail_at(err, file, open, "%s", csv_strerror(csv_error(&p)));
    }
    if (rc == 0 && r.nomem)
        rc = hb_fail(err, "%s: out of memory", file);
    csv_free(&p);
    free_row(&r.row);
    if (rc != 0)
        csv_table_free(t);
    return rc ? -1 : 0;
}

void csv_table_free(csv_table *t)
{
    for (size_t i = 0; i < t->n; i++)
        free_row(&t->rows[i]);
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
