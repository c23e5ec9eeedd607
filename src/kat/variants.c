/* The comparison of an instance's variants: see variants.h. All variants of
 * a group are opened at once, each in its own runner; every message goes to
 * each of them in turn and each answer is compared with the first
 * variant's. A variant that fails (crash, timeout, error return, write
 * outside its digest, no CryptHash) leaves the comparison with a named
 * outcome and the others go on; the first variant failing ends it. */
#include "kat/variants.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>
#include "compile/build.h"
#include "common/digest.h"
#include "common/untrusted.h"
#include "common/fs.h"
#include "common/json.h"
#include "kat/drng.h"
#include "runner/client.h"
#include "common/clock.h"
#include "rundir/ibudget.h"

#define VARIANTS_DEFAULT_TIMEOUT_S 600.0 /* as the KAT's own default */

/* One variant of a group while it is compared. */
typedef struct member {
    const json_t *build;            /* its build.json entry */
    const char *instance, *variant, *library, *sha, *flags_kind;
    runner_session s;
    int opened;                     /* runner_close is due */
    int live;                       /* still asked */
    const char *outcome;            /* NULL while OK */
    char detail[300];
    long fail_index;                /* the message it failed on; -1: none */
    unsigned long long fail_bits;
    unsigned long answered, compared, disagreements;
    long first_index;               /* first disagreement; -1: none */
    unsigned long long first_bits;
    double timeout_s;               /* its runner's wall limit */
    int budget_limited;             /* its instance's wall budget set it */
    unsigned char digest[KAT_MAX_DIGEST_BYTES];
    char first_hex[2 * KAT_MAX_DIGEST_BYTES + 1];      /* its digest there */
    char first_base_hex[2 * KAT_MAX_DIGEST_BYTES + 1]; /* the first variant's */
} member;

int variants_seed_valid(const char *text)
{
    size_t n = 0;
    while (text[n] && isxdigit((unsigned char)text[n]))
        n++;
    return n == VARIANTS_SEED_DIGITS && text[n] == '\0';
}

int variants_message(const variants_stream *st, unsigned long index, unsigned char *msg,
                     unsigned long long *bits, hb_err *err)
{
    char text[VARIANTS_SEED_DIGITS + 32];
    unsigned char seed[DRNG_SEED_BYTES], w[4];
    drng d;
    snprintf(text, sizeof text, "%s-%lu", st->seed, index);
    drng_seed_text(text, seed);
    if (drng_init(&d, seed, sizeof seed, err) != 0)
        return -1;
    int rc = drng_generate(&d, w, 32, err);
    if (rc == 0) {
        unsigned long long m = index % 2 ? st->short_max_bits : st->max_bits;
        unsigned long v = (unsigned long)w[0] << 24 | (unsigned long)w[1] << 16 |
                          (unsigned long)w[2] << 8 | w[3];
        *bits = v % (m + 1);
        if (msg)
            rc = drng_generate(&d, msg, *bits, err);
    }
    drng_free(&d);
    return rc;
}

/* ---- groups ---- */

static int same_group(const json_t *a, const json_t *b)
{
    return strcmp(hb_json_str(a, "candidate"), hb_json_str(b, "candidate")) == 0 &&
           strcmp(build_algorithm_instance(a), build_algorithm_instance(b)) == 0 &&
           json_integer_value(json_object_get(a, "digest_bits")) ==
               json_integer_value(json_object_get(b, "digest_bits"));
}

static int comparable(const json_t *b)
{
    return !rundir_entry_builtin_baseline(b) &&
           strcmp(hb_json_str(b, "status"), "BUILT") == 0;
}

/* The groups of LIST: an array of arrays of (borrowed) build entries, each
 * in build.json order except that the group's Reference variant, if any,
 * comes first. Groups of one are left out. */
