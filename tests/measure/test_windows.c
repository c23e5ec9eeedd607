/* The session planner (windows.h) with a scripted session class: no
 * process is started. The fake computes real SM3 digests (OpenSSL) of the
 * messages it is handed, chained as probe/chain.h says, and reports a CPU
 * time of exchange + calls x its library's cost, so that every figure the
 * planner derives can be checked exactly: the exchange measured on the
 * baseline and taken off every window, one pair per cell and round with the
 * baseline beside it, pair ratios that are the true ratio (with two
 * baselines in each group, and a package baseline), the samples kept
 * for the independent check (enough to catch 1 % of faked calls with 99 %
 * probability) and that check catching a library that fakes 2 % of them;
 * and the rules that end a cell: CPU time gained between windows, a window
 * whose per-call cost departs from calibration by more than 3x, and a
 * failure inside a window, after which the session is asked for nothing. */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>
#include <openssl/evp.h>

#include "measure/msggen.h"
#include "measure/windows.h"
#include "measure/xcheck.h"
#include "probe/chain.h"

#define EXCHANGE_NS 20000.0
#define assert_near(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

/* What a fake library does: its cost per call in ns, and its tricks. */
typedef struct fake_lib {
    const char *name;
    double cost_ns;
    int fake_every;       /* >0: every fake_every-th call's digest is wrong */
    int gain_after;       /* >0: CPU time appears between windows after this many */
    int slow_calibration; /* windows of 1, 4, 16, 64 ... calls (calibration's) cost 10x */
    int fail_at;          /* >0: the window with this index fails (CRASH) */
    int multiplexed;      /* cycles: 1 every other window, 2 always, not counted */
    int sleep_ms;         /* wall time of each of its windows */
    int waits;            /* voluntary switches it reports per call */
    int grow_kb;          /* resident KiB it gains between open and close */
} fake_lib;

static fake_lib libs[5];
static size_t n_libs;
static int windows_after_failure;
static int base_wobble; /* 1: the baseline's windows cost 1, 1.1, 1.2 times its
                          cost in turn (a host that moves) */
static int touches, windows_beyond_touch; /* touches made; windows longer than
                                            their session's touch */
/* the library (index in libs) of every timed window, in order */
static int window_log[4096];
static size_t window_log_n;

typedef struct fake_session {
    const fake_lib *lib;
    unsigned long long size;
    unsigned char *region;     /* the messages, as the probe's region holds them */
    unsigned char *digests;
    int windows, failed;
    long long cpu;
    unsigned long long touched; /* calls its touch covers; 0: none yet */
} fake_session;

static const fake_lib *lib_named(const char *path)
{
    for (size_t i = 0; i < n_libs; i++)
        if (strcmp(libs[i].name, strrchr(path, '/') ? strrchr(path, '/') + 1 : path) == 0)
            return &libs[i];
    return NULL;
}

static void sm3(const unsigned char *m, size_t n, unsigned char out[32])
{
    unsigned int len = 32;
    assert_int_equal(EVP_Digest(m, n, out, &len, EVP_sm3(), NULL), 1);
}

static int fake_open(void *state, const session_open_rq *rq, session_figure *f, hb_err *err)
{
    (void)err;
    fake_session *s = state;
    memset(f, 0, sizeof *f);
    s->lib = lib_named(rq->lib);
    assert_non_null(s->lib);
    assert_int_equal(rq->digest_bits, 256);
    s->size = rq->size;
    s->region = calloc(rq->max_calls, rq->size);
    s->digests = calloc(rq->max_calls, 32);
    assert_non_null(s->region);
    f->rss_known = 1; /* as read from outside once it is open */
    f->rss_kb = 1000;
    f->rss_peak_kb = 1000;
    return 0;
}

