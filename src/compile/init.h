/* `hashbench init`: a starting hashbench.ini (override.h, docs/OVERRIDE.md)
 * written from what discovery found in a package, so that a user edits a
 * file rather than writes one. One section per instance found, with its
 * folder, sources, digest size and variant spelled out, and a comment
 * wherever discovery was unsure.
 *
 * A folder whose sources cannot all be linked into one library is split:
 * each source of such an instance is compiled on its own with the guide's
 * reference flags (in the compile sandbox), and the global symbols each
 * object defines are read with libelf (elfsize.h). Two sources that define
 * the same global symbol (two CryptHash, or two variant files each with
 * CryptHash_512 and pad_message behind one wrapper that defines CryptHash)
 * conflict. When the conflicting sources fall into sets of alternatives
 * (every two files of a set conflict), there is one section per choice of
 * one file from each set, each with every source that conflicts with none
 * (the wrapper, shared helpers); otherwise one section per conflicting
 * file, each with the files that conflict with nothing chosen. A comment
 * names the files and the symbols they share. A source that does not
 * compile on its own is read as text (does it define CryptHash?) and the
 * comment says so. */
#ifndef HB_COMPILE_INIT_H
#define HB_COMPILE_INIT_H

#include "common/err.h"

/* The most sections one folder is split into. */
#define INIT_MAX_SPLIT 64

/* The text of a starting hashbench.ini for PACKAGE into *text (malloc'd,
 * owned by the caller) and its number of [instance] sections into
 * *n_sections. CC is the compiler (NULL: $CC, else cc), run only on
 * folders of two sources or more. Fails when PACKAGE already has a
 * hashbench.ini (naming it), when discovery fails or when the compiler
 * cannot be run. */
int init_override_text(const char *package, const char *cc, char **text, int *n_sections,
                       hb_err *err);

/* As init_override_text; with INIT_OVER_EXISTING, an existing hashbench.ini
 * is no refusal: its [candidate] is kept and its [instance] sections are
 * passed over, so the text is what discovery alone finds (init --update,
 * init --print). */
#define INIT_OVER_EXISTING 1
int init_override_text_with(const char *package, const char *cc, int flags, char **text,
                            int *n_sections, hb_err *err);


#endif
