/* Fuzz target: the CSV reader of self-assessments and exports
 * (src/report/csv.h), fed the input as the text of `claims.csv`. Checked
 * besides memory safety: an error is one line naming the file and leaves
 * the table empty; a table holds records of at least one field, none of
 * them a lone empty field, with lines that start at 1, never decrease and
 * stay within the input's line count; and the table written back (every
 * field quoted, "" for a quote, LF line ends) reads back as the same
 * fields. */
#include "report/csv.h"
#include "fuzz_util.h"

/* Appends S quoted to the growing buffer *B of *N bytes (capacity *CAP). */
static void put_quoted(char **b, size_t *n, size_t *cap, const char *s, char end)
{
    size_t need = *n + 2 * strlen(s) + 4;
    if (need > *cap) {
        *cap = need * 2;
        *b = realloc(*b, *cap);
        if (!*b)
            abort();
    }
    (*b)[(*n)++] = '"';
    for (; *s; s++) {
        if (*s == '"')
            (*b)[(*n)++] = '"';
        (*b)[(*n)++] = *s;
    }
    (*b)[(*n)++] = '"';
    (*b)[(*n)++] = end;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    csv_table t, back;
    hb_err err = {{0}};
    if (csv_table_read(text, size, "claims.csv", &t, &err) != 0) {
        fuzz_check_err(&err);
        if (strncmp(err.msg, "claims.csv", 10) != 0 || t.n != 0 || t.rows)
            abort();
        return 0;
    }
    long lines = 1, last = 1;
    for (size_t i = 0; i < size; i++)
        lines += text[i] == '\n';
    char *b = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < t.n; i++) {
        const csv_row *r = &t.rows[i];
        if (r->n == 0 || (r->n == 1 && !r->field[0][0]))
            abort();
        if (r->line < last || r->line > lines)
            abort();
        last = r->line;
        for (size_t k = 0; k < r->n; k++)
            put_quoted(&b, &n, &cap, r->field[k], k + 1 < r->n ? ',' : '\n');
    }
    if (csv_table_read(b ? b : "", n, "back.csv", &back, &err) != 0) {
        fprintf(stderr, "written back, the table does not read: %s\n", err.msg);
        abort();
    }
    if (back.n != t.n)
        abort();
    for (size_t i = 0; i < t.n; i++) {
        if (back.rows[i].n != t.rows[i].n)
            abort();
        for (size_t k = 0; k < t.rows[i].n; k++)
            if (strcmp(back.rows[i].field[k], t.rows[i].field[k]) != 0)
                abort();
    }
    free(b);
    csv_table_free(&back);
    csv_table_free(&t);
    return 0;
}
