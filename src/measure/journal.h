/* The interleaved stage's journal (DIR/measure-journal.json): after every
 * round, the stage's seed, settings and the round reached, and for every
 * cell (named by its record path and its library's SHA-256) the trials
 * taken so far, its digest and the wall time charged to it, written
 * atomically. A stage that is killed resumes from it: its cells get their
 * trials back and the rounds go on from the next one with the same seed.
 * The journal is removed once every record is written. */
#ifndef HB_MEASURE_JOURNAL_H
#define HB_MEASURE_JOURNAL_H

#include <stddef.h>

#include "common/err.h"
#include "measure/interleave.h"

/* Writes the journal of the N CELLS (KEYS[i] names cell i) after ROUND. */
int journal_save(const char *path, const plan_settings *s, int round,
                 const char *const *keys, const ilv_cell *cells, size_t n, hb_err *err);

/* Restores what PATH holds for the N CELLS into them (marking them
 * resumed) and S's seed, and sets *FIRST_ROUND to the round after the
 * journal's. A missing journal, or one made with other settings, restores
 * nothing (*FIRST_ROUND 0). Fails, naming the file and what to do, when it
 * cannot be read. */
int journal_load(const char *path, plan_settings *s, const char *const *keys,
                 ilv_cell *cells, size_t n, int *first_round, hb_err *err);

#endif
