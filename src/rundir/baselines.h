/* hashbench's built-in baselines, as one const table read by every part
 * that names one: the build (which copies each library into the run),
 * the measure stage (which finds the primary's library beside the probe),
 * the command line and the pages (which name the primary and the fixed
 * pair of different codes whose ratio tells the host's ratio drift). Each
 * is OpenSSL behind the official interface (src/baseline/), built by CMake
 * beside hashbench. The first row is the primary: the competition's
 * reference, the one the pages and the paired ratio use.
 *
 * To add one: a src/baseline/hb_baseline_<x>.c, its CMake target, and a
 * row here. */
#ifndef HB_RUNDIR_BASELINES_H
#define HB_RUNDIR_BASELINES_H

#include <stddef.h>

typedef struct hb_baseline {
    const char *instance;  /* its instance name under candidate "baseline" */
    const char *algorithm; /* the standard function it computes */
    const char *file;      /* its library, beside hashbench */
    int digest_bits;
    int primary;           /* 1: the primary (the first row) */
} hb_baseline;

extern const hb_baseline hb_baselines[];
extern const size_t hb_n_baselines;

/* The primary baseline (the first row). */
const hb_baseline *hb_baseline_primary(void);

/* The second row: the other code of the fixed pair timed side by side in
 * every group (report/ratiodrift.h). */
const hb_baseline *hb_baseline_second(void);

#endif
