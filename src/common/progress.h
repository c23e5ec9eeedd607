/* The progress callback every long stage accepts in its options: the campaign
 * layer turns it into one updating terminal line (or plain lines when not on
 * a terminal). STEP is a short label ("kat SHA2/SHA512"), DONE of TOTAL units
 * are finished. A NULL callback means silence. */
#ifndef HB_COMMON_PROGRESS_H
#define HB_COMMON_PROGRESS_H

typedef void (*hb_progress_fn)(void *ctx, const char *step, int done, int total);

/* The known work of a stage whose units differ in size (the KAT stage: an
 * instance with KAT_Loop does 140 times the work of one without), for the
 * time-left estimate: DONE of TOTAL (any unit; a unit under way counts
 * half) in the phase named PHASE (the first word of its steps). Called
 * before the progress callback it goes with; NULL means none. */
typedef void (*hb_work_fn)(void *ctx, const char *phase, double done, double total);

/* The count a progress line shows: the ordinal of the unit under way (1 for
 * the first) while DONE < TOTAL, and TOTAL once all are done, so that every
 * stage counts from 1. */
static inline int hb_progress_shown(int done, int total)
{
    return done < total ? done + 1 : done;
}

#endif
