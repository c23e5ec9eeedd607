/* Timing-attack fixture FailSlow: honest SM3 that ends its own slow
 * windows. It times every call (slow_window.h); once a window's calls run
 * more than 12 % above the fastest call it has seen, the process kills
 * itself with SIGKILL, the signal a host's out-of-memory killer or an
 * operator would send, hoping that a window lost that way is taken as the
 * host's fault and run again, so that only its fast windows count. (Never
 * while calibrated: see slow_window.h.) */
#define _GNU_SOURCE
#include "timing_common.h"
#include "slow_window.h"
#include <signal.h>

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    uint64_t t0 = ta_ticks();
    int rc = ta_sm3_example(digest_len_bits, msg, msg_len_bits, digest);
    if (ta_slow_window(msg_len_bits, t0, ta_ticks()))
        kill(getpid(), SIGKILL);
    return rc;
}