static json_t *find_groups(const json_t *list)
{
    json_t *groups = json_array();
    size_t i, j;
    json_t *b, *g;
    json_array_foreach(list, i, b) {
        if (!comparable(b))
            continue;
        json_t *home = NULL;
        json_array_foreach(groups, j, g)
            if (same_group(json_array_get(g, 0), b))
                home = g;
        if (!home) {
            home = json_array();
            json_array_append_new(groups, home);
        }
        if (strcmp(hb_json_str(b, "variant"), "Reference") == 0 &&
            strcmp(hb_json_str(json_array_get(home, 0), "variant"), "Reference") != 0)
            json_array_insert(home, 0, b);
        else
            json_array_append(home, b);
    }
    for (i = json_array_size(groups); i-- > 0;)
        if (json_array_size(json_array_get(groups, i)) < 2)
            json_array_remove(groups, i);
    return groups;
}

/* The library each member is compared with: the one its KAT in this run
 * directory chose (after a flag fallback, the harness-default rebuild),
 * else (a variant of another shard) the guide build of build.json. */
static void fill_members(const json_t *group, json_t *kat_list, member *m)
{
    size_t i, idx;
    json_t *b;
    json_array_foreach(group, i, b) {
        const json_t *k = kat_find_entry(kat_list, hb_json_str(b, "candidate"),
                                         hb_json_str(b, "instance"), &idx);
        const json_t *src = k && hb_json_str(k, "library_sha256")[0] ? k : b;
        memset(&m[i], 0, sizeof m[i]);
        m[i].build = b;
        m[i].instance = hb_json_str(b, "instance");
        m[i].variant = hb_json_str(b, "variant");
        m[i].library = hb_json_str(src, "library");
        m[i].sha = hb_json_str(src, "library_sha256");
        m[i].flags_kind = hb_json_str(src, "flags_kind");
        m[i].fail_index = m[i].first_index = -1;
    }
}

/* ---- reuse ---- */

static long long int_of(const json_t *o, const char *k)
{
    return json_integer_value(json_object_get(o, k));
}

/* 1 when OLD (a "variants" result) still stands for the members M[0..n). */
static int reusable(const json_t *old, const member *m, size_t n, const kat_options *o)
{
    const json_t *list = json_object_get(old, "members");
    if (!json_is_object(old) || int_of(old, "messages") != VARIANTS_MESSAGES ||
        int_of(old, "max_bits") != VARIANTS_MAX_BITS ||
        int_of(old, "short_max_bits") != VARIANTS_SHORT_MAX_BITS ||
        !variants_seed_valid(hb_json_str(old, "seed")) || json_array_size(list) != n)
        return 0;
    if (o->variants_seed && strcasecmp(o->variants_seed, hb_json_str(old, "seed")) != 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        const json_t *e = json_array_get(list, i);
        if (strcmp(hb_json_str(e, "instance"), m[i].instance) != 0 ||
            strcmp(hb_json_str(e, "library_sha256"), m[i].sha) != 0)
            return 0;
    }
    return 1;
}

/* ---- the comparison ---- */

