/* The interleaved planner over trial sessions: see windows.h. */
#include "measure/windows.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fs.h"
#include "measure/counter.h"
#include "measure/guard.h"
#include "measure/planners.h"
#include "measure/procview.h"
#include "measure/harness.h"
#include "measure/xcheck.h"
#include "probe/counter_read.h"

#define WINDOWS_MAX_CALLS (1ULL << 18)
#define WINDOWS_CALIB_NS 1.2e6    /* calibration ends at a window this long */
#define WINDOWS_CALIB_STEPS 16
#define WINDOWS_CYCLES_RETRIES 3
#define WINDOWS_MIN_BUDGET_S 0.5 /* left of an instance's budget to open a session */
#define WINDOWS_PASS_SALT 0x70617373u /* the passes' order: a stream of its own */
#define WINDOWS_JITTER_MAX 1.25   /* a timed window's length: 0.8 to this, times its target */
#define WINDOWS_TOUCH_MARGIN 2.0  /* the calls a session makes resident (touch_cell):
                                     its longest window at calibration's cost, times this */

/* One cell's state while its size is measured. */
typedef struct wcell {
    ilv_cell *c;
    size_t index;
    void *state;             /* the session's */
    int open;                /* a session to close */
    int dead;                /* failed: no more windows */
    double calib_ns;         /* per call, from calibration */
    double est_ns;           /* per call: the median of its windows so far */
    double *seen;            /* per-call cost of each timed window */
    size_t n_seen;
    windows_sample *samples;
    size_t n_samples, cap_samples;
    unsigned long long warm_calls;
    unsigned long long max_calls;
    int trusted;             /* a built-in baseline: hashbench's own code */
    int group[PLAN_MAX_PAIRS]; /* the local index of each of its baselines
                                  (ilv_cell.baselines order), -1: not here */
    int recalibrated;        /* calibration was taken again once */
    int pairs;               /* its pairs so far */
    unsigned long long calls; /* its timed calls so far */
    double warm_cpu_ns;      /* CPU time of its untimed warm-ups so far ... */
    double warm_expect_ns;   /* ... and what their calls cost at its figure */
    double spent_s;          /* wall time of its windows and its pairs' */
    int stopped;             /* PLAN_STOP_* once it takes no more pairs */
    double session_s;        /* wall time of its session: open, every window */
    double deadline;         /* CLOCK_MONOTONIC when its instance's budget ends */
    int rss_open_known;      /* 1: the two below were read at its open */
    long long rss_open_kb;   /* resident once open (session.h) */
    long long rss_preload_kb; /* before the library was loaded; -1: unknown */
} wcell;

typedef struct wsize {
    const plan_settings *s;
    const windows_opts *o;
    const session_class *cls;
    unsigned long long size;
    double exchange_ns;
    long long exchange_waits; /* an empty window's voluntary switches; -1: not yet */
    char exchange_by[64];
    unsigned char *raw;      /* the window's messages */
    double budget_s;         /* a cell's wall time, its baseline windows included */
    size_t per_window;       /* samples per timed window */
    int *round;              /* the stage's round counter */
    double harness_ns;       /* per call: the null library's windows
                                (harness.h); NaN: not measured */
} wsize;

#define WINDOWS_OVERHEAD_S 1e-3 /* per window: messages, stop, continue */
#define WINDOWS_OPEN_S 0.1      /* a session's start and checks */

double windows_cell_cost_s(int pairs, double t1_ns)
{
    double window = WINDOWS_MIN_NS * 1e-9, calls = WINDOWS_MIN_CALLS * t1_ns * 1e-9;
    if (calls > window)
        window = calls;
    double side = WINDOWS_WARMUP_NS * 1e-9 + window + 2 * WINDOWS_OVERHEAD_S;
    double windows = 1.0 + WINDOWS_COST_BASELINES;
    return windows * (pairs < 2 ? 2 : pairs) * side + windows * WINDOWS_OPEN_S;
}

static void random_fill(void *p, size_t n)
{
    unsigned char *b = p;
    while (n) {
        ssize_t r = getrandom(b, n, 0);
        if (r > 0) {
            b += r;
            n -= (size_t)r;
        }
    }
}

static void fail_cell(wcell *w, int status, const char *failure)
{
    if (w->dead)
        return;
    w->dead = 1;
    w->c->out.ok = 0;
    w->c->out.inconsistent = status == SESSION_INCONSISTENT;
    w->c->out.stopped = PLAN_STOP_FAILURE;
    size_t n = strlen(failure);
    if (n >= sizeof w->c->out.failure)
        n = sizeof w->c->out.failure - 1;
    memcpy(w->c->out.failure, failure, n);
    w->c->out.failure[n] = '\0';
}

static double median_of(const double *x, size_t n)
{
    double *c = malloc(n * sizeof *c);
    if (!c || n == 0) {
        free(c);
        return n ? x[0] : 0;
    }
    memcpy(c, x, n * sizeof *c);
    for (size_t i = 1; i < n; i++) /* n is at most a few hundred */
        for (size_t k = i; k > 0 && c[k - 1] > c[k]; k--) {
            double t = c[k];
            c[k] = c[k - 1];
            c[k - 1] = t;
        }
    double m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
    free(c);
    return m;
}

/* W's instance has spent its wall budget: TIMEOUT, with the line that
 * names the budget. */
