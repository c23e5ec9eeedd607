/* The harness cost of a trial window: see harness.h. */
#include "measure/harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/msggen.h"
#include "measure/stats.h"

double harness_per_call(const double *cpu_ns, const unsigned long long *calls, size_t n,
                        double exchange_ns)
{
    double per[n ? n : 1];
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (calls[i] > 0 && isfinite(cpu_ns[i])) {
            double v = (cpu_ns[i] - exchange_ns) / (double)calls[i];
            per[k++] = v > 0 ? v : 0;
        }
    return k ? stats_median(per, k) : NAN;
}

/* One window of W->calls calls, on fresh messages when FRESH. Returns 0
 * (F->status says whether it went well), -1 on an error. */
static int window(const harness_rq *rq, void *state, int fresh, session_figure *f,
                  hb_err *err)
{
    session_window_rq w = {rq->calls, NULL};
    if (fresh) {
        msggen_key key;
        if (msggen_new_key(&key, err) != 0 ||
            msggen_fill(&key, 0, rq->raw, (size_t)(rq->calls * rq->open.size), err) != 0)
            return -1;
        w.raw = rq->raw;
    }
    return rq->cls->window(state, &w, f, err);
}

int harness_measure(const harness_rq *rq, double *ns_per_call, char *why, size_t whysz,
                    hb_err *err)
{
    *ns_per_call = NAN;
    if (why && whysz)
        why[0] = '\0';
    void *state = calloc(1, rq->cls->state_size);
    if (!state)
        return hb_fail(err, "out of memory for the harness session");
    session_figure f;
    memset(&f, 0, sizeof f);
    int rc = rq->cls->open(state, &rq->open, &f, err);
    if (rc < 0) {
        free(state);
        return -1;
    }
    double cpu[HARNESS_WINDOWS];
    unsigned long long calls[HARNESS_WINDOWS];
    size_t n = 0;
    int ok = rc == 0;
    if (ok && rq->cls->touch) { /* its windows' pages, before they are timed */
        if (rq->cls->touch(state, rq->calls, &f, err) != 0) {
            rq->cls->close(state, NULL);
            free(state);
            return -1;
        }
        ok = f.status == SESSION_OK;
    }
    for (int i = 0; ok && i < HARNESS_WINDOWS; i++) {
        /* an untimed warm-up first, as before every window of a cell */
        for (int fresh = 0; ok && fresh <= 1; fresh++) {
            if (window(rq, state, fresh, &f, err) != 0) {
                rq->cls->close(state, NULL);
                free(state);
                return -1;
            }
            ok = f.status == SESSION_OK;
        }
        if (ok) {
            cpu[n] = (double)f.cpu_ns;
            calls[n++] = rq->calls;
        }
    }
    if (!ok && why && whysz)
        snprintf(why, whysz, "%s", f.failure[0] ? f.failure : "the session failed");
    session_figure closing;
    memset(&closing, 0, sizeof closing);
    rq->cls->close(state, &closing);
    free(state);
    if (ok && closing.status != SESSION_OK) {
        ok = 0;
        if (why && whysz)
            snprintf(why, whysz, "%s", closing.failure);
    }
    if (ok)
        *ns_per_call = harness_per_call(cpu, calls, n, rq->exchange_ns);
    return 0;
}
