/* The plan of the instruction-count stage, shared by hashbench
 * (count/count.c) and its driver hashbench-count (count/countdriver_main.c,
 * which links libc and libdl only, hence a header of constants): how many
 * calls each length gets, the lengths of the curve, the limits the driver
 * accepts, and the spread that is flagged. The driver never sees the plan:
 * hashbench sends it one call at a time ("hash BYTES SEED16"), each with a
 * seed of its own. */
#ifndef HB_COUNT_COUNT_PLAN_H
#define HB_COUNT_COUNT_PLAN_H

#define COUNT_CALLS_SIZE 9         /* calls at each size of the stage */
#define COUNT_CALLS_CURVE 3        /* calls at each length of the curve */
#define COUNT_CURVE_FINE 512       /* every length 0..512 */
#define COUNT_CURVE_STEP 64        /* then every 64 bytes ... */
#define COUNT_CURVE_MAX 4096       /* ... up to 4096 */
#define COUNT_CURVE_POINTS (COUNT_CURVE_FINE + 1 + \
                            (COUNT_CURVE_MAX - COUNT_CURVE_FINE) / COUNT_CURVE_STEP)
#define COUNT_MAX_SIZES 16         /* sizes of the stage */
#define COUNT_MAX_ENTRIES 1024     /* entries of one driver run */
#define COUNT_MAX_CALLS 64         /* calls of one entry */
#define COUNT_EMPTY_WINDOWS 3      /* empty windows first: the window's own cost */
#define COUNT_MAX_BYTES (1u << 20) /* longest counted message */
#define COUNT_MAX_DIGEST_BYTES 1024
#define COUNT_SPREAD_LIMIT 0.001   /* (max - min) / median above this: flagged */

#endif