static void budget_spent(wsize *z, wcell *w)
{
    char why[600];
    guard_text(why, sizeof why, GUARD_BUDGET, "%s", "");
    if (z->o->budget_reason) {
        char r[560];
        z->o->budget_reason(z->o->budget_ctx, w->index, r, sizeof r);
        snprintf(why, sizeof why, "TIMEOUT: %s", r); /* it starts with the rule's lead */
    }
    fail_cell(w, SESSION_TIMEOUT, why);
}

/* The calls of the longest window at SIZE bytes, which its session's
 * message region is made for. */
static unsigned long long longest_window(unsigned long long size)
{
    unsigned long long calls = WINDOWS_MAX_BYTES / size;
    if (calls > WINDOWS_MAX_CALLS)
        calls = WINDOWS_MAX_CALLS;
    return calls < WINDOWS_MIN_CALLS ? WINDOWS_MIN_CALLS : calls;
}

static int open_cell(wsize *z, wcell *w, hb_err *err)
{
    char rel[PATH_MAX], lib[PATH_MAX];
    const trial_request *t = &w->c->tmpl;
    if (hb_path_join(rel, sizeof rel, t->run_dir, t->lib, err) != 0)
        return -1;
    if (!realpath(rel, lib))
        snprintf(lib, sizeof lib, "%s", rel); /* the probe says LOADFAIL */
    w->max_calls = longest_window(z->size);
    double left = HUGE_VAL, timeout = z->o->timeout_s;
    if (z->o->budget_left && z->o->budget_left(z->o->budget_ctx, w->index, &left, err) != 0)
        return -1;
    w->deadline = hb_mono_s() + left;
    if (left < timeout)
        timeout = left;
    session_open_rq rq = {z->o->probe_path, lib, z->size, t->digest_bits, t->cpu,
                          counter_arch_kind(), t->counter == COUNTER_PERF_CYCLES,
                          w->max_calls, timeout, !t->emulated, w->c->trusted};
    if (left < WINDOWS_MIN_BUDGET_S) {
        budget_spent(z, w);
        return 0;
    }
    w->state = calloc(1, z->cls->state_size);
    if (!w->state)
        return hb_fail(err, "out of memory for a session");
    session_figure f;
    double t0 = hb_mono_s();
    int rc = z->cls->open(w->state, &rq, &f, err);
    w->session_s += hb_mono_s() - t0;
    if (rc < 0) {
        free(w->state);
        w->state = NULL;
        return -1;
    }
    w->open = 1;
    if (rc == 1)
        fail_cell(w, f.status, f.failure);
    else if (f.rss_known) {
        w->rss_open_known = 1;
        w->rss_open_kb = f.rss_kb;
        w->rss_preload_kb = f.rss_preload_kb;
    }
    return 0;
}

/* One window of CALLS calls on W's session: fresh messages under a new
 * KEY when KEY is not NULL (else a warm-up on what the region holds).
 * Returns 0 with F filled (a failure ends the cell), -1 on an error. */
static int window(wsize *z, wcell *w, unsigned long long calls, msggen_key *key,
                  session_figure *f, hb_err *err)
{
    session_window_rq rq = {calls, NULL};
    if (key) {
        if (msggen_new_key(key, err) != 0 ||
            msggen_fill(key, 0, z->raw, (size_t)(calls * z->size), err) != 0)
            return -1;
        rq.raw = z->raw;
    }
    double t0 = hb_mono_s();
    if (z->cls->window(w->state, &rq, f, err) != 0)
        return -1;
    w->session_s += hb_mono_s() - t0;
    if (f->status == SESSION_TIMEOUT && hb_mono_s() >= w->deadline) {
        budget_spent(z, w);
        return 0;
    }
    char why[300];
    if (f->status == SESSION_OK && guard_gained_cpu(f->gained_ns, why, sizeof why)) {
        fail_cell(w, SESSION_INCONSISTENT, why);
        return 0;
    }
    if (f->status != SESSION_OK) {
        fail_cell(w, f->status, f->failure);
        return 0;
    }
    /* a hash does not sleep or wait: CPU time would leave the wait out, so
     * a library that waits in its windows gets no figure */
    if (guard_waits(f->waits, z->exchange_waits, calls, why, sizeof why))
        fail_cell(w, SESSION_FAILED, why);
    return 0;
}

/* The window's figure in ns, the exchange taken off (at least 1 ns). */
static double net_ns(const wsize *z, const session_figure *f)
{
    double v = (double)f->cpu_ns - z->exchange_ns;
    return v > 1 ? v : 1;
}

/* The exchange on the trusted session W: the median CPU time of windows
 * without a call. */
static int measure_exchange(wsize *z, wcell *w, hb_err *err)
{
    double x[WINDOWS_EXCHANGE_WINDOWS], v[WINDOWS_EXCHANGE_WINDOWS];
    size_t n = 0, nv = 0;
    z->exchange_waits = -1;
    for (int i = 0; i < WINDOWS_EXCHANGE_WINDOWS && !w->dead; i++) {
        session_figure f;
        if (window(z, w, 0, NULL, &f, err) != 0)
            return -1;
        if (!w->dead)
            x[n++] = (double)f.cpu_ns;
        if (!w->dead && f.waits >= 0)
            v[nv++] = (double)f.waits;
    }
    z->exchange_ns = n ? median_of(x, n) : 0;
    z->exchange_waits = nv ? (long long)ceil(median_of(v, nv)) : -1;
    return 0;
}

static unsigned long long clamp_calls(const wcell *w, double calls, unsigned long long lo)
{
    if (!(calls >= (double)lo))
        return lo;
    if (calls >= (double)w->max_calls)
        return w->max_calls;
    return (unsigned long long)ceil(calls);
}

