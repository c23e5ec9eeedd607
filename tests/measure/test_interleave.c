/* The interleaved planner with a scripted probe (no process is started):
 * rounds in which every cell still short of its rule gets exactly one trial,
 * in the order ilv_order draws from the seed; each cell's trial beside a
 * trial of its baseline, recorded as its pair; the batch-means interval and
 * the paired ratio against values computed by hand; a host whose speed
 * drifts between moments, under which the paired ratio stays exact while
 * the unpaired one does not; budgets that hold when every trial is
 * disturbed and when calls are slow; and a stage killed in the middle of a
 * round that resumes from its journal with the finished rounds kept. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "measure/interleave.h"
#include "measure/journal.h"
#include "measure/stats.h"
#include "probe/trial_msg.h"

#define CLOSE(a, b) assert_true(fabs((double)(a) - (double)(b)) <= 1e-9 * (fabs((double)(b)) + 1))
#define MAX_LOG 4096

/* The scripted host: a call of library "A" costs 2 units, "B" 3, the
 * baseline "base" 1; a unit is 1000 ns times the host's speed factor of the
 * moment, which changes every MOMENT timed trials (so a pair shares it when
 * the moment is long enough). */
typedef struct fake_host {
    int moment;             /* timed trials per moment; 0: a steady host */
    int disturb_all;        /* 1: every timed trial ticks at half the rate */
    int fail_at;            /* timed trial at which the runner errs; -1 none */
    double sleep_s;         /* wall time of each timed trial */
    double unit_ns;
    int timed;
    char log[MAX_LOG][8];   /* the library of each timed trial, in order */
    unsigned long long seeds[MAX_LOG];
} fake_host;

static double cost_units(const char *lib)
{
    return !strcmp(lib, "A") ? 2.0 : !strcmp(lib, "B") ? 3.0 : 1.0;
}

static int fake_run(const trial_request *rq, trial_result *r, void *ctx, hb_err *err)
{
    fake_host *h = ctx;
    memset(r, 0, sizeof *r);
    if (!rq->calibrate && h->timed == h->fail_at)
        return hb_fail(err, "the runner was killed");
    double speed = 1.0;
    if (!rq->calibrate && h->moment > 0)
        speed = 1.0 + 0.5 * sin((double)(h->timed / h->moment)); /* drifts by moments */
    if (!rq->calibrate && h->timed < MAX_LOG) {
        snprintf(h->log[h->timed], sizeof h->log[0], "%s", rq->lib);
        h->seeds[h->timed] = 0x1000 + (unsigned long long)h->timed;
        r->seed = h->seeds[h->timed];
    }
    if (!rq->calibrate) {
        h->timed++;
        if (h->sleep_s > 0) {
            struct timespec ts = {0, (long)(h->sleep_s * 1e9)};
            nanosleep(&ts, NULL);
        }
    }
    r->ok = 1;
    r->calls = rq->calls;
    r->ns = (unsigned long long)llround((double)rq->calls * cost_units(rq->lib) *
                                        h->unit_ns * speed);
    r->ticks = h->disturb_all && !rq->calibrate ? r->ns : 2 * r->ns; /* 2 GHz */
    r->pid = 100 + h->timed;
    r->cpu = 0;
    r->rss_baseline_kb = 100;
    r->rss_peak_kb = 120;
    r->stack_peak_bytes = r->heap_peak_bytes = r->heap_allocs = -1;
    memset(r->fold, 'a', TM_FOLD_HEX - 1);
    snprintf(r->digest, sizeof r->digest, "ab");
    return 0;
}

static void fake_init(fake_host *h)
{
    memset(h, 0, sizeof *h);
    h->fail_at = -1;
    h->unit_ns = 1000;
}

static plan_settings settings(fake_host *h)
{
    /* a target below zero is never met, even by the steady host's 0 */
    plan_settings s = {.planner = "interleaved-processes", .min_trials = 4, .target_ci_percent = -1,
                       .budget_s = 1000, .budget_explicit = 1, .max_retries = 2,
                       .max_trials = 9, .host_rate_hz = 2e9, .run = fake_run,
                       .run_ctx = h, .seed = 0x5eed};
    return s;
}

/* Cells A and B at one size paired with the baseline (cell 2). */
static void cells3(ilv_cell *c)
{
    const char *libs[] = {"A", "B", "base"};
    memset(c, 0, 3 * sizeof *c);
    for (int i = 0; i < 3; i++) {
        c[i].tmpl.lib = libs[i];
        c[i].tmpl.size = 64;
        c[i].tmpl.cpu = -1;
        c[i].tmpl.digest_bits = 256;
        c[i].baseline = i < 2 ? 2 : -1;
    }
}