static int fake_window(void *state, const session_window_rq *w, session_figure *f,
                       hb_err *err)
{
    (void)err;
    fake_session *s = state;
    memset(f, 0, sizeof *f);
    if (s->failed)
        windows_after_failure++;
    if (s->touched && w->calls > s->touched)
        windows_beyond_touch++;
    if (w->raw)
        memcpy(s->region, w->raw, w->calls * s->size);
    s->windows++;
    if (w->raw && window_log_n < sizeof window_log / sizeof *window_log)
        window_log[window_log_n++] = (int)(s->lib - libs);
    if (s->lib->sleep_ms) {
        struct timespec ts = {0, s->lib->sleep_ms * 1000000L};
        nanosleep(&ts, NULL);
    }
    if (s->lib->fail_at && s->windows == s->lib->fail_at) {
        s->failed = 1;
        f->status = SESSION_FAILED;
        snprintf(f->failure, sizeof f->failure, "CRASH: signal 11");
        return 0;
    }
    for (unsigned long long i = 0; i < w->calls; i++) {
        unsigned char *m = s->region + i * s->size;
        if (i > 0)
            chain_apply(m, s->size, chain_word(s->digests + (i - 1) * 32, 32));
        sm3(m, s->size, s->digests + i * 32);
        if (s->lib->fake_every && i % (unsigned long long)s->lib->fake_every == 3)
            s->digests[i * 32] ^= 1;
    }
    double cost = s->lib->cost_ns;
    if (base_wobble && s->lib == &libs[0])
        cost *= 1.0 + 0.1 * (double)(s->windows % 3);
    if (s->lib->slow_calibration == 2 && s->windows <= 6)
        cost *= 10; /* the host, not the library: its first windows only */
    else if (s->lib->slow_calibration == 1 && (w->calls & (w->calls - 1)) == 0 &&
        __builtin_ctzll(w->calls) % 2 == 0)
        cost *= 10;
    f->gained_ns = s->lib->gain_after && s->windows > s->lib->gain_after ? 5000 : 0;
    f->cpu_ns = (unsigned long long)llround(EXCHANGE_NS + cost * (double)w->calls);
    f->wall_ns = f->cpu_ns;
    f->inside_ns = (unsigned long long)(cost * (double)w->calls);
    f->cpu = 1;
    f->waits = 2 + s->lib->waits * (long long)w->calls;
    f->digests = s->digests;
    /* cycles at 3 per ns, unless the counter was multiplexed */
    f->cycles_known = !(s->lib->multiplexed == 2 ||
                        (s->lib->multiplexed == 1 && s->windows % 2 == 0));
    f->cycles = f->cycles_known ? (unsigned long long)llround(3 * cost * (double)w->calls) : 0;
    return 0;
}

static void fake_close(void *state, session_figure *f)
{
    fake_session *s = state;
    if (f) { /* its peak, as read from outside before it ends */
        f->rss_known = 1;
        f->rss_kb = f->rss_peak_kb = 1000 + s->lib->grow_kb;
    }
    free(s->region);
    free(s->digests);
}

static int fake_touch(void *state, unsigned long long calls, session_figure *f, hb_err *err)
{
    (void)err;
    fake_session *s = state;
    memset(f, 0, sizeof *f);
    s->touched = calls;
    touches++;
    return 0;
}

static const session_class fake_class = {"fake", sizeof(fake_session), fake_open,
                                         fake_window, fake_close, fake_touch};

/* The independent check: OpenSSL's SM3 on each sample's rebuilt message. */
static int checked_samples;
static int verify_sm3(void *ctx, size_t cell, const windows_sample *s, size_t n,
                      unsigned long long size, int digest_bits, char *by, size_t bysz,
                      char *why, size_t whysz, hb_err *err)
{
    (void)ctx;
    (void)cell;
    (void)digest_bits;
    snprintf(by, bysz, "openssl:SM3");
    unsigned char *raw = malloc(size), *msg = malloc(size), d[32];
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(msggen_fill(&s[i].key, s[i].j * size, raw, size, err), 0);
        chain_message(msg, raw, size, s[i].j, s[i].prev, 32);
        sm3(msg, size, d);
        checked_samples++;
        if (memcmp(d, s[i].digest, 32) != 0) {
            snprintf(why, whysz, "call %zu of %zu: digest differs from openssl:SM3", i + 1, n);
            free(raw);
            free(msg);
            return 1;
        }
    }
    free(raw);
    free(msg);
    return 0;
}