/* Windows of growing length, each on fresh messages, until one lasts
 * WINDOWS_CALIB_NS: its per-call cost is the calibration. */
static int calibrate(wsize *z, wcell *w, hb_err *err)
{
    unsigned long long calls = 1;
    for (int step = 0; step < WINDOWS_CALIB_STEPS && !w->dead; step++) {
        session_figure f;
        msggen_key key;
        if (window(z, w, calls, &key, &f, err) != 0)
            return -1;
        if (w->dead)
            return 0;
        double per = net_ns(z, &f) / (double)calls;
        w->calib_ns = w->est_ns = per;
        w->c->out.calib_calls = calls;
        w->c->out.calib_ns_per_call = per;
        if ((double)f.cpu_ns >= WINDOWS_CALIB_NS || calls == w->max_calls)
            break;
        double next = WINDOWS_CALIB_NS * 1.25 / per;
        calls = clamp_calls(w, next > 4.0 * (double)calls ? 4.0 * (double)calls : next, 1);
    }
    return 0;
}

/* Has W's session make resident what its windows will use: the calls of
 * its longest timed window (the target length at the longest jitter) at
 * calibration's cost, WINDOWS_TOUCH_MARGIN times over; W's windows are
 * held to that from then on (a host that speeds up by more only makes
 * them shorter). Calibration is then taken again: the first one paid for
 * the pages its windows touched first. */
static int touch_cell(wsize *z, wcell *w, hb_err *err)
{
    if (!z->cls->touch || w->dead || !(w->calib_ns > 0))
        return 0;
    double longest = WINDOWS_MIN_NS;
    if (WINDOWS_EXCHANGE_MULT * z->exchange_ns > longest)
        longest = WINDOWS_EXCHANGE_MULT * z->exchange_ns;
    longest *= WINDOWS_JITTER_MAX * WINDOWS_TOUCH_MARGIN;
    unsigned long long calls = clamp_calls(w, longest / w->calib_ns, WINDOWS_MIN_CALLS);
    session_figure f;
    double t0 = hb_mono_s();
    if (z->cls->touch(w->state, calls, &f, err) != 0)
        return -1;
    w->session_s += hb_mono_s() - t0;
    char why[300];
    if (f.status != SESSION_OK) {
        fail_cell(w, f.status, f.failure);
        return 0;
    }
    if (guard_gained_cpu(f.gained_ns, why, sizeof why)) {
        fail_cell(w, SESSION_INCONSISTENT, why);
        return 0;
    }
    w->max_calls = calls;
    return calibrate(z, w, err);
}

/* Keeps Z->per_window calls of the window just taken (KEY, CALLS, F's
 * digests) for the independent check, drawn at random. */
static int keep_samples(wsize *z, wcell *w, const msggen_key *key, unsigned long long calls,
                        const session_figure *f, hb_err *err)
{
    size_t d = (size_t)w->c->tmpl.digest_bits / 8;
    size_t k = z->per_window < calls ? z->per_window : (size_t)calls;
    if (w->n_samples + k > w->cap_samples) {
        size_t cap = (w->n_samples + k) * 2;
        windows_sample *s = realloc(w->samples, cap * sizeof *s);
        if (!s)
            return hb_fail(err, "out of memory for samples");
        w->samples = s;
        w->cap_samples = cap;
    }
    size_t idx[k ? k : 1];
    if (xcheck_draw((size_t)calls, k, idx, err) < 0) /* distinct, unbiased */
        return -1;
    for (size_t i = 0; i < k; i++) {
        windows_sample *s = &w->samples[w->n_samples];
        s->key = *key;
        s->j = idx[i];
        s->prev = malloc(d);
        s->digest = malloc(d);
        if (!s->prev || !s->digest) {
            free(s->prev);
            free(s->digest);
            return hb_fail(err, "out of memory for samples");
        }
        memset(s->prev, 0, d);
        if (s->j > 0)
            memcpy(s->prev, f->digests + (s->j - 1) * d, d);
        memcpy(s->digest, f->digests + s->j * d, d);
        w->n_samples++;
    }
    return 0;
}

/* A warm-up and a timed window on W; the timed one's figure into T.
 * Returns 0 (W->dead when it failed), -1 on an error. */
