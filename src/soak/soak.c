/* The long-run stability check: see soak.h. One soaked runner per
 * instance; calls go in batches of SOAK_BATCH, after each of which the
 * batch's digests are recomputed and the soaked process is read from
 * outside. Nothing the library returns chooses a message: every message
 * comes from the soak's key, which the library never sees. */
#include "soak/soak.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <openssl/evp.h>

#include "common/clock.h"
#include "common/digest.h"
#include "common/fs.h"
#include "common/json.h"
#include "kat/kat.h"
#include "measure/procview.h"
#include "measure/settings.h"
#include "measure/xcheck.h"
#include "rundir/rundir.h"
#include "runner/client.h"
#include "sandbox/sandbox.h"

static const size_t guide_sizes[] = {SETTINGS_DEFAULT_SIZES_LIST};
#define N_GUIDE (sizeof guide_sizes / sizeof guide_sizes[0])

int soak_call(const msggen_key *key, unsigned long long i, msggen_key *msg_key,
              size_t *len, hb_err *err)
{
    unsigned char block[64];
    if (i >= MSGGEN_STREAM_BYTES / 64)
        return hb_fail(err, "call %llu is beyond the soak key's stream", i);
    if (msggen_fill(key, 64 * i, block, sizeof block, err) != 0)
        return -1;
    memcpy(msg_key->k, block, MSGGEN_KEY_BYTES);
    unsigned long long u = 0;
    for (int b = 7; b >= 0; b--)
        u = (u << 8) | block[32 + b];
    if (i < N_GUIDE) {
        *len = guide_sizes[i];
    } else if (u % 4 == 0) {
        *len = guide_sizes[(u >> 2) % N_GUIDE];
    } else {
        unsigned e = (unsigned)((u >> 2) % 17);
        *len = e == 0 ? 0 : ((size_t)1 << (e - 1)) + (size_t)((u >> 8) % (1ULL << (e - 1)));
    }
    return 0;
}

/* ---- readings from outside ---------------------------------------------- */

typedef struct soak_reading {
    long long rss_kib, fds, maps;
} soak_reading;

static long long count_fds(long pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/fd", pid);
    DIR *d = opendir(path);
    if (!d)
        return -1;
    long long n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n;
}

static long long count_maps(long pid)
{
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/%ld/maps", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    long long n = 0;
    while (fgets(line, sizeof line, f))
        if (strchr(line, '\n'))
            n++;
    fclose(f);
    return n;
}

static void read_outside(long pid, soak_reading *r)
{
    r->rss_kib = procview_status_value(pid, "VmRSS");
    r->fds = count_fds(pid);
    r->maps = count_maps(pid);
}

/* ---- one soak ----------------------------------------------------------- */

typedef struct soak_state {
    const soak_target *t;
    msggen_key key;
    size_t d;                         /* digest bytes */
    unsigned char *msg;               /* SOAK_MAX_BYTES */
    unsigned char got[SOAK_BATCH][KAT_MAX_DIGEST_BYTES];
    unsigned char want[SOAK_BATCH][KAT_MAX_DIGEST_BYTES];
    unsigned long long first;         /* the batch's first call */
    int n;                            /* its calls */
    EVP_MD *md;
    runner_session ref;
    int ref_open;
    unsigned long long ref_calls;
    /* the verdict */
    const char *verdict;
    unsigned long long fail_call;
    char what[1024];
} soak_state;

/* Call I's message into S->msg; its length in *LEN, its key in *MK. */
static int message(soak_state *s, unsigned long long i, msggen_key *mk, size_t *len,
                   hb_err *err)
{
    if (soak_call(&s->key, i, mk, len, err) != 0)
        return -1;
    return msggen_fill(mk, 0, s->msg, *len, err);
}

static void fail(soak_state *s, const char *verdict, unsigned long long call,
                 const char *fmt, const char *a, const char *b)
{
    s->verdict = verdict;
    s->fail_call = call;
    if (snprintf(s->what, sizeof s->what, fmt, a, b) < 0)
        s->what[0] = '\0';
}

/* The status word of runner R that stopped answering. */
static const char *gone_word(runner_session *r, char *why, size_t sz)
{
    hb_proc_result res;
    runner_close(r, &res);
    const char *st = runner_gone_status(r, &res);
    snprintf(why, sz, "%s%s%s", st, r->why[0] ? ": " : "", r->why);
    return st;
}

/* A fresh recomputing runner. 0, 1 when it did not load (a failure of the
 * soak, S says so), -1. */
