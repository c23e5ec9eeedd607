/* The independent check of timed digests (measure/xcheck.h):
 * - the sample size against its defining inequality;
 * - the recognition of standard functions against NIST's CAVP vectors
 *   (Debian's python3-cryptography-vectors), written as KAT texts: each
 *   file is recognised as its own function, never a sibling of the same
 *   length; one wrong record or too few records are not enough, records
 *   of several files count together, and a KAT_Loop record is recomputed
 *   as the loop (enough alone; a wrong one a disagreement);
 * - the choice on the bundled examples after their KAT stage (OpenSSL with
 *   the right function; SHAKE256 at 768 bits, no standard function, the
 *   same library; OpenSSL left out when not allowed or when a text no
 *   longer has its submitted SHA-256);
 * - the choice on a fixture that is no standard function (SM3 with its
 *   output reversed) with its own consistent vectors, under a name that is
 *   a standard function's: the other variant when there are two (the
 *   Reference first), the same library when there is one or when the other
 *   variant is the same library; a true SM3 whose submitted vectors are the
 *   fixture's does not get OpenSSL, nor does a library that passes true SM3
 *   vectors in one KAT file and fails them in another, nor the fixture once
 *   its texts are replaced by true SM3 vectors after its KAT stage;
 * - the recomputation catching one wrong digest among many with each kind
 *   of verifier, and a verifier runner that crashes;
 * - the calls drawn for checking (distinct, in range, each index equally
 *   likely), and a window's chained message rebuilt from the key and the
 *   previous digest. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dlfcn.h>
#include <openssl/evp.h>
#include "common/digest.h"
#include "common/fs.h"
#include "common/json.h"
#include "kat/kat.h"
#include "kat/katfile.h"
#include "kat/manifest.h"
#include "kat/rsp.h"
#include "measure/msggen.h"
#include "measure/xcheck.h"
#include "kat_test_util.h"

#define CAVP_DIR "/usr/lib/python3/dist-packages/cryptography_vectors/hashes"

static char *root;

static int setup(void **state)
{
    (void)state;
    root = kt_mkdtemp("xcheck");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    kt_release(root);
    return 0;
}

/* ---- the sample size ---- */

static void test_sample_size(void **state)
{
    (void)state;
    assert_int_equal(xcheck_sample_size(0.01, 0.99), 459);
    assert_int_equal(xcheck_sample_size(0, 0), 459);   /* the defaults */
    assert_int_equal(xcheck_sample_size(0.5, 0.75), 2);
    assert_int_equal(xcheck_sample_size(0.1, 0.9), 22);
    static const double fs[] = {0.001, 0.01, 0.05, 0.2, 0.5, 0.9};
    static const double ps[] = {0.5, 0.9, 0.99, 0.999};
    for (size_t i = 0; i < 6; i++)
        for (size_t j = 0; j < 4; j++) {
            size_t n = xcheck_sample_size(fs[i], ps[j]);
            assert_true(pow(1 - fs[i], (double)n) <= 1 - ps[j]);
            assert_true(n == 1 || pow(1 - fs[i], (double)(n - 1)) > 1 - ps[j]);
        }
}

/* ---- standard functions from vectors ---- */

/* Writes the byte-aligned records of the CAVP file RSP whose digests are
 * BITS long as the KAT text PATH (SPEC §3), at most MAX records, the
 * record number FLIP (-1: none) with its digest's first byte changed.
 * Returns the number of records written. */
static long rsp_to_kat(const char *rsp, const char *path, int bits, long max, long flip)
{
    rsp_reader *r;
    rsp_record rec;
    kat_writer w;
    char sha[HB_SHA256_HEX];
    unsigned char md[128];
    hb_err err;
    long n = 0;
    int rc;
    if (rsp_open(rsp, &r, &err) != 0 || kat_writer_open(&w, path, &err) != 0)
        fail_msg("%s", err.msg);
    while (n < max && (rc = rsp_next(r, &rec, &err)) == 1) {
        if (rec.len_bits % 8 || rec.md_bytes * 8 != (size_t)bits)
            continue;
        memcpy(md, rec.md, rec.md_bytes);
        if (n == flip)
            md[0] ^= 1;
        if (kat_writer_record(&w, rec.msg, rec.len_bits, md, bits, &err) != 0)
            fail_msg("%s", err.msg);
        n++;
    }
    rsp_close(r);
    if (kat_writer_close(&w, sha, &err) != 0)
        fail_msg("%s", err.msg);
    return n;
}

typedef struct cavp {
    const char *file;   /* below CAVP_DIR */
    const char *want;   /* the EVP name it must be recognised as */
    int bits;
} cavp;

static const cavp cavps[] = {
    {"SHA2/SHA224ShortMsg.rsp", "SHA224", 224},
    {"SHA2/SHA256ShortMsg.rsp", "SHA256", 256},
    {"SHA2/SHA384ShortMsg.rsp", "SHA384", 384},
    {"SHA2/SHA512ShortMsg.rsp", "SHA512", 512},
    {"SHA2/SHA512_224ShortMsg.rsp", "SHA512-224", 224},
    {"SHA2/SHA512_256ShortMsg.rsp", "SHA512-256", 256},
    {"SHA3/SHA3_224ShortMsg.rsp", "SHA3-224", 224},
    {"SHA3/SHA3_256ShortMsg.rsp", "SHA3-256", 256},
    {"SHA3/SHA3_384ShortMsg.rsp", "SHA3-384", 384},
    {"SHA3/SHA3_512ShortMsg.rsp", "SHA3-512", 512},
};
#define N_CAVP (sizeof cavps / sizeof cavps[0])

/* Each CAVP file is recognised as its own function. */
static void test_cavp_names(void **state)
{
    (void)state;
    char rsp[4096], path[4096], name[32], why[512];
    hb_err err;
    for (size_t i = 0; i < N_CAVP; i++) {
        snprintf(rsp, sizeof rsp, "%s/%s", CAVP_DIR, cavps[i].file);
        snprintf(path, sizeof path, "%s/KAT_2_12_cavp%zu.txt", root, i);
        long n = rsp_to_kat(rsp, path, cavps[i].bits, 1000000, -1);
        assert_true(n >= XCHECK_MIN_RECORDS);
        const char *paths[] = {path};
        int rc = xcheck_match_vectors(paths, 1, cavps[i].bits, name, why, sizeof why, &err);
        if (rc != 1)
            fail_msg("%s: %d (%s%s)", cavps[i].file, rc, why, rc < 0 ? err.msg : "");
        assert_string_equal(name, cavps[i].want);
        printf("# %s: %ld records, recognised as %s\n", cavps[i].file, n, name);
    }
}

/* One wrong record among many, or too few records, or a file that is
 * KAT_Loop's: no function. */
static void test_vectors_not_enough(void **state)
{
    (void)state;
    char rsp[4096], path[4096], name[32], why[512];
    const char *paths[] = {path};
    hb_err err;
    snprintf(rsp, sizeof rsp, "%s/SHA2/SHA256ShortMsg.rsp", CAVP_DIR);
    snprintf(path, sizeof path, "%s/KAT_2_12_flip.txt", root);
    assert_true(rsp_to_kat(rsp, path, 256, 1000000, 40) > 40);
    assert_int_equal(xcheck_match_vectors(paths, 1, 256, name, why, sizeof why, &err), 0);
    assert_string_equal(name, "");
    assert_non_null(strstr(why, "SHA256 differs at KAT_2_12_flip.txt:"));

    snprintf(path, sizeof path, "%s/KAT_2_12_few.txt", root);
    assert_int_equal(rsp_to_kat(rsp, path, 256, XCHECK_MIN_RECORDS - 1, -1),
                     XCHECK_MIN_RECORDS - 1);
    assert_int_equal(xcheck_match_vectors(paths, 1, 256, name, why, sizeof why, &err), 0);
    assert_non_null(strstr(why, "SHA256: only 2 records"));

    /* Records spread over files count together: KAT_2_23's three records
     * (here two files of one and two) are enough. */
    char path2[4096];
    const char *two[] = {path, path2};
    snprintf(path, sizeof path, "%s/KAT_2_12_one.txt", root);
    snprintf(path2, sizeof path2, "%s/KAT_2_23_two.txt", root);
    assert_int_equal(rsp_to_kat(rsp, path, 256, 1, -1), 1);
    assert_int_equal(rsp_to_kat(rsp, path2, 256, 2, -1), 2);
    assert_int_equal(xcheck_match_vectors(two, 2, 256, name, why, sizeof why, &err), 1);
    assert_string_equal(name, "SHA256");

    /* The SM3 examples of the standard: six right records are enough. */
    snprintf(rsp, sizeof rsp, "%s/SM3/oscca.txt", CAVP_DIR);
    snprintf(path, sizeof path, "%s/KAT_2_12_oscca.txt", root);
    assert_int_equal(rsp_to_kat(rsp, path, 256, 1000000, -1), 6);
    assert_int_equal(xcheck_match_vectors(paths, 1, 256, name, why, sizeof why, &err), 1);
    assert_string_equal(name, "SM3");

    /* Records in a file named as KAT_Loop's are read as KAT_Loop records:
     * short messages are none. */
    snprintf(rsp, sizeof rsp, "%s/SHA2/SHA256ShortMsg.rsp", CAVP_DIR);
    snprintf(path, sizeof path, "%s/KAT_Loop_x.txt", root);
    assert_true(rsp_to_kat(rsp, path, 256, 1000000, -1) > XCHECK_MIN_RECORDS);
    assert_int_equal(xcheck_match_vectors(paths, 1, 256, name, why, sizeof why, &err), 0);
    assert_non_null(strstr(why, "SHA256: only 0 records"));

    /* No standard function at 768 bits. */
    snprintf(path, sizeof path, "%s/KAT_2_12_flip.txt", root);
    assert_int_equal(xcheck_match_vectors(paths, 1, 768, name, why, sizeof why, &err), 0);
    assert_non_null(strstr(why, "no standard function"));
}

/* Writes the byte-aligned records of the CAVP file SHA2/RSP into PATH, the
 * digest of every record I (counted from *I) with I % EVERY == 0 changed
 * (EVERY 0: none). Returns the number of records written. */
static long flipped_every(const char *path, const char *rspname, long every, long *i)
{
    char rsp[4096];
    rsp_reader *r;
    rsp_record rec;
    kat_writer w;
    char sha[HB_SHA256_HEX];
    unsigned char md[64];
    hb_err err;
    long n = 0;
    snprintf(rsp, sizeof rsp, "%s/SHA2/%s", CAVP_DIR, rspname);
    if (rsp_open(rsp, &r, &err) != 0 || kat_writer_open(&w, path, &err) != 0)
        fail_msg("%s", err.msg);
    while (rsp_next(r, &rec, &err) == 1) {
        if (rec.len_bits % 8 || rec.md_bytes != 32)
            continue;
        memcpy(md, rec.md, 32);
        if (every && (*i)++ % every == 0)
            md[31] ^= 1;
        if (kat_writer_record(&w, rec.msg, rec.len_bits, md, 256, &err) != 0)
            fail_msg("%s", err.msg);
        n++;
    }
    rsp_close(r);
    if (kat_writer_close(&w, sha, &err) != 0)
        fail_msg("%s", err.msg);
    return n;
}

/* SHA-256's short messages twice (130 records) as two KAT texts, every
 * EVERY-th digest changed. Returns the number of records. */
static long sha256_flipped(const char *shortp, const char *longp, long every)
{
    long i = 0;
    long n = flipped_every(shortp, "SHA256ShortMsg.rsp", every, &i);
    return n + flipped_every(longp, "SHA256ShortMsg.rsp", every, &i);
}

/* Vectors that agree with a standard function on all but a few records are
 * near-standard (xcheck_match_near: 2, with the count and the first
 * difference); more differences than the rule allows, or every record
 * different (another function), are not. */
static void test_vectors_near(void **state)
{
    (void)state;
    char path[4096], path2[4096], why[512], name[32];
    const char *paths[] = {path, path2};
    xcheck_match m;
    hb_err err;
    snprintf(path, sizeof path, "%s/KAT_2_12_near.txt", root);
    snprintf(path2, sizeof path2, "%s/KAT_2_23_near.txt", root);
    long n = sha256_flipped(path, path2, 1000000); /* record 0 only */
    assert_true(n > 10 * XCHECK_NEAR_MAX_MISSES);
    assert_int_equal(xcheck_match_near(paths, 2, 256, 1, &m, why, sizeof why, &err), 2);
    assert_string_equal(m.evp_name, "SHA256");
    assert_int_equal(m.missed, 1);
    assert_int_equal(m.agreed, n - 1);
    assert_non_null(strstr(m.first_miss, "Msg_Len = 0 in KAT_2_12_near.txt:"));
    /* xcheck_match_vectors names only a function every record agrees with */
    assert_int_equal(xcheck_match_vectors(paths, 2, 256, name, why, sizeof why, &err), 0);

    /* XCHECK_NEAR_MAX_MISSES differences: still near; one in 8 (17 of
     * 130, under 90 % agreement): not, but the function is named */
    assert_int_equal(sha256_flipped(path, path2, n / XCHECK_NEAR_MAX_MISSES + 1), n);
    assert_int_equal(xcheck_match_near(paths, 2, 256, 1, &m, why, sizeof why, &err), 2);
    assert_int_equal(m.missed, XCHECK_NEAR_MAX_MISSES);
    assert_int_equal(sha256_flipped(path, path2, 8), n);
    assert_int_equal(xcheck_match_near(paths, 2, 256, 1, &m, why, sizeof why, &err), 0);
    assert_string_equal(m.evp_name, "SHA256");
    assert_true(m.missed > XCHECK_NEAR_MAX_MISSES);
    /* one in 12: more than XCHECK_NEAR_MAX_MISSES records, but 90 % agree */
    assert_int_equal(sha256_flipped(path, path2, 12), n);
    assert_int_equal(xcheck_match_near(paths, 2, 256, 1, &m, why, sizeof why, &err), 2);
    assert_true(m.missed > XCHECK_NEAR_MAX_MISSES);

    /* every record differs: another function */
    assert_int_equal(sha256_flipped(path, path2, 1), n);
    assert_int_equal(xcheck_match_near(paths, 2, 256, 1, &m, why, sizeof why, &err), 0);
    assert_string_equal(m.evp_name, "");
    assert_int_equal(m.agreed, 0);
}

/* Writes a KAT_Loop text (SPEC §3, but ROUNDS iterations) for the EVP
 * function EVP into PATH and, with its digest's first byte changed, into
 * BAD: m0 is 1024 bytes of a fixed pattern, the record's digest the loop's
 * final h (computed here with plain EVP_Digest calls). */