static void free_cells(ilv_cell *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        plan_outcome_free(&c[i].out);
}

static void test_order(void **state)
{
    (void)state;
    size_t a[8], b[8], c[8], d[8];
    ilv_order(42, 0, 8, a);
    ilv_order(42, 0, 8, b);
    ilv_order(42, 1, 8, c);
    ilv_order(43, 0, 8, d);
    int seen[8] = {0};
    for (int i = 0; i < 8; i++) {
        assert_true(a[i] < 8);
        seen[a[i]]++;
    }
    for (int i = 0; i < 8; i++)
        assert_int_equal(seen[i], 1); /* a permutation */
    assert_memory_equal(a, b, sizeof a); /* the seed reproduces it */
    assert_memory_not_equal(a, c, sizeof a); /* another round, another order */
    assert_memory_not_equal(a, d, sizeof a); /* another seed, another order */
}

/* A group's order (a cell's window and its baselines'): a permutation the
 * seed reproduces, each of the three places taken first in some slots. */
static void test_group_order(void **state)
{
    (void)state;
    size_t a[3], b[3];
    int first[3] = {0}, differ = 0;
    for (size_t slot = 0; slot < 64; slot++) {
        ilv_group_order(42, 3, slot, 3, a);
        ilv_group_order(42, 3, slot, 3, b);
        assert_memory_equal(a, b, sizeof a);
        assert_int_equal((1 << a[0]) | (1 << a[1]) | (1 << a[2]), 7);
        first[a[0]]++;
        ilv_group_order(43, 3, slot, 3, b);
        differ |= memcmp(a, b, sizeof a) != 0;
    }
    assert_true(first[0] > 0 && first[1] > 0 && first[2] > 0);
    assert_true(differ);
}

/* Every round gives each cell one trial in ilv_order's order, the
 * baseline's trial right beside it (before or after as the coin says), and
 * the pair recorded with the baseline trial's own figures. */
static void test_rounds_and_pairs(void **state)
{
    (void)state;
    fake_host h;
    fake_init(&h);
    plan_settings s = settings(&h);
    ilv_cell c[3];
    cells3(c);
    hb_err err;
    assert_int_equal(ilv_run(c, 3, &s, NULL, &err), 0);
    /* both cells stop on their trial cap, 9 kept */
    for (int i = 0; i < 2; i++) {
        assert_true(c[i].out.ok);
        assert_int_equal(c[i].out.n_trials, 9);
        assert_int_equal(c[i].out.stopped, PLAN_STOP_TRIALS);
    }
    assert_int_equal(c[2].out.n_trials, 18); /* one beside each of theirs */
    size_t pos = 0;
    for (int round = 0; round < 9; round++) {
        size_t order[2];
        ilv_order(s.seed, round, 2, order);
        for (size_t slot = 0; slot < 2; slot++) {
            const char *cell = order[slot] == 0 ? "A" : "B";
            int first = ilv_baseline_first(s.seed, round, slot);
            assert_string_equal(h.log[pos + (first ? 1 : 0)], cell);
            assert_string_equal(h.log[pos + (first ? 0 : 1)], "base");
            const plan_trial *t = &c[order[slot]].out.trials[round];
            assert_int_equal(t->round, round);
            assert_int_equal(t->slot, (int)slot);
            assert_true(t->paired);
            assert_int_equal(t->pair_seed, h.seeds[pos + (first ? 0 : 1)]);
            assert_int_equal(t->r.seed, h.seeds[pos + (first ? 1 : 0)]);
            pos += 2;
        }
    }
    /* the rounds mix the cells: not every round has the same order */
    int differ = 0;
    for (int round = 1; round < 9; round++)
        differ |= strcmp(h.log[4 * round + (ilv_baseline_first(s.seed, round, 0) ? 1 : 0)],
                         h.log[ilv_baseline_first(s.seed, 0, 0) ? 1 : 0]) != 0;
    assert_true(differ);
    free_cells(c, 3);
}

/* The batch-means interval and the paired ratio on numbers worked by hand:
 * nine kept trials of one call, 10 10 10 12 12 12 14 14 14 ticks (batches
 * of three: means 10, 12, 14), each paired with a baseline trial of 5
 * ticks, and a disturbed trial that counts nowhere. */