static int side(wsize *z, wcell *w, int verify, plan_trial *t, hb_err *err)
{
    session_figure f;
    if (window(z, w, w->warm_calls, NULL, &f, err) != 0 || w->dead)
        return w->dead ? 0 : -1;
    /* the warm-up is untimed: a library that works there (it can tell a
     * warm-up: its messages are the window's before) gets no figure */
    w->warm_cpu_ns += (double)f.cpu_ns;
    w->warm_expect_ns += (double)w->warm_calls * w->est_ns + z->exchange_ns;
    char why[300];
    if (!w->trusted && guard_warmups(w->warm_cpu_ns, w->warm_expect_ns, why, sizeof why)) {
        fail_cell(w, SESSION_INCONSISTENT, why);
        return 0;
    }
    double target = WINDOWS_MIN_NS;
    if (WINDOWS_EXCHANGE_MULT * z->exchange_ns > target)
        target = WINDOWS_EXCHANGE_MULT * z->exchange_ns;
    uint32_t jitter;
    random_fill(&jitter, sizeof jitter);
    /* lengths vary by a factor 0.8 to 1.25, so that a window's length
     * does not tell it apart */
    double scale = 0.8 + (WINDOWS_JITTER_MAX - 0.8) * (double)jitter / 4294967296.0;
    unsigned long long calls = clamp_calls(w, target * scale / w->est_ns, WINDOWS_MIN_CALLS);
    msggen_key key;
    double t0 = hb_mono_s();
    int cycles = w->c->tmpl.counter == COUNTER_PERF_CYCLES;
    /* a cycle count the kernel multiplexed with other events is a scaled
     * guess: the window is taken again (other users of the PMU cause it,
     * not the library, which cannot open a counter) */
    for (int attempt = 0;; attempt++) {
        if (window(z, w, calls, &key, &f, err) != 0)
            return -1;
        if (w->dead || !cycles || f.cycles_known)
            break;
        if (attempt == WINDOWS_CYCLES_RETRIES) {
            guard_text(why, sizeof why, GUARD_CYCLES, "was not running for a whole "
                       "window in %d attempts (another user of the PMU?)",
                       WINDOWS_CYCLES_RETRIES + 1);
            fail_cell(w, SESSION_FAILED, why);
            break;
        }
    }
    if (w->dead)
        return 0;
    if (guard_pinned_cpu(f.cpu, w->c->tmpl.cpu, why, sizeof why)) {
        fail_cell(w, SESSION_INCONSISTENT, why);
        return 0;
    }
    /* its samples first: F's digests are the session's buffer, which a
     * calibration taken again below would overwrite */
    if (verify && keep_samples(z, w, &key, calls, &f, err) != 0)
        return -1;
    double net = net_ns(z, &f), per = net / (double)calls;
    /* far cheaper than calibration said: calibration is taken again once
     * (the host's speed moves); a second time the library is slow only
     * while it is calibrated. Dearer windows only cost their library. */
    int calib = w->trusted ? 0 : guard_calibration(per, w->calib_ns, w->recalibrated, why,
                                                     sizeof why);
    if (calib == 2) {
        fail_cell(w, SESSION_INCONSISTENT, why);
        return 0;
    }
    if (calib == 1) {
        w->recalibrated = 1;
        if (calibrate(z, w, err) != 0)
            return -1;
        if (w->dead)
            return 0;
    }
    memset(t, 0, sizeof *t);
    trial_result *r = &t->r;
    r->ok = 1;
    r->session = 1;
    r->calls = calls;
    r->ns = (unsigned long long)llround(net);
    r->ticks = f.cycles_known ? f.cycles
                              : (unsigned long long)llround(net * z->o->rate_hz / 1e9);
    r->cycles_known = f.cycles_known;
    r->window_cpu_ns = f.cpu_ns;
    r->window_wall_ns = f.wall_ns;
    r->inside_ticks = f.inside_ticks;
    r->inside_ns = f.inside_ns;
    r->pid = f.pid;
    r->cpu = f.cpu;
    r->rss_baseline_kb = r->rss_peak_kb = -1;
    r->stack_peak_bytes = r->heap_peak_bytes = r->heap_allocs = -1;
    msggen_key_hex(&key, r->key);
    t->rate_hz = r->ns ? (double)r->ticks * 1e9 / (double)r->ns : 0;
    t->t_s = t0 - (z->s->stage_start > 0 ? z->s->stage_start : t0);
    t->round = t->slot = -1;
    double *seen = realloc(w->seen, (w->n_seen + 1) * sizeof *seen);
    if (!seen)
        return hb_fail(err, "out of memory");
    w->seen = seen;
    w->seen[w->n_seen++] = per;
    w->est_ns = median_of(w->seen, w->n_seen);
    w->calls += calls;
    return 0;
}

static int append_trial(wcell *w, const plan_trial *t, hb_err *err)
{
    plan_outcome *o = &w->c->out;
    plan_trial *n = realloc(o->trials, (o->n_trials + 1) * sizeof *n);
    if (!n)
        return hb_fail(err, "out of memory for trials");
    o->trials = n;
    o->trials[o->n_trials++] = *t;
    return 0;
}

/* Why cell W takes no more pairs (PLAN_STOP_*), or PLAN_STOP_NONE: its
 * PAIRS pairs and the guide's 100 calls, else its budget (an explicit one
 * after 2 pairs; the automatic one once the 100 calls are there too), else
 * the hard cap on a cell's time. */
static int stop_reason(wsize *z, wcell *w, int pairs)
{
    if (hb_mono_s() >= w->deadline) {
        budget_spent(z, w);
        return PLAN_STOP_FAILURE;
    }
    int floor = w->calls >= PLAN_MIN_CALLS;
    if (w->pairs >= pairs && floor)
        return PLAN_STOP_TRIALS;
    if (w->pairs >= 2 && w->spent_s >= z->budget_s && (floor || z->s->budget_explicit))
        return PLAN_STOP_BUDGET;
    if (w->spent_s >= PLAN_MAX_CELL_S)
        return PLAN_STOP_TIME_CAP;
    return PLAN_STOP_NONE;
}

/* One group: cell A's window and one of each of its living baselines
 * (A->group, local indices into W), in an order shuffled from the seed
 * (ilv_group_order). A built-in baseline other than A's primary (the
 * second of the fixed pair whose ratio is the host's ratio drift) joins
 * only the groups at slots 0, WINDOWS_DRIFT_EVERY, ... of a round: every
 * round has its drift pair, and the cells' groups are not three windows
 * long for it. A's trial keeps every baseline's window (pairs) and its
 * primary's (pair); a built-in baseline keeps its window as a trial of
 * its own record, a package baseline only measures itself in its own
 * groups. A baseline that fails in the group is left out of it. */
