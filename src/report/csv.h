/* A reader of RFC 4180 CSV text (comma-separated, fields optionally in
 * double quotes with "" for a quote, CRLF or LF line ends), for the files
 * users hand to hashbench: self-assessments and exports to validate. Debian's
 * libcsv parses; each record keeps the line it starts on, so that errors
 * name FILE:LINE. The names avoid libcsv's own (csv_parse, csv_free). */
#ifndef HB_REPORT_CSV_H
#define HB_REPORT_CSV_H

#include <stddef.h>
#include "common/err.h"

typedef struct csv_row {
    char **field;   /* NUL-terminated copies */
    size_t n;
    long line;      /* 1-based line the record starts on */
} csv_row;

typedef struct csv_table {
    csv_row *rows;
    size_t n;
} csv_table;

/* Parses TEXT (LEN bytes; FILE names it in messages) into T. Empty lines
 * are skipped; spaces are kept; a CR alone also ends a record (lines are
 * counted by LF). Fails with FILE:LINE on a quote inside an unquoted field,
 * a character after a closing quote other than a comma or line end, a NUL
 * byte (the line of each), or a quote that is never closed (the line it
 * opens on); T is then empty. Release with csv_table_free. */
int csv_table_read(const char *text, size_t len, const char *file, csv_table *t,
                   hb_err *err);

/* Frees T's rows and fields and empties it (T itself is the caller's). */
void csv_table_free(csv_table *t);

/* The index of the field named NAME in ROW (exact match), or -1. */
int csv_column(const csv_row *row, const char *name);

#endif
