/* The instruction-count stage (`hashbench count`, `hashbench run --count`):
 * for every instance that passed its KATs (and the OpenSSL baseline), the
 * instructions one call executes at each message size, counted by
 * Valgrind's cachegrind (--cache-sim=no: no cache is simulated) while
 * hashbench-count (count/countdriver_main.c) runs the library in the
 * sandbox. An exact figure that does not depend on the host's state, beside
 * the timed ones; instructions, never cycles.
 *
 * The differential method: per instance, one "base" run calls the library
 * COUNT_N1 times at every size, and one run per size S calls it COUNT_N2
 * times at S and COUNT_N1 times at the others. Both runs make the same
 * messages, fold the same number of digests and start up alike, so
 *   per call at S = (total of the run of S - total of the base run) / (N2 - N1).
 * Every call hashes a message of its own (probe/trial_msg.h), from a seed
 * drawn at random for the instance and recorded; the digests of each run of
 * S are folded and the fold is recomputed natively by hashbench-runner, so
 * a library that computes something else under Valgrind is caught.
 *
 * Each (instance, size) gets a record DIR/count/<cand>/<Inst>__count_<S>.json
 * (docs/FORMATS.md) with the exact commands, Valgrind's version, the raw
 * totals of both runs and the derived figures; `validate` recomputes them
 * with count_record_check. Where Valgrind cannot run the code the record
 * says NOT_COUNTABLE with the reason, never a number. */
#ifndef HB_COUNT_COUNT_H
#define HB_COUNT_COUNT_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "common/err.h"
#include "common/progress.h"
#include "rundir/ibudget.h"

#define COUNT_DIR "count"
#define COUNT_RUN_TIMEOUT_S 120.0 /* one Valgrind run */
#define COUNT_OUT_LIMIT (16ULL << 20) /* bytes of cachegrind output read */
#define COUNT_MAX_JOBS 64

/* What cachegrind counts besides instructions (Ir). */
typedef struct count_events {
    int branches;  /* --branch-sim=yes: conditional branches (Bc) */
    int memory;    /* --cache-sim=yes: memory reads (Dr) and writes (Dw);
                      cachegrind then also simulates caches, whose misses
                      are kept raw but not derived */
} count_events;

/* Path of hashbench-count: beside the running executable. */
const char *count_driver_path(void);

/* Valgrind's options for EVENTS, as a NULL-ended list of static strings
 * (the tool first). */
const char *const *count_tool_options(const count_events *events);

/* Counts library LIB (DIGEST_BITS) at the N_SIZES sizes SIZES (bytes, each
 * at most COUNT_MAX_BYTES) from messages of SEED. SHOWN is how records name
 * the library (relative to the run directory). *OUT gets an object
 * {"valgrind", "tool_options", "seed", "sizes": [one object per size:
 * {"size_bytes", "status" (COUNTED, NOT_COUNTABLE, INCONSISTENT or TIMEOUT),
 * "reason", "base": {"command", "calls", "totals"}, "more": {...},
 * "derived"}]}. Every Valgrind run and the runner are charged to the
 * instance's wall budget BUDGET (NULL: none), whose rest limits each: a
 * size the budget left uncounted is TIMEOUT, its reason the budget's line.
 * Returns -1 only on hashbench's own failure. */
int count_library(const char *lib, const char *shown, int digest_bits,
                  const unsigned *sizes, int n_sizes, uint64_t seed,
                  const count_events *events, const ibudget *budget, json_t **out,
                  hb_err *err);

/* The derived figures of one size from its raw parts: for every event
 * counted in both runs, (more - base) / (calls_more - calls_base) per
 * call, and per byte for SIZE > 0. NULL when the parts do not allow it. */
json_t *count_derive(const json_t *base, const json_t *more, long long size);

/* Checks record REC (read from FILE, relative to the dataset) for validate:
 * its shape, its status, and the derived figures recomputed from the raw
 * totals. */
int count_record_check(const json_t *rec, const char *file, hb_err *err);

typedef struct count_options {
    const char *run_dir;
    const char *const *instances;  /* Inst or Cand/Inst; NULL: all */
    int n_instances;
    const unsigned *sizes;         /* NULL: campaign.json's, else S1-S8 */
    int n_sizes;
    count_events events;
    double instance_budget_s;      /* each instance's wall budget over all
                                      its stages (rundir/ibudget.h); 0: none */
    int jobs;                      /* instances counted at once; 0: the
                                      usable cores */
    hb_progress_fn progress;
    void *progress_ctx;
} count_options;

/* The default number of instances counted at once: the online cores, at
 * most COUNT_MAX_JOBS. */
int count_default_jobs(void);

/* The stage: every kat.json entry with status PASS or BASELINE gets a
 * record per size; an instance's counted records are kept when its
 * library, sizes, events and call counts are unchanged (resume), the
 * others counted again. *N_COUNTED and *N_NOT count the records counted
 * and not. Returns -1 on an input error (no kat.json, ...). */
int count_run(const count_options *o, int *n_counted, int *n_not, hb_err *err);

#endif
