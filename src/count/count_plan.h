/* The fixed plan of the instruction-count stage, shared by hashbench
 * (count/count.c) and its driver hashbench-count (count/countdriver_main.c,
 * which links libc and libdl only, hence a header of constants): the call
 * counts of the differential method, the limits the driver accepts, and the
 * width in which call counts are written on its command line (every run of
 * one instance gets a command line of the same length, so that the
 * driver's own start-up executes the same instructions in each). */
#ifndef HB_COUNT_COUNT_PLAN_H
#define HB_COUNT_COUNT_PLAN_H

#define COUNT_N1 1                 /* calls per size in every run */
#define COUNT_N2 3                 /* calls of the counted size */
#define COUNT_MAX_SIZES 16         /* sizes of one driver run */
#define COUNT_MAX_BYTES (1u << 20) /* longest counted message */
#define COUNT_MAX_DIGEST_BYTES 1024
#define COUNT_CALLS_WIDTH 4        /* "%04u" */

#endif
