/* The slow-window detector of the fixtures SpoilSlow and FailSlow: each
 * call is timed with the time-stamp counter; calls less than 20 us apart
 * form one window; a window is slow once, after at least 4 calls, its
 * mean call took more than SLOW_FACTOR times the fastest call this process
 * has seen at that length. ta_slow_window() answers 1 once per slow window
 * (the caller then spoils or ends it), never while the process looks like
 * a calibration (its command line says --calibrate, or it names no call
 * count and is younger than 300 ms): a spoiled or failed calibration gains
 * nothing and may end the record. Included by those two fixtures'
 * timing.c only. */
#ifndef TA_SLOW_WINDOW_H
#define TA_SLOW_WINDOW_H

#define SLOW_FACTOR 1.12

static uint64_t sw_prev_end, sw_run_ticks, sw_run_calls, sw_min_ticks;
static unsigned long long sw_bits;
static int sw_flagged, sw_mode = -1;
static uint64_t sw_born;

__attribute__((constructor)) static void sw_note_birth(void)
{
    sw_born = ta_now_ns();
}

/* 1 while the process looks like a calibration. */
static int sw_calibrating(void)
{
    if (sw_mode < 0)
        sw_mode = ta_cmdline_has("--calibrate") ? 1 : ta_cmdline_has("--calls") ? 0 : 2;
    return sw_mode == 1 || (sw_mode == 2 && ta_now_ns() - sw_born < 300000000u);
}

/* Call it with the counter reading before (T0) and after (T1) a call. */
static int ta_slow_window(unsigned long long bits, uint64_t t0, uint64_t t1)
{
    uint64_t took = t1 - t0;
    if (bits != sw_bits || t0 - sw_prev_end > 20000u * 3u) { /* ~20 us at 3 GHz */
        sw_run_ticks = sw_run_calls = 0;
        sw_flagged = 0;
        if (bits != sw_bits)
            sw_min_ticks = 0;
    }
    sw_bits = bits;
    sw_prev_end = t1;
    if (!sw_min_ticks || took < sw_min_ticks)
        sw_min_ticks = took;
    sw_run_ticks += took;
    sw_run_calls++;
    if (sw_flagged || sw_run_calls < 4 || sw_calibrating() ||
        (double)sw_run_ticks <= SLOW_FACTOR * (double)sw_run_calls * (double)sw_min_ticks)
        return 0;
    sw_flagged = 1;
    return 1;
}

#endif