static int new_seed(const kat_options *o, variants_stream *st, hb_err *err)
{
    unsigned char raw[VARIANTS_SEED_DIGITS / 2];
    if (o->variants_seed) {
        for (int i = 0; i <= VARIANTS_SEED_DIGITS; i++)
            st->seed[i] = (char)tolower((unsigned char)o->variants_seed[i]);
        return 0;
    }
    size_t got = 0;
    while (got < sizeof raw) {
        ssize_t r = getrandom(raw + got, sizeof raw - got, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return hb_fail_errno(err, "getrandom cannot give the variant check's seed");
        got += (size_t)r;
    }
    hb_hex_encode(raw, sizeof raw, st->seed, 0);
    return 0;
}

static void failed(member *m, const char *outcome, long index, unsigned long long bits,
                   const char *detail)
{
    m->live = 0;
    m->outcome = outcome;
    m->fail_index = index;
    m->fail_bits = bits;
    if (snprintf(m->detail, sizeof m->detail, "%s", detail) < 0)
        m->detail[0] = '\0';
    hb_one_line(m->detail);
}

/* Starts the runner of M; a library that does not load is LOADFAIL. */
static int open_member(const char *run_dir, member *m, double timeout_s, hb_err *err)
{
    char rel[PATH_MAX], abs[PATH_MAX], why[256];
    if (hb_path_join(rel, sizeof rel, run_dir, m->library, err) != 0)
        return -1;
    if (!m->library[0] || !realpath(rel, abs)) {
        failed(m, "LOADFAIL", -1, 0, "the library file is missing; run 'hashbench "
               "build' on this run directory again");
        return 0;
    }
    runner_target t = {abs, (int)int_of(m->build, "digest_bits"), timeout_s, 0};
    int rc = runner_open(&m->s, &t, why, sizeof why, err);
    if (rc < 0)
        return -1;
    m->opened = 1;
    m->live = rc == 0;
    if (rc == 1)
        failed(m, "LOADFAIL", -1, 0, why);
    return 0;
}

static ibudget budget_of(const kat_options *o, const member *m)
{
    ibudget b = {o->run_dir, hb_json_str(m->build, "candidate"), m->instance,
                 o->instance_budget_s};
    return b;
}

/* How a runner that stopped answering (GONE) ended. */
static void classify_gone(const kat_options *o, member *m, const hb_proc_result *res,
                          double timeout_s)
{
    char how[128];
    m->outcome = runner_gone_status(&m->s, res);
    if (m->budget_limited && (res->timed_out || (res->signaled && res->signo == SIGXCPU))) {
        ibudget b = budget_of(o, m);
        m->outcome = "TIMEOUT";
        ibudget_reason(&b, m->detail, sizeof m->detail);
    } else if (res->timed_out)
        snprintf(m->detail, sizeof m->detail, "no answer within %.0f s", timeout_s);
    else if (res->signaled && res->signo == SIGXCPU)
        snprintf(m->detail, sizeof m->detail, "no answer within %.0f s of CPU time",
                 timeout_s);
    else if (strcmp(m->outcome, "CRASH") == 0)
        snprintf(m->detail, sizeof m->detail, "%s", hb_proc_describe(res, how, sizeof how));
    else
        snprintf(m->detail, sizeof m->detail, "the library ended the process (%s)%s%.200s",
                 hb_proc_describe(res, how, sizeof how), m->s.why[0] ? ": " : "", m->s.why);
    hb_one_line(m->detail);
}

/* Sends message I (BITS bits) to every live member; 0, or -1 on our own
 * failure. */
static int ask_all(member *m, size_t n, long i, const unsigned char *msg,
                   unsigned long long bits, hb_err *err)
{
    for (size_t k = 0; k < n; k++) {
        if (!m[k].live)
            continue;
        kat_fault f;
        int rc = runner_hash(&m[k].s, msg, bits, m[k].digest, &f, err);
        if (rc < 0)
            return -1;
        if (rc == RUNNER_CALL_OK) {
            m[k].answered++;
        } else if (rc == RUNNER_CALL_FAULT) {
            failed(&m[k], f.kind == KAT_FAULT_OVERFLOW ? "OVERFLOW" : "ERROR", i, bits,
                   f.detail);
        } else {
            m[k].live = 0; /* classified when closed */
            m[k].fail_index = i;
            m[k].fail_bits = bits;
        }
    }
    return 0;
}

/* Compares every live member's digest of message I with the first one's. */
static void compare_all(member *m, size_t n, long i, unsigned long long bits, size_t d)
{
    for (size_t k = 1; k < n; k++) {
        if (!m[k].live)
            continue;
        m[k].compared++;
        if (memcmp(m[k].digest, m[0].digest, d) == 0)
            continue;
        if (m[k].disagreements++ == 0) {
            m[k].first_index = i;
            m[k].first_bits = bits;
            hb_hex_encode(m[k].digest, d, m[k].first_hex, 1);
            hb_hex_encode(m[0].digest, d, m[k].first_base_hex, 1);
        }
    }
}

static int any_other_live(const member *m, size_t n)
{
    for (size_t k = 1; k < n; k++)
        if (m[k].live)
            return 1;
    return 0;
}

/* Runs the messages of ST through the members; every runner is closed
 * whatever happens. */
static int compare(const kat_options *o, const variants_stream *st, member *m, size_t n,
                   size_t d, hb_err *err)
{
    double timeout = o->timeout_s > 0 ? o->timeout_s : VARIANTS_DEFAULT_TIMEOUT_S;
    double t0 = hb_mono_s();
    unsigned char *msg = malloc(st->max_bits / 8 + 1);
    int rc = msg ? 0 : hb_fail(err, "out of memory");
    /* each runner gets no more than what is left of its instance's wall
     * budget; a spent budget is TIMEOUT without a runner */
    for (size_t k = 0; k < n && rc == 0; k++) {
        ibudget b = budget_of(o, &m[k]);
        rc = ibudget_step_timeout(&b, timeout, &m[k].timeout_s, &m[k].budget_limited, err);
        if (rc == 0 && ibudget_spent(&b, err) == 1) {
            char why[300];
            ibudget_reason(&b, why, sizeof why);
            failed(&m[k], "TIMEOUT", -1, 0, why);
            continue;
        }
        if (rc == 0)
            rc = open_member(o->run_dir, &m[k], m[k].timeout_s, err);
    }
    for (long i = 0; rc == 0 && i < VARIANTS_MESSAGES && m[0].live && any_other_live(m, n);
         i++) {
        unsigned long long bits;
        rc = variants_message(st, (unsigned long)i, msg, &bits, err);
        if (rc == 0)
            rc = ask_all(m, n, i, msg, bits, err);
        if (rc == 0 && m[0].live)
            compare_all(m, n, i, bits, d);
    }
    for (size_t k = 0; k < n; k++) {
        hb_proc_result res;
        int gone = m[k].opened && m[k].s.gone && !m[k].outcome;
        if (m[k].opened)
            runner_close(&m[k].s, &res);
        if (gone)
            classify_gone(o, &m[k], &res, m[k].timeout_s);
    }
    for (size_t k = 0; k < n; k++) { /* every runner ran for the whole check */
        ibudget b = budget_of(o, &m[k]);
        hb_err cerr;
        if (m[k].opened && ibudget_charge(&b, IBUDGET_VARIANTS, hb_mono_s() - t0, &cerr) != 0 &&
            rc == 0) {
            *err = cerr;
            rc = -1;
        }
    }
    free(msg);
    return rc;
}

/* ---- the result ---- */

static json_t *at_json(long index, unsigned long long bits)
{
    if (index < 0)
        return json_null();
    return json_pack("{s:I, s:I}", "index", (json_int_t)index, "bits", (json_int_t)bits);
}

static json_t *member_json(const member *m, int first)
{
    json_t *e = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:o, s:s}",
        "instance", m->instance, "variant", m->variant, "library_sha256", m->sha,
        "flags_kind", m->flags_kind, "outcome", m->outcome ? m->outcome : "OK",
        "answered", (json_int_t)m->answered,
        "failed_at", at_json(m->fail_index, m->fail_bits),
        "detail", "");
    if (e)
        hb_untrusted_set(e, "detail", m->detail);
    if (!e || first)
        return e;
    json_object_set_new(e, "compared", json_integer((json_int_t)m->compared));
    json_object_set_new(e, "disagreements", json_integer((json_int_t)m->disagreements));
    json_t *fd = at_json(m->first_index, m->first_bits);
    if (m->first_index >= 0) {
        json_object_set_new(fd, "first_digest", json_string(m->first_base_hex));
        json_object_set_new(fd, "digest", json_string(m->first_hex));
    }
    json_object_set_new(e, "first_disagreement", fd);
    return e;
}