#define TEST_LOOP_ROUNDS 5000
static void loop_to_kat(const char *path, const char *bad, const char *evp, long rounds)
{
    unsigned char m0[1024], m[1024], h[EVP_MAX_MD_SIZE], head[EVP_MAX_MD_SIZE];
    unsigned int d = 0;
    kat_writer w;
    char sha[HB_SHA256_HEX];
    hb_err err;
    EVP_MD *md = EVP_MD_fetch(NULL, evp, NULL);
    assert_non_null(md);
    for (size_t i = 0; i < sizeof m0; i++)
        m0[i] = (unsigned char)(i * 131u + 7u);
    memcpy(m, m0, sizeof m);
    assert_int_equal(EVP_Digest(m, sizeof m, h, &d, md, NULL), 1);
    for (long r = 0; r < rounds; r++) {
        memcpy(head, m, d);
        memmove(m, m + d, sizeof m - d);
        memcpy(m + sizeof m - d, head, d);
        for (unsigned k = 0; k < d; k++)
            m[k] ^= h[k];
        assert_int_equal(EVP_Digest(m, sizeof m, h, &d, md, NULL), 1);
    }
    EVP_MD_free(md);
    for (int k = 0; k < 2; k++) {
        if (k == 1)
            h[0] ^= 1;
        if (kat_writer_open(&w, k ? bad : path, &err) != 0 ||
            kat_writer_record(&w, m0, 8 * sizeof m0, h, (int)(8 * d), &err) != 0 ||
            kat_writer_close(&w, sha, &err) != 0)
            fail_msg("%s", err.msg);
    }
}

/* A submission that passes on its KAT_Loop file alone is recognised from
 * it (the loop recomputed with OpenSSL), and a wrong loop record is a
 * disagreement; a loop of other length than the rule's is no evidence.
 * SHA-224, where the digest length has few contenders, and loops of
 * TEST_LOOP_ROUNDS iterations (the official million costs seconds). */
static void test_vectors_loop(void **state)
{
    (void)state;
    char rsp[4096], loop[4096], bad[4096], plain[4096], name[32], why[512];
    hb_err err;
    snprintf(loop, sizeof loop, "%s/KAT_Loop_SHA224.txt", root);
    snprintf(bad, sizeof bad, "%s/KAT_Loop_bad.txt", root);
    loop_to_kat(loop, bad, "SHA224", TEST_LOOP_ROUNDS);
    const char *only[] = {loop};
    assert_int_equal(xcheck_match_vectors_rounds(only, 1, 224, TEST_LOOP_ROUNDS, name, why,
                                                 sizeof why, &err), 1);
    assert_string_equal(name, "SHA224");
    assert_int_equal(xcheck_match_vectors_rounds(only, 1, 224, TEST_LOOP_ROUNDS - 1, name,
                                                 why, sizeof why, &err), 0);
    assert_non_null(strstr(why, "SHA224 differs at KAT_Loop_SHA224.txt:"));

    /* two plain SHA-224 records leave SHA-224 alone in the running; the
     * wrong loop record ends it too */
    snprintf(rsp, sizeof rsp, "%s/SHA2/SHA224ShortMsg.rsp", CAVP_DIR);
    snprintf(plain, sizeof plain, "%s/KAT_2_12_224.txt", root);
    assert_int_equal(rsp_to_kat(rsp, plain, 224, 2, -1), 2);
    const char *wrong[] = {plain, bad};
    assert_int_equal(xcheck_match_vectors_rounds(wrong, 2, 224, TEST_LOOP_ROUNDS, name, why,
                                                 sizeof why, &err), 0);
    assert_string_equal(name, "");
    assert_non_null(strstr(why, "SHA224 differs at KAT_Loop_bad.txt:"));
}

/* ---- run directories ---- */

static const char *source_dir(void)
{
    const char *s = getenv("HB_SOURCE_DIR");
    if (!s)
        fail_msg("HB_SOURCE_DIR is not set: run through ctest");
    return s ? s : "."; /* (fail_msg ends the test; the compiler does not know it) */
}

static void new_dir(char *out, size_t n, const char *name)
{
    hb_err err;
    snprintf(out, n, "%s/%s", root, name);
    if (hb_mkdirs(out, &err) != 0)
        fail_msg("%s", err.msg);
}

/* Appends CAND/INST (ALG_INST's variant VARIANT) from library LIB. */
static void add(json_t *b, const char *run, const char *cand, const char *inst,
                const char *alg_inst, const char *variant, int bits, const char *lib,
                const char *package)
{
    kt_build_add(b, run, cand, inst, bits, lib, package, "harness-default");
    json_t *list = json_object_get(b, "instances");
    json_t *e = json_array_get(list, json_array_size(list) - 1);
    json_object_set_new(e, "algorithm_instance", json_string(alg_inst));
    json_object_set_new(e, "variant", json_string(variant));
}

