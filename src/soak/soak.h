/* The long-run stability check (`hashbench soak`): an instance that passed
 * its KATs is called for a given time in one sandboxed hashbench-probe (runner role)
 * process on fresh keyed messages of random lengths (0 to 64 KiB, and the
 * guide's eight sizes), every digest is recomputed by code that does not
 * share the soaked process's history (OpenSSL when the instance's vectors
 * show a standard function, measure/xcheck.h; else the same library in
 * fresh sandboxed runners, each given few calls, in an order drawn in
 * secret), and the process's resident memory, descriptors and mappings are
 * read from outside (/proc) after every batch of calls. The verdict is
 * STABLE, or the first call that went wrong: its index, its message key
 * and its length, so that the same sequence can be replayed (SOAK_RULE).
 * Each instance gets DIR/soak/<cand>/<Inst>.json (docs/FORMATS.md). */
#ifndef HB_SOAK_SOAK_H
#define HB_SOAK_SOAK_H

#include <stddef.h>
#include <jansson.h>

#include "common/err.h"
#include "measure/msggen.h"
#include "rundir/rundir.h"

#define SOAK_DIR RUNDIR_SOAK
#define SOAK_DEFAULT_DURATION_S 60.0
#define SOAK_MAX_BYTES 65536ULL         /* the longest random message */
#define SOAK_BATCH 64                   /* calls between two readings from outside */
#define SOAK_REFERENCE_CALLS 4096       /* calls a recomputing runner gets before
                                           a fresh one takes over */
/* Growth beyond the readings after the first batch (which holds the guide's
 * sizes, the longest message among them) that is a failure (LEAK). */
#define SOAK_RSS_GROWTH_KIB (16LL * 1024)
#define SOAK_FD_GROWTH 8
#define SOAK_MAPS_GROWTH 64
#define SOAK_RUNNER_GRACE_S 60.0        /* the runner's wall limit beyond the duration */
#define SOAK_REPLAY_LIMIT_S 86400.0     /* the runner's wall limit of a replay */
#define SOAK_CALL_LIMIT_S 30.0          /* one call longer than this is a hang
                                           (TIMEOUT), in both kinds of runner */

#define SOAK_RULE "call i: the 64-byte block i of the ChaCha20 keystream of the soak's " \
    "key (msggen.h) gives the message key (its first 32 bytes) and the length (bytes " \
    "32-39, little-endian u: calls 0-7 take the guide's sizes; else u mod 4 = 0 picks " \
    "guide size (u >> 2) mod 8, otherwise e = (u >> 2) mod 17 gives 0 bytes for e = 0 " \
    "and 2^(e-1) + ((u >> 8) mod 2^(e-1)) bytes for e >= 1); the message is the first " \
    "LENGTH bytes of the keystream of the message key"

/* The verdicts. */
#define SOAK_STABLE "STABLE"
#define SOAK_WRONG "WRONG"     /* a digest differed from its recomputation */
#define SOAK_FAULT "FAULT"     /* the guards caught the call (guard.h) */
#define SOAK_LEAK "LEAK"       /* memory, descriptors or mappings grew */
#define SOAK_NOT_RUN "NOT_RUN" /* the library did not load, or no verifier */

/* Call I of the soak of KEY: its message key and length (SOAK_RULE). */
int soak_call(const msggen_key *key, unsigned long long i, msggen_key *msg_key,
              size_t *len, hb_err *err);

typedef struct soak_target {
    const char *lib;          /* the library soaked */
    int digest_bits;
    const char *evp_name;     /* recompute with OpenSSL's digest of this name;
                                 NULL: with fresh runners of LIB */
    const char *verified_by;  /* the text of the record ("openssl:SM3", ...) */
} soak_target;

typedef struct soak_limits {
    double duration_s;        /* > 0: stop after this time */
    unsigned long long calls; /* > 0: stop after this many calls (a replay) */
    const msggen_key *key;    /* NULL: a fresh key */
} soak_limits;

/* Soaks T under L. *OUT gets the record's body: verdict, calls, bytes,
 * seconds, key, the readings from outside and, unless STABLE, "failure"
 * {call, message_key, length_bytes, what}. Returns 0, or -1 on
 * hashbench's own failure (ERR). */
int soak_target_run(const soak_target *t, const soak_limits *l, json_t **out, hb_err *err);

typedef struct soak_options {
    const char *run_dir;
    const char *const *instances; /* NULL: every instance that passed its KATs */
    int n_instances;
    soak_limits limits;
    /* called before and after each instance (RECORD NULL before) */
    void (*progress)(void *ctx, const char *cand, const char *inst,
                     const json_t *record);
    void *ctx;
} soak_options;

/* Soaks every selected instance of O->run_dir that passed its KATs (the
 * built-in baselines left out), writing DIR/soak/<cand>/<Inst>.json each.
 * *N_STABLE and *N_FAILED count the verdicts. Returns 0, or -1 (ERR) when
 * the run directory cannot be read or a record cannot be written. */
int soak_run(const soak_options *o, int *n_stable, int *n_failed, hb_err *err);

/* The command that replays the soak of RECORD up to its failing call (into
 * OUT, SZ bytes); "" when it is STABLE. */
void soak_reproduce_command(const json_t *record, const char *run_dir, char *out,
                            size_t sz);

#endif
