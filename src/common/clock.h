/* hashbench's own clocks. The monotonic clock in seconds, as a double: the
 * one clock of every deadline, timeout and elapsed time hashbench keeps for
 * itself (not the measured figures, which come from the probe's counter);
 * and the UTC wall time that files and pages are stamped with. Header-only,
 * libc only. */
#ifndef HB_COMMON_CLOCK_H
#define HB_COMMON_CLOCK_H

#include <stddef.h>
#include <time.h>

static inline double hb_mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The current UTC time as "YYYY-MM-DDTHH:MM:SSZ" into BUF (BUFSZ bytes,
 * 21 are enough). */
static inline void hb_utc_now(char *buf, size_t bufsz)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, bufsz, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

#endif
