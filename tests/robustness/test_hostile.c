/* The hostile-submission campaign (SPEC §8): one `hashbench run` over the
 * package tests/robustness/hostile, whose instances each misbehave in one
 * way (crash, hang, exit, overflow, over-read, input change, varying
 * digest, error return, unbounded allocation, stack overflow, megabytes of
 * garbage output, a child that outlives it, a 30 s stall on the 1000th
 * call, a crashing constructor, no CryptHash) beside one healthy instance.
 * The campaign runs once (group setup), together with a second campaign of
 * the healthy instance alone; the tests then check from outside:
 * - the run ends, within a bound, with exit status 1 and says instances
 *   failed, without relaying the garbage;
 * - every hostile instance has its own status in kat.json and in its KAT
 *   log's RESULT line, and its records are FAILED with a reason (or it is
 *   not timed, with the reason stated);
 * - the healthy instance passes, its records are complete, its digests are
 *   those of the toy hash computed here, its derived figures follow from its
 *   raw trials, and its results have the same structure and the same
 *   digests as when it is assessed alone;
 * - no process the run started is left (environment token, pid file of the
 *   forking fixture, command lines and working folders naming the run). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "rb_util.h"
#include "hostile/Implementations/Reference_Implementation/toyhash.h"

#define PKG_NAME "hostile"
#define IMPL "Implementations/Reference_Implementation"
#define RUN_LIMIT_S 840.0   /* the campaign must end well within this */
#define MAX_OUTPUT (256u << 10)
/* KAT time limit per instance: above SleepOn1000's 30 s stall (so that it
 * passes), low enough that EndlessLoop (guide build and rebuild) costs two
 * minutes, not the default twenty. */
#define KAT_TIMEOUT_S "60"

static const int sizes[] = {32, 1024};
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* What each fixture may come out as. kat: accepted KAT statuses (NULL
 * ends). timed_ok: 1 when its records may be OK (the fault does not touch
 * results), 0 when they must be FAILED or absent with a reason. hint: a
 * word its failure reason (KAT and record) must contain (case-insensitive),
 * or NULL. */
typedef struct fixture {
    const char *inst;
    const char *kat[4];
    int timed_ok;
    const char *hint;
} fixture;

static const fixture fixtures[] = {
    {"Healthy", {"PASS"}, 1, NULL},
    {"Segfault", {"CRASH"}, 0, NULL},
    {"Abort", {"CRASH"}, 0, NULL},
    {"EndlessLoop", {"TIMEOUT"}, 0, NULL},
    {"ExitInside", {"CRASH", "ERROR"}, 0, NULL},
    {"WritePastDigest", {"OVERFLOW"}, 0, NULL},
    {"ReadPastMessage", {"CRASH"}, 0, NULL},
    {"ChangesInput", {"ERROR", "MISMATCH"}, 0, "input"},
    {"Nondeterministic", {"MISMATCH", "ERROR"}, 0, NULL},
    {"ErrorReturn", {"ERROR"}, 0, NULL},
    {"AllocUnbounded", {"CRASH", "ERROR"}, 0, NULL},
    {"StackOverflow", {"CRASH"}, 0, NULL},
    {"Chatty", {"PASS"}, 1, NULL},
    {"ForkOutlives", {"PASS"}, 1, NULL},
    {"SleepOn1000", {"PASS", "TIMEOUT"}, 1, NULL},
    {"CtorCrash", {"LOADFAIL", "CRASH"}, 0, NULL},
    {"NoCryptHash", {"LOADFAIL", "BUILDFAIL"}, 0, "CryptHash"},
};
#define NFIX (sizeof fixtures / sizeof fixtures[0])

typedef struct campaign {
    char *dir;        /* run directory */
    char *output;     /* what hashbench printed */
    int status;       /* exit status, -1 when it did not exit */
    double seconds;
    json_t *kat;      /* kat.json */
    json_t *build;    /* build.json */
} campaign;

typedef struct state {
    char *tmp;
    char token[96];     /* HB_ROBUST_TOKEN=..., inherited by every child */
    char pidfile[4200]; /* where ForkOutlives writes its children's pids */
    campaign all, alone;
} state;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A package holding only the healthy instance, under the same name. */
static char *make_alone_package(const char *tmp)
{
    const char *src = rb_source_dir();
    static const char *files[] = {IMPL "/toyhash.h", IMPL "/Healthy/hash.c",
                                  IMPL "/Healthy/CryptHash_AlgorithmInstance.h",
                                  "kat.sha256", "hashbench.ini", NULL};
    char *pkg = malloc(4300);
    snprintf(pkg, 4300, "%s/alone/" PKG_NAME, tmp);
    for (int i = 0; files[i]; i++) {
        char from[4400], to[4400];
        snprintf(from, sizeof from, "%s/tests/robustness/hostile/%s", src, files[i]);
        snprintf(to, sizeof to, "%s/%s", pkg, files[i]);
        if (access(from, F_OK) == 0 && rb_copy(from, to) != 0)
            fail_msg("cannot copy %s to %s", from, to);
    }
    return pkg;
}

static void run_campaign(campaign *c, const char *tmp, const char *name,
                         const char *package)
{
    c->dir = malloc(4300);
    snprintf(c->dir, 4300, "%s/%s", tmp, name);
    const char *args[] = {"run", "--run-dir", c->dir, "--allow-unfit-host",
                          "--sizes", "32,1024", "--budget", "2", "--timeout",
                          KAT_TIMEOUT_S, package, NULL};
    double t0 = now_s();
    c->status = rb_hashbench_run(args, RUN_LIMIT_S, &c->output);
    c->seconds = now_s() - t0;
    c->kat = rb_load_json(c->dir, "kat.json");
    c->build = rb_load_json(c->dir, "build.json");
    printf("# %s: exit %d after %.1f s\n", name, c->status, c->seconds);
}

static int group_setup(void **vs)
{
    static state s;
    char pkg[4300];
    s.tmp = rb_tempdir("hostile");
    if (!s.tmp)
        return -1;
    snprintf(s.token, sizeof s.token, "HB_ROBUST_TOKEN=%ld-%ld", (long)getpid(),
             (long)time(NULL));
    putenv(s.token);
    snprintf(s.pidfile, sizeof s.pidfile, "%s/fork.pids", s.tmp);
    setenv("HB_HOSTILE_PIDFILE", s.pidfile, 1);
    snprintf(pkg, sizeof pkg, "%s/tests/robustness/hostile", rb_source_dir());
    run_campaign(&s.all, s.tmp, "run-all", pkg);
    char *alone = make_alone_package(s.tmp);
    run_campaign(&s.alone, s.tmp, "run-alone", alone);
    free(alone);
    *vs = &s;
    return 0;
}

static int group_teardown(void **vs)
{
    state *s = *vs;
    json_decref(s->all.kat);
    json_decref(s->alone.kat);
    json_decref(s->all.build);
    json_decref(s->alone.build);
    if (!getenv("HB_KEEP_TMP"))
        rb_rmtree(s->tmp);
    return 0;
}

static json_t *kat_entry(const campaign *c, const char *inst)
{
    return rb_find_instance(json_object_get(c->kat, "instances"), NULL, inst);
}

/* The instance's status entry: its kat.json entry, or, for an instance that
 * never reached the KAT stage, its build.json entry (status BUILDFAIL, the
 * reason, and the build log as evidence). */
static json_t *status_entry(const campaign *c, const char *inst)
{
    json_t *e = kat_entry(c, inst);
    if (!e) {
        e = rb_find_instance(json_object_get(c->build, "instances"), NULL, inst);
        if (e && strcmp(rb_str(e, "status"), "BUILDFAIL") != 0)
            e = NULL;
    }
    return e;
}

static json_t *load_record(const campaign *c, const char *inst, int size)
{
    char rel[512];
    snprintf(rel, sizeof rel, "records/%s/%s__hash_%d.json", PKG_NAME, inst, size);
    return rb_load_json(c->dir, rel);
}

static int one_of(const char *s, const char *const *set)
{
    for (int i = 0; i < 4 && set[i]; i++)
        if (strcmp(s, set[i]) == 0)
            return 1;
    return 0;
}

/* 1: the run ended by itself, in bounded time, with status 1, saying that
 * instances failed, and relayed none of the fixtures' garbage. */
static void test_exit_status(void **vs)
{
    state *s = *vs;
    printf("# output of the hostile campaign:\n%.2000s\n", s->all.output);
    assert_true(s->all.seconds < RUN_LIMIT_S);
    assert_int_equal(s->all.status, 1);
    assert_non_null(strcasestr(s->all.output, "fail"));
    assert_true(strlen(s->all.output) < MAX_OUTPUT);
    assert_null(strstr(s->all.output, "\x1b[2J"));
    assert_int_equal(s->alone.status, 0);
}

/* The RESULT line of a KAT log names STATUS (for BUILDFAIL: the build
 * log exists and is bounded). */
static int log_has_result(const char *dir, const char *rel, const char *status,
                          char *why, size_t whysz)
{
    char path[4400];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    if (stat(path, &st) != 0) {
        snprintf(why, whysz, "KAT log %s missing", rel);
        return 0;
    }
    if (st.st_size > (1 << 20)) {
        snprintf(why, whysz, "KAT log %s is %lld bytes: child output not bounded",
                 rel, (long long)st.st_size);
        return 0;
    }
    if (strcmp(status, "BUILDFAIL") == 0)
        return 1;
    FILE *fp = fopen(path, "r");
    char line[4096];
    int found = 0;
    while (fp && fgets(line, sizeof line, fp))
        if (strncmp(line, "RESULT", 6) == 0 && strstr(line, status))
            found = 1;
    if (fp)
        fclose(fp);
    if (!found)
        snprintf(why, whysz, "KAT log %s has no RESULT line naming %s", rel, status);
    return found;
}

/* 2: each fixture's own status in kat.json (with a reason unless PASS) and
 * in its KAT log. */
static void test_kat_status_named(void **vs)
{
    state *s = *vs;
    int bad = 0;
    assert_non_null(s->all.kat);
    for (size_t i = 0; i < NFIX; i++) {
        const fixture *f = &fixtures[i];
        json_t *e = status_entry(&s->all, f->inst);
        char why[4600] = "";
        if (!e) {
            printf("# %s: no kat.json entry (and no build failure)\n", f->inst);
            bad++;
            continue;
        }
        const char *st = rb_str(e, "status"), *reason = rb_str(e, "reason");
        if (!one_of(st, f->kat))
            snprintf(why, sizeof why, "status %s, expected %s%s%s (reason: %s)", st,
                     f->kat[0], f->kat[1] ? " or " : "", f->kat[1] ? f->kat[1] : "",
                     reason);
        else if (strcmp(st, "PASS") != 0 && (!reason[0] || strchr(reason, '\n')))
            snprintf(why, sizeof why, "status %s without a one-line reason", st);
        else if (strcmp(st, "PASS") != 0 && f->hint && !strcasestr(reason, f->hint))
            snprintf(why, sizeof why, "reason '%s' does not say '%s'", reason, f->hint);
        else
            log_has_result(s->all.dir, rb_str(e, "log"), st, why, sizeof why);
        if (why[0]) {
            printf("# %s: %s\n", f->inst, why);
            bad++;
        } else {
            printf("# %s: %s%s%s\n", f->inst, st, reason[0] ? ": " : "", reason);
        }
    }
    assert_int_equal(bad, 0);
}

/* The reason an instance is not timed: a build failure or an exclusion
 * in build.json. (A KAT failure alone does not stop timing: the records
 * then say FAILED or carry the KAT status.) */
static const char *untimed_reason(const campaign *c, const char *inst)
{
    json_t *b = rb_find_instance(json_object_get(c->build, "instances"), NULL, inst);
    if (strcmp(rb_str(b, "status"), "BUILDFAIL") == 0)
        return rb_str(b, "reason");
    return rb_str(b, "exclude_timing");
}

/* 3: each fixture's records: FAILED with a one-line failure (containing the
 * hint), or OK where the fault leaves results alone, or absent when the
 * instance is not timed for a stated reason. */
static void test_records_named(void **vs)
{
    state *s = *vs;
    int bad = 0;
    for (size_t i = 0; i < NFIX; i++) {
        const fixture *f = &fixtures[i];
        for (size_t k = 0; k < NSIZES; k++) {
            json_t *r = load_record(&s->all, f->inst, sizes[k]);
            char why[512] = "";
            if (!r) {
                if (f->timed_ok || !untimed_reason(&s->all, f->inst)[0])
                    snprintf(why, sizeof why, "no record and no reason for it");
            } else {
                const char *st = rb_str(r, "status"), *fl = rb_str(r, "failure");
                if (strcmp(st, "FAILED") == 0) {
                    if (!fl[0] || strchr(fl, '\n'))
                        snprintf(why, sizeof why, "FAILED without a one-line failure");
                    else if (f->hint && !strcasestr(fl, f->hint))
                        snprintf(why, sizeof why, "failure '%s' does not say '%s'", fl,
                                 f->hint);
                    else if (json_object_get(r, "derived"))
                        snprintf(why, sizeof why, "FAILED record with derived figures");
                } else if (strcmp(st, "OK") != 0 || !f->timed_ok) {
                    snprintf(why, sizeof why, "status %s (failure '%s')", st, fl);
                } else if (!json_is_object(json_object_get(r, "derived"))) {
                    snprintf(why, sizeof why, "OK record without derived figures");
                }
                printf("# %s %d: %s %s\n", f->inst, sizes[k], st, fl);
            }
            if (why[0]) {
                printf("# %s %d: %s\n", f->inst, sizes[k], why);
                bad++;
            }
            json_decref(r);
        }
    }
    assert_int_equal(bad, 0);
}

