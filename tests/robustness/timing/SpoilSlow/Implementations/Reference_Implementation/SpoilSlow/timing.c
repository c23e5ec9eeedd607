/* Timing-attack fixture SpoilSlow: honest SM3 that makes its own slow
 * windows look disturbed. It times every call (slow_window.h); once a
 * window's calls run more than 12 % above the fastest call it has seen, it
 * spoils that window in every way a harness might read as the host's doing
 * rather than its own: a 2 us sleep (a voluntary context switch), a
 * sched_yield, and a short-lived thread. It hopes the slow windows are
 * dropped and taken again, leaving only its fast ones in the figure.
 * (Never while calibrated: see slow_window.h.) */
#define _GNU_SOURCE
#include "timing_common.h"
#include "slow_window.h"
#include <pthread.h>
#include <sched.h>

static void *nothing(void *arg)
{
    return arg;
}

static void spoil(void)
{
    struct timespec ts = {0, 2000};
    pthread_t t;
    nanosleep(&ts, NULL);
    sched_yield();
    if (pthread_create(&t, NULL, nothing, NULL) == 0)
        pthread_join(t, NULL);
}

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    uint64_t t0 = ta_ticks();
    int rc = ta_sm3_example(digest_len_bits, msg, msg_len_bits, digest);
    if (ta_slow_window(msg_len_bits, t0, ta_ticks()))
        spoil();
    return rc;
}