static void test_interval_by_hand(void **state)
{
    (void)state;
    const double ticks[] = {10, 10, 10, 12, 12, 12, 14, 14, 14};
    stats_trial t[10];
    memset(t, 0, sizeof t);
    for (int i = 0; i < 9; i++) {
        t[i] = (stats_trial){.calls = 1, .ticks = ticks[i], .ns = 5, .paired = 1,
                             .pair_calls = 1, .pair_ticks = 5};
    }
    t[9] = (stats_trial){.calls = 1, .ticks = 1000, .ns = 5, .disturbed = 1,
                         .paired = 1, .pair_calls = 1, .pair_ticks = 5};
    stats_derived d;
    hb_err err;
    assert_int_equal(stats_derive(t, 10, 1, STATS_CI_BATCH, &d, &err), 0);
    assert_int_equal(d.batches, 3);
    CLOSE(d.mean_ticks_per_call, 12);
    /* t(0.975, 2) = 4.3027; sd of 10, 12, 14 = 2; 4.3027 * 2 / sqrt(3) */
    CLOSE(d.ci95_low, 12 - 4.968330006484406);
    CLOSE(d.ci95_high, 12 + 4.968330006484406);
    /* ratios 2, 2.4, 2.8 (three each): geometric mean and its interval */
    assert_int_equal(d.pairs, 9);
    CLOSE(d.ratio, 2.3775687811052517);
    CLOSE(d.ratio_ci95_low, 1.5646531859881188);
    CLOSE(d.ratio_ci95_high, 3.612834690466183);
    /* the same trials as if independent: a much narrower interval */
    stats_derived iid;
    assert_int_equal(stats_derive(t, 10, 1, STATS_CI_IID, &iid, &err), 0);
    assert_true(iid.ci95_high - iid.ci95_low < d.ci95_high - d.ci95_low);
    assert_int_equal(iid.pairs, 0);
    json_t *j = stats_derived_json(&d);
    assert_string_equal(json_string_value(json_object_get(j, "interval")), "batch_means");
    CLOSE(json_real_value(json_object_get(json_object_get(j, "paired_ratio"), "ratio")),
          d.ratio);
    json_decref(j);
}

/* A host whose speed changes from moment to moment (by up to 50 %): the
 * cell's absolute figure moves with it, the paired ratio does not. */
static void test_drift_cancels_in_pairs(void **state)
{
    (void)state;
    fake_host h;
    fake_init(&h);
    h.moment = 2; /* a cell's trial and its pair share a moment */
    plan_settings s = settings(&h);
    s.max_trials = 16;
    ilv_cell c[3];
    cells3(c); /* every slot two trials, so a slot is one moment */
    hb_err err;
    assert_int_equal(ilv_run(c, 3, &s, NULL, &err), 0);
    stats_trial t[64];
    const plan_outcome *o = &c[0].out;
    assert_true(o->n_trials <= 64);
    memset(t, 0, sizeof t);
    for (size_t i = 0; i < o->n_trials; i++) {
        t[i].calls = o->trials[i].r.calls;
        t[i].ticks = (double)o->trials[i].r.ticks;
        t[i].ns = (double)o->trials[i].r.ns;
        t[i].paired = o->trials[i].paired;
        t[i].pair_calls = o->trials[i].pair_calls;
        t[i].pair_ticks = (double)o->trials[i].pair_ticks;
    }
    stats_derived d;
    assert_int_equal(stats_derive(t, o->n_trials, 64, STATS_CI_BATCH, &d, &err), 0);
    assert_true(fabs(d.ratio - 2.0) < 1e-3);
    assert_true(d.ratio_ci95_rel_percent < 0.1);
    assert_true(d.ci95_rel_percent > 5.0); /* the absolute figure drifts */
    free_cells(c, 3);
}

/* Every trial disturbed, an explicit budget of 0.2 s and trials of 10 ms:
 * the cell stops within its budget, having charged its pairs to it. */
