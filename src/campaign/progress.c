/* Progress display (see progress.h). The time left is estimated per phase
 * from the units finished since the phase began in this process, so work a
 * resumed campaign found already done does not make the estimate optimistic.
 * The heartbeat is one thread that wakes every second (or at its interval,
 * when shorter) and shows the last step again when nothing was shown for
 * the interval; every field it reads is under the display's lock. */
#include "campaign/progress.h"
#include "common/progress.h"

#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "common/clock.h"

void campaign_progress_init(campaign_progress *p, FILE *fp, int tty)
{
    memset(p, 0, sizeof *p);
    p->fp = fp;
    p->tty = tty >= 0 ? tty : isatty(fileno(fp));
    p->last_done = -1;
    pthread_mutex_init(&p->lock, NULL);
}

const char *campaign_format_duration(double seconds, char *buf, size_t bufsz)
{
    if (seconds < 0)
        seconds = 0;
    if (seconds < 59.95)
        snprintf(buf, bufsz, "%.1f s", seconds);
    else
        campaign_format_eta(seconds, buf, bufsz);
    return buf;
}

const char *campaign_format_eta(double seconds, char *buf, size_t bufsz)
{
    long s = seconds < 0 ? 0 : (long)(seconds + 0.5);
    if (s < 60)
        snprintf(buf, bufsz, "%ld s", s);
    else if (s < 3600)
        snprintf(buf, bufsz, "%ld min %02ld s", s / 60, s % 60);
    else
        snprintf(buf, bufsz, "%ld h %02ld min", s / 3600, (s % 3600) / 60);
    return buf;
}

/* Starts a new phase when the step's first word changes. */
static void track_phase(campaign_progress *p, const char *step, int done)
{
    size_t len = strcspn(step, " ");
    if (len >= sizeof p->phase)
        len = sizeof p->phase - 1;
    if (strncmp(p->phase, step, len) == 0 && p->phase[len] == '\0')
        return;
    memcpy(p->phase, step, len);
    p->phase[len] = '\0';
    p->phase_start_s = hb_mono_s();
    p->phase_done0 = done;
    p->last_done = -1;
}

double campaign_eta_s(double elapsed, int finished, int running, int remaining)
{
    if (finished <= 0 || elapsed <= 0 || remaining <= 0)
        return -1;
    double half = running > 1 ? running / 2.0 : 0; /* the units under way */
    return elapsed / (finished + half) * (remaining - half);
}

/* The units a step names: "kat A/a, B/b" is two under way. */
static int units_in_step(const char *step)
{
    int n = 1;
    for (const char *p = strstr(step, ", "); p; p = strstr(p + 2, ", "))
        n++;
    return n;
}

/* "time left 3 min 20 s", or "" while there is nothing to go on. */
static void eta_text(const campaign_progress *p, const char *step, int done, int total,
                     char *buf, size_t bufsz)
{
    double elapsed = hb_mono_s() - p->phase_start_s;
    double left = campaign_eta_s(elapsed, done - p->phase_done0, units_in_step(step),
                                 total - done);
    /* units of different sizes: the pace of the known work, once some is done */
    if (p->work_total > 0 && strcmp(p->work_phase, p->phase) == 0 && done > p->phase_done0)
        left = p->work_done > 0 ? elapsed / p->work_done * (p->work_total - p->work_done)
                                : -1;
    buf[0] = '\0';
    if (left < 0)
        return;
    char eta[32];
    campaign_format_eta(left, eta, sizeof eta);
    snprintf(buf, bufsz, ", time left ~%s", eta);
}

