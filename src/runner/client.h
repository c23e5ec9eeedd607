/* The parent's side of hashbench-runner, the sandboxed process that runs a
 * submitted library for everything except timing: the KAT procedures
 * (digests streamed back, verdicts computed here), the recomputation of a
 * probe trial's digest fold, and the comparison of an instance's variants.
 * The runner only hashes; it never sees submitted vectors, never writes a
 * file hashbench reads, and every answer it gives is checked here. */
#ifndef HB_RUNNER_CLIENT_H
#define HB_RUNNER_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include "common/err.h"
#include "probe/trial_msg.h"

typedef struct runner_target {
    const char *lib;   /* path of the library */
    int digest_bits;
    double timeout_s;  /* wall-clock limit of the whole runner process */
} runner_target;

typedef struct runner_fold_job {
    uint64_t seed;
    unsigned long long size;  /* message bytes */
    unsigned long long calls; /* calls of the trial, numbered 0 .. calls-1 */
    char fold[TM_FOLD_HEX];   /* out: the recomputed fold; "" when not computed */
} runner_fold_job;

/* Recomputes the fold of every job (trial_msg.h) in one sandboxed runner
 * process that loads T's library, as the KAT child does. Returns 0 when the
 * runner was run: a job left with an empty fold was not computed and WHY
 * (WHYSZ bytes) says how the runner ended; -1 on hashbench's own failure. */
int runner_folds(const runner_target *t, runner_fold_job *jobs, size_t n,
                 char *why, size_t whysz, hb_err *err);

#endif
