/* Sharding: splitting a campaign's instances between N shards that run
 * independently (two cores of one machine, or the tasks of a job array on
 * several machines) without talking to each other. Every shard computes the
 * same split from the same inputs, so the split must depend only on what all
 * shards share: the instance names (and optional costs that are themselves
 * identical everywhere). All sizes of an instance stay on one shard. */
#ifndef HB_CAMPAIGN_SHARD_H
#define HB_CAMPAIGN_SHARD_H

#include <stddef.h>
#include "common/err.h"

typedef struct shard_spec {
    int k; /* 1-based index of this shard */
    int n; /* number of shards; 1/1 = unsharded */
} shard_spec;

/* Parses "K/N" (1 <= K <= N <= 10000); fails naming the text. */
int shard_parse(const char *text, shard_spec *out, hb_err *err);

/* Assigns each of the N_KEYS instances (KEYS, e.g. "SM3/SM3") to a shard:
 * OWNER[i] gets 1..n. COSTS (may be NULL: all equal) are the estimated
 * seconds of each instance and must be the same on every shard. The
 * instances are ordered by the SHA-256 of their key (mixing candidates, whose
 * variants tend to cost alike), then by descending cost, and each goes to the
 * currently lightest shard (lowest index on ties). Deterministic; OWNER is
 * the caller's array of N_KEYS ints. */
void shard_assign(const char *const *keys, const double *costs, size_t n_keys,
                  int n_shards, int *owner);

#endif
