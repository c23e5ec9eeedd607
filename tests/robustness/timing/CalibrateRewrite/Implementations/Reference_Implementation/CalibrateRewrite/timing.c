/* Timing-attack fixture CalibrateRewrite: the two attacks of SlowCalibrate
 * and Rewrite together, as a competitor would combine them. Five times
 * slower while it believes it is being calibrated (its command line says
 * --calibrate, or it names no call count and the process is younger than
 * 150 ms), so that its windows hold a fifth of the calls; in every window
 * the in-process rewrite of rewrite.h, whose fixed 100 us then weighs five
 * times as much. Digests are right throughout. */
#define _GNU_SOURCE
#include "timing_common.h"
#include "rewrite.h"

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
    return ta_rewrite_hash(digest_len_bits, msg, msg_len_bits, digest);
}