/* Cells: the baseline "base" (index 0) and the libraries after it, all at
 * SIZE, every one paired with the baseline. */
static ilv_cell *cells_for(size_t n, unsigned long long size)
{
    ilv_cell *c = calloc(n, sizeof *c);
    for (size_t i = 0; i < n; i++) {
        c[i].tmpl.run_dir = "/fake";
        c[i].tmpl.lib = libs[i].name;
        c[i].tmpl.size = size;
        c[i].tmpl.digest_bits = 256;
        c[i].tmpl.cpu = 1;
        c[i].tmpl.counter = COUNTER_TSC;
        c[i].baseline = i == 0 ? -1 : 0;
        c[i].baselines[0] = 0;
        c[i].n_baselines = i == 0 ? 0 : 1;
        c[i].trusted = i == 0;
    }
    return c;
}

static double budget_s; /* > 0: an explicit --budget */
static double instance_left[4];    /* > 0: the instance's wall budget left */
static double charged[4];

static int left_cb(void *ctx, size_t cell, double *left, hb_err *err)
{
    (void)ctx;
    (void)err;
    *left = instance_left[cell] > 0 ? instance_left[cell] : HUGE_VAL;
    return 0;
}

static void reason_cb(void *ctx, size_t cell, char *out, size_t sz)
{
    (void)ctx;
    snprintf(out, sz, "wall budget of the instance spent (cell %zu)", cell);
}

static int charge_cb(void *ctx, size_t cell, double s, hb_err *err)
{
    (void)ctx;
    (void)err;
    charged[cell] += s;
    return 0;
}

static int run(ilv_cell *c, size_t n, int pairs, int verify)
{
    plan_settings s;
    memset(&s, 0, sizeof s);
    s.budget_s = budget_s;
    s.budget_explicit = budget_s > 0;
    s.planner = "interleaved";
    s.seed = 0x1234;
    windows_opts o = {&fake_class, "/fake/probe", 2e9, pairs, 10, verify ? verify_sm3 : NULL,
                      NULL, left_cb, reason_cb, charge_cb, NULL, NULL, NULL, NULL};
    hb_err err;
    int rc = windows_run(c, n, &s, &o, &err);
    if (rc != 0)
        fprintf(stderr, "%s\n", err.msg);
    return rc;
}

static void set_libs(void)
{
    memset(libs, 0, sizeof libs);
    libs[0] = (fake_lib){"base", 1000, 0, 0, 0, 0, 0, 0, 0, 0};
    libs[1] = (fake_lib){"A", 2000, 0, 0, 0, 0, 0, 0, 0, 0};
    libs[2] = (fake_lib){"B", 3000, 0, 0, 0, 0, 0, 0, 0, 0};
    n_libs = 3;
    budget_s = 0;
    memset(instance_left, 0, sizeof instance_left);
    memset(charged, 0, sizeof charged);
    windows_after_failure = 0;
    touches = windows_beyond_touch = 0;
    base_wobble = 0;
    checked_samples = 0;
}

static void free_cells(ilv_cell *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        plan_outcome_free(&c[i].out);
    free(c);
}