/* Shows STEP (the lock held); HEARTBEAT adds how long its stage has run. */
static void show(campaign_progress *p, const char *step, int done, int total, int heartbeat)
{
    char eta[64], ran[96] = "";
    eta_text(p, step, done, total, eta, sizeof eta);
    if (heartbeat) {
        char d[32];
        snprintf(ran, sizeof ran, ", still under way, %s running for %s", p->phase,
                 campaign_format_duration(hb_mono_s() - p->phase_start_s, d, sizeof d));
    }
    if (p->tty) {
        fprintf(p->fp, "\r\033[K%s: %d/%d%s%s", step, hb_progress_shown(done, total), total,
                eta, ran);
        p->line_open = 1;
    } else {
        fprintf(p->fp, "%s: %d/%d%s%s\n", step, hb_progress_shown(done, total), total, eta,
                ran);
        p->last_done = done;
    }
    fflush(p->fp);
    p->shown_s = hb_mono_s();
}

/* Ends the terminal line (the lock held). */
static void end_line(campaign_progress *p)
{
    if (p->tty && p->line_open) {
        fputc('\n', p->fp);
        fflush(p->fp);
        p->line_open = 0;
    }
}

void campaign_progress_fn(void *ctx, const char *step, int done, int total)
{
    campaign_progress *p = ctx;
    if (!p || !p->fp)
        return;
    pthread_mutex_lock(&p->lock);
    if (!step) { /* another message follows: end the terminal line first */
        end_line(p);
        p->shown_s = hb_mono_s();
        pthread_mutex_unlock(&p->lock);
        return;
    }
    track_phase(p, step, done);
    snprintf(p->step, sizeof p->step, "%s", step);
    p->done = done;
    p->total = total;
    if (p->tty || done != p->last_done)
        show(p, step, done, total, 0);
    pthread_mutex_unlock(&p->lock);
}

void campaign_progress_work(void *ctx, const char *phase, double done, double total)
{
    campaign_progress *p = ctx;
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    snprintf(p->work_phase, sizeof p->work_phase, "%s", phase);
    p->work_done = done;
    p->work_total = total;
    pthread_mutex_unlock(&p->lock);
}

void campaign_progress_end(campaign_progress *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    end_line(p);
    pthread_mutex_unlock(&p->lock);
}

static void *heartbeat_main(void *arg)
{
    campaign_progress *p = arg;
    pthread_mutex_lock(&p->lock);
    while (!p->stop) {
        double wait = p->beat_s < 1.0 ? p->beat_s / 2 : 1.0;
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        long long ns = until.tv_nsec + (long long)(wait * 1e9);
        until.tv_sec += (time_t)(ns / 1000000000LL);
        until.tv_nsec = (long)(ns % 1000000000LL);
        pthread_cond_timedwait(&p->wake, &p->lock, &until);
        if (!p->stop && p->step[0] && p->done < p->total &&
            hb_mono_s() - p->shown_s >= p->beat_s)
            show(p, p->step, p->done, p->total, 1);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

int campaign_progress_heartbeat(campaign_progress *p, double seconds)
{
    pthread_condattr_t ca;
    if (p->beating || seconds <= 0 || !p->fp)
        return -1;
    p->beat_s = seconds;
    p->stop = 0;
    p->shown_s = hb_mono_s();
    if (pthread_condattr_init(&ca) != 0)
        return -1;
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    int rc = pthread_cond_init(&p->wake, &ca);
    pthread_condattr_destroy(&ca);
    if (rc != 0)
        return -1;
    /* the thread takes no signal: SIGINT, SIGCHLD and the rest stay with
     * the threads that handle them */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(&p->beat, NULL, heartbeat_main, p);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        pthread_cond_destroy(&p->wake);
        return -1;
    }
    p->beating = 1;
    return 0;
}

void campaign_progress_stop(campaign_progress *p)
{
    if (!p)
        return;
    if (p->beating) {
        pthread_mutex_lock(&p->lock);
        p->stop = 1;
        pthread_cond_signal(&p->wake);
        pthread_mutex_unlock(&p->lock);
        pthread_join(p->beat, NULL);
        pthread_cond_destroy(&p->wake);
        p->beating = 0;
    }
    campaign_progress_end(p);
}
