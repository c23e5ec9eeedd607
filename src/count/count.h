/* The instruction-count stage (`hashbench count`, `hashbench run --count`):
 * for every instance that passed its KATs (and the OpenSSL baseline), the
 * instructions each call of CryptHash executes, counted by Valgrind's
 * callgrind while hashbench-count (count/countdriver_main.c) runs the
 * library in the sandbox, with collection on only during the call and one
 * dump per call. An exact figure that does not depend on the host's state,
 * beside the timed ones; instructions, never cycles.
 *
 * One run of the driver per instance hashes COUNT_CALLS_SIZE messages at
 * each size of the stage and COUNT_CALLS_CURVE at every length of the
 * curve (count/count_plan.h), each message fresh from a seed drawn at
 * random for the instance and recorded; the plan goes to the driver's
 * standard input. Per length: the minimum, median and maximum of the
 * calls' counts, less the median count of an empty window; the median is
 * the figure, a spread (max - min) / median above COUNT_SPREAD_LIMIT is
 * flagged. The digests of every length are folded and the fold is
 * recomputed natively by hashbench-probe (runner role), so a library that computes
 * something else under Valgrind is caught.
 *
 * Each (instance, size) gets a record DIR/count/<cand>/<Inst>__count_<S>.json
 * and each instance a curve DIR/count/<cand>/<Inst>__count_curve.json
 * (docs/FORMATS.md), with the exact command, Valgrind's version, the raw
 * per-call counts and the derived figures; `validate` recomputes them with
 * count_record_check. Where Valgrind cannot run the code the record says
 * NOT_COUNTABLE with the reason, never a number; where the instance's wall
 * budget (rundir/ibudget.h) ended or left no time for the run, TIMEOUT. */
#ifndef HB_COUNT_COUNT_H
#define HB_COUNT_COUNT_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "common/err.h"
#include "common/progress.h"
#include "rundir/ibudget.h"

#define COUNT_DIR "count"
#define COUNT_RUN_TIMEOUT_S 300.0 /* the Valgrind run of an instance */
#define COUNT_OUT_LIMIT (64ULL << 20) /* bytes of callgrind output read */
#define COUNT_MAX_JOBS 64

/* What callgrind counts besides instructions (Ir). */
typedef struct count_events {
    int branches;  /* --branch-sim=yes: conditional branches (Bc) */
    int memory;    /* --cache-sim=yes: memory reads (Dr) and writes (Dw);
                      callgrind then also simulates caches, whose misses
                      are kept raw but not derived */
} count_events;

/* Path of hashbench-count: beside the running executable. */
const char *count_driver_path(void);

/* Valgrind's options for EVENTS, as a NULL-ended list of static strings
 * (the tool first). */
const char *const *count_tool_options(const count_events *events);

/* Counts library LIB (DIGEST_BITS) at N entries of the plan: CALLS[k]
 * messages of SIZES[k] bytes (at most COUNT_MAX_BYTES) from SEED + k, in one
 * run. SHOWN is how records name the library (relative to the run
 * directory). *OUT gets an object {"valgrind", "tool_options", "seed",
 * "command", "empty": {"Ir": [per empty window], ...} or null, "entries":
 * [one object per entry: {"size_bytes", "calls", "status" (COUNTED,
 * NOT_COUNTABLE, INCONSISTENT or TIMEOUT), "reason" (hashbench's wording;
 * raw text of the library or Valgrind's log in "raw_reason_untrusted"),
 * "raw": {"Ir": [per call], ...}, "derived"}]}. The Valgrind run and the
 * runner are charged to the instance's wall budget BUDGET (NULL: none),
 * whose rest limits each: entries the budget left uncounted are TIMEOUT,
 * their reason the budget's line. Returns -1 only on hashbench's own
 * failure. */
int count_library(const char *lib, const char *shown, int digest_bits,
                  const unsigned *sizes, const unsigned *calls, int n, uint64_t seed,
                  const count_events *events, const ibudget *budget, json_t **out,
                  hb_err *err);

/* The derived figures of one length from its raw per-call counts RAW and
 * the empty windows' EMPTY: for every event of both, per call the median,
 * minimum and maximum of (count - median of the empty windows), per byte
 * the median / SIZE (null for 0 bytes), spread (max - min) / median; and
 * "spread_flagged", the instructions' spread above COUNT_SPREAD_LIMIT. NULL
 * when the parts do not allow it. */
json_t *count_derive(const json_t *raw, const json_t *empty, long long size);

/* Checks record REC (read from FILE, relative to the dataset) for validate:
 * its shape, its status, and the derived figures recomputed from the raw
 * counts; a curve record, every point of it. */
int count_record_check(const json_t *rec, const char *file, hb_err *err);

typedef struct count_options {
    const char *run_dir;
    const char *const *instances;  /* Inst or Cand/Inst; NULL: all */
    int n_instances;
    const unsigned *sizes;         /* NULL: campaign.json's, else S1-S8 */
    int n_sizes;
    count_events events;
    int no_curve;                  /* 1: the stage's sizes only, no curve */
    int nokat;                     /* 1: also the instances that submitted no
                                      KAT vectors, their records marked
                                      kat_status NOKAT */
    double instance_budget_s;      /* each instance's wall budget over all
                                      its stages (rundir/ibudget.h); 0: none */
    int jobs;                      /* instances counted at once; 0: the
                                      usable cores */
    hb_progress_fn progress;
    void *progress_ctx;
} count_options;

/* The sizes the stage counts into SIZES (at most COUNT_MAX_SIZES, *N of
 * them): O's, else campaign.json's, else S1-S8; sizes above COUNT_MAX_BYTES
 * left out. */
int count_stage_sizes(const count_options *o, unsigned *sizes, int *n, hb_err *err);

/* SIZES (N of them) as a JSON array of integers, for the records. */
json_t *count_sizes_json(const unsigned *sizes, int n);

/* The default number of instances counted at once: the online cores, at
 * most COUNT_MAX_JOBS. */
int count_default_jobs(void);

/* The stage: every kat.json entry with status PASS or BASELINE gets a
 * record per size and a curve record; an instance's counted records are
 * kept when its library, sizes, events and plan are unchanged (resume), the
 * others counted again. *N_COUNTED and *N_NOT count the records counted
 * and not. Returns -1 on an input error (no kat.json, ...). */
int count_run(const count_options *o, int *n_counted, int *n_not, hb_err *err);

/* Calls FN(CTX, CAND, INST, LINE) for every curve record of RUN_DIR whose
 * length model (count_model.h) found the counts beyond the lengths the KAT
 * vectors cover below it, LINE saying so; returns how many. */
int count_below_model(const char *run_dir,
                      void (*fn)(void *ctx, const char *cand, const char *inst,
                                 const char *line),
                      void *ctx);

#endif