/* AGREE: every variant answered every message alike; DISAGREE: some
 * variant's digest differed; INCOMPLETE: none differed, but some variant
 * failed before the last message. */
static const char *verdict_of(const member *m, size_t n)
{
    int complete = 1;
    for (size_t k = 0; k < n; k++) {
        if (k > 0 && m[k].disagreements)
            return "DISAGREE";
        complete &= !m[k].outcome && m[k].answered == VARIANTS_MESSAGES;
    }
    return complete ? "AGREE" : "INCOMPLETE";
}

static json_t *result_json(const json_t *group, const variants_stream *st, const member *m,
                           size_t n, const char *seed_source, double seconds)
{
    const json_t *b = json_array_get(group, 0);
    json_t *members = json_array();
    for (size_t k = 0; k < n; k++)
        json_array_append_new(members, member_json(&m[k], k == 0));
    return json_pack("{s:s, s:I, s:s, s:s, s:i, s:i, s:i, s:s, s:s, s:f, s:o}",
        "algorithm_instance", build_algorithm_instance(b),
        "digest_bits", (json_int_t)int_of(b, "digest_bits"),
        "seed", st->seed, "seed_source", seed_source,
        "messages", VARIANTS_MESSAGES, "max_bits", (int)st->max_bits,
        "short_max_bits", (int)st->short_max_bits, "rule", VARIANTS_RULE,
        "verdict", verdict_of(m, n), "seconds", seconds, "members", members);
}