static int group(wsize *z, wcell *w, wcell *a, int round, size_t slot, hb_err *err)
{
    plan_trial ta, tb[PLAN_MAX_PAIRS];
    size_t who[PLAN_MAX_PAIRS + 1], order[PLAN_MAX_PAIRS + 1], m = 0;
    int nb = a->c->n_baselines < PLAN_MAX_PAIRS ? a->c->n_baselines : PLAN_MAX_PAIRS;
    for (int k = 0; k < nb; k++) {
        if (a->group[k] < 0 || w[a->group[k]].dead)
            continue;
        int drift_only = w[a->group[k]].trusted && a->c->baselines[k] != a->c->baseline;
        if (drift_only && slot % WINDOWS_DRIFT_EVERY != 0)
            continue;
        who[m++] = (size_t)k;
    }
    who[m] = PLAN_MAX_PAIRS; /* the cell itself */
    int took[PLAN_MAX_PAIRS] = {0};
    double t0 = hb_mono_s();
    ilv_group_order(z->s->seed, round, slot, m + 1, order);
    for (size_t q = 0; q <= m; q++) {
        size_t k = who[order[q]];
        int is_base = k != PLAN_MAX_PAIRS;
        wcell *x = is_base ? &w[a->group[k]] : a;
        if (side(z, x, !is_base && z->o->verify != NULL, is_base ? &tb[k] : &ta, err) != 0)
            return -1;
        if (a->dead)
            return 0;
        if (is_base)
            took[k] = !x->dead;
    }
    ta.round = round;
    ta.slot = (int)slot;
    a->pairs++;
    a->spent_s += hb_mono_s() - t0; /* a cell pays for its baselines' windows */
    for (int k = 0; k < nb; k++) {
        if (!took[k])
            continue;
        wcell *b = &w[a->group[k]];
        ta.pairs[k].calls = tb[k].r.calls;
        ta.pairs[k].ticks = tb[k].r.ticks;
        ta.pairs[k].ns = tb[k].r.ns;
        if (a->c->baselines[k] == a->c->baseline) {
            ta.paired = 1;
            ta.pair_calls = tb[k].r.calls;
            ta.pair_ticks = tb[k].r.ticks;
            ta.pair_ns = tb[k].r.ns;
        }
        tb[k].round = round;
        tb[k].slot = (int)slot;
        if (b->trusted && append_trial(b, &tb[k], err) != 0)
            return -1;
    }
    return append_trial(a, &ta, err);
}

static int verify_cell(wsize *z, wcell *w, hb_err *err)
{
    plan_outcome *o = &w->c->out;
    if (!z->o->verify || w->dead)
        return 0;
    char by[320] = "", why[512] = "";
    int rc = z->o->verify(z->o->verify_ctx, w->index, w->samples, w->n_samples, z->size,
                          w->c->tmpl.digest_bits, by, sizeof by, why, sizeof why, err);
    if (rc < 0)
        return -1;
    snprintf(o->verified_by, sizeof o->verified_by, "%s", by);
    o->verified_calls = rc == 0 ? w->n_samples : 0;
    if (rc == 1) {
        char msg[640];
        guard_text(msg, sizeof msg, GUARD_DIGESTS, "%s", why);
        fail_cell(w, SESSION_INCONSISTENT, msg);
    }
    return 0;
}

/* Closes W's session and frees its state (W->c stays). */
static void free_cell(wsize *z, wcell *w)
{
    if (w->open) {
        session_figure f;
        memset(&f, 0, sizeof f);
        z->cls->close(w->state, &f);
        if (f.status != SESSION_OK)
            fail_cell(w, f.status, f.failure);
        else if (f.rss_known && w->rss_open_known) {
            w->c->out.rss_known = 1;
            w->c->out.rss_open_kb = w->rss_open_kb;
            w->c->out.rss_peak_kb = f.rss_peak_kb;
            w->c->out.rss_preload_kb = w->rss_preload_kb;
        }
    }
    free(w->state);
    for (size_t i = 0; i < w->n_samples; i++) {
        free(w->samples[i].prev);
        free(w->samples[i].digest);
    }
    free(w->samples);
    free(w->seen);
    ilv_cell *c = w->c;
    memset(w, 0, sizeof *w);
    w->c = c;
}

/* 1 when W's primary baseline (its ilv_cell.baseline) is here and failed. */
static int primary_dead(const wcell *all, const wcell *w)
{
    for (int k = 0; k < w->c->n_baselines && k < PLAN_MAX_PAIRS; k++)
        if (w->group[k] >= 0 && w->c->baselines[k] == w->c->baseline)
            return all[w->group[k]].dead;
    return 0;
}

/* The harness cost at Z's size (harness.h): the null library's windows,
 * as many calls as the windows of EX (the session the exchange was
 * measured on, calibrated). */
static int measure_harness(wsize *z, const wcell *ex, hb_err *err)
{
    z->harness_ns = NAN;
    if (!z->o->harness_lib || !ex || ex->dead || !(ex->est_ns > 0))
        return 0;
    double target = WINDOWS_MIN_NS;
    if (WINDOWS_EXCHANGE_MULT * z->exchange_ns > target)
        target = WINDOWS_EXCHANGE_MULT * z->exchange_ns;
    const trial_request *t = &ex->c->tmpl;
    harness_rq h = {z->cls,
                    {z->o->probe_path, z->o->harness_lib, z->size, t->digest_bits, t->cpu,
                     counter_arch_kind(), 0, longest_window(z->size), z->o->timeout_s,
                     !t->emulated, 1},
                    z->raw, clamp_calls(ex, target / ex->est_ns, WINDOWS_MIN_CALLS),
                    z->exchange_ns};
    return harness_measure(&h, &z->harness_ns, NULL, 0, err);
}