static int ref_open(soak_state *s, hb_err *err)
{
    char loadfail[512];
    runner_target rt = {s->t->lib, s->t->digest_bits, 600.0, 0};
    int rc = runner_open(&s->ref, &rt, loadfail, sizeof loadfail, err);
    if (rc < 0)
        return -1;
    if (rc == 1) {
        hb_proc_result res;
        runner_close(&s->ref, &res);
        fail(s, SOAK_NOT_RUN, s->first, "a recomputing process: %s%s", loadfail, "");
        return 1;
    }
    s->ref_open = 1;
    s->ref_calls = 0;
    return 0;
}

/* The batch's digests recomputed into S->want. 0 (S->verdict may be set
 * by a recomputing process that failed), or -1. */
static int recompute(soak_state *s, hb_err *err)
{
    msggen_key mk;
    size_t len;
    if (s->md) {
        for (int j = 0; j < s->n; j++) {
            unsigned int out = 0;
            if (message(s, s->first + (unsigned)j, &mk, &len, err) != 0)
                return -1;
            if (EVP_Digest(s->msg, len, s->want[j], &out, s->md, NULL) != 1 ||
                out != s->d)
                return hb_fail(err, "OpenSSL's %s failed on a message of %zu bytes",
                               s->t->evp_name, len);
        }
        return 0;
    }
    /* a secret order: the recomputing process cannot tell which call of
     * the soaked one a message is */
    int order[SOAK_BATCH];
    unsigned rnd[SOAK_BATCH];
    if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd)
        return hb_fail_errno(err, "getrandom");
    for (int j = 0; j < s->n; j++)
        order[j] = j;
    for (int j = s->n - 1; j > 0; j--) {
        int k = (int)(rnd[j] % (unsigned)(j + 1)), x = order[j];
        order[j] = order[k];
        order[k] = x;
    }
    for (int q = 0; q < s->n; q++) {
        int j = order[q];
        if (s->ref_open && s->ref_calls >= SOAK_REFERENCE_CALLS) {
            hb_proc_result res;
            runner_close(&s->ref, &res);
            s->ref_open = 0;
        }
        if (!s->ref_open) {
            int rc = ref_open(s, err);
            if (rc != 0)
                return rc < 0 ? -1 : 0;
        }
        if (message(s, s->first + (unsigned)j, &mk, &len, err) != 0)
            return -1;
        kat_fault f;
        s->ref.deadline = hb_mono_s() + SOAK_CALL_LIMIT_S;
        int rc = runner_hash(&s->ref, s->msg, 8ULL * len, s->want[j], &f, err);
        s->ref_calls++;
        if (rc < 0)
            return -1;
        if (rc == RUNNER_CALL_FAULT) {
            fail(s, SOAK_FAULT, s->first + (unsigned)j, "in a recomputing process: %s%s",
                 f.detail, "");
            return 0;
        }
        if (rc == RUNNER_CALL_GONE) {
            char why[400];
            const char *st = gone_word(&s->ref, why, sizeof why);
            s->ref_open = 0;
            fail(s, st, s->first + (unsigned)j, "a recomputing process ended: %s%s", why, "");
            return 0;
        }
    }
    return 0;
}

/* The first call of the batch whose digest differs from its
 * recomputation, as the verdict. */
static void compare(soak_state *s)
{
    for (int j = 0; j < s->n && !s->verdict; j++) {
        if (memcmp(s->got[j], s->want[j], s->d) == 0)
            continue;
        char got[2 * KAT_MAX_DIGEST_BYTES + 1], want[2 * KAT_MAX_DIGEST_BYTES + 1];
        hb_hex_encode(s->got[j], s->d, got, 0);
        hb_hex_encode(s->want[j], s->d, want, 0);
        fail(s, SOAK_WRONG, s->first + (unsigned)j, "digest %s, recomputed %s", got, want);
        snprintf(s->what + strlen(s->what), sizeof s->what - strlen(s->what), " (by %s)",
                 s->t->verified_by ? s->t->verified_by : "");
    }
}