static void test_pairs_exact(void **state)
{
    (void)state;
    set_libs();
    ilv_cell *c = cells_for(3, 256);
    assert_int_equal(run(c, 3, 6, 1), 0);
    for (size_t i = 0; i < 3; i++) {
        assert_true(c[i].out.ok);
        assert_true(c[i].out.session);
        assert_near(c[i].out.exchange_ns, EXCHANGE_NS, 1e-9);
    }
    /* the baseline has one window per pair of each other cell */
    assert_int_equal(c[0].out.n_trials, 12);
    for (size_t i = 1; i < 3; i++) {
        assert_int_equal(c[i].out.n_trials, 6);
        for (size_t k = 0; k < 6; k++) {
            const plan_trial *t = &c[i].out.trials[k];
            assert_true(t->paired);
            /* the exchange is taken off: ns is exactly calls x cost */
            assert_near((double)t->r.ns, libs[i].cost_ns * (double)t->r.calls, 1.0);
            double ratio = ((double)t->r.ticks / (double)t->r.calls) /
                           ((double)t->pair_ticks / (double)t->pair_calls);
            assert_near(ratio, libs[i].cost_ns / 1000.0, 1e-3);
            assert_true(t->r.calls >= WINDOWS_MIN_CALLS);
            /* every window lasts at least the minimum, within the jitter */
            assert_true((double)t->r.ns >= 0.8 * WINDOWS_MIN_NS * 0.99);
            assert_int_equal(t->disturbed, 0);
            assert_int_equal(strlen(t->r.key), 64);
        }
        assert_string_equal(c[i].out.verified_by, "openssl:SM3");
        assert_true(c[i].out.verified_calls >=
                    xcheck_sample_size(XCHECK_DEFAULT_FAKED, XCHECK_DEFAULT_CATCH));
    }
    /* the keys differ from window to window */
    assert_string_not_equal(c[1].out.trials[0].r.key, c[1].out.trials[1].r.key);
    /* every session made its windows' pages resident once calibrated, and
     * no window went beyond them */
    assert_int_equal(touches, 3);
    assert_int_equal(windows_beyond_touch, 0);
    free_cells(c, 3);
}

/* Passes over the whole stage: two sizes, each with the baseline and one
 * instance; the instance's groups at each size are spread over the
 * stage's rounds between the other size's (the sizes take turns, pass
 * after pass), not one size after the other, and every cell still gets
 * its pairs exactly. */
static void test_passes_span_sizes(void **state)
{
    (void)state;
    set_libs();
    libs[0] = (fake_lib){"base", 1000, 0, 0, 0, 0, 0, 0, 0, 0};
    libs[1] = (fake_lib){"A", 2000, 0, 0, 0, 0, 0, 0, 0, 0};
    libs[2] = (fake_lib){"base", 1000, 0, 0, 0, 0, 0, 0, 0, 0};
    libs[3] = (fake_lib){"A", 2000, 0, 0, 0, 0, 0, 0, 0, 0};
    n_libs = 4;
    ilv_cell *c = cells_for(4, 256);
    c[2].tmpl.size = c[3].tmpl.size = 1024;
    c[3].baseline = c[3].baselines[0] = 2;
    assert_int_equal(run(c, 4, 6, 0), 0);
    int lo[2] = {INT_MAX, INT_MAX}, hi[2] = {-1, -1};
    for (size_t k = 0; k < 2; k++) {
        const plan_outcome *o = &c[1 + 2 * k].out;
        assert_true(o->ok);
        assert_int_equal(o->n_trials, 6);
        for (size_t t = 0; t < o->n_trials; t++) {
            if (o->trials[t].round < lo[k])
                lo[k] = o->trials[t].round;
            if (o->trials[t].round > hi[k])
                hi[k] = o->trials[t].round;
        }
    }
    /* each size's rounds reach past the other's first and before its last */
    assert_true(hi[0] > lo[1] && hi[1] > lo[0]);
    assert_int_equal(c[0].out.n_trials, 6);
    assert_int_equal(c[2].out.n_trials, 6);
    free_cells(c, 4);
}

/* The per-call ratio of trial T to its group's baseline window K. */
static double ratio_to(const plan_trial *t, int k)
{
    return ((double)t->r.ticks / (double)t->r.calls) /
           ((double)t->pairs[k].ticks / (double)t->pairs[k].calls);
}

/* Two built-in baselines (cells 0 and 1, the first the primary): every
 * other cell's group holds a window of the primary, and the group at slot
 * 0 of each round (one in WINDOWS_DRIFT_EVERY) one of the second, there
 * for the host's ratio drift; both ratios exact, the pair the primary's,
 * each baseline's record one window per group it joined. */