/* Opens the N cells of W at one size (each with its group), measures the
 * exchange, calibrates every cell and measures the harness cost. */
static int size_open(wsize *z, wcell *w, size_t n, hb_err *err)
{
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = open_cell(z, &w[i], err);
    for (size_t i = 0; i < n; i++)
        w[i].trusted = w[i].c->trusted;
    /* the exchange: on the primary built-in baseline (hashbench's own
     * code), else another built-in one, else on the first cell that
     * opened, said so in its record */
    wcell *ex = NULL;
    for (size_t i = 0; !ex && i < n; i++)
        for (size_t q = 0; !ex && q < n; q++)
            if (w[i].trusted && !w[i].dead && w[q].c->baseline == (int)w[i].index)
                ex = &w[i];
    for (size_t i = 0; !ex && i < n; i++)
        if (w[i].trusted && !w[i].dead)
            ex = &w[i];
    int ex_trusted = ex != NULL;
    for (size_t i = 0; !ex && i < n; i++)
        if (!w[i].dead)
            ex = &w[i];
    if (rc == 0 && ex) {
        rc = measure_exchange(z, ex, err);
        snprintf(z->exchange_by, sizeof z->exchange_by, "%s",
                 ex_trusted ? "baseline" : "instance");
    }
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (!w[i].dead && (rc = calibrate(z, &w[i], err)) == 0)
            rc = touch_cell(z, &w[i], err);
    if (rc == 0)
        rc = measure_harness(z, ex_trusted ? ex : NULL, err);
    for (size_t i = 0; i < n; i++)
        w[i].warm_calls = w[i].est_ns > 0
                              ? clamp_calls(&w[i], WINDOWS_WARMUP_NS / w[i].est_ns, 1) : 1;
    return rc;
}

/* The pair of each cell's trial of ROUND: its built-in primary
 * baseline's median window of the round (by cost per call; of an even
 * number the lower middle one), in place of the one window of its own
 * group. A round at a size is one stretch of the stage (its groups one
 * after the other, a fraction of a second), so the median still moves
 * with the host as the group's window does, but one window's noise no
 * longer lands whole on the ratio; and the cells of a round share it, so
 * two of them compare without the baseline's noise between them (on the
 * development VM the A/A difference of the paired ratio fell by a third,
 * rms 0.97 to 0.67 %, on the same windows). The trial's pairs (every
 * baseline's window of its group, from which the ratio drift is read)
 * stay its group's. A primary that is a package (not built in) keeps no
 * windows of its own in the groups of others: its cells keep their
 * group's pair. */
static void round_pairs(wcell *w, size_t n, int round)
{
    for (size_t b = 0; b < n; b++) {
        if (!w[b].trusted)
            continue;
        plan_outcome *bo = &w[b].c->out;
        size_t first = bo->n_trials;
        while (first > 0 && bo->trials[first - 1].round == round)
            first--;
        size_t k = bo->n_trials - first;
        if (k == 0)
            continue;
        /* the median window: selection by cost per call, K small */
        size_t idx[k];
        for (size_t i = 0; i < k; i++)
            idx[i] = first + i;
        for (size_t i = 1; i < k; i++)
            for (size_t j = i; j > 0; j--) {
                const trial_result *x = &bo->trials[idx[j - 1]].r, *y = &bo->trials[idx[j]].r;
                if ((double)x->ticks / (double)x->calls <= (double)y->ticks / (double)y->calls)
                    break;
                size_t t = idx[j];
                idx[j] = idx[j - 1];
                idx[j - 1] = t;
            }
        const trial_result *med = &bo->trials[idx[(k - 1) / 2]].r;
        for (size_t i = 0; i < n; i++) {
            plan_outcome *o = &w[i].c->out;
            if (w[i].trusted || o->n_trials == 0 || w[i].c->baseline != (int)w[b].index)
                continue;
            plan_trial *t = &o->trials[o->n_trials - 1];
            if (t->round != round || !t->paired)
                continue;
            t->pair_calls = med->calls;
            t->pair_ticks = med->ticks;
            t->pair_ns = med->ns;
        }
    }
}

/* One round at one size: every cell of W (N) still short of its PAIRS
 * takes a group, in an order shuffled from the seed (ORDER and ACT:
 * scratch of N). *ACTIVE gets the number of cells that took one (0: the
 * size is done). */
static int size_round(wsize *z, wcell *w, size_t n, int pairs, size_t *order, size_t *act,
                      size_t *active, hb_err *err)
{
    /* a cell whose primary baseline failed is failed with it */
    for (size_t i = 0; i < n; i++)
        if (!w[i].trusted && !w[i].c->pair_only && !w[i].dead && primary_dead(w, &w[i])) {
            char msg[600];
            const wcell *b = NULL;
            for (int k = 0; !b && k < w[i].c->n_baselines; k++)
                if (w[i].group[k] >= 0 && w[i].c->baselines[k] == w[i].c->baseline)
                    b = &w[w[i].group[k]];
            guard_text(msg, sizeof msg, GUARD_BASELINE_FAILED, "%s",
                       b ? b->c->out.failure : "");
            fail_cell(&w[i], SESSION_FAILED, msg);
        }
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (w[i].trusted || w[i].c->pair_only || w[i].dead || w[i].stopped)
            continue;
        w[i].stopped = stop_reason(z, &w[i], pairs);
        if (!w[i].stopped)
            act[m++] = i;
    }
    *active = m;
    if (m == 0)
        return 0;
    int round = (*z->round)++;
    ilv_order(z->s->seed, round, m, order);
    int rc = 0;
    for (size_t k = 0; rc == 0 && k < m; k++)
        rc = group(z, w, &w[act[order[k]]], round, k, err);
    if (rc == 0)
        round_pairs(w, n, round);
    return rc;
}