/* Growth beyond the thresholds since BASE, as the verdict at call CALL. */
static void check_growth(soak_state *s, const soak_reading *base, const soak_reading *r,
                         unsigned long long call)
{
    char a[160], b[8] = "";
    if (base->rss_kib >= 0 && r->rss_kib >= 0 && r->rss_kib - base->rss_kib > SOAK_RSS_GROWTH_KIB)
        snprintf(a, sizeof a, "resident memory grew from %lld KiB to %lld KiB (more than "
                 "%lld KiB)", base->rss_kib, r->rss_kib, SOAK_RSS_GROWTH_KIB);
    else if (base->fds >= 0 && r->fds >= 0 && r->fds - base->fds > SOAK_FD_GROWTH)
        snprintf(a, sizeof a, "open descriptors grew from %lld to %lld (more than %d)",
                 base->fds, r->fds, SOAK_FD_GROWTH);
    else if (base->maps >= 0 && r->maps >= 0 && r->maps - base->maps > SOAK_MAPS_GROWTH)
        snprintf(a, sizeof a, "mappings grew from %lld to %lld (more than %d)", base->maps,
                 r->maps, SOAK_MAPS_GROWTH);
    else
        return;
    fail(s, SOAK_LEAK, call, "%s%s", a, b);
}

static void reading_json(json_t *o, const char *name, const soak_reading *r)
{
    json_object_set_new(o, name, json_pack("{sIsIsI}", "rss_kib", (json_int_t)r->rss_kib,
                                           "fds", (json_int_t)r->fds, "maps",
                                           (json_int_t)r->maps));
}

static void max_reading(soak_reading *m, const soak_reading *r)
{
    if (r->rss_kib > m->rss_kib)
        m->rss_kib = r->rss_kib;
    if (r->fds > m->fds)
        m->fds = r->fds;
    if (r->maps > m->maps)
        m->maps = r->maps;
}

/* One call of the soaked runner R, on a message of *LEN bytes: 0
 * answered, 1 the verdict is set, -1. */
static int soaked_call(soak_state *s, runner_session *r, int j, size_t *len, hb_err *err)
{
    msggen_key mk;
    kat_fault f;
    unsigned long long i = s->first + (unsigned)j;
    if (message(s, i, &mk, len, err) != 0)
        return -1;
    r->deadline = hb_mono_s() + SOAK_CALL_LIMIT_S; /* client.h: the session's deadline */
    int rc = runner_hash(r, s->msg, 8ULL * *len, s->got[j], &f, err);
    if (rc < 0)
        return -1;
    if (rc == RUNNER_CALL_FAULT) {
        fail(s, SOAK_FAULT, i, "%s%s", f.detail, "");
        return 1;
    }
    if (rc == RUNNER_CALL_GONE) {
        char why[400];
        const char *st = gone_word(r, why, sizeof why);
        fail(s, st, i, "the process ended: %s%s", why, "");
        return 1;
    }
    return 0;
}