/* Checks GROUP (or keeps its result) and stores it on the first variant's
 * kat.json entry. */
static int check_group(const kat_options *o, const json_t *group, json_t *kat_list,
                       int *n_failed, hb_err *err)
{
    size_t n = json_array_size(group), idx;
    const json_t *first = json_array_get(group, 0);
    json_t *entry = kat_find_entry(kat_list, hb_json_str(first, "candidate"),
                                   hb_json_str(first, "instance"), &idx);
    if (!entry)
        return 0; /* not KAT-tested in this run directory */
    member *m = calloc(n, sizeof *m);
    if (!m)
        return hb_fail(err, "out of memory");
    fill_members(group, kat_list, m);
    json_t *result = json_object_get(entry, "variants");
    int rc = 0;
    if (!reusable(result, m, n, o)) {
        variants_stream st = {"", VARIANTS_MAX_BITS, VARIANTS_SHORT_MAX_BITS};
        size_t d = (size_t)int_of(first, "digest_bits") / 8;
        double t0 = hb_mono_s();
        rc = new_seed(o, &st, err);
        if (rc == 0)
            rc = compare(o, &st, m, n, d, err);
        if (rc == 0) {
            result = result_json(group, &st, m, n, o->variants_seed ? "given" : "getrandom",
                                 hb_mono_s() - t0);
            rc = result ? json_object_set_new(entry, "variants", result)
                        : hb_fail(err, "out of memory");
        }
    }
    if (rc == 0 && strcmp(hb_json_str(result, "verdict"), "AGREE") != 0)
        (*n_failed)++;
    free(m);
    return rc;
}

/* 1 when ENTRY heads one of GROUPS. */
static int heads_group(const json_t *entry, const json_t *groups)
{
    size_t i;
    json_t *g;
    json_array_foreach(groups, i, g) {
        const json_t *b = json_array_get(g, 0);
        if (strcmp(hb_json_str(b, "candidate"), hb_json_str(entry, "candidate")) == 0 &&
            strcmp(hb_json_str(b, "instance"), hb_json_str(entry, "instance")) == 0)
            return 1;
    }
    return 0;
}

int variants_run(const kat_options *o, const json_t *build_list, json_t *kat_doc,
                 const char *kat_path, int *n_failed, hb_err *err)
{
    json_t *kat_list = json_object_get(kat_doc, "instances");
    json_t *groups = find_groups(build_list);
    size_t i;
    json_t *g, *e;
    int rc = 0, total = 0, done = 0;
    json_array_foreach(groups, i, g) {
        const json_t *b = json_array_get(g, 0);
        total += kat_selected(o, hb_json_str(b, "candidate"), hb_json_str(b, "instance"));
    }
    json_array_foreach(groups, i, g) {
        const json_t *b = json_array_get(g, 0);
        char step[300];
        if (rc != 0 ||
            !kat_selected(o, hb_json_str(b, "candidate"), hb_json_str(b, "instance")))
            continue;
        snprintf(step, sizeof step, "variants %s/%s", hb_json_str(b, "candidate"),
                 build_algorithm_instance(b));
        if (o->progress)
            o->progress(o->progress_ctx, step, done++, total);
        rc = check_group(o, g, kat_list, n_failed, err);
        if (rc == 0)
            rc = hb_json_save(kat_path, kat_doc, err);
    }
    json_array_foreach(kat_list, i, e) {
        if (rc == 0 && json_object_get(e, "variants") && !heads_group(e, groups) &&
            kat_selected(o, hb_json_str(e, "candidate"), hb_json_str(e, "instance"))) {
            json_object_del(e, "variants");
            rc = hb_json_save(kat_path, kat_doc, err);
        }
    }
    json_decref(groups);
    return rc;
}