static void test_two_baselines_grouped(void **state)
{
    (void)state;
    set_libs();
    libs[0] = (fake_lib){"base", 1000, 0, 0, 0, 0, 0, 0, 0, 0};
    libs[1] = (fake_lib){"base2", 1500, 0, 0, 0, 0, 0, 0, 0, 0};
    libs[2] = (fake_lib){"A", 2000, 0, 0, 0, 0, 0, 0, 0, 0};
    libs[3] = (fake_lib){"B", 3000, 0, 0, 0, 0, 0, 0, 0, 0};
    n_libs = 4;
    ilv_cell *c = cells_for(4, 256);
    c[1].trusted = 1;
    c[1].baseline = -1;
    c[1].n_baselines = 0;
    for (size_t i = 2; i < 4; i++) {
        c[i].baselines[1] = 1;
        c[i].n_baselines = 2;
    }
    window_log_n = 0;
    assert_int_equal(run(c, 4, 6, 1), 0);
    for (size_t i = 0; i < 4; i++) {
        assert_true(c[i].out.ok);
        assert_near(c[i].out.exchange_ns, EXCHANGE_NS, 1e-9);
    }
    assert_string_equal(c[2].out.exchange_by, "baseline");
    assert_int_equal(c[0].out.n_trials, 12);
    assert_int_equal(c[1].out.n_trials, 6); /* one group of the two each round */
    int drift_rounds[6] = {0};
    for (size_t i = 2; i < 4; i++) {
        assert_int_equal(c[i].out.n_trials, 6);
        for (size_t k = 0; k < 6; k++) {
            const plan_trial *t = &c[i].out.trials[k];
            assert_true(t->paired);
            assert_near(ratio_to(t, 0), libs[i].cost_ns / 1000.0, 1e-3);
            /* the pair: the primary's median window of the round, one
             * of its two windows there (its own group's or the other's) */
            int in_round = 0, is_one = 0;
            for (size_t q = 0; q < c[0].out.n_trials; q++) {
                const plan_trial *b = &c[0].out.trials[q];
                if (b->round != t->round)
                    continue;
                in_round++;
                is_one |= b->r.calls == t->pair_calls && b->r.ticks == t->pair_ticks;
            }
            assert_int_equal(in_round, 2);
            assert_true(is_one);
            assert_int_equal(t->pairs[2].calls, 0);
            if (t->slot % WINDOWS_DRIFT_EVERY == 0) {
                assert_near(ratio_to(t, 1), libs[i].cost_ns / 1500.0, 1e-3);
                assert_true(t->round >= 0 && t->round < 6);
                drift_rounds[t->round]++;
            } else {
                assert_int_equal(t->pairs[1].calls, 0);
            }
        }
    }
    for (int r = 0; r < 6; r++)
        assert_int_equal(drift_rounds[r], 1); /* every round has its drift pair */
    /* the timed windows (fresh messages, after calibration) are the last
     * 30: per round, the two cells' and the primary's two, the second's one */
    int count[4] = {0};
    assert_true(window_log_n > 30);
    for (size_t g = window_log_n - 30; g < window_log_n; g++)
        count[window_log[g]]++;
    assert_int_equal(count[0], 12);
    assert_int_equal(count[1], 6);
    assert_int_equal(count[2], 6);
    assert_int_equal(count[3], 6);
    free_cells(c, 4);
}

/* Each cell's pair is its primary's median window of the round, by cost
 * per call, not its own group's: with the baseline's windows costing 1,
 * 1.1 and 1.2 times its cost in turn, three cells a round. */