int soak_target_run(const soak_target *t, const soak_limits *l, json_t **out, hb_err *err)
{
    soak_state *s = calloc(1, sizeof *s);
    *out = NULL;
    if (!s || !(s->msg = malloc(SOAK_MAX_BYTES + 1))) {
        free(s);
        return hb_fail(err, "out of memory for a soak");
    }
    int rc = -1;
    runner_session r;
    int r_open = 0;
    s->t = t;
    s->d = (size_t)t->digest_bits / 8;
    if (l->key)
        s->key = *l->key;
    else if (msggen_new_key(&s->key, err) != 0)
        goto done;
    if (t->evp_name) {
        s->md = EVP_MD_fetch(NULL, t->evp_name, NULL);
        if (!s->md || (size_t)EVP_MD_get_size(s->md) != s->d) {
            hb_fail(err, "OpenSSL has no %d-bit digest named %s", t->digest_bits, t->evp_name);
            goto done;
        }
    }
    char loadfail[512];
    double limit = l->duration_s > 0 ? l->duration_s + SOAK_RUNNER_GRACE_S : SOAK_REPLAY_LIMIT_S;
    runner_target rt = {t->lib, t->digest_bits, limit, 0};
    int orc = runner_open(&r, &rt, loadfail, sizeof loadfail, err);
    if (orc < 0)
        goto done;
    r_open = 1;
    if (orc == 1)
        fail(s, SOAK_NOT_RUN, 0, "%s%s", loadfail, "");
    long pid = procview_host_pid(r.child.pid, hb_sandbox_enabled());
    soak_reading base = {-1, -1, -1}, now = {-1, -1, -1}, peak = {-1, -1, -1};
    unsigned long long calls = 0, bytes = 0;
    size_t min_len = SIZE_MAX, max_len = 0;
    double t0 = hb_mono_s(), elapsed = 0;
    while (!s->verdict) {
        s->first = calls;
        s->n = 0;
        while (s->n < SOAK_BATCH && !s->verdict) {
            if (l->calls && calls >= l->calls)
                break;
            if (l->duration_s > 0 && hb_mono_s() - t0 >= l->duration_s)
                break;
            size_t len = 0;
            int c = soaked_call(s, &r, s->n, &len, err);
            if (c < 0)
                goto done;
            if (c > 0)
                break;
            s->n++;
            calls++;
            bytes += len;
            min_len = len < min_len ? len : min_len;
            max_len = len > max_len ? len : max_len;
        }
        if (s->verdict || s->n == 0)
            break;
        if (recompute(s, err) != 0)
            goto done;
        if (!s->verdict)
            compare(s);
        if (s->verdict)
            break;
        read_outside(pid, &now);
        if (base.rss_kib < 0 && base.fds < 0 && base.maps < 0) {
            base = peak = now;
        } else {
            max_reading(&peak, &now);
            check_growth(s, &base, &now, calls - 1);
        }
    }
    elapsed = hb_mono_s() - t0;
    if (!s->verdict && s->md == NULL && s->ref_open) {
        hb_proc_result res;
        runner_close(&s->ref, &res);
        s->ref_open = 0;
    }
    char key_hex[MSGGEN_KEY_HEX];
    msggen_key_hex(&s->key, key_hex);
    json_t *o = json_object();
    json_object_set_new(o, "verdict", json_string(s->verdict ? s->verdict : SOAK_STABLE));
    json_object_set_new(o, "key", json_string(key_hex));
    json_object_set_new(o, "rule", json_string(SOAK_RULE));
    json_object_set_new(o, "duration_s", json_real(l->duration_s));
    json_object_set_new(o, "calls_limit", json_integer((json_int_t)l->calls));
    json_object_set_new(o, "seconds", json_real(elapsed));
    json_object_set_new(o, "calls", json_integer((json_int_t)calls));
    json_object_set_new(o, "bytes", json_integer((json_int_t)bytes));
    json_object_set_new(o, "length_min", json_integer(calls ? (json_int_t)min_len : 0));
    json_object_set_new(o, "length_max", json_integer((json_int_t)max_len));
    json_object_set_new(o, "verified_by", json_string(t->verified_by ? t->verified_by : ""));
    json_t *w = json_object();
    reading_json(w, "start", &base);
    reading_json(w, "peak", &peak);
    reading_json(w, "end", &now);
    json_object_set_new(w, "limits", json_pack("{sIsisi}", "rss_growth_kib",
                                               (json_int_t)SOAK_RSS_GROWTH_KIB, "fds_growth",
                                               SOAK_FD_GROWTH, "maps_growth",
                                               SOAK_MAPS_GROWTH));
    json_object_set_new(o, "outside", w);
    if (s->verdict) {
        msggen_key mk;
        size_t len = 0;
        char mk_hex[MSGGEN_KEY_HEX] = "";
        if (soak_call(&s->key, s->fail_call, &mk, &len, err) == 0)
            msggen_key_hex(&mk, mk_hex);
        json_object_set_new(o, "failure",
                            json_pack("{sIsssIss}", "call", (json_int_t)s->fail_call,
                                      "message_key", mk_hex, "length_bytes",
                                      (json_int_t)len, "what", s->what));
    }
    *out = o;
    rc = 0;
done:
    if (r_open) {
        hb_proc_result res;
        runner_close(&r, &res);
    }
    if (s->ref_open) {
        hb_proc_result res;
        runner_close(&s->ref, &res);
    }
    EVP_MD_free(s->md);
    free(s->msg);
    free(s);
    return rc;
}

/* ---- the stage ---------------------------------------------------------- */

static const char *field(const json_t *o, const char *name)
{
    const char *v = hb_json_str(o, name);
    return v ? v : "";
}

