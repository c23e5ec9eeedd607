/* `hashbench init`: a starting hashbench.ini (override.h, docs/OVERRIDE.md)
 * written from what discovery found in a package, so that a user edits a
 * file rather than writes one. One section per instance found, with its
 * folder, sources, digest size and variant spelled out, and a comment
 * wherever discovery was unsure: a folder whose sources define CryptHash
 * more than once (it probably serves several instances) becomes one
 * section per defining file, each with the shared sources; the files left
 * out and any problem discovery found are noted. */
#ifndef HB_COMPILE_INIT_H
#define HB_COMPILE_INIT_H

#include "common/err.h"

/* The text of a starting hashbench.ini for PACKAGE into *text (malloc'd,
 * owned by the caller) and its number of [instance] sections into
 * *n_sections. Fails when PACKAGE already has a hashbench.ini (naming it)
 * or when discovery fails. */
int init_override_text(const char *package, char **text, int *n_sections, hb_err *err);

/* 1 when the C source TEXT defines CryptHash (the name, its parameter list,
 * then '{'), read as text. */
int init_defines_crypthash(const char *text);

#endif
