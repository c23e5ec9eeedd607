/* Progress display for long campaigns: implements the hb_progress_fn of
 * common/progress.h. On a terminal it keeps one line updated in place with
 * the step, done/total and an estimate of the time left; otherwise it prints
 * a plain line whenever a unit finishes, so logs and batch-system output stay
 * readable. A unit can take minutes (an instance measured at every size), so
 * with a heartbeat started the step under way is shown again, with the time
 * its stage has run, whenever nothing was shown for the heartbeat's
 * interval. The caller owns the campaign_progress (usually on its stack). */
#ifndef HB_CAMPAIGN_PROGRESS_H
#define HB_CAMPAIGN_PROGRESS_H

#include <pthread.h>
#include <stdio.h>

/* The heartbeat interval of `hashbench run`: a long stage shows a line at
 * least this often. */
#define CAMPAIGN_HEARTBEAT_S 10.0

typedef struct campaign_progress {
    FILE *fp;
    int tty;              /* 1: update one line in place */
    char phase[32];       /* first word of the step ("build", "kat", ...) */
    double phase_start_s; /* monotonic seconds when the phase began */
    int phase_done0;      /* DONE when the phase began (resumed work) */
    int last_done;        /* last DONE printed (plain mode) */
    int line_open;        /* a terminal line is showing */
    /* the last step shown, for the heartbeat */
    char step[400];
    int done, total;
    double shown_s;       /* monotonic seconds of the last line */
    char work_phase[32];  /* the phase the known work below is of */
    double work_done, work_total; /* campaign_progress_work's */
    pthread_mutex_t lock;  /* the fields above, against the heartbeat */
    pthread_cond_t wake;
    pthread_t beat;
    int beating;           /* 1: the heartbeat thread runs */
    int stop;
    double beat_s;
} campaign_progress;

/* Prepares P for FP; TTY -1 means detect with isatty. */
void campaign_progress_init(campaign_progress *p, FILE *fp, int tty);

/* Starts P's heartbeat: while a step is under way (DONE < TOTAL), a line
 * "STEP: N/TOTAL, still under way, STAGE running for T" is shown whenever
 * nothing was shown for SECONDS. Returns 0, or -1 when the thread cannot
 * be started (the display then works without it). Signals stay with the
 * other threads. Stop it with campaign_progress_stop before P goes away. */
int campaign_progress_heartbeat(campaign_progress *p, double seconds);

/* Stops the heartbeat (if any) and ends the terminal line. */
void campaign_progress_stop(campaign_progress *p);

/* Formats a duration of SECONDS as "0.4 s", "12.3 s", "3 min 20 s" or
 * "2 h 05 min" into BUF (at least 32 bytes); returns BUF. */
const char *campaign_format_duration(double seconds, char *buf, size_t bufsz);

/* The hb_progress_fn: CTX is a campaign_progress. A NULL STEP ends the
 * terminal line, so that a message printed next starts on a line of its
 * own (the campaign does this before each of its log lines). */
void campaign_progress_fn(void *ctx, const char *step, int done, int total);

/* The hb_work_fn: CTX is a campaign_progress. While its phase is PHASE,
 * the time left is estimated from the known work (DONE of TOTAL) instead
 * of the number of units. */
void campaign_progress_work(void *ctx, const char *phase, double done, double total);

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
