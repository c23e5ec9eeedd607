/* The runner's check of a cell's digests: see verify.h. */
#include "measure/verify.h"
#include "common/untrusted.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "runner/client.h"

#define VERIFY_BASE_TIMEOUT_S 30.0
#define VERIFY_TIMEOUT_FACTOR 10.0 /* the runner's guarded calls are slower */

/* The fold state behind its hex form (trial_msg.h: tm_fold_hex). */
static int fold_from_hex(const char hex[TM_FOLD_HEX], tm_fold *f)
{
    char a[17], b[17], *end;
    if (strlen(hex) != TM_FOLD_HEX - 1)
        return -1;
    memcpy(a, hex, 16);
    memcpy(b, hex + 16, 16);
    a[16] = b[16] = '\0';
    f->a = strtoull(a, &end, 16);
    if (*end)
        return -1;
    f->b = strtoull(b, &end, 16);
    return *end ? -1 : 0;
}

/* Wall-clock limit for the runner: the trials' own timed time, scaled. */
static double runner_timeout(const plan_outcome *o)
{
    double ns = 0;
    for (size_t i = 0; i < o->n_trials; i++)
        ns += (double)o->trials[i].r.ns;
    double t = VERIFY_BASE_TIMEOUT_S + VERIFY_TIMEOUT_FACTOR * 2 * ns * 1e-9;
    return t > VERIFY_MAX_TIMEOUT_S ? VERIFY_MAX_TIMEOUT_S : t;
}

/* What a call that did not answer means for the check. */
static int not_answered(runner_session *s, int rc, const kat_fault *f, const char *what,
                        char *why, size_t whysz)
{
    if (rc == RUNNER_CALL_FAULT)
        snprintf(why, whysz, "the runner, hashing %s again, met a fault the probe did "
                 "not: %s", what, f->detail);
    else
        snprintf(why, whysz, "the runner could not recompute %s%s%s", what,
                 s->why[0] ? ": " : "", s->why);
    return 1;
}

/* The call checked on its own: trial T, call K, hashed alone, then the
 * runner's folds of the calls before it and up to it. */
static int spot_check(runner_session *s, const plan_trial *t, unsigned long long size,
                      int digest_bits, unsigned long long k, char *why, size_t whysz,
                      hb_err *err)
{
    char before[TM_FOLD_HEX], after[TM_FOLD_HEX], mine[TM_FOLD_HEX], what[96];
    unsigned char digest[KAT_MAX_DIGEST_BYTES];
    kat_fault f;
    snprintf(what, sizeof what, "call %llu of a trial on its own", k);
    unsigned char *m = malloc(size ? size : 1);
    if (!m)
        return hb_fail(err, "out of memory for a %llu-byte message", size);
    tm_base(m, size, t->r.seed);
    tm_apply(m, size, tm_word(t->r.seed, k));
    int rc = runner_hash(s, m, 8 * size, digest, &f, err);
    if (rc == RUNNER_CALL_OK)
        rc = runner_fold(s, t->r.seed, size, k, before, &f, err);
    if (rc == RUNNER_CALL_OK)
        rc = runner_fold(s, t->r.seed, size, k + 1, after, &f, err);
    free(m);
    if (rc < 0)
        return -1;
    if (rc != RUNNER_CALL_OK)
        return not_answered(s, rc, &f, what, why, whysz);
    tm_fold state;
    if (fold_from_hex(before, &state) != 0)
        return not_answered(s, RUNNER_CALL_GONE, &f, what, why, whysz);
    tm_fold_add(&state, digest, (size_t)digest_bits / 8);
    tm_fold_hex(&state, mine);
    if (strcmp(mine, after) == 0)
        return 0;
    snprintf(why, whysz, "call %llu of the trial with seed %016llx, hashed on its own, "
             "gives another digest than within its trial", k,
             (unsigned long long)t->r.seed);
    return 1;
}

int verify_outcome(const char *lib, int digest_bits, unsigned long long size,
                   const plan_outcome *o, double limit_s, verify_report *vr, char *why,
                   size_t whysz, hb_err *err)
{
    memset(vr, 0, sizeof *vr);
    vr->spot_trial = -1;
    why[0] = '\0';
    if (o->n_trials == 0)
        return 0;
    double timeout = runner_timeout(o);
    if (limit_s > 0 && limit_s < timeout)
        timeout = limit_s;
    runner_target t = {lib, digest_bits, timeout, 0};
    runner_session s;
    char loadfail[300];
    int rc = runner_open(&s, &t, loadfail, sizeof loadfail, err);
    if (rc < 0)
        return -1;
    if (rc == 1)
        snprintf(why, whysz, "the runner could not load the library to recompute the "
                 "digests: %s", loadfail);
    /* the call on its own first, while the runner has seen none of the
     * trials' messages, so that nothing can tie it to its trial */
    if (rc == 0) {
        uint64_t pick[2] = {0, 0};
        if (getrandom(pick, sizeof pick, 0) != (ssize_t)sizeof pick)
            pick[0] = pick[1] = (uint64_t)o->processes; /* still a check */
        vr->spot_trial = (long)(pick[0] % o->n_trials);
        const plan_trial *tr = &o->trials[vr->spot_trial];
        vr->spot_call = tr->r.calls ? pick[1] % tr->r.calls : 0;
        rc = spot_check(&s, tr, size, digest_bits, vr->spot_call, why, whysz, err);
    }
    for (size_t i = 0; rc == 0 && i < o->n_trials; i++) {
        const trial_result *r = &o->trials[i].r;
        char fold[TM_FOLD_HEX], what[64];
        kat_fault f;
        snprintf(what, sizeof what, "the digests of trial %zu", i);
        int c = runner_fold(&s, r->seed, size, r->calls, fold, &f, err);
        if (c < 0)
            rc = -1;
        else if (c != RUNNER_CALL_OK)
            rc = not_answered(&s, c, &f, what, why, whysz);
        else if (strcmp(fold, r->fold) != 0) {
            /* the folds are the library's bytes: raw text (common/untrusted.h) */
            char folds[2 * TM_FOLD_HEX + 16];
            snprintf(why, whysz, "trial %zu (seed %016llx): the probe's digest fold "
                     "differs from the runner's", i, (unsigned long long)r->seed);
            snprintf(folds, sizeof folds, "%s, %s", r->fold, fold);
            hb_untrusted_append(why, whysz, folds, sizeof folds);
            rc = 1;
        } else {
            vr->folds_checked++;
        }
    }
    hb_proc_result res;
    runner_close(&s, &res);
    return rc;
}
