/* The built-in baselines' table: see baselines.h. */
#include "rundir/baselines.h"


const hb_baseline hb_baselines[] = {
    {"OpenSSL_SM3", "SM3", "libhb_baseline_sm3.so", 256, 1},
    {"OpenSSL_SHA256", "SHA-256", "libhb_baseline_sha256.so", 256, 0},
};
const size_t hb_n_baselines = sizeof hb_baselines / sizeof hb_baselines[0];

const hb_baseline *hb_baseline_primary(void)
{
    return &hb_baselines[0];
}

const hb_baseline *hb_baseline_second(void)
{
    return &hb_baselines[1];
}
