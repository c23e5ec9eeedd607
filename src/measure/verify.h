/* The check of a cell's timed digests: every trial's fold, as the probe
 * reported it, is recomputed by hashbench-probe (runner role) (runner/client.h), a
 * separate sandboxed process that loads the same library and hashes the
 * same messages (trial_msg.h) from the trial's seed, one after the other in
 * a single buffer where the probe used two in turn. One call of one trial,
 * both drawn at random after the trials, is also checked on its own: first
 * of all, before the runner has seen any of the trials' messages, it hashes
 * that message alone (as it does for the KATs), and the digest must continue
 * the runner's fold of the calls before it into its fold up to that call.
 * A library that computes something else while it is
 * timed, keeps results by message address, or recognizes the recomputation
 * and serves the probe's digests there, disagrees somewhere, and the record
 * is INCONSISTENT. All the trials of a cell share one runner process, after
 * the trials, so the check costs one sandbox start and about as much
 * hashing as the timed trials themselves. */
#ifndef HB_MEASURE_VERIFY_H
#define HB_MEASURE_VERIFY_H

#include <stddef.h>

#include "common/err.h"
#include "measure/plan.h"

typedef struct verify_report {
    size_t folds_checked;           /* trials whose fold the runner agreed with */
    long spot_trial;                /* index into the trials; -1 when none */
    unsigned long long spot_call;   /* the call checked on its own */
} verify_report;

/* The runner's wall-clock limit at most (it is the trials' timed time,
 * scaled, and no more than what is left of the instance's budget). */
#define VERIFY_MAX_TIMEOUT_S 1800.0

/* Checks the trials of O, measured on SIZE-byte messages with the library
 * LIB (an absolute path) of DIGEST_BITS, in a runner given no more than
 * LIMIT_S seconds (<= 0: VERIFY_MAX_TIMEOUT_S). Returns 0 when everything
 * agrees, 1 when something does not or the runner could not answer (WHY,
 * of WHYSZ bytes, says what), -1 on hashbench's own failure. */
int verify_outcome(const char *lib, int digest_bits, unsigned long long size,
                   const plan_outcome *o, double limit_s, verify_report *vr, char *why,
                   size_t whysz, hb_err *err);

#endif