static void run_kat(const char *run, int *n_failed)
{
    kat_options o = {0};
    hb_err err;
    o.run_dir = run;
    o.timeout_s = 120;
    o.loop = KAT_LOOP_NEVER;
    if (kat_run(&o, n_failed, &err) != 0)
        fail_msg("kat_run: %s", err.msg);
}

static void expect_status(const char *run, const char *cand, const char *inst,
                          const char *status)
{
    json_t *e = kt_kat_entry(run, cand, inst);
    assert_non_null(e);
    const char *s = json_string_value(json_object_get(e, "status"));
    if (!s || strcmp(s, status) != 0)
        fail_msg("%s/%s: KAT %s, expected %s (%s)", cand, inst, s ? s : "none", status,
                 json_string_value(json_object_get(e, "reason")));
    json_decref(e);
}

/* The plan of CAND/INST under ALLOW; fails the test on an error. */
static xcheck_plan choose(const char *run, const char *cand, const char *inst, int allow)
{
    xcheck_plan p;
    hb_err err;
    if (xcheck_choose(run, cand, inst, allow, &p, &err) != 0)
        fail_msg("xcheck_choose %s/%s: %s", cand, inst, err.msg);
    return p;
}

static void expect_library(const xcheck_plan *p, const char *run, const char *cand,
                           const char *inst)
{
    char rel[4096], abs[PATH_MAX];
    snprintf(rel, sizeof rel, "%s/lib/%s/lib%s.so", run, cand, inst);
    assert_non_null(realpath(rel, abs));
    assert_string_equal(p->lib, abs);
}

/* ---- recomputation helpers ---- */

typedef struct batch {
    size_t n;
    unsigned char **msgs;
    unsigned char *digests;   /* n * 32 bytes */
    xcheck_call *calls;
} batch;

/* N keystream messages of sizes cycling through a few lengths (one of 777
 * bytes when WITH_777), hashed by the 256-bit library LIB loaded here. */
static void make_batch(batch *b, size_t n, const char *lib, int with_777)
{
    static const unsigned long long sizes[] = {0, 1, 32, 55, 64, 100, 1000, 4096, 70000};
    msggen_key key;
    hb_err err;
    unsigned long long off = 0;
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        fail_msg("%s: %s", lib, dlerror());
    int (*fn)(int, const unsigned char *, unsigned long long, unsigned char *);
    *(void **)&fn = dlsym(h, "CryptHash");
    assert_non_null(fn);
    assert_int_equal(msggen_new_key(&key, &err), 0);
    b->n = n;
    b->msgs = calloc(n, sizeof *b->msgs);
    b->digests = malloc(n * 32);
    b->calls = calloc(n, sizeof *b->calls);
    assert_true(b->msgs && b->digests && b->calls);
    for (size_t i = 0; i < n; i++) {
        unsigned long long size = with_777 && i == n / 2 ? 777 : sizes[i % 9];
        b->msgs[i] = malloc(size ? size : 1);
        assert_non_null(b->msgs[i]);
        assert_int_equal(msggen_fill(&key, off, b->msgs[i], size, &err), 0);
        off += size;
        assert_int_equal(fn(256, b->msgs[i], size * 8, b->digests + 32 * i), 0);
        b->calls[i] = (xcheck_call){b->msgs[i], size, b->digests + 32 * i};
    }
    dlclose(h);
}

static void free_batch(batch *b)
{
    for (size_t i = 0; i < b->n; i++)
        free(b->msgs[i]);
    free(b->msgs);
    free(b->digests);
    free(b->calls);
}

/* All calls of B agree with P; with the digest of call BAD changed, call
 * BAD is named and the calls before it counted. */
