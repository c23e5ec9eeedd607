/* Escaping of strings that come from a dataset (and so possibly from a
 * submission: instance names, KAT log lines, reasons, flags) before they are
 * placed in a Markdown page, an SVG chart or the HTML template. Control
 * characters become spaces and invalid UTF-8 becomes U+FFFD, so one string
 * can never break a table row, a line or the document's encoding. The
 * functions write to the caller's stream. */
#ifndef HB_REPORT_ESC_H
#define HB_REPORT_ESC_H

#include <stdio.h>

/* Markdown text: a backslash is put before a character only where
 * Markdown or its table extension would otherwise read it as markup ('|',
 * '<', '`', '*', '[', ']', '~' always; '_' unless inside a word like
 * x86_1; '&' before what could be an entity; '#' after a blank; '\' before
 * punctuation), so the text renders literally, also inside table cells and
 * link texts, and reads as plain text in the .md file ("gcc (Debian
 * 12.2.0-14+deb12u1)" stays as it is). Never place the result at the start
 * of a line. */
void esc_md(FILE *fp, const char *s);

/* XML/HTML text and attribute values: & < > " ' as entities. */
void esc_xml(FILE *fp, const char *s);

/* A name usable as one file-name component: characters outside
 * [A-Za-z0-9._-] and a leading '.' become '_'. OUT gets at most OUTSZ-1
 * characters; an empty name becomes "_". */
void esc_file_component(const char *name, char *out, size_t outsz);

#endif