static void test_round_pair_median(void **state)
{
    (void)state;
    set_libs();
    libs[3] = (fake_lib){"C", 2500, 0, 0, 0, 0, 0, 0, 0, 0};
    n_libs = 4;
    base_wobble = 1;
    ilv_cell *c = cells_for(4, 256);
    assert_int_equal(run(c, 4, 5, 0), 0);
    int differs = 0;
    for (size_t i = 1; i < 4; i++) {
        assert_true(c[i].out.ok);
        assert_int_equal(c[i].out.n_trials, 5);
        for (size_t k = 0; k < 5; k++) {
            const plan_trial *t = &c[i].out.trials[k];
            double per[3];
            size_t m = 0;
            for (size_t q = 0; q < c[0].out.n_trials; q++)
                if (c[0].out.trials[q].round == t->round && m < 3)
                    per[m++] = (double)c[0].out.trials[q].r.ticks /
                               (double)c[0].out.trials[q].r.calls;
            assert_int_equal(m, 3);
            double lo = per[0] < per[1] ? per[0] : per[1], hi = per[0] < per[1] ? per[1] : per[0];
            double med = per[2] < lo ? lo : per[2] > hi ? hi : per[2];
            assert_near((double)t->pair_ticks / (double)t->pair_calls, med, 1e-9 * med);
            differs |= t->pairs[0].calls != t->pair_calls;
        }
    }
    assert_true(differs); /* not merely each group's own window */
    free_cells(c, 4);
}

/* A built-in baseline with no other cell at its size (a campaign of the
 * baselines alone, as `bench/accuracy.sh` measures them) takes as many
 * windows of its own as a cell takes groups, each a figure. */
static void test_baseline_alone(void **state)
{
    (void)state;
    set_libs();
    ilv_cell *c = cells_for(1, 256);
    assert_int_equal(run(c, 1, 6, 0), 0);
    assert_true(c[0].out.ok);
    assert_int_equal(c[0].out.n_trials, 6);
    for (size_t k = 0; k < 6; k++)
        assert_true(c[0].out.trials[k].r.calls > 0 && c[0].out.trials[k].r.ticks > 0);
    free_cells(c, 1);
}

/* A package baseline P (cell 1, not trusted): a cell with its own groups
 * (with the built-in baseline) and a window in the groups of A, which
 * names it; its own record holds its own groups only, and it is held to
 * its calibration like any instance. */
static void test_package_baseline(void **state)
{
    (void)state;
    set_libs();
    libs[1] = (fake_lib){"P", 4000, 0, 0, 0, 0, 0, 0, 0, 0};
    ilv_cell *c = cells_for(3, 256);
    c[2].baselines[1] = 1;
    c[2].n_baselines = 2;
    assert_int_equal(run(c, 3, 4, 0), 0);
    assert_true(c[1].out.ok && c[2].out.ok);
    assert_int_equal(c[0].out.n_trials, 8);
    assert_int_equal(c[1].out.n_trials, 4);
    for (size_t k = 0; k < 4; k++) {
        const plan_trial *p = &c[1].out.trials[k], *a = &c[2].out.trials[k];
        assert_int_equal(p->pairs[1].calls, 0);
        assert_near(ratio_to(p, 0), 4.0, 1e-3);
        assert_near(ratio_to(a, 0), libs[2].cost_ns / 1000.0, 1e-3);
        assert_near(ratio_to(a, 1), libs[2].cost_ns / 4000.0, 1e-3);
    }
    free_cells(c, 3);
    set_libs();
    libs[1] = (fake_lib){"P", 2000, 0, 0, 1, 0, 0, 0, 0, 0}; /* slow only while calibrated */
    c = cells_for(3, 256);
    c[2].baselines[1] = 1;
    c[2].n_baselines = 2;
    assert_int_equal(run(c, 3, 4, 0), 0);
    assert_false(c[1].out.ok);
    assert_true(c[1].out.inconsistent);
    assert_true(c[2].out.ok); /* a failed package baseline leaves the groups */
    free_cells(c, 3);
}

static void test_faked_digests_caught(void **state)
{
    (void)state;
    set_libs();
    libs[1].fake_every = 50; /* 2 % of its calls */
    ilv_cell *c = cells_for(3, 256);
    assert_int_equal(run(c, 3, 6, 1), 0);
    assert_false(c[1].out.ok);
    assert_true(c[1].out.inconsistent);
    assert_non_null(strstr(c[1].out.failure, "differs from openssl:SM3"));
    assert_true(c[2].out.ok);
    free_cells(c, 3);
}

