/* Progress display (see progress.h). The time left is estimated per phase
 * from the units finished since the phase began in this process, so work a
 * resumed campaign found already done does not make the estimate optimistic. */
#include "campaign/progress.h"
#include "common/progress.h"

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
    double left = campaign_eta_s(hb_mono_s() - p->phase_start_s, done - p->phase_done0,
                                 units_in_step(step), total - done);
    buf[0] = '\0';
    if (left < 0)
        return;
    char eta[32];
    campaign_format_eta(left, eta, sizeof eta);
    snprintf(buf, bufsz, ", time left ~%s", eta);
}

void campaign_progress_fn(void *ctx, const char *step, int done, int total)
{
    campaign_progress *p = ctx;
    char eta[64];
    if (!p || !p->fp)
        return;
    if (!step) { /* another message follows: end the terminal line first */
        campaign_progress_end(p);
        return;
    }
    track_phase(p, step, done);
    eta_text(p, step, done, total, eta, sizeof eta);
    if (p->tty) {
        fprintf(p->fp, "\r\033[K%s: %d/%d%s", step, hb_progress_shown(done, total), total,
                eta);
        p->line_open = 1;
    } else {
        if (done == p->last_done)
            return;
        fprintf(p->fp, "%s: %d/%d%s\n", step, hb_progress_shown(done, total), total, eta);
        p->last_done = done;
    }
    fflush(p->fp);
}

void campaign_progress_end(campaign_progress *p)
{
    if (p && p->tty && p->line_open) {
        fputc('\n', p->fp);
        fflush(p->fp);
        p->line_open = 0;
    }
}
