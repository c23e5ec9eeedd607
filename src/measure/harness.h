/* The harness cost of a trial window: what a window holds besides the
 * hash. A window (windows.h) hands the probe fresh messages, chains every
 * message to the previous call's digest (probe/chain.h: eight bytes of
 * every 64-byte block, so every cache line of the message is touched) and
 * loops over the calls; a fast hash pays that beside its own work. At
 * every size the measure stage times HARNESS_WINDOWS windows of
 * hashbench's null library (src/baseline/hb_null.c: it returns at once)
 * holding as many messages as the primary baseline's windows, each on
 * fresh messages after an untimed warm-up as every window is, and takes
 * the median per call, the exchange taken off, as that size's harness
 * cost. It is hashbench's own code in its own session, so no submitted
 * library has anything to steer in it.
 *
 * It is shown beside each figure ("of which harness ≈ X"), not taken out
 * of it: inside a real window part of that work overlaps the hash's own
 * (the core runs the chaining and the loads beside the rounds, the
 * prefetcher hides part of the footprint), by an amount that differs from
 * one library to the next, so subtracting the null library's whole cost
 * would lower every figure by more than it holds and move the ratios
 * between codes. The records keep it (verification.harness_ns_per_call). */
#ifndef HB_MEASURE_HARNESS_H
#define HB_MEASURE_HARNESS_H

#include <stddef.h>

#include "common/err.h"
#include "measure/session.h"

#define HARNESS_LIBRARY "libhb_null.so" /* beside the probe */
#define HARNESS_WINDOWS 7               /* timed windows per size */

typedef struct harness_rq {
    const session_class *cls;
    session_open_rq open;         /* lib: the null library (absolute path) */
    unsigned char *raw;           /* scratch of calls x size bytes */
    unsigned long long calls;     /* per window */
    double exchange_ns;           /* taken off every window */
} harness_rq;

/* The harness cost per call from N windows: the median of (CPU_NS[i] -
 * EXCHANGE_NS) / CALLS[i] over the windows with calls, never below 0; NaN
 * when no window has calls. */
double harness_per_call(const double *cpu_ns, const unsigned long long *calls, size_t n,
                        double exchange_ns);

/* Opens a session of RQ->open, takes HARNESS_WINDOWS warm-up and timed
 * windows of RQ->calls calls (fresh messages for each timed one) and
 * closes it; *NS_PER_CALL gets harness_per_call of them, or NaN when the
 * session failed (WHY, WHYSZ bytes, says how; may be NULL). Returns 0, or
 * -1 on hashbench's own failure (ERR). */
int harness_measure(const harness_rq *rq, double *ns_per_call, char *why, size_t whysz,
                    hb_err *err);

#endif