/* The probe's message for SIZE, by the rule of FORMATS.md. */
static void probe_message(unsigned char *msg, int size)
{
    for (int i = 0; i < size; i++)
        msg[i] = (unsigned char)((i * 131 + size) % 256);
}

static void sha256_hex(const unsigned char *p, size_t n, char hex[65])
{
    unsigned char md[32];
    unsigned int len = 0;
    EVP_Digest(p, n, md, &len, EVP_sha256(), NULL);
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", md[i]);
}

/* Checks one healthy record against the toy hash and its own trials. */
static int check_healthy_record(const json_t *r, int size)
{
    unsigned char msg[1024] = {0}, digest[32];
    char want[65], sha[65];
    probe_message(msg, size);
    toy_hash(256, msg, (unsigned long long)size * 8, digest);
    for (int i = 0; i < 32; i++)
        snprintf(want + 2 * i, 3, "%02X", digest[i]);
    sha256_hex(msg, (size_t)size, sha);
    json_t *m = json_object_get(r, "message"), *d = json_object_get(r, "derived");
    json_t *trials = json_object_get(r, "trials"), *t;
    double calls = 0, ticks = 0;
    size_t i;
    int bad = 0;
    if (strcmp(rb_str(r, "status"), "OK") != 0 || !json_is_object(d))
        return printf("# Healthy %d: not OK or no derived\n", size), 1;
    if (strcasecmp(rb_str(r, "digest"), want) != 0)
        bad += printf("# Healthy %d: digest %s, toy hash gives %s\n", size,
                      rb_str(r, "digest"), want) > 0;
    if (strcasecmp(rb_str(m, "sha256"), sha) != 0)
        bad += printf("# Healthy %d: message sha256 %s, expected %s\n", size,
                      rb_str(m, "sha256"), sha) > 0;
    if (json_integer_value(json_object_get(r, "size_bytes")) != size)
        bad += printf("# Healthy %d: wrong size_bytes\n", size) > 0;
    json_array_foreach(trials, i, t) {
        if (json_is_true(json_object_get(t, "disturbed")))
            continue;
        calls += json_number_value(json_object_get(t, "calls"));
        ticks += json_number_value(json_object_get(t, "ticks"));
    }
    double n = json_number_value(json_object_get(d, "n"));
    double mean = json_number_value(json_object_get(d, "mean_ticks_per_call"));
    if (calls < 100 || n != calls)
        bad += printf("# Healthy %d: n %.0f, kept trial calls %.0f (need >= 100)\n",
                      size, n, calls) > 0;
    if (calls > 0 && fabs(mean - ticks / calls) > 1e-6 * (ticks / calls))
        bad += printf("# Healthy %d: mean %.6g, trials give %.6g\n", size, mean,
                      ticks / calls) > 0;
    static const char *const figures[] = {"mean_ticks_per_call", "ticks_per_byte",
                                          "mean_ns_per_call", "mb_per_s",
                                          "median_trial_mean", NULL};
    for (int k = 0; figures[k]; k++)
        if (!isfinite(json_number_value(json_object_get(d, figures[k]))))
            bad += printf("# Healthy %d: %s missing\n", size, figures[k]) > 0;
    return bad;
}

/* 4: the healthy instance's results are complete and right. */
static void test_healthy_complete(void **vs)
{
    state *s = *vs;
    int bad = 0;
    for (int which = 0; which < 2; which++) {
        const campaign *c = which ? &s->alone : &s->all;
        json_t *e = kat_entry(c, "Healthy");
        if (!e || strcmp(rb_str(e, "status"), "PASS") != 0)
            bad += printf("# Healthy (%s): KAT status %s\n", c->dir,
                          e ? rb_str(e, "status") : "missing") > 0;
        for (size_t k = 0; k < NSIZES; k++) {
            json_t *r = load_record(c, "Healthy", sizes[k]);
            bad += r ? check_healthy_record(r, sizes[k])
                     : printf("# Healthy %d: no record in %s\n", sizes[k], c->dir) > 0;
            json_decref(r);
        }
    }
    assert_int_equal(bad, 0);
}