static int soak_one(const soak_options *o, const json_t *k, const json_t *b, int *stable,
                    hb_err *err)
{
    const char *cand = field(k, "candidate"), *inst = field(k, "instance");
    rundir_library used;
    rundir_instance_library(b, k, &used);
    int bits = (int)json_integer_value(json_object_get(b, "digest_bits"));
    if (!used.library || bits <= 0 || strchr(cand, '/') || strchr(inst, '/') ||
        !cand[0] || !inst[0] || cand[0] == '.' || inst[0] == '.')
        return hb_fail(err, "%s/%s: entry %.64s/%.64s has no usable name, library or digest "
                       "size; run hashbench kat again", o->run_dir, RUNDIR_KAT_JSON, cand, inst);
    char lib[PATH_MAX], rec[PATH_MAX], rel[PATH_MAX], sha[HB_SHA256_HEX] = "";
    if (hb_path_join(lib, sizeof lib, o->run_dir, used.library, err) != 0 ||
        snprintf(rel, sizeof rel, SOAK_DIR "/%s/%s.json", cand, inst) >= (int)sizeof rel ||
        hb_path_join(rec, sizeof rec, o->run_dir, rel, err) != 0)
        return -1;
    hb_err ignored;
    if (hb_sha256_file_hex(lib, sha, &ignored) != 0)
        sha[0] = '\0';
    if (o->progress)
        o->progress(o->ctx, cand, inst, NULL);
    /* OpenSSL for a standard function; a near-standard one, which differs
     * where it chose to, and any other, by fresh runners of its library */
    xcheck_plan *p = calloc(1, sizeof *p);
    if (!p)
        return hb_fail(err, "out of memory");
    json_t *r = NULL;
    hb_err why;
    int rc = 0;
    if (!sha[0] || !used.library_sha256 || strcmp(sha, used.library_sha256) != 0)
        rc = hb_fail(&why, "%s: its SHA-256 is not the one %s records for the library the "
                     "KAT stage tested; run hashbench build and kat again", lib,
                     RUNDIR_KAT_JSON);
    if (rc == 0)
        rc = xcheck_choose(o->run_dir, cand, inst, XCHECK_OPENSSL | XCHECK_SELF, p, &why);
    if (rc == 0 && p->kind == XCHECK_OPENSSL && p->near)
        rc = xcheck_choose(o->run_dir, cand, inst, XCHECK_SELF, p, &why);
    if (rc != 0) {
        r = json_pack("{sssIsIsIs{sIsssIss}}", "verdict", SOAK_NOT_RUN, "calls",
                      (json_int_t)0, "bytes", (json_int_t)0, "length_max", (json_int_t)0,
                      "failure", "call", (json_int_t)0, "message_key", "", "length_bytes",
                      (json_int_t)0, "what", why.msg);
    } else {
        soak_target t = {lib, bits, p->kind == XCHECK_OPENSSL ? p->evp_name : NULL, p->by};
        if (soak_target_run(&t, &o->limits, &r, err) != 0) {
            free(p);
            return -1;
        }
    }
    free(p);
    json_object_set_new(r, "schema", json_string("soak/1"));
    json_object_set_new(r, "candidate", json_string(cand));
    json_object_set_new(r, "instance", json_string(inst));
    json_object_set_new(r, "library", json_string(used.library));
    json_object_set_new(r, "library_sha256", json_string(sha));
    json_object_set_new(r, "digest_bits", json_integer(bits));
    json_object_set_new(r, "sandboxed", json_boolean(hb_sandbox_enabled()));
    rc = hb_mkdirs_for(rec, err) == 0 && hb_json_save(rec, r, err) == 0 ? 0 : -1;
    *stable = strcmp(field(r, "verdict"), SOAK_STABLE) == 0;
    if (rc == 0 && o->progress)
        o->progress(o->ctx, cand, inst, r);
    json_decref(r);
    return rc;
}

int soak_run(const soak_options *o, int *n_stable, int *n_failed, hb_err *err)
{
    kat_passed passed;
    *n_stable = *n_failed = 0;
    int rc = kat_passed_load(o->run_dir, (const char **)o->instances, o->n_instances,
                             &passed, err);
    runner_path();
    for (size_t i = 0; rc == 0 && i < passed.n; i++) {
        const json_t *k = passed.kat[i], *b = passed.build[i];
        if (rundir_is_baseline(field(k, "candidate"), field(k, "instance")) ||
            rundir_entry_builtin_baseline(b))
            continue;
        int stable = 0;
        rc = soak_one(o, k, b, &stable, err);
        if (rc == 0)
            (*(stable ? n_stable : n_failed))++;
    }
    kat_passed_free(&passed);
    return rc;
}

void soak_reproduce_command(const json_t *record, const char *run_dir, char *out, size_t sz)
{
    const json_t *f = json_object_get(record, "failure");
    out[0] = '\0';
    if (!f || strcmp(field(record, "verdict"), SOAK_NOT_RUN) == 0 || !field(record, "key")[0])
        return;
    snprintf(out, sz, "hashbench soak --run-dir %s --instances %s/%s --key %s --calls %lld",
             run_dir, field(record, "candidate"), field(record, "instance"),
             field(record, "key"),
             (long long)json_integer_value(json_object_get(f, "call")) + 1);
}