/* The resident memory a session's open and close read reaches the cell's
 * outcome (the record's RSS figures with sessions), for every cell. */
static void test_resident_memory(void **state)
{
    (void)state;
    set_libs();
    libs[2].grow_kb = 24576;
    ilv_cell *c = cells_for(3, 256);
    assert_int_equal(run(c, 3, 4, 0), 0);
    for (size_t i = 0; i < 3; i++) {
        assert_true(c[i].out.ok);
        assert_int_equal(c[i].out.rss_known, 1);
        assert_int_equal(c[i].out.rss_open_kb, 1000);
    }
    assert_int_equal(c[0].out.rss_peak_kb, 1000);
    assert_int_equal(c[1].out.rss_peak_kb, 1000);
    assert_int_equal(c[2].out.rss_peak_kb, 1000 + 24576);
    free_cells(c, 3);
}

static void test_gained_cpu_inconsistent(void **state)
{
    (void)state;
    set_libs();
    libs[2].gain_after = 6;
    ilv_cell *c = cells_for(3, 256);
    assert_int_equal(run(c, 3, 4, 0), 0);
    assert_true(c[1].out.ok);
    assert_false(c[2].out.ok);
    assert_true(c[2].out.inconsistent);
    assert_non_null(strstr(c[2].out.failure, "outside its windows"));
    free_cells(c, 3);
}

static void test_slow_calibration_inconsistent(void **state)
{
    (void)state;
    set_libs();
    libs[1].slow_calibration = 1;
    ilv_cell *c = cells_for(3, 256);
    assert_int_equal(run(c, 3, 4, 0), 0);
    assert_false(c[1].out.ok);
    assert_true(c[1].out.inconsistent);
    assert_non_null(strstr(c[1].out.failure, "calibration"));
    assert_true(c[2].out.ok);
    free_cells(c, 3);
}

/* The host slowed calibration once: calibration is taken again, and the
 * cell is measured. */
static void test_slow_calibration_once_recalibrated(void **state)
{
    (void)state;
    set_libs();
    libs[1].slow_calibration = 2;
    ilv_cell *c = cells_for(3, 256);
    assert_int_equal(run(c, 3, 4, 1), 0); /* the samples survive the new calibration */
    assert_true(c[1].out.ok);
    assert_int_equal(c[1].out.n_trials, 4);
    free_cells(c, 3);
}

/* A slow cell stops at its explicit budget after 2 pairs, the others take
 * their pairs; without a budget it takes them all. */
static void test_budget(void **state)
{
    (void)state;
    set_libs();
    libs[2].sleep_ms = 100;
    budget_s = 0.3;
    ilv_cell *c = cells_for(3, 64);
    assert_int_equal(run(c, 3, 6, 0), 0);
    assert_true(c[2].out.ok);
    assert_int_equal(c[2].out.n_trials, 2);
    assert_int_equal(c[2].out.stopped, PLAN_STOP_BUDGET);
    assert_int_equal(c[1].out.n_trials, 6);
    assert_int_equal(c[1].out.stopped, PLAN_STOP_TRIALS);
    free_cells(c, 3);
    set_libs();
    libs[2].sleep_ms = 10;
    c = cells_for(3, 64);
    assert_int_equal(run(c, 3, 6, 0), 0);
    assert_int_equal(c[2].out.n_trials, 6);
    free_cells(c, 3);
}

/* An instance whose wall budget runs out during its windows ends TIMEOUT
 * with the line that names the budget; its session's time is charged. */