/* Appends the key paths of V under PREFIX to OUT (array elements merged
 * under "[]"), one per line; the order follows the document. */
static void key_paths(const json_t *v, const char *prefix, json_t *out)
{
    const char *k;
    json_t *x;
    size_t i;
    char p[1024];
    if (json_is_object(v)) {
        json_object_foreach((json_t *)v, k, x) {
            snprintf(p, sizeof p, "%s.%s", prefix, k);
            json_object_set_new(out, p, json_true());
            key_paths(x, p, out);
        }
    } else if (json_is_array(v)) {
        snprintf(p, sizeof p, "%s[]", prefix);
        json_array_foreach(v, i, x)
            key_paths(x, p, out);
    }
}

static int same_structure(const json_t *a, const json_t *b, const char *what)
{
    json_t *ka = json_object(), *kb = json_object();
    const char *k;
    json_t *x;
    int bad = 0;
    key_paths(a, "", ka);
    key_paths(b, "", kb);
    json_object_foreach(ka, k, x)
        if (!json_object_get(kb, k))
            bad += printf("# %s: %s only in the hostile campaign\n", what, k) > 0;
    json_object_foreach(kb, k, x)
        if (!json_object_get(ka, k))
            bad += printf("# %s: %s only in the healthy-alone campaign\n", what, k) > 0;
    json_decref(ka);
    json_decref(kb);
    return bad;
}

/* 5: the healthy instance's kat.json entry and records have the same
 * structure, and the same KAT texts and digests, as when alone. */
static void test_healthy_same_as_alone(void **vs)
{
    state *s = *vs;
    int bad = 0;
    json_t *a = kat_entry(&s->all, "Healthy"), *b = kat_entry(&s->alone, "Healthy");
    assert_non_null(a);
    assert_non_null(b);
    bad += same_structure(a, b, "kat.json Healthy");
    json_t *fa = json_object_get(a, "files"), *fb = json_object_get(b, "files"), *x;
    size_t i;
    json_array_foreach(fa, i, x) {
        json_t *y = json_array_get(fb, i);
        if (strcmp(rb_str(x, "generated_sha256"), rb_str(y, "generated_sha256")) != 0)
            bad += printf("# %s generated differently in the two campaigns\n",
                          rb_str(x, "name")) > 0;
    }
    for (size_t k = 0; k < NSIZES; k++) {
        json_t *ra = load_record(&s->all, "Healthy", sizes[k]);
        json_t *rb = load_record(&s->alone, "Healthy", sizes[k]);
        if (ra && rb) {
            bad += same_structure(ra, rb, "Healthy record");
            if (strcmp(rb_str(ra, "digest"), rb_str(rb, "digest")) != 0)
                bad += printf("# Healthy %d: digests differ\n", sizes[k]) > 0;
        } else {
            bad++;
        }
        json_decref(ra);
        json_decref(rb);
    }
    assert_int_equal(bad, 0);
}

/* 6: nothing the campaign started is still running. */
static void test_no_leftover_process(void **vs)
{
    state *s = *vs;
    char *report = NULL;
    size_t len = 0;
    int n = 0, alive = 0;
    /* A killed process group may take a moment to disappear from /proc. */
    for (int tries = 0; tries < 20; tries++) {
        free(report);
        report = NULL;
        n = rb_leftover_processes(s->token, s->tmp, &report);
        if (n == 0)
            break;
        usleep(100 * 1000);
    }
    if (n)
        printf("# left behind:\n%s", report);
    FILE *fp = fopen(s->pidfile, "r");
    if (fp) {
        long pid;
        while (fscanf(fp, "%ld", &pid) == 1) {
            len++;
            if (rb_pid_alive(pid))
                alive += printf("# ForkOutlives child %ld still alive\n", pid) > 0;
        }
        fclose(fp);
    }
    printf("# ForkOutlives started %zu children; %d alive\n", len, alive);
    free(report);
    assert_true(len > 0); /* otherwise the fixture never ran: the check is void */
    assert_int_equal(alive, 0);
    assert_int_equal(n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exit_status),
        cmocka_unit_test(test_kat_status_named),
        cmocka_unit_test(test_records_named),
        cmocka_unit_test(test_healthy_complete),
        cmocka_unit_test(test_healthy_same_as_alone),
        cmocka_unit_test(test_no_leftover_process),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