/* Ends one size: a built-in baseline no cell took a window of is measured
 * alone, every cell's digests are checked, its time charged and its
 * session closed, and its outcome completed (START: when its size
 * opened). */
static int size_finish(wsize *z, wcell *w, size_t n, int pairs, double start, hb_err *err)
{
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        wcell *b = &w[i];
        int alone = b->trusted && !b->c->pair_only && b->c->out.n_trials == 0;
        for (int p = 0; rc == 0 && alone && p < pairs && !b->dead; p++) {
            plan_trial t;
            rc = side(z, b, 0, &t, err);
            if (rc == 0 && !b->dead) {
                t.round = (*z->round)++;
                t.slot = 0;
                rc = append_trial(b, &t, err);
            }
        }
    }
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (!w[i].trusted && !w[i].c->pair_only) {
            double t0 = hb_mono_s();
            rc = verify_cell(z, &w[i], err);
            w[i].session_s += hb_mono_s() - t0;
        }
    double elapsed = hb_mono_s() - start;
    double spent[n ? n : 1];
    int stops[n ? n : 1];
    for (size_t i = 0; i < n; i++) {
        spent[i] = w[i].spent_s;
        stops[i] = w[i].stopped;
    }
    for (size_t i = 0; i < n; i++) {
        ilv_cell *cell = w[i].c;
        /* the session's close (its library's exit) is its instance's too */
        double t0 = hb_mono_s(), session_s = w[i].session_s;
        size_t index = w[i].index;
        free_cell(z, &w[i]);
        session_s += hb_mono_s() - t0;
        if (rc == 0 && z->o->budget_charge && session_s > 0)
            rc = z->o->budget_charge(z->o->budget_ctx, index, session_s, err);
        plan_outcome *o = &cell->out;
        o->session = 1;
        o->processes = 1;
        o->elapsed_s = spent[i] > 0 ? spent[i] : elapsed;
        o->budget_s = z->budget_s;
        if (o->ok && stops[i] != PLAN_STOP_NONE)
            o->stopped = stops[i];
        o->exchange_ns = z->exchange_ns;
        o->harness_ns = z->harness_ns;
        snprintf(o->exchange_by, sizeof o->exchange_by, "%s", z->exchange_by);
        snprintf(o->figure, sizeof o->figure, "%s",
                 cell->tmpl.counter == COUNTER_PERF_CYCLES ? "cycles" : "cpu_time");
        if (!o->failure[0] && o->n_trials == 0) {
            o->ok = 0;
            snprintf(o->failure, sizeof o->failure, "no window was taken");
        }
        if (o->ok && o->stopped == PLAN_STOP_NONE)
            o->stopped = PLAN_STOP_TRIALS;
    }
    return rc;
}

/* One size of the stage while it is held open: its state, its cells (a
 * slice of the stage's), the indices of those cells in the caller's array,
 * and scratch for its rounds. */
typedef struct wband {
    wsize z;
    wcell *w;
    size_t *idx;
    size_t n;
    size_t *order, *act;
    int active;              /* 1: some cell still takes groups */
    double start;
} wband;

/* What the sessions of band B hold in message regions, at the most. */
static double band_region_bytes(const wband *b)
{
    return (double)b->n * (double)longest_window(b->z.size) * (double)b->z.size;
}

/* Sessions may hold this much of the host's memory in message regions at
 * once: WINDOWS_STAGE_REGION_BYTES, or a third of what the host has free
 * when that is less (at least one size is always held). */
static double region_allowance(void)
{
    double cap = WINDOWS_STAGE_REGION_BYTES;
    struct sysinfo si;
    if (sysinfo(&si) == 0) {
        double avail = ((double)si.freeram + (double)si.bufferram) * (double)si.mem_unit;
        if (avail / 3.0 < cap)
            cap = avail / 3.0;
    }
    return cap;
}

/* The sizes B[FIRST..LAST) held open together: every session opened and
 * calibrated size by size, then pass after pass, each visiting every size
 * still taking groups in an order drawn afresh from the seed, one round
 * at each; then each size ended and handed to size_done. */
static int run_bands(wband *b, size_t first, size_t last, int pairs, hb_err *err)
{
    int rc = 0;
    for (size_t k = first; rc == 0 && k < last; k++) {
        b[k].start = hb_mono_s();
        rc = size_open(&b[k].z, b[k].w, b[k].n, err);
        b[k].active = 1;
    }
    size_t nb = last - first, order[nb ? nb : 1];
    for (int pass = 0; rc == 0; pass++) {
        int any = 0;
        ilv_order(b[first].z.s->seed ^ WINDOWS_PASS_SALT, pass, nb, order);
        for (size_t q = 0; rc == 0 && q < nb; q++) {
            wband *x = &b[first + order[q]];
            if (!x->active)
                continue;
            size_t active = 0;
            rc = size_round(&x->z, x->w, x->n, pairs, x->order, x->act, &active, err);
            x->active = active > 0;
            any |= x->active;
        }
        if (!any)
            break;
    }
    for (size_t k = first; k < last; k++) {
        if (rc == 0)
            rc = size_finish(&b[k].z, b[k].w, b[k].n, pairs, b[k].start, err);
        else
            for (size_t i = 0; i < b[k].n; i++)
                free_cell(&b[k].z, &b[k].w[i]);
        const windows_opts *o = b[k].z.o;
        if (rc == 0 && o->size_done)
            rc = o->size_done(o->size_ctx, b[k].idx, b[k].n, err);
    }
    return rc;
}

