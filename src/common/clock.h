/* The monotonic clock in seconds, as a double: the one clock of every
 * deadline, timeout and elapsed time hashbench keeps for itself (not the
 * measured figures, which come from the probe's counter). Header-only, libc
 * only. */
#ifndef HB_COMMON_CLOCK_H
#define HB_COMMON_CLOCK_H

#include <time.h>

static inline double hb_mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif
