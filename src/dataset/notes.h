/* The evaluator's notes on instances: a small text file, notes.txt, kept in
 * the run directory (published with it into DATA/<system>/notes.txt) or given
 * to `hashbench report --notes FILE`. Per instance it holds a short caveat,
 * shown in the summary and on the candidate page, and the cause and
 * treatment of KATs that do not pass, shown as the instance's footnote in
 * section 3 of its page. The format (docs/FORMATS.md, "notes.txt"):
 *
 *   # comment
 *   [CANDIDATE/INSTANCE]
 *   caveat = table-based S-box: not constant-time
 *   kat = the submitted KAT_2_12 file was made with an older version; ...
 *
 * Parsed notes are a JSON object "CANDIDATE/INSTANCE" -> {"line": N,
 * "caveat": "...", "kat": "..."} (each text key only when given), in the
 * file's order. */
#ifndef HB_DATASET_NOTES_H
#define HB_DATASET_NOTES_H

#include <jansson.h>
#include "common/err.h"

#define NOTES_FILE "notes.txt"
#define NOTES_CAVEAT_MAX 200   /* bytes of a caveat */
#define NOTES_KAT_MAX 2000     /* bytes of a KAT explanation */

/* Parses TEXT (LEN bytes, the content of the file NAME, used in messages)
 * into *OUT (a new object owned by the caller). Fails with "NAME:LINE: what
 * is wrong; what to do" for a line that is not a comment, a section or a
 * known key, a key outside a section or given twice, a repeated section, a
 * candidate or instance name outside [A-Za-z0-9_-] (1 to 64), an empty or
 * too long text, a control character or invalid UTF-8, or a section
 * without any key. */
int notes_parse(const char *text, size_t len, const char *name, json_t **out, hb_err *err);

/* Reads and parses the file PATH (notes_parse, PATH naming it). */
int notes_load(const char *path, json_t **out, hb_err *err);

/* The note of CAND/INST in NOTES (may be NULL), or NULL. Borrowed. */
const json_t *notes_of(const json_t *notes, const char *cand, const char *inst);

/* Its caveat or KAT explanation; NULL when the note has none. */
const char *notes_caveat(const json_t *notes, const char *cand, const char *inst);
const char *notes_kat(const json_t *notes, const char *cand, const char *inst);

#endif