int windows_run(ilv_cell *cells, size_t n, const plan_settings *s, const windows_opts *o,
                hb_err *err)
{
    wsize z = {s, o, o->cls ? o->cls : &session_probe, 0, 0, -1, "", NULL, 0, 0, NULL, NAN};
    z.budget_s = s->budget_explicit && s->budget_s > 0 ? s->budget_s : WINDOWS_AUTO_BUDGET_S;
    int round = 0;
    z.round = &round;
    size_t want = xcheck_sample_size(XCHECK_DEFAULT_FAKED, XCHECK_DEFAULT_CATCH);
    int pairs = o->pairs < 2 ? 2 : o->pairs;
    z.per_window = (want + (size_t)pairs - 1) / (size_t)pairs;
    char *done = calloc(n ? n : 1, 1);
    wcell *w = calloc(n ? n : 1, sizeof *w);
    size_t *idx = calloc(n ? n : 1, sizeof *idx);
    size_t *scratch = calloc(2 * (n ? n : 1), sizeof *scratch);
    wband *band = calloc(n ? n : 1, sizeof *band);
    z.raw = malloc(WINDOWS_MAX_BYTES);
    int rc = done && w && idx && scratch && band && z.raw ? 0 : hb_fail(err, "out of memory");
    for (size_t i = 0; i < n; i++) {
        memset(&cells[i].out, 0, sizeof cells[i].out);
        cells[i].out.ok = 1;
    }
    /* the sizes, in the order of their first cell; each size's cells a
     * slice of W */
    size_t nbands = 0, used = 0;
    for (size_t first = 0; rc == 0 && first < n; first++) {
        if (done[first])
            continue;
        wband *b = &band[nbands++];
        b->z = z;
        b->z.size = cells[first].tmpl.size;
        b->w = &w[used];
        b->idx = &idx[used];
        b->order = &scratch[used];
        b->act = &scratch[n + used];
        for (size_t i = first; i < n; i++)
            if (!done[i] && cells[i].tmpl.size == b->z.size) {
                done[i] = 1;
                b->idx[b->n] = i;
                b->w[b->n].c = &cells[i];
                b->w[b->n].index = i;
                b->n++;
            }
        used += b->n;
        /* each cell's group: the baselines it names, where they are at
         * this size */
        for (size_t k = 0; k < b->n; k++)
            for (int g = 0; g < PLAN_MAX_PAIRS; g++) {
                b->w[k].group[g] = -1;
                int bi = g < cells[b->idx[k]].n_baselines ? cells[b->idx[k]].baselines[g] : -1;
                for (size_t q = 0; bi >= 0 && q < b->n; q++)
                    if (b->idx[q] == (size_t)bi && q != k)
                        b->w[k].group[g] = (int)q;
            }
    }
    /* as many sizes at once as their regions allow, passes over them */
    double allowance = region_allowance();
    for (size_t first = 0; rc == 0 && first < nbands;) {
        size_t last = first + 1;
        double held = band_region_bytes(&band[first]);
        while (last < nbands && held + band_region_bytes(&band[last]) <= allowance)
            held += band_region_bytes(&band[last++]);
        rc = run_bands(band, first, last, pairs, err);
        first = last;
    }
    free(z.raw);
    free(done);
    free(w);
    free(idx);
    free(scratch);
    free(band);
    return rc;
}

int windows_stage_run(plan_stage *st, hb_err *err)
{
    windows_opts wo = {.cls = NULL, .probe_path = st->probe_path, .rate_hz = st->rate_hz,
                       .pairs = st->s->min_trials, .timeout_s = st->timeout_s,
                       .verify = st->verify, .verify_ctx = st->ctx,
                       .budget_left = st->budget_left, .budget_reason = st->budget_reason,
                       .budget_charge = st->budget_charge, .budget_ctx = st->ctx,
                       .size_done = st->cells_done, .size_ctx = st->ctx,
                       .harness_lib = st->harness_lib};
    int rc = windows_run(st->cells, st->n, st->s, &wo, err);
    if (rc == 0)
        unlink(st->journal); /* another planner's, which nothing resumes now */
    return rc;
}

counter_kind windows_counter(counter_kind kind)
{
    if (kind != COUNTER_PERF_CYCLES)
        return kind;
    /* sessions count cycles on the probe from here, user and kernel:
     * where the kernel refuses that, the stage's figure is CPU time at
     * the architecture's counter rate */
    procview_cycles pc;
    if (procview_cycles_open(&pc, (long)getpid()) != 0)
        kind = counter_arch_kind();
    procview_cycles_close(&pc);
    return kind;
}

double windows_stage_cost_s(const plan_settings *s, double t1_ns, double start_s)
{
    return windows_cell_cost_s(plan_min_trials(s), t1_ns) + start_s;
}
