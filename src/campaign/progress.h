/* Progress display for long campaigns: implements the hb_progress_fn of
 * common/progress.h. On a terminal it keeps one line updated in place with
 * the step, done/total and an estimate of the time left; otherwise it prints
 * a plain line whenever a unit finishes, so logs and batch-system output stay
 * readable. The caller owns the campaign_progress (usually on its stack). */
#ifndef HB_CAMPAIGN_PROGRESS_H
#define HB_CAMPAIGN_PROGRESS_H

#include <stdio.h>

typedef struct campaign_progress {
    FILE *fp;
    int tty;              /* 1: update one line in place */
    char phase[32];       /* first word of the step ("build", "kat", ...) */
    double phase_start_s; /* monotonic seconds when the phase began */
    int phase_done0;      /* DONE when the phase began (resumed work) */
    int last_done;        /* last DONE printed (plain mode) */
    int line_open;        /* a terminal line is showing */
} campaign_progress;

/* Prepares P for FP; TTY -1 means detect with isatty. */
void campaign_progress_init(campaign_progress *p, FILE *fp, int tty);

/* The hb_progress_fn: CTX is a campaign_progress. A NULL STEP ends the
 * terminal line, so that a message printed next starts on a line of its
 * own (the campaign does this before each of its log lines). */
void campaign_progress_fn(void *ctx, const char *step, int done, int total);

/* Ends the terminal line, if one is showing. */
void campaign_progress_end(campaign_progress *p);

/* The seconds left for a phase that has run ELAPSED seconds, finished
 * FINISHED units and has REMAINING units not finished, RUNNING of them
 * under way side by side (a stage that runs several units at once names
 * them all in its step, separated by ", "). With several under way each
 * counts as half done, so the pace is right from the first finished unit
 * on, not only once the first round of units has finished; -1 while
 * nothing has finished. */
double campaign_eta_s(double elapsed, int finished, int running, int remaining);

/* Formats an estimate of SECONDS as "45 s", "3 min 20 s" or "2 h 05 min"
 * into BUF (at least 32 bytes); returns BUF. */
const char *campaign_format_eta(double seconds, char *buf, size_t bufsz);

#endif