static void expect_catches(const xcheck_plan *p, batch *b, size_t bad)
{
    size_t checked = 99;
    char why[512], want[64];
    hb_err err;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = xcheck_calls(p, b->calls, b->n, &checked, why, sizeof why, &err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (rc != 0)
        fail_msg("%s: %d (%s%s)", p->by, rc, why, rc < 0 ? err.msg : "");
    assert_int_equal(checked, b->n);
    b->digests[32 * bad + 31] ^= 0x80;
    rc = xcheck_calls(p, b->calls, b->n, &checked, why, sizeof why, &err);
    b->digests[32 * bad + 31] ^= 0x80;
    if (rc != 1)
        fail_msg("%s with call %zu wrong: %d (%s)", p->by, bad, rc, why);
    assert_int_equal(checked, bad);
    snprintf(want, sizeof want, "call %zu of %zu", bad, b->n);
    assert_non_null(strstr(why, want));
    assert_non_null(strstr(why, "digest differs from"));
    assert_non_null(strstr(why, p->by));
    printf("# %s: %zu calls agree (%.0f ms); %s\n", p->by, b->n,
           (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6,
           why);
}

/* ---- the examples ---- */

typedef struct example {
    const char *package, *inst;
    int bits;
    const char *evp;   /* NULL: no standard function */
} example;

static const example examples[] = {
    {"SM3", "SM3", 256, "SM3"},
    {"SHA2", "SHA256", 256, "SHA256"},
    {"SHA2", "SHA512", 512, "SHA512"},
    {"SHA3", "SHA3_256", 256, "SHA3-256"},
    {"SHA3", "SHA3_512", 512, "SHA3-512"},
    {"SHA3", "SHAKE256_768", 768, NULL},
};
#define N_EXAMPLES (sizeof examples / sizeof examples[0])

static void test_choose_examples(void **state)
{
    (void)state;
    char run[2048], lib[4096], pkg[4096];
    int failed = -1;
    new_dir(run, sizeof run, "examples");
    json_t *b = kt_build_new();
    for (size_t i = 0; i < N_EXAMPLES; i++) {
        snprintf(lib, sizeof lib, "%s/libhbex_%s.so", HB_EX_LIB_DIR, examples[i].inst);
        snprintf(pkg, sizeof pkg, "%s/examples/%s", source_dir(), examples[i].package);
        add(b, run, examples[i].package, examples[i].inst, examples[i].inst, "Reference",
            examples[i].bits, lib, pkg);
    }
    kt_build_save(b, run);
    json_decref(b);
    run_kat(run, &failed);
    assert_int_equal(failed, 0);
    for (size_t i = 0; i < N_EXAMPLES; i++) {
        const example *x = &examples[i];
        expect_status(run, x->package, x->inst, "PASS");
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        xcheck_plan p = choose(run, x->package, x->inst, XCHECK_ALL);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        assert_int_equal(p.digest_bits, x->bits);
        if (x->evp) {
            char by[64];
            assert_int_equal(p.kind, XCHECK_OPENSSL);
            assert_string_equal(p.evp_name, x->evp);
            snprintf(by, sizeof by, "openssl:%s", x->evp);
            assert_string_equal(p.by, by);
        } else {
            assert_int_equal(p.kind, XCHECK_SELF);
            assert_string_equal(p.by, "self (fresh process)");
            expect_library(&p, run, x->package, x->inst);
        }
        printf("# example %s/%s: verified by %s (chosen in %.0f ms)\n", x->package, x->inst,
               p.by, (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
                         (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
        /* Without OpenSSL allowed: the same library (one variant each). */
        p = choose(run, x->package, x->inst, XCHECK_VARIANT | XCHECK_SELF);
        assert_int_equal(p.kind, XCHECK_SELF);
        expect_library(&p, run, x->package, x->inst);
    }

    /* Recomputation by OpenSSL of calls made by the SM3 example itself. */
    batch bt;
    snprintf(lib, sizeof lib, "%s/libhbex_SM3.so", HB_EX_LIB_DIR);
    make_batch(&bt, 460, lib, 0);
    xcheck_plan p = choose(run, "SM3", "SM3", XCHECK_ALL);
    expect_catches(&p, &bt, 313);
    /* The same by the example in a fresh runner. */
    p = choose(run, "SM3", "SM3", XCHECK_SELF);
    expect_catches(&p, &bt, 0);
    free_batch(&bt);

    /* A verifier must be allowed; an instance must exist. */
    hb_err err;
    assert_int_equal(xcheck_choose(run, "SHA3", "SHAKE256_768", XCHECK_OPENSSL, &p, &err),
                     -1);
    assert_non_null(strstr(err.msg, "no verifier"));
    assert_int_equal(xcheck_choose(run, "SM3", "SM4", XCHECK_ALL, &p, &err), -1);
    assert_non_null(strstr(err.msg, "no instance SM3/SM4"));
}

/* ---- a function that is no standard one ---- */

static void fixture_lib(char *out, size_t n, const char *which)
{
    const char *b = getenv("HB_BUILD_DIR");
    if (!b)
        fail_msg("HB_BUILD_DIR is not set: run through ctest");
    snprintf(out, n, "%s/tests/measure/libxfix_%s.so", b, which);
}

static void test_choose_fixture(void **state)
{
    (void)state;
    char run[2048], pkg[2048], pkgsm3[2048], liba[4096], libb[4096], libsm3[4096];
    char libhalf[4096];
    char from[4096], to[4096];
    int failed = -1, n_files = 0;
    hb_err err;
    new_dir(run, sizeof run, "fixture");
    new_dir(pkg, sizeof pkg, "pkg");
    new_dir(pkgsm3, sizeof pkgsm3, "pkgsm3");
    fixture_lib(liba, sizeof liba, "a");
    fixture_lib(libb, sizeof libb, "b");
    snprintf(libsm3, sizeof libsm3, "%s/libhbex_SM3.so", HB_EX_LIB_DIR);
    json_t *b = kt_build_new();
    /* Two variants named after SHA-256, one instance named SM3: all three
     * compute reversed SM3, and submit vectors that say so. */
    add(b, run, "REV", "SHA256", "SHA256", "Reference", 256, liba, pkg);
    add(b, run, "REV", "SHA256-Optimized", "SHA256", "Optimized", 256, libb, pkg);
    add(b, run, "ONE", "SM3", "SM3", "Reference", 256, liba, pkg);
    /* Two variants that are the same library: no second opinion. */
    add(b, run, "TWIN", "SM3", "SM3", "Reference", 256, liba, pkg);
    add(b, run, "TWIN", "SM3-Optimized", "SM3", "Optimized", 256, liba, pkg);
    /* A true SM3 that submits those same (reversed) vectors. */
    add(b, run, "TRUE", "SM3", "SM3", "Reference", 256, libsm3, pkgsm3);
    /* True SM3 vectors (the SM3 example's), from a library that passes
     * KAT_2_12 with them but not KAT_2_23. */
    snprintf(from, sizeof from, "%s/examples/SM3", source_dir());
    fixture_lib(libhalf, sizeof libhalf, "half");
    add(b, run, "HALF", "SM3", "SM3", "Reference", 256, libhalf, from);
    kt_build_save(b, run);
    json_decref(b);
    run_kat(run, &failed);   /* no vectors yet: NOKAT, texts generated */
    if (kat_manifest_write_run(pkg, run, &n_files, &err) != 0)
        fail_msg("%s", err.msg);
    assert_true(n_files >= 4);
    snprintf(from, sizeof from, "%s/kat.sha256", pkg);
    snprintf(to, sizeof to, "%s/kat.sha256", pkgsm3);
    assert_int_equal(hb_copy_file(from, to, &err), 0);
    run_kat(run, &failed);
    expect_status(run, "REV", "SHA256", "PASS");
    expect_status(run, "REV", "SHA256-Optimized", "PASS");
    expect_status(run, "ONE", "SM3", "PASS");
    expect_status(run, "TWIN", "SM3-Optimized", "PASS");
    expect_status(run, "TRUE", "SM3", "MISMATCH");
    expect_status(run, "HALF", "SM3", "MISMATCH");

    xcheck_plan p = choose(run, "REV", "SHA256", XCHECK_ALL);
    assert_int_equal(p.kind, XCHECK_VARIANT);
    assert_string_equal(p.by, "variant:Optimized_Implementation/SHA256-Optimized");
    expect_library(&p, run, "REV", "SHA256-Optimized");
    p = choose(run, "REV", "SHA256-Optimized", XCHECK_ALL);
    assert_int_equal(p.kind, XCHECK_VARIANT);
    assert_string_equal(p.by, "variant:Reference_Implementation/SHA256");
    expect_library(&p, run, "REV", "SHA256");
    p = choose(run, "REV", "SHA256", XCHECK_SELF);
    assert_int_equal(p.kind, XCHECK_SELF);
    expect_library(&p, run, "REV", "SHA256");
    p = choose(run, "ONE", "SM3", XCHECK_ALL);
    assert_int_equal(p.kind, XCHECK_SELF);
    expect_library(&p, run, "ONE", "SM3");
    p = choose(run, "TWIN", "SM3-Optimized", XCHECK_ALL);
    assert_int_equal(p.kind, XCHECK_SELF);
    expect_library(&p, run, "TWIN", "SM3-Optimized");
    p = choose(run, "TRUE", "SM3", XCHECK_ALL);
    assert_int_equal(p.kind, XCHECK_SELF);
    expect_library(&p, run, "TRUE", "SM3");
    p = choose(run, "HALF", "SM3", XCHECK_ALL);
    assert_int_equal(p.kind, XCHECK_SELF);
    assert_int_equal(xcheck_choose(run, "REV", "SHA256", XCHECK_OPENSSL, &p, &err), -1);

    /* Calls of the Reference checked by the Optimized variant, and by the
     * same library in a fresh process. */
    batch bt;
    make_batch(&bt, 200, liba, 0);
    p = choose(run, "REV", "SHA256", XCHECK_ALL);
    expect_catches(&p, &bt, 199);
    p = choose(run, "ONE", "SM3", XCHECK_ALL);
    expect_catches(&p, &bt, 57);
    free_batch(&bt);

    /* Only what the KAT stage compared counts: ONE/SM3's texts replaced
     * after it by true SM3 vectors (TRUE/SM3's) no longer have their
     * submitted SHA-256, and are no evidence. */
    static const char *const names[] = {"KAT_2_12_SM3.txt", "KAT_2_23_SM3.txt"};
    for (int i = 0; i < 2; i++) {
        snprintf(from, sizeof from, "%s/kat/TRUE/SM3/%s", run, names[i]);
        snprintf(to, sizeof to, "%s/kat/ONE/SM3/%s", run, names[i]);
        assert_int_equal(hb_copy_file(from, to, &err), 0);
    }
    p = choose(run, "ONE", "SM3", XCHECK_ALL);
    assert_int_equal(p.kind, XCHECK_SELF);
}

/* A verifier that crashes on call 30 (its 777-byte message) leaves the
 * batch with that call named. */
static void test_runner_fails(void **state)
{
    (void)state;
    batch bt;
    char lib[4096], why[512];
    size_t checked = 0;
    hb_err err;
    xcheck_plan p = {0};
    fixture_lib(lib, sizeof lib, "a");
    make_batch(&bt, 60, lib, 1);
    fixture_lib(p.lib, sizeof p.lib, "crash");
    p.kind = XCHECK_SELF;
    p.digest_bits = 256;
    snprintf(p.by, sizeof p.by, "self (fresh process)");
    assert_int_equal(xcheck_calls(&p, bt.calls, bt.n, &checked, why, sizeof why, &err), 1);
    assert_int_equal(checked, 30);
    assert_non_null(strstr(why, "call 30 of 60"));
    assert_non_null(strstr(why, "stopped answering"));
    printf("# %s\n", why);
    fixture_lib(p.lib, sizeof p.lib, "missing");
    assert_int_equal(xcheck_calls(&p, bt.calls, bt.n, &checked, why, sizeof why, &err), 1);
    assert_int_equal(checked, 0);
    assert_non_null(strstr(why, "did not load"));
    free_batch(&bt);
}

/* ---- sampling and window messages ---- */

static void test_draw(void **state)
{
    (void)state;
    size_t *idx = malloc(1000 * sizeof *idx), *again = malloc(1000 * sizeof *again);
    hb_err err;
    assert_true(idx && again);
    assert_int_equal(xcheck_draw(1000000, 459, idx, &err), 459);
    assert_int_equal(xcheck_draw(1000000, 459, again, &err), 459);
    for (size_t i = 0; i < 459; i++) {
        assert_true(idx[i] < 1000000);
        assert_true(i == 0 || idx[i - 1] < idx[i]);
    }
    assert_memory_not_equal(idx, again, 459 * sizeof *idx);
    assert_int_equal(xcheck_draw(300, 459, idx, &err), 300);   /* all of them */
    for (size_t i = 0; i < 300; i++)
        assert_int_equal(idx[i], i);
    assert_int_equal(xcheck_draw(10, 0, idx, &err), 0);
    /* 20000 draws of 3 out of 12: each index drawn about 5000 times (a
     * binomial with a standard deviation of about 61; the bounds are
     * more than six of them away). */
    long count[12] = {0};
    for (int r = 0; r < 20000; r++) {
        assert_int_equal(xcheck_draw(12, 3, idx, &err), 3);
        assert_true(idx[0] < idx[1] && idx[1] < idx[2] && idx[2] < 12);
        for (int i = 0; i < 3; i++)
            count[idx[i]]++;
    }
    for (int i = 0; i < 12; i++)
        if (count[i] < 4600 || count[i] > 5400)
            fail_msg("index %d drawn %ld times out of 20000 draws of 3 (about 5000 "
                     "expected)", i, count[i]);
    free(idx);
    free(again);
}

/* Message J of a window: raw message J of the stream, the first eight
 * bytes of each 64-byte block XORed with the first eight bytes of digest
 * J-1 (written out here, not taken from probe/chain.h). */
static void test_window_message(void **state)
{
    (void)state;
    msggen_key key;
    hb_err err;
    unsigned char raw[200], got[200], prev[32];
    const unsigned long long offset = 100, size = 150;
    assert_int_equal(msggen_new_key(&key, &err), 0);
    for (int i = 0; i < 32; i++)
        prev[i] = (unsigned char)(7 * i + 1);
    for (unsigned long long j = 0; j < 5; j++) {
        assert_int_equal(msggen_fill(&key, offset + j * size, raw, size, &err), 0);
        if (j > 0)
            for (size_t b = 0; b < size; b += 64)
                for (size_t k = 0; k < 8 && b + k < size; k++)
                    raw[b + k] ^= prev[k];
        assert_int_equal(xcheck_window_message(&key, offset, size, j, prev, 32, got, &err),
                         0);
        assert_memory_equal(got, raw, size);
    }
    /* A 4-byte digest chains its four bytes, zero beyond. */
    assert_int_equal(msggen_fill(&key, offset + 3 * size, raw, size, &err), 0);
    assert_int_equal(xcheck_window_message(&key, offset, size, 3, prev, 4, got, &err), 0);
    for (size_t b = 0; b < size; b++) {
        unsigned char mask = b % 64 < 4 ? prev[b % 64] : 0;
        assert_int_equal(got[b], raw[b] ^ mask);
    }
    assert_int_equal(xcheck_window_message(&key, MSGGEN_STREAM_BYTES - 10, 20, 0, prev, 32,
                                           got, &err), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sample_size),
        cmocka_unit_test(test_cavp_names),
        cmocka_unit_test(test_vectors_not_enough),
        cmocka_unit_test(test_vectors_near),
        cmocka_unit_test(test_vectors_loop),
        cmocka_unit_test(test_choose_examples),
        cmocka_unit_test(test_choose_fixture),
        cmocka_unit_test(test_runner_fails),
        cmocka_unit_test(test_draw),
        cmocka_unit_test(test_window_message),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
