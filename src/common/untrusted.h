/* Text that submitted code could have written (a probe's failure line, a
 * runner's fault or load answer, a library's output quoted in a message)
 * travels inside hashbench's own one-line messages behind a mark: what comes
 * before the mark is hashbench's wording (status, class, the step of its
 * procedure), what follows it is the raw text, with control bytes (the mark
 * among them) made '?'. The writers of run-directory documents keep the two
 * apart (hb_untrusted_set: the wording in KEY, the raw text in
 * "raw_KEY_untrusted"); publishing drops every "..._untrusted" field and
 * cuts any text at a mark, so the raw text stays in the run directory and
 * never reaches a dataset. */
#ifndef HB_COMMON_UNTRUSTED_H
#define HB_COMMON_UNTRUSTED_H

#include <stddef.h>
#include <jansson.h>

#define HB_UNTRUSTED_MARK '\x1e'
#define HB_UNTRUSTED_MARK_STR "\x1e"
#define HB_UNTRUSTED_SUFFIX "_untrusted"

/* Appends to BUF (SZ bytes, holding hashbench's wording) the mark and the
 * first LEN bytes of TEXT (to its NUL when shorter), each control byte and
 * each byte above ASCII as '?' (so that it stays valid JSON text). Nothing
 * is appended when TEXT is empty. */
void hb_untrusted_append(char *buf, size_t sz, const char *text, size_t len);

/* The length of S's part before the mark (all of S without one); *RAW
 * (may be NULL) gets the text after it, or NULL. */
size_t hb_untrusted_split(const char *s, const char **raw);

/* Sets OBJ's KEY to TEXT's wording (trailing ": " or spaces dropped) and,
 * when TEXT holds raw text, "raw_KEY_untrusted" to it. */
void hb_untrusted_set(json_t *obj, const char *key, const char *text);

/* 1 when KEY names a field of raw text ("..._untrusted"). */
int hb_untrusted_key(const char *key);

/* Writes TEXT's wording only into BUF (for a published log line). */
void hb_untrusted_wording(char *buf, size_t sz, const char *text);

#endif
