/* Timing-attack fixture SlowCalibrate: five times slower while it thinks it
 * is being calibrated, honest SM3 otherwise. A calibration is:
 *  - a process whose command line says so (--calibrate), or
 *  - the first 150 ms of a process whose command line names no call count
 *    (a long-lived session that calibrates before its timed windows).
 * A planner that sizes its windows from a slow calibration gives it windows
 * of a fifth of the calls: the fixed costs of a window (the exchange, the
 * allowance of any outside rule, a counter's resolution) then weigh five
 * times as much, which is what a rewritten or shaved figure hides in. The
 * fixture only takes the short windows; it gains only if the figure of a
 * short window is biased. */
#define _GNU_SOURCE
#include "timing_common.h"

static uint64_t born;
static int calibrating = -1;

__attribute__((constructor)) static void note_birth(void)
{
    born = ta_now_ns();
}

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    if (calibrating < 0)
        calibrating = ta_cmdline_has("--calibrate") ? 1 : ta_cmdline_has("--calls") ? 0 : 2;
    int slow = calibrating == 1 || (calibrating == 2 && ta_now_ns() - born < 150000000u);
    for (int i = 0; slow && i < 4; i++)
        ta_sm3_example(digest_len_bits, msg, msg_len_bits, digest);
    return ta_sm3_example(digest_len_bits, msg, msg_len_bits, digest);
}
