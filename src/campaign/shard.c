/* Sharding (see shard.h): a greedy longest-cost-first split over a
 * hash-shuffled order. With equal costs this is a round-robin over the
 * shuffled instances, so shard sizes differ by at most one instance. */
#include "campaign/shard.h"

#include <stdlib.h>
#include <string.h>
#include "common/digest.h"

int shard_parse(const char *text, shard_spec *out, hb_err *err)
{
    char *end;
    long k = strtol(text, &end, 10);
    if (end == text || *end != '/')
        return hb_fail(err, "--shard '%s': expected K/N, e.g. 1/2", text);
    const char *ntext = end + 1;
    long n = strtol(ntext, &end, 10);
    if (end == ntext || *end || n < 1 || n > 10000 || k < 1 || k > n)
        return hb_fail(err, "--shard '%s': expected K/N with 1 <= K <= N <= "
                       "10000, e.g. 1/2", text);
    out->k = (int)k;
    out->n = (int)n;
    return 0;
}

typedef struct shard_entry {
    char hash[HB_SHA256_HEX];
    double cost;
    size_t index;
} shard_entry;

static int entry_cmp(const void *a, const void *b)
{
    const shard_entry *x = a, *y = b;
    if (x->cost != y->cost)
        return x->cost > y->cost ? -1 : 1;
    int c = strcmp(x->hash, y->hash);
    if (c)
        return c;
    return x->index < y->index ? -1 : x->index > y->index;
}

void shard_assign(const char *const *keys, const double *costs, size_t n_keys,
                  int n_shards, int *owner)
{
    if (n_keys == 0)
        return;
    shard_entry *e = calloc(n_keys, sizeof *e);
    double *load = calloc((size_t)n_shards, sizeof *load);
    if (!e || !load) {
        for (size_t i = 0; i < n_keys; i++) /* degrade to a plain modulo */
            owner[i] = (int)(i % (size_t)n_shards) + 1;
        free(e);
        free(load);
        return;
    }
    for (size_t i = 0; i < n_keys; i++) {
        hb_sha256_buf_hex(keys[i], strlen(keys[i]), e[i].hash);
        e[i].cost = costs ? costs[i] : 1.0;
        e[i].index = i;
    }
    qsort(e, n_keys, sizeof *e, entry_cmp);
    for (size_t i = 0; i < n_keys; i++) {
        int best = 0;
        for (int s = 1; s < n_shards; s++)
            if (load[s] < load[best])
                best = s;
        load[best] += e[i].cost;
        owner[e[i].index] = best + 1;
    }
    free(e);
    free(load);
}
