/* The built-in baselines' table: see baselines.h. */
#include "rundir/baselines.h"

#include "rundir/rundir.h"

const hb_baseline hb_baselines[] = {
    {RUNDIR_BASELINE_INSTANCE, "SM3", "libhb_baseline_sm3.so", 256, 1},
    {RUNDIR_BASELINE_SECOND_INSTANCE, "SHA-256", "libhb_baseline_sha256.so", 256, 0},
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