static void test_instance_budget(void **state)
{
    (void)state;
    set_libs();
    libs[2].sleep_ms = 50;
    instance_left[2] = 0.6;
    ilv_cell *c = cells_for(3, 64);
    assert_int_equal(run(c, 3, 16, 0), 0);
    assert_false(c[2].out.ok);
    assert_non_null(strstr(c[2].out.failure, "TIMEOUT: wall budget of the instance spent"));
    /* its session's time is charged (not held to the 0.6 s: the deadline is
     * wall time, in which the other cells' windows, which a loaded host
     * stretches, also pass; the TIMEOUT above says the budget ended it) */
    assert_true(charged[2] > 0.1);
    assert_true(c[1].out.ok);
    assert_true(charged[1] > 0);
    free_cells(c, 3);
}

/* A library that sleeps or waits in its calls gets no figure. */
static void test_waits_fail(void **state)
{
    (void)state;
    set_libs();
    libs[1].waits = 1;
    ilv_cell *c = cells_for(3, 256);
    assert_int_equal(run(c, 3, 4, 0), 0);
    assert_false(c[1].out.ok);
    assert_false(c[1].out.inconsistent);
    assert_non_null(strstr(c[1].out.failure, "slept or waited"));
    assert_true(c[2].out.ok);
    free_cells(c, 3);
}

static void test_failure_ends_cell(void **state)
{
    (void)state;
    set_libs();
    libs[2].fail_at = 9;
    ilv_cell *c = cells_for(3, 256);
    assert_int_equal(run(c, 3, 6, 0), 0);
    assert_false(c[2].out.ok);
    assert_false(c[2].out.inconsistent);
    assert_string_equal(c[2].out.failure, "CRASH: signal 11");
    assert_int_equal(windows_after_failure, 0); /* no retry */
    assert_true(c[1].out.ok);
    free_cells(c, 3);
}

static void test_baseline_failure_fails_its_size(void **state)
{
    (void)state;
    set_libs();
    libs[0].fail_at = 30;
    ilv_cell *c = cells_for(3, 256);
    assert_int_equal(run(c, 3, 8, 0), 0);
    assert_false(c[0].out.ok);
    assert_false(c[1].out.ok);
    assert_non_null(strstr(c[1].out.failure, "baseline's session failed"));
    free_cells(c, 3);
}

static void test_cycles_counted_or_repeated(void **state)
{
    (void)state;
    set_libs();
    libs[1].multiplexed = 1; /* half its windows are not counted: repeated */
    libs[2].multiplexed = 2; /* never counted: the cell fails, never a mix */
    ilv_cell *c = cells_for(3, 256);
    for (size_t i = 0; i < 3; i++)
        c[i].tmpl.counter = COUNTER_PERF_CYCLES;
    assert_int_equal(run(c, 3, 4, 0), 0);
    assert_true(c[1].out.ok);
    assert_string_equal(c[1].out.figure, "cycles");
    for (size_t k = 0; k < c[1].out.n_trials; k++) {
        const plan_trial *t = &c[1].out.trials[k];
        assert_true(t->r.cycles_known);
        assert_near(t->r.ticks, 3 * 2000.0 * (double)t->r.calls, 1.0);
    }
    assert_false(c[2].out.ok);
    assert_non_null(strstr(c[2].out.failure, "cycle counter"));
    free_cells(c, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pairs_exact),
        cmocka_unit_test(test_two_baselines_grouped),
        cmocka_unit_test(test_round_pair_median),
        cmocka_unit_test(test_passes_span_sizes),
        cmocka_unit_test(test_package_baseline),
        cmocka_unit_test(test_baseline_alone),
        cmocka_unit_test(test_faked_digests_caught),
        cmocka_unit_test(test_resident_memory),
        cmocka_unit_test(test_gained_cpu_inconsistent),
        cmocka_unit_test(test_slow_calibration_inconsistent),
        cmocka_unit_test(test_slow_calibration_once_recalibrated),
        cmocka_unit_test(test_budget),
        cmocka_unit_test(test_instance_budget),
        cmocka_unit_test(test_waits_fail),
        cmocka_unit_test(test_failure_ends_cell),
        cmocka_unit_test(test_baseline_failure_fails_its_size),
        cmocka_unit_test(test_cycles_counted_or_repeated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