static void test_budget_all_disturbed(void **state)
{
    (void)state;
    fake_host h;
    fake_init(&h);
    h.disturb_all = 1;
    h.sleep_s = 0.01;
    plan_settings s = settings(&h);
    s.budget_s = 0.2;
    s.max_trials = 200;
    ilv_cell c[3];
    cells3(c);
    hb_err err;
    assert_int_equal(ilv_run(c, 3, &s, NULL, &err), 0);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(c[i].out.stopped, PLAN_STOP_BUDGET);
        /* (its elapsed time is not held to the budget: the stop is decided
         * on the pairs' predicted cost, which a loaded host stretches) */
        assert_true(c[i].out.elapsed_s > 0);
        /* at most ten slots of 20 ms (its 10 ms and its pair's 10 ms); at
         * least one (a busy host stretches the sleeps, so no more is sure) */
        assert_true(c[i].out.n_trials >= 1 && c[i].out.n_trials <= 10);
        assert_false(c[i].out.ok);          /* nothing kept: no figure */
    }
    free_cells(c, 3);
}

/* 20 ms a call: trials of one call. */
static void test_slow_calls(void **state)
{
    (void)state;
    fake_host h;
    fake_init(&h);
    h.unit_ns = 2e7;
    plan_settings s = settings(&h);
    ilv_cell c[3];
    cells3(c);
    hb_err err;
    assert_int_equal(ilv_run(c, 3, &s, NULL, &err), 0);
    assert_int_equal(c[0].out.calls_per_trial, 1);
    free_cells(c, 3);
}

typedef struct journal_ctx {
    const char *path;
    const char *const *keys;
    const plan_settings *s;
    int rounds;
} journal_ctx;

static int keep_round(void *ctx, int round, const ilv_cell *cells, size_t n, size_t active,
                      hb_err *err)
{
    (void)active;
    journal_ctx *j = ctx;
    j->rounds = round + 1;
    return journal_save(j->path, j->s, round, j->keys, cells, n, err);
}

/* Killed in the middle of round 3 (its first slot done): the journal holds
 * rounds 0-2; the next run takes them back and goes on from round 3 with
 * the same seed, so the cells end with the same rounds as an unkilled run. */
static void test_resume_mid_round(void **state)
{
    (void)state;
    char path[] = "/tmp/hb-ilv-journal-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    unlink(path);
    const char *keys[] = {"A 1", "B 1", "base 1"};
    fake_host h;
    fake_init(&h);
    h.fail_at = 3 * 4 + 2; /* rounds of 4 trials: round 3's second slot */
    plan_settings s = settings(&h);
    journal_ctx jc = {path, keys, &s, 0};
    ilv_hooks hooks = {keep_round, &jc, 0};
    ilv_cell c[3];
    cells3(c);
    hb_err err;
    assert_int_equal(ilv_run(c, 3, &s, &hooks, &err), -1);
    assert_int_equal(jc.rounds, 3);
    free_cells(c, 3);

    fake_host h2;
    fake_init(&h2);
    plan_settings s2 = settings(&h2);
    s2.seed = 1; /* the journal's seed wins */
    cells3(c);
    int first = -1;
    assert_int_equal(journal_load(path, &s2, keys, c, 3, &first, &err), 0);
    assert_int_equal(first, 3);
    assert_int_equal(s2.seed, s.seed);
    assert_int_equal(c[0].out.n_trials, 3);
    assert_true(c[0].resumed);
    jc.s = &s2;
    hooks.first_round = first;
    assert_int_equal(ilv_run(c, 3, &s2, &hooks, &err), 0);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(c[i].out.n_trials, 9);
        for (int r = 0; r < 9; r++)
            assert_int_equal(c[i].out.trials[r].round, r);
        assert_true(c[i].out.trials[2].paired);
        assert_int_equal(c[i].out.trials[2].pair_seed, h.seeds[0] +
                         (unsigned long long)(c[i].out.trials[2].pair_seed - h.seeds[0]));
    }
    /* the resumed run took only the rounds left: 6 rounds of 4 trials */
    assert_int_equal(h2.timed, 6 * 4);
    /* another settings' journal restores nothing */
    free_cells(c, 3);
    cells3(c);
    plan_settings s3 = settings(&h2);
    s3.min_trials = 5;
    assert_int_equal(journal_load(path, &s3, keys, c, 3, &first, &err), 0);
    assert_int_equal(first, 0);
    assert_false(c[0].resumed);
    free_cells(c, 3);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order),
        cmocka_unit_test(test_group_order),
        cmocka_unit_test(test_rounds_and_pairs),
        cmocka_unit_test(test_interval_by_hand),
        cmocka_unit_test(test_drift_cancels_in_pairs),
        cmocka_unit_test(test_budget_all_disturbed),
        cmocka_unit_test(test_slow_calls),
        cmocka_unit_test(test_resume_mid_round),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
