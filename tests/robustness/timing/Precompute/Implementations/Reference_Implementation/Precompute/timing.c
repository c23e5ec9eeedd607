/* Timing-attack fixture Precompute: real SM3 digests, most of them
 * computed before they are asked for, by a helper thread started from the
 * constructor, so that the work lands outside the caller's timed calls.
 * The thread moves itself to another core when it may, and works whenever
 * it can predict messages: once a call's message follows hashbench's
 * published trial-message rule, the seed gives every later message of the
 * trial, and the thread hashes calls i+1, i+2, ... ahead of the caller into
 * a ring of cached digests. Between windows it waits (a 20 us sleep per
 * poll), so its work falls in the gaps where a harness is not looking. A
 * call whose message is in the ring (compared byte for byte with the copy
 * the thread made) returns the cached digest at once. */
#define _GNU_SOURCE
#include "timing_common.h"
#include <pthread.h>
#include <sched.h>

#define RING 64
#define MAX_BYTES 65536

typedef struct entry {
    uint64_t index; /* call index + 1; 0: empty */
    unsigned char msg[MAX_BYTES];
    unsigned char digest[32];
} entry;

static entry ring[RING];
static struct {
    uint64_t seed, size, next; /* next index the caller will ask for */
    int valid;
} hint;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *ahead(void *arg)
{
    static unsigned char msg[MAX_BYTES];
    unsigned char d[32];
    cpu_set_t set;
    int here = sched_getcpu();
    CPU_ZERO(&set);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (c != here)
            CPU_SET(c, &set);
    sched_setaffinity(0, sizeof set, &set); /* another core if allowed */
    for (;;) {
        uint64_t seed, size, i;
        pthread_mutex_lock(&lock);
        int valid = hint.valid;
        seed = hint.seed;
        size = hint.size;
        i = hint.next;
        pthread_mutex_unlock(&lock);
        int done = 0;
        for (uint64_t k = i; valid && k < i + RING / 2 && !done; k++) {
            entry *e = &ring[k % RING];
            if (__atomic_load_n(&e->index, __ATOMIC_ACQUIRE) == k + 1)
                continue;
            ta_rule_message(msg, (size_t)size, seed, k);
            ta_sm3_example(256, msg, 8 * size, d);
            __atomic_store_n(&e->index, 0, __ATOMIC_RELEASE);
            memcpy(e->msg, msg, (size_t)size);
            memcpy(e->digest, d, 32);
            __atomic_store_n(&e->index, k + 1, __ATOMIC_RELEASE);
            done = 1;
        }
        if (!done) {
            struct timespec ts = {0, 20000};
            nanosleep(&ts, NULL);
        }
    }
    return arg;
}

__attribute__((constructor)) static void start_helper(void)
{
    pthread_t t;
    if (pthread_create(&t, NULL, ahead, NULL) == 0)
        pthread_detach(t);
}

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    uint64_t seed;
    size_t size = (size_t)(msg_len_bits / 8);
    if (digest_len_bits == 256 && msg && size <= MAX_BYTES &&
        ta_rule_seed(msg, msg_len_bits, &seed)) {
        pthread_mutex_lock(&lock);
        uint64_t from = hint.valid && hint.seed == seed ? hint.next : 0;
        pthread_mutex_unlock(&lock);
        long long i = ta_rule_index(msg, seed, from, 4096);
        if (i >= 0) {
            entry *e = &ring[(uint64_t)i % RING];
            int hit = __atomic_load_n(&e->index, __ATOMIC_ACQUIRE) == (uint64_t)i + 1 &&
                      memcmp(e->msg, msg, size) == 0;
            if (hit)
                memcpy(digest, e->digest, 32);
            int still = hit && __atomic_load_n(&e->index, __ATOMIC_ACQUIRE) == (uint64_t)i + 1;
            pthread_mutex_lock(&lock);
            hint.seed = seed;
            hint.size = size;
            hint.next = (uint64_t)i + 1;
            hint.valid = 1;
            pthread_mutex_unlock(&lock);
            if (still)
                return 0;
        }
    }
    return ta_sm3_example(digest_len_bits, msg, msg_len_bits, digest);
}
