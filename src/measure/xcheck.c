/* The independent check of timed digests: see xcheck.h. The choice reads
 * build.json and kat.json; the standard function is found by recomputing
 * the records of the instance's submitted KAT texts with OpenSSL, every
 * candidate function of the instance's digest length at once, a candidate
 * dropped at its first disagreement. The recomputation of timed calls
 * runs OpenSSL here, or the verifier library in one sandboxed runner
 * (runner/client.h) per batch. */
#include "measure/xcheck.h"

#include <limits.h>
#include <math.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/random.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include <openssl/evp.h>
#include "common/digest.h"
#include "common/fs.h"
#include "common/json.h"
#include "common/untrusted.h"
#include "compile/build.h"
#include "kat/drng.h"
#include "kat/kat.h"
#include "kat/katfile.h"
#include "probe/chain.h"
#include "rundir/rundir.h"
#include "runner/client.h"

/* ---- the standard functions ---- */

typedef struct standard {
    const char *evp_name;   /* as EVP_MD_fetch knows it */
    int bits;
} standard;

static const standard standards[] = {
    {"SM3", 256},        {"SHA224", 224},     {"SHA256", 256},
    {"SHA384", 384},     {"SHA512", 512},     {"SHA512-224", 224},
    {"SHA512-256", 256}, {"SHA3-224", 224},   {"SHA3-256", 256},
    {"SHA3-384", 384},   {"SHA3-512", 512},
};
#define N_STANDARDS (sizeof standards / sizeof standards[0])

/* One candidate function while the vectors are read. */
typedef struct contender {
    const standard *s;
    EVP_MD *md;
    int alive;
    long in_file;        /* records it reproduced in the current file */
    long total;          /* plain records it reproduced in all files */
    long n_missed;       /* plain records it did not reproduce */
    int loop_ok;         /* it reproduced a KAT_Loop record */
    char missed[96];     /* where it first disagreed */
    char first[160];     /* the same as "Msg_Len = N in FILE:LINE" */
} contender;

/* The value of LINE when it is "KEY = value" (or "KEY =", the empty
 * value); NULL otherwise. */
static const char *value_of(const char *line, const char *key)
{
    size_t k = strlen(key);
    if (strncmp(line, key, k) != 0 || strncmp(line + k, " =", 2) != 0)
        return NULL;
    line += k + 2;
    return *line == ' ' ? line + 1 : line;
}

/* One record as read. */
typedef struct vrecord {
    unsigned long long bits;
    int long_form;                          /* Msg_Seed / Msg_Exp */
    size_t msg_bytes;
    unsigned char msg[KAT_MAX_FULL_MSG_BYTES];
    int have_seed;
    unsigned char seed[DRNG_SEED_BYTES];
    char exp[64];
    unsigned long long dst_bits;
    size_t dst_bytes;
    unsigned char dst[KAT_MAX_DIGEST_BYTES];
    long line;
} vrecord;

/* The long message of R into *OUT (malloc'd, R->bits / 8 bytes): all zero
 * or all 0xFF (no seed), or the DRNG draw of its seed; 0 when its first and
 * last bytes are those of its Msg_Exp, 1 when the record cannot be
 * rebuilt (not checked), -1 on our own failure. */
static int long_message(const vrecord *r, unsigned char **out, hb_err *err)
{
    size_t n = (size_t)(r->bits / 8);
    unsigned char *m = malloc(n ? n : 1);
    char exp[64];
    if (!m)
        return hb_fail(err, "out of memory for a %zu-byte KAT message", n);
    if (!r->have_seed) {
        memset(m, strncmp(r->exp, "FFFFFFFFFFFFFFFF", 16) == 0 ? 0xFF : 0x00, n);
    } else {
        drng d;
        if (drng_init(&d, r->seed, sizeof r->seed, err) != 0) {
            free(m);
            return -1;
        }
        int rc = drng_generate(&d, m, r->bits, err);
        drng_free(&d);
        if (rc != 0) {
            free(m);
            return -1;
        }
    }
    if (n < 8) {
        free(m);
        return 1;
    }
    hb_hex_encode(m, 8, exp, 1);
    memcpy(exp + 16, " .... ", 6);
    hb_hex_encode(m + n - 8, 8, exp + 22, 1);
    if (strcmp(exp, r->exp) != 0) {
        free(m);
        return 1;
    }
    *out = m;
    return 0;
}

/* KAT_Loop's iterations (SPEC §3, as kat/guard.h runs them on a library)
 * with MD on the LEN-byte M0: the final digest into OUT. 0, or -1 when
 * OpenSSL fails. */
static int evp_loop(const EVP_MD *md, const unsigned char *m0, size_t len, size_t d,
                    long rounds, unsigned char *out)
{
    unsigned char m[KAT_MAX_FULL_MSG_BYTES], head[EVP_MAX_MD_SIZE], h[EVP_MAX_MD_SIZE];
    unsigned int hl = 0;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = ctx && len <= sizeof m && d <= len && d <= sizeof h;
    if (ok) {
        memcpy(m, m0, len);
        ok = EVP_DigestInit_ex2(ctx, md, NULL) && EVP_DigestUpdate(ctx, m, len) &&
             EVP_DigestFinal_ex(ctx, h, &hl) && hl == d;
    }
    for (long i = 0; ok && i < rounds; i++) {
        memcpy(head, m, d);
        memmove(m, m + d, len - d);
        memcpy(m + len - d, head, d);
        for (size_t k = 0; k < d; k++)
            m[k] ^= h[k];
        ok = EVP_DigestInit_ex2(ctx, md, NULL) && EVP_DigestUpdate(ctx, m, len) &&
             EVP_DigestFinal_ex(ctx, h, &hl);
    }
    EVP_MD_CTX_free(ctx);
    if (ok)
        memcpy(out, h, d);
    return ok ? 0 : -1;
}

/* Recomputes the KAT_Loop record R of PATH (m0 and the final digest) with
 * every live contender that has not qualified yet: a million hashes each,
 * so only when the plain records left the choice open. */
static int check_loop_record(const vrecord *r, const char *path, int digest_bits,
                             long rounds, contender *c, size_t nc, hb_err *err)
{
    size_t d = (size_t)digest_bits / 8;
    if (r->long_form || r->bits != XCHECK_LOOP_BITS || r->msg_bytes != r->bits / 8 ||
        r->dst_bits != (unsigned long long)digest_bits || r->dst_bytes != d ||
        d > r->msg_bytes)
        return 0;
    int found = 0;          /* two functions cannot both agree: one loop is enough */
    for (size_t i = 0; i < nc; i++)
        found |= c[i].alive && c[i].loop_ok;
    for (size_t i = 0; i < nc && !found; i++) {
        unsigned char h[EVP_MAX_MD_SIZE];
        if (!c[i].alive || c[i].n_missed || c[i].total >= XCHECK_MIN_RECORDS)
            continue;
        if (evp_loop(c[i].md, r->msg, r->msg_bytes, d, rounds, h) != 0)
            return hb_fail(err, "OpenSSL cannot compute %s: check the installed libcrypto",
                           c[i].s->evp_name);
        if (memcmp(h, r->dst, d) == 0) {
            c[i].loop_ok = found = 1;
        } else {
            c[i].alive = 0;
            snprintf(c[i].missed, sizeof c[i].missed, "%s:%ld", hb_basename(path), r->line);
        }
    }
    return 0;
}

/* Recomputes record R of PATH with every live contender. */
static int check_record(const vrecord *r, const char *path, int digest_bits, contender *c,
                        size_t nc, hb_err *err)
{
    if (r->bits % 8 != 0 || r->dst_bits != (unsigned long long)digest_bits ||
        r->dst_bytes * 8 != r->dst_bits || r->bits > XCHECK_MAX_RECORD_BITS)
        return 0;
    const unsigned char *msg = r->msg;
    unsigned char *owned = NULL;
    if (r->long_form) {
        int rc = long_message(r, &owned, err);
        if (rc != 0)
            return rc < 0 ? -1 : 0;
        msg = owned;
    } else if (r->msg_bytes != r->bits / 8) {
        return 0;
    }
    for (size_t i = 0; i < nc; i++) {
        unsigned char d[EVP_MAX_MD_SIZE];
        unsigned int len = 0;
        if (!c[i].alive)
            continue;
        if (EVP_Digest(msg, (size_t)(r->bits / 8), d, &len, c[i].md, NULL) != 1) {
            free(owned);
            return hb_fail(err, "OpenSSL cannot compute %s: check the installed libcrypto",
                           c[i].s->evp_name);
        }
        if (len == r->dst_bytes && memcmp(d, r->dst, len) == 0) {
            c[i].in_file++;
        } else if (c[i].n_missed++ == 0) {
            /* every record is still recomputed: a near-standard function
             * is told by how many it misses (xcheck_near) */
            snprintf(c[i].missed, sizeof c[i].missed, "%s:%ld", hb_basename(path), r->line);
            snprintf(c[i].first, sizeof c[i].first, "Msg_Len = %llu in %s:%ld", r->bits,
                     hb_basename(path), r->line);
        }
    }
    free(owned);
    return 0;
}

/* Reads the line LINE of PATH into the record R being read; *DONE is set
 * when it ended a record. */
static int read_line(const char *line, const char *path, long lineno, vrecord *r,
                     int *done, hb_err *err)
{
    const char *v;
    size_t len;
    *done = 0;
    if ((v = value_of(line, "Msg_Len")) != NULL) {
        r->bits = strtoull(v, NULL, 10);
        r->long_form = 0;
        r->msg_bytes = 0;
        r->have_seed = 0;
        r->exp[0] = '\0';
        r->dst_bits = 0;
        r->dst_bytes = 0;
        r->line = lineno;
    } else if ((v = value_of(line, "Msg")) != NULL) {
        len = strlen(v);
        if (len / 2 > sizeof r->msg || hb_hex_decode(v, len, r->msg) < 0)
            return hb_fail_at(err, path, lineno, "Msg is not hex of at most %d bytes",
                              KAT_MAX_FULL_MSG_BYTES);
        r->msg_bytes = len / 2;
    } else if ((v = value_of(line, "Msg_Seed")) != NULL) {
        r->long_form = 1;
        len = strlen(v);
        if (len == 2 * DRNG_SEED_BYTES && hb_hex_decode(v, len, r->seed) == DRNG_SEED_BYTES)
            r->have_seed = 1;
        else if (len != 0)
            return hb_fail_at(err, path, lineno, "Msg_Seed is not %d hex digits",
                              2 * DRNG_SEED_BYTES);
    } else if ((v = value_of(line, "Msg_Exp")) != NULL) {
        snprintf(r->exp, sizeof r->exp, "%s", v);
    } else if ((v = value_of(line, "Dst_Len")) != NULL) {
        r->dst_bits = strtoull(v, NULL, 10);
    } else if ((v = value_of(line, "Dst")) != NULL) {
        len = strlen(v);
        if (len / 2 > sizeof r->dst || hb_hex_decode(v, len, r->dst) < 0)
            return hb_fail_at(err, path, lineno, "Dst is not hex of at most %d bytes",
                              KAT_MAX_DIGEST_BYTES);
        r->dst_bytes = len / 2;
        *done = 1;
    }
    return 0;
}

/* Reads the records of PATH and checks each with the contenders (LOOP > 0:
 * as KAT_Loop records of LOOP rounds). */
static int check_file(const char *path, int digest_bits, contender *c, size_t nc,
                      long loop, hb_err *err)
{
    kat_reader rd;
    kat_grammar g;
    vrecord *r = calloc(1, sizeof *r);
    const char *line;
    size_t len;
    int rc, done;
    if (!r)
        return hb_fail(err, "out of memory");
    if (kat_reader_open(&rd, path, err) != 0) {
        free(r);
        return -1;
    }
    kat_grammar_init(&g);
    for (size_t i = 0; i < nc; i++)
        c[i].in_file = 0;
    while ((rc = kat_reader_next(&rd, &line, &len, err)) == 1) {
        if (kat_grammar_feed(&g, line, path, rd.lineno, err) != 0 ||
            read_line(line, path, rd.lineno, r, &done, err) != 0 ||
            (done && (loop ? check_loop_record(r, path, digest_bits, loop, c, nc, err)
                           : check_record(r, path, digest_bits, c, nc, err)) != 0)) {
            rc = -1;
            break;
        }
    }
    if (rc == 0)
        rc = kat_grammar_end(&g, path, rd.lineno, err);
    kat_reader_close(&rd);
    free(r);
    for (size_t i = 0; i < nc; i++)
        c[i].total += c[i].in_file;
    return rc;
}

/* 1 when the KAT file PATH is one whose records are plain (message,
 * digest) pairs: not KAT_Loop's chained result. */
static int plain_records(const char *path)
{
    return strncmp(hb_basename(path), "KAT_Loop", 8) != 0;
}

int xcheck_match_vectors(const char *const *paths, size_t n, int digest_bits,
                         char evp_name[32], char *why, size_t whysz, hb_err *err)
{
    return xcheck_match_vectors_rounds(paths, n, digest_bits, XCHECK_LOOP_ROUNDS, evp_name,
                                       why, whysz, err);
}

int xcheck_match_vectors_rounds(const char *const *paths, size_t n, int digest_bits,
                                long loop_rounds, char evp_name[32], char *why,
                                size_t whysz, hb_err *err)
{
    xcheck_match m;
    int rc = xcheck_match_near(paths, n, digest_bits, loop_rounds, &m, why, whysz, err);
    evp_name[0] = '\0';
    if (rc == 1)
        snprintf(evp_name, 32, "%s", m.evp_name);
    return rc < 0 ? -1 : rc == 1;
}

/* 1 when AGREED records of a function and MISSED others make it the
 * near-standard function of the vectors (xcheck.h: XCHECK_NEAR_*). */
static int near_enough(long agreed, long missed)
{
    return missed > 0 && agreed >= XCHECK_MIN_RECORDS &&
           (missed <= XCHECK_NEAR_MAX_MISSES ||
            (double)agreed >= XCHECK_NEAR_MIN_AGREEMENT * (double)(agreed + missed));
}

int xcheck_match_near(const char *const *paths, size_t n, int digest_bits, long loop_rounds,
                      xcheck_match *m, char *why, size_t whysz, hb_err *err)
{
    contender c[N_STANDARDS];
    size_t nc = 0, files = 0;
    int rc = 0;
    memset(m, 0, sizeof *m);
    if (whysz)
        why[0] = '\0';
    for (size_t i = 0; i < N_STANDARDS; i++) {
        if (standards[i].bits != digest_bits)
            continue;
        EVP_MD *md = EVP_MD_fetch(NULL, standards[i].evp_name, NULL);
        if (!md)
            continue;  /* this OpenSSL lacks it: never chosen */
        memset(&c[nc], 0, sizeof c[nc]);
        c[nc].s = &standards[i];
        c[nc].md = md;
        c[nc].alive = 1;
        nc++;
    }
    for (size_t i = 0; i < n && rc == 0; i++)
        if (plain_records(paths[i])) {
            files++;
            rc = check_file(paths[i], digest_bits, c, nc, 0, err);
        }
    /* A submission whose PASS rests on files with few plain records (only
     * KAT_2_23's three, only KAT_Loop) would otherwise choose not to be
     * checked by OpenSSL: KAT_Loop's record is recomputed too, but only
     * while a live contender that missed no record still lacks the plain
     * records. */
    int undecided = 0;
    for (size_t i = 0; i < nc; i++)
        undecided |= c[i].alive && !c[i].n_missed && c[i].total < XCHECK_MIN_RECORDS;
    for (size_t i = 0; i < n && rc == 0 && undecided; i++)
        if (!plain_records(paths[i])) {
            files++;
            rc = check_file(paths[i], digest_bits, c, nc, loop_rounds > 0 ? loop_rounds : 1,
                            err);
        }
    /* the exact function first; else the near-standard one, else the one
     * that agreed on most records (for the page only) */
    const contender *best = NULL;
    int kind = 0;
    for (size_t i = 0; i < nc && rc == 0; i++) {
        int k = !c[i].alive ? 0 :
                !c[i].n_missed && (c[i].total >= XCHECK_MIN_RECORDS || c[i].loop_ok) ? 1 :
                near_enough(c[i].total, c[i].n_missed) ? 2 : 0;
        int rank = k == 1 ? 3 : k == 2 ? 2 : c[i].total > 0 ? 1 : 0;
        int had = !best ? 0 : kind == 1 ? 3 : kind == 2 ? 2 : 1;
        if (rank > had || (rank == had && rank > 0 && c[i].total > best->total)) {
            best = &c[i];
            kind = k;
        }
    }
    if (rc == 0 && best) {
        snprintf(m->evp_name, sizeof m->evp_name, "%s", best->s->evp_name);
        m->agreed = best->total;
        m->missed = best->n_missed;
        snprintf(m->first_miss, sizeof m->first_miss, "%s", best->first);
        rc = kind;
    }
    if ((rc == 0 || rc == 2) && whysz) {
        size_t used = (size_t)snprintf(why, whysz, "%s", nc == 0 ?
            "no standard function of this digest length" : files == 0 ?
            "no submitted KAT file with records" : "");
        for (size_t i = 0; i < nc && used < whysz; i++) {
            int w = c[i].alive && !c[i].n_missed ?
                snprintf(why + used, whysz - used, "%s%s: only %ld records",
                         used ? "; " : "", c[i].s->evp_name, c[i].total) :
                snprintf(why + used, whysz - used, "%s%s differs at %s", used ? "; " : "",
                         c[i].s->evp_name, c[i].missed);
            used += w > 0 ? (size_t)w : 0;
        }
    }
    for (size_t i = 0; i < nc; i++)
        EVP_MD_free(c[i].md);
    return rc;
}

/* ---- the choice ---- */

/* The run directory's two JSON documents. */
typedef struct rundocs {
    json_t *build, *kat;           /* kat NULL when there is no kat.json */
    json_t *build_list, *kat_list; /* borrowed */
} rundocs;

static int load_docs(const char *run_dir, rundocs *d, hb_err *err)
{
    char path[PATH_MAX];
    memset(d, 0, sizeof *d);
    if (rundir_path(path, sizeof path, run_dir, RUNDIR_BUILD_JSON, err) != 0 ||
        hb_json_load(path, &d->build, err) != 0)
        return -1;
    d->build_list = json_object_get(d->build, "instances");
    if (!json_is_array(d->build_list)) {
        json_decref(d->build);
        return hb_fail(err, "%s: no \"instances\" array; run 'hashbench build' on this "
                       "run directory again", path);
    }
    if (rundir_path(path, sizeof path, run_dir, RUNDIR_KAT_JSON, err) != 0) {
        json_decref(d->build);
        return -1;
    }
    if (hb_is_file(path)) {
        if (hb_json_load(path, &d->kat, err) != 0) {
            json_decref(d->build);
            return -1;
        }
        d->kat_list = json_object_get(d->kat, "instances");
    }
    return 0;
}

static void free_docs(rundocs *d)
{
    json_decref(d->build);
    json_decref(d->kat);
}

static json_t *kat_entry_of(const rundocs *d, const char *cand, const char *inst)
{
    size_t idx;
    return json_is_array(d->kat_list) ? kat_find_entry(d->kat_list, cand, inst, &idx) : NULL;
}

/* The absolute path of the library an instance uses (build entry B, KAT
 * entry K) into OUT; its SHA-256 into *SHA (borrowed). 0, or -1 when the
 * file is not there. */
static int library_of(const char *run_dir, const json_t *b, const json_t *k, char *out,
                      size_t outsz, const char **sha, hb_err *err)
{
    rundir_library l;
    char rel[PATH_MAX], abs[PATH_MAX];
    rundir_instance_library(b, k, &l);
    *sha = l.library_sha256 ? l.library_sha256 : "";
    if (!l.library || !l.library[0])
        return hb_fail(err, "%s/%s: build.json names no library; run 'hashbench build' "
                       "on %s again", hb_json_str(b, "candidate"),
                       hb_json_str(b, "instance"), run_dir);
    if (hb_path_join(rel, sizeof rel, run_dir, l.library, err) != 0)
        return -1;
    if (!realpath(rel, abs))
        return hb_fail_errno(err, "%s: the library of %s/%s is missing; run 'hashbench "
                             "build' on %s again", rel, hb_json_str(b, "candidate"),
                             hb_json_str(b, "instance"), run_dir);
    if (strlen(abs) >= outsz)
        return hb_fail(err, "%s: path too long", abs);
    snprintf(out, outsz, "%s", abs);
    return 0;
}

/* The submitted KAT texts of the instance (entry K of kat.json): the files
 * whose verdict is PASS, found in the texts folder of the library the KAT
 * stage kept, whose canonical SHA-256 is still the submitted one. */
static int submitted_texts(const char *run_dir, const char *cand, const char *inst,
                           const json_t *k, strlist *out, hb_err *err)
{
    char rel[PATH_MAX], dir[PATH_MAX], path[PATH_MAX], sha[HB_SHA256_HEX];
    hb_err ignored;
    const char *flavour = json_is_object(json_object_get(k, "guide")) ?
        RUNDIR_HARNESS_DEFAULT : NULL;
    size_t i;
    json_t *f;
    if (rundir_kat_texts_rel(rel, sizeof rel, cand, inst, flavour, err) != 0 ||
        hb_path_join(dir, sizeof dir, run_dir, rel, err) != 0)
        return -1;
    json_array_foreach(json_object_get(k, "files"), i, f) {
        const char *name = hb_json_str(f, "name");
        const char *want = json_string_value(json_object_get(f, "expected_sha256"));
        if (strcmp(hb_json_str(f, "verdict"), "PASS") != 0 || !want || !name[0] ||
            strchr(name, '/') || hb_path_join(path, sizeof path, dir, name, &ignored) != 0)
            continue;
        if (!hb_is_file(path) || kat_file_sha256(path, sha, &ignored) != 0 ||
            strcmp(sha, want) != 0)
            continue;  /* gone or changed since the KAT stage: not evidence */
        if (strlist_push(out, path) != 0)
            return hb_fail(err, "out of memory");
    }
    return 0;
}

static int passed(const json_t *k)
{
    return strcmp(hb_json_str(k, "status"), "PASS") == 0;
}

/* OPENSSL when the submitted vectors show a standard function, or agree
 * with one on all but a few records (XCHECK_NEAR_*: BY then says so and
 * where they first differ): 1 (P filled), 0 (none), -1. With none, *PART
 * is the function that agreed on most records, if any (for the page). */
static int choose_openssl(const char *run_dir, const char *cand, const char *inst,
                          const json_t *k, int bits, xcheck_plan *p, xcheck_match *part,
                          hb_err *err)
{
    strlist texts = {0};
    char why[512];
    xcheck_match m;
    memset(&m, 0, sizeof m);
    memset(part, 0, sizeof *part);
    /* A library that does not reproduce its own submission (MISMATCH, or
     * a failure) leaves files whose submitted records may not be at hand
     * (a manifest holds only their SHA-256): no claim on its function. */
    int rc = k && passed(k) ? submitted_texts(run_dir, cand, inst, k, &texts, err) : 0;
    if (rc == 0 && texts.n > 0)
        rc = xcheck_match_near((const char *const *)texts.v, (size_t)texts.n, bits,
                               XCHECK_LOOP_ROUNDS, &m, why, sizeof why, err);
    strlist_free(&texts);
    if (rc == 1 || rc == 2) {
        p->kind = XCHECK_OPENSSL;
        snprintf(p->evp_name, sizeof p->evp_name, "%s", m.evp_name);
        if (rc == 1)
            snprintf(p->by, sizeof p->by, "openssl:%s", m.evp_name);
        else
            snprintf(p->by, sizeof p->by, "openssl:%s; near-standard: its vectors agree "
                     "with %s except on %ld record%s (first: %s)", m.evp_name, m.evp_name,
                     m.missed,
                     m.missed == 1 ? "" : "s", m.first_miss);
        p->near = rc == 2;
        return 1;
    }
    if (rc == 0 && m.agreed > 0)
        *part = m;
    return rc;
}

/* VARIANT: another variant of the instance (build entry B) that passed its
 * KATs, the Reference first: 1 (P filled), 0 (none), -1. */
static int choose_variant(const char *run_dir, const rundocs *d, const json_t *b,
                          const char *own_sha, xcheck_plan *p, hb_err *err)
{
    const json_t *best = NULL, *e;
    size_t i;
    json_array_foreach(d->build_list, i, e) {
        const json_t *k = kat_entry_of(d, hb_json_str(e, "candidate"),
                                       hb_json_str(e, "instance"));
        rundir_library l;
        if (e == b || !k || !passed(k) || json_is_true(json_object_get(e, "baseline")) ||
            strcmp(hb_json_str(e, "status"), "BUILT") != 0 ||
            strcmp(hb_json_str(e, "candidate"), hb_json_str(b, "candidate")) != 0 ||
            strcmp(build_algorithm_instance(e), build_algorithm_instance(b)) != 0 ||
            json_integer_value(json_object_get(e, "digest_bits")) !=
                json_integer_value(json_object_get(b, "digest_bits")) ||
            strcmp(hb_json_str(e, "instance"), hb_json_str(b, "instance")) == 0)
            continue;
        rundir_instance_library(e, k, &l);
        if (!l.library_sha256 || strcmp(l.library_sha256, own_sha) == 0)
            continue;  /* the same code: no second opinion */
        if (!best || (strcmp(hb_json_str(e, "variant"), "Reference") == 0 &&
                      strcmp(hb_json_str(best, "variant"), "Reference") != 0))
            best = e;
    }
    if (!best)
        return 0;
    const char *sha;
    const json_t *k = kat_entry_of(d, hb_json_str(best, "candidate"),
                                   hb_json_str(best, "instance"));
    if (library_of(run_dir, best, k, p->lib, sizeof p->lib, &sha, err) != 0)
        return -1;
    const char *variant = hb_json_str(best, "variant");
    p->kind = XCHECK_VARIANT;
    snprintf(p->by, sizeof p->by, "variant:%s%s/%.100s",
             variant[0] ? variant : "unnamed", variant[0] ? "_Implementation" : "",
             hb_json_str(best, "instance"));
    return 1;
}

int xcheck_choose(const char *run_dir, const char *cand, const char *inst, int allow,
                  xcheck_plan *p, hb_err *err)
{
    rundocs d;
    size_t idx;
    memset(p, 0, sizeof *p);
    if (!(allow & XCHECK_ALL))
        return hb_fail(err, "no kind of verifier is allowed for %s/%s", cand, inst);
    if (load_docs(run_dir, &d, err) != 0)
        return -1;
    const json_t *b = kat_find_entry(d.build_list, cand, inst, &idx);
    const json_t *k = kat_entry_of(&d, cand, inst);
    const char *own_sha;
    char own[PATH_MAX];
    int rc = 0;
    if (!b) {
        rc = hb_fail(err, "%s/%s: no instance %s/%s; run 'hashbench build' first, or "
                     "check the name", run_dir, RUNDIR_BUILD_JSON, cand, inst);
        free_docs(&d);
        return rc;
    }
    p->digest_bits = (int)json_integer_value(json_object_get(b, "digest_bits"));
    rc = library_of(run_dir, b, k, own, sizeof own, &own_sha, err);
    xcheck_match part;
    memset(&part, 0, sizeof part);
    if (rc == 0 && (allow & XCHECK_OPENSSL))
        rc = choose_openssl(run_dir, cand, inst, k, p->digest_bits, p, &part, err);
    if (rc == 0 && (allow & XCHECK_VARIANT))
        rc = choose_variant(run_dir, &d, b, own_sha, p, err);
    if (rc == 0 && (allow & XCHECK_SELF)) {
        p->kind = XCHECK_SELF;
        snprintf(p->by, sizeof p->by, "self (fresh process)");
        snprintf(p->lib, sizeof p->lib, "%s", own);
        strlist texts = {0};
        rc = k && passed(k) ? submitted_texts(run_dir, cand, inst, k, &texts, err) : 0;
        for (int i = 0; rc == 0 && i < texts.n && !p->kat_text[0]; i++)
            if (strncmp(hb_basename(texts.v[i]), "KAT_2_12", 8) == 0)
                snprintf(p->kat_text, sizeof p->kat_text, "%s", texts.v[i]);
        strlist_free(&texts);
        if (rc == 0)
            rc = 1;
    }
    /* vectors that agree with a standard function on some records, too
     * few to have OpenSSL check the timed digests, are never silent */
    if (rc == 1 && p->kind != XCHECK_OPENSSL && part.agreed > 0) {
        size_t used = strlen(p->by);
        snprintf(p->by + used, sizeof p->by - used, "; its vectors agree with %s on %ld "
                 "of %ld records (first difference: %s)", part.evp_name, part.agreed,
                 part.agreed + part.missed, part.first_miss);
    }
    if (rc == 0)
        rc = hb_fail(err, "%s/%s: no verifier of the allowed kinds (%s%s%s): no standard "
                     "function in its vectors, no other variant that passed its KATs; "
                     "allow the same library (XCHECK_SELF)", cand, inst,
                     allow & XCHECK_OPENSSL ? "openssl " : "",
                     allow & XCHECK_VARIANT ? "variant " : "",
                     allow & XCHECK_SELF ? "self" : "");
    free_docs(&d);
    if (rc < 0)
        memset(p, 0, sizeof *p);
    return rc < 0 ? -1 : 0;
}

/* ---- the recomputation ---- */

static void say(char *why, size_t whysz, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void say(char *why, size_t whysz, const char *fmt, ...)
{
    va_list ap;
    if (!whysz)
        return;
    va_start(ap, fmt);
    vsnprintf(why, whysz, fmt, ap);
    va_end(ap);
    hb_one_line(why);
}

static int calls_openssl(const xcheck_plan *p, const xcheck_call *calls, size_t n,
                         size_t *n_checked, char *why, size_t whysz, hb_err *err)
{
    EVP_MD *md = EVP_MD_fetch(NULL, p->evp_name, NULL);
    size_t dlen = (size_t)p->digest_bits / 8;
    if (!md)
        return hb_fail(err, "OpenSSL cannot provide %s: check the installed libcrypto",
                       p->evp_name);
    int size = EVP_MD_get_size(md);
    if (size < 0 || (size_t)size != dlen) {
        EVP_MD_free(md);
        return hb_fail(err, "%s gives %d-byte digests, the plan wants %zu", p->evp_name,
                       size, dlen);
    }
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        unsigned char d[EVP_MAX_MD_SIZE];
        unsigned int len = 0;
        if (EVP_Digest(calls[i].msg, (size_t)calls[i].size, d, &len, md, NULL) != 1)
            rc = hb_fail(err, "OpenSSL cannot compute %s", p->evp_name);
        else if (memcmp(d, calls[i].digest, dlen) != 0) {
            say(why, whysz, "call %zu of %zu (%llu bytes): digest differs from %s", i, n,
                calls[i].size, p->by);
            rc = 1;
        } else {
            *n_checked = i + 1;
        }
    }
    EVP_MD_free(md);
    return rc;
}

/* One KAT_2_12 record the recomputing process gets among the timed
 * calls: its message (at most 4096 bits) and its submitted digest. */
typedef struct kat_pick {
    unsigned long long bits;
    size_t msg_bytes, dst_bytes;
    unsigned char msg[XCHECK_KAT_MSG_BYTES];
    unsigned char dst[KAT_MAX_DIGEST_BYTES];
} kat_pick;

/* The records of the KAT text PATH (short form only) into *OUT
 * (malloc'd), their number in *N. */
static int read_kat_picks(const char *path, kat_pick **out, size_t *n, hb_err *err)
{
    kat_reader rd;
    vrecord *r = calloc(1, sizeof *r);
    size_t cap = 64;
    kat_pick *v = malloc(cap * sizeof *v);
    const char *line;
    size_t len;
    int rc, done;
    *out = NULL;
    *n = 0;
    if (!r || !v) {
        free(r);
        free(v);
        return hb_fail(err, "out of memory");
    }
    if (kat_reader_open(&rd, path, err) != 0) {
        free(r);
        free(v);
        return -1;
    }
    while ((rc = kat_reader_next(&rd, &line, &len, err)) == 1) {
        if (read_line(line, path, rd.lineno, r, &done, err) != 0) {
            rc = -1;
            break;
        }
        if (!done || r->long_form || r->msg_bytes > XCHECK_KAT_MSG_BYTES ||
            r->bits > 8ULL * r->msg_bytes)
            continue;
        if (*n == cap) {
            kat_pick *g = realloc(v, 2 * cap * sizeof *v);
            if (!g) {
                rc = hb_fail(err, "out of memory");
                break;
            }
            v = g;
            cap *= 2;
        }
        kat_pick *k = &v[(*n)++];
        k->bits = r->bits;
        k->msg_bytes = r->msg_bytes;
        memcpy(k->msg, r->msg, r->msg_bytes);
        k->dst_bytes = r->dst_bytes;
        memcpy(k->dst, r->dst, r->dst_bytes);
    }
    kat_reader_close(&rd);
    free(r);
    if (rc < 0) {
        free(v);
        *n = 0;
        return -1;
    }
    *out = v;
    return 0;
}

/* A uniform draw below M (M > 0), from getrandom. */
static size_t secret_below(size_t m)
{
    uint64_t x = 0, lim = UINT64_MAX - UINT64_MAX % m;
    do {
        while (getrandom(&x, sizeof x, 0) != (ssize_t)sizeof x)
            ;
    } while (x >= lim);
    return (size_t)(x % m);
}

/* The order of a recomputing process's requests, into ORDER (N timed calls
 * as 0..N-1 and KAT records as N + their index in PICKS), their number in
 * *TOTAL: as a KAT runner starts, the file's first records in order (1 to
 * 8 of them, drawn), then the timed calls in their order with
 * XCHECK_KAT_MIXED more records drawn from the rest put among them at
 * places drawn in secret (a uniform interleaving). */
static size_t *mixed_order(size_t n, size_t n_picks, size_t *total)
{
    size_t head = n_picks ? 1 + secret_below(n_picks < 8 ? n_picks : 8) : 0;
    size_t more = n_picks > head ? (n_picks - head < XCHECK_KAT_MIXED ? n_picks - head
                                                                      : XCHECK_KAT_MIXED)
                                 : 0;
    size_t *o = malloc((n + head + more + 1) * sizeof *o), *kat = malloc((more + 1) * sizeof *kat);
    if (!o || !kat) {
        free(o);
        free(kat);
        return NULL;
    }
    /* MORE distinct records from HEAD..N_PICKS-1, drawn (repeats rejected) */
    for (size_t m = 0; m < more;) {
        size_t c = head + secret_below(n_picks - head), dup = 0;
        for (size_t q = 0; q < m; q++)
            dup |= kat[q] == c;
        if (!dup)
            kat[m++] = c;
    }
    size_t k = 0, t = 0, r = 0;
    for (size_t i = 0; i < head; i++)
        o[k++] = n + i;
    while (t < n || r < more) {
        /* the next request is a record with probability (records left) /
         * (requests left): every interleaving equally likely */
        if (r < more && secret_below((n - t) + (more - r)) < more - r)
            o[k++] = n + kat[r++];
        else
            o[k++] = t++;
    }
    free(kat);
    *total = k;
    return o;
}

static int calls_runner(const xcheck_plan *p, const xcheck_call *calls, size_t n,
                        double timeout_s, size_t *n_checked, char *why, size_t whysz,
                        hb_err *err)
{
    runner_target t = {p->lib, p->digest_bits, timeout_s, 0};
    runner_session s;
    hb_proc_result res;
    char loadfail[256], how[128];
    size_t dlen = (size_t)p->digest_bits / 8;
    unsigned char d[KAT_MAX_DIGEST_BYTES];
    int rc = runner_open(&s, &t, loadfail, sizeof loadfail, err);
    if (rc < 0)
        return -1;
    if (rc == 1) {
        runner_close(&s, &res);
        say(why, whysz, "the verifier %s did not load: %s", p->by, loadfail);
        return 1;
    }
    /* the same library recomputing: it also gets records of its own
     * KAT_2_12, so that it cannot tell this process from a KAT runner */
    kat_pick *picks = NULL;
    size_t n_picks = 0, total = n;
    if (p->kind == XCHECK_SELF && p->kat_text[0] &&
        read_kat_picks(p->kat_text, &picks, &n_picks, err) != 0) {
        runner_close(&s, &res);
        return -1;
    }
    size_t *order = mixed_order(n, n_picks, &total);
    if (!order) {
        free(picks);
        runner_close(&s, &res);
        return hb_fail(err, "out of memory");
    }
    size_t i = 0, agreed = 0;
    int gone = 0;
    for (size_t q = 0; q < total && rc == 0; q++) {
        kat_fault f;
        i = order[q];
        const kat_pick *kp = i >= n ? &picks[i - n] : NULL;
        int c = kp ? runner_hash(&s, kp->msg, kp->bits, d, &f, err)
                   : runner_hash(&s, calls[i].msg, calls[i].size * 8, d, &f, err);
        if (c < 0) {
            rc = -1;
        } else if (c == RUNNER_CALL_FAULT) {
            if (kp)
                say(why, whysz, "KAT_2_12 record Msg_Len = %llu, sent among the timed calls: "
                    "the verifier %s failed", kp->bits, p->by);
            else
                say(why, whysz, "call %zu of %zu (%llu bytes): the verifier %s failed", i,
                    n, calls[i].size, p->by);
            hb_untrusted_append(why, whysz, f.detail, sizeof f.detail);
            rc = 1;
        } else if (c == RUNNER_CALL_GONE) {
            gone = 1;
            rc = 1;
        } else if (kp && (kp->dst_bytes != dlen || memcmp(d, kp->dst, dlen) != 0)) {
            say(why, whysz, "KAT_2_12 record Msg_Len = %llu, sent among the timed calls to "
                "the process that recomputes them, got another digest than the submitted "
                "vector: the library answers by process, not by message", kp->bits);
            rc = 1;
        } else if (!kp && memcmp(d, calls[i].digest, dlen) != 0) {
            say(why, whysz, "call %zu of %zu (%llu bytes): digest differs from %s", i, n,
                calls[i].size, p->by);
            rc = 1;
        } else if (!kp) {
            *n_checked = ++agreed;
        }
    }
    free(order);
    free(picks);
    if (rc == 0)
        *n_checked = n;
    runner_close(&s, &res);
    if (gone && i >= n)
        say(why, whysz, "a KAT_2_12 record sent among the timed calls: the verifier %s "
            "stopped answering (%s: %s%s%s)", p->by, runner_gone_status(&s, &res),
            hb_proc_describe(&res, how, sizeof how), s.why[0] ? "; " : "", s.why);
    else if (gone)
        say(why, whysz, "call %zu of %zu: the verifier %s stopped answering (%s: %s%s%s)",
            i, n, p->by, runner_gone_status(&s, &res),
            hb_proc_describe(&res, how, sizeof how), s.why[0] ? "; " : "", s.why);
    return rc;
}

int xcheck_calls_within(const xcheck_plan *p, const xcheck_call *calls, size_t n,
                        double timeout_s, size_t *n_checked, char *why, size_t whysz,
                        hb_err *err)
{
    *n_checked = 0;
    if (whysz)
        why[0] = '\0';
    if (p->digest_bits <= 0 || p->digest_bits % 8 != 0 ||
        p->digest_bits > 8 * KAT_MAX_DIGEST_BYTES)
        return hb_fail(err, "xcheck plan with a digest length of %d bits", p->digest_bits);
    if (n == 0)
        return 0;
    if (p->kind == XCHECK_OPENSSL)
        return calls_openssl(p, calls, n, n_checked, why, whysz, err);
    if (p->kind == XCHECK_VARIANT || p->kind == XCHECK_SELF)
        return calls_runner(p, calls, n, timeout_s > 0 ? timeout_s : XCHECK_RUNNER_TIMEOUT_S,
                            n_checked, why, whysz, err);
    return hb_fail(err, "xcheck plan of unknown kind %d", p->kind);
}

int xcheck_calls(const xcheck_plan *p, const xcheck_call *calls, size_t n,
                 size_t *n_checked, char *why, size_t whysz, hb_err *err)
{
    return xcheck_calls_within(p, calls, n, 0, n_checked, why, whysz, err);
}

size_t xcheck_sample_size(double f, double p)
{
    if (!(f > 0 && f < 1))
        f = XCHECK_DEFAULT_FAKED;
    if (!(p > 0 && p < 1))
        p = XCHECK_DEFAULT_CATCH;
    double miss = 1 - p, keep = 1 - f;
    double guess = ceil(log(miss) / log(keep));
    size_t n = guess > 1 ? (size_t)guess : 1;
    /* Settle the rounding of the logarithms on the inequality itself. */
    while (n > 1 && pow(keep, (double)(n - 1)) <= miss)
        n--;
    while (pow(keep, (double)n) > miss)
        n++;
    return n;
}

/* ---- sampling and messages ---- */

/* Random 64-bit words from the kernel, fetched a buffer at a time. */
typedef struct randbuf {
    uint64_t w[64];
    size_t left;
} randbuf;

static int next_word(randbuf *r, uint64_t *out, hb_err *err)
{
    if (r->left == 0) {
        size_t got = 0;
        unsigned char *b = (unsigned char *)r->w;
        while (got < sizeof r->w) {
            ssize_t n = getrandom(b + got, sizeof r->w - got, 0);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                return hb_fail_errno(err, "getrandom cannot give the calls to check");
            got += (size_t)n;
        }
        r->left = sizeof r->w / sizeof r->w[0];
    }
    *out = r->w[--r->left];
    return 0;
}

/* A uniform number in 0 .. M-1 (M >= 1), by rejection: the words below
 * 2^64 mod M are drawn again, so that every residue is equally likely. */
static int uniform(randbuf *r, uint64_t m, uint64_t *out, hb_err *err)
{
    uint64_t low = (0 - m) % m, w = 0;
    do {
        if (next_word(r, &w, err) != 0)
            return -1;
    } while (w < low);
    *out = w % m;
    return 0;
}

/* Inserts V into the sorted IDX[0..n); 0 when it was there already. */
static int insert_sorted(size_t *idx, size_t n, size_t v)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (idx[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < n && idx[lo] == v)
        return 0;
    memmove(idx + lo + 1, idx + lo, (n - lo) * sizeof *idx);
    idx[lo] = v;
    return 1;
}

long xcheck_draw(size_t n, size_t k, size_t *idx, hb_err *err)
{
    randbuf r = {{0}, 0};
    size_t have = 0;
    if (k >= n) {
        for (size_t i = 0; i < n; i++)
            idx[i] = i;
        return (long)n;
    }
    /* Floyd's sampling: for j = n-k .. n-1, take a uniform t <= j, or j
     * itself when t is taken already; every k-subset is equally likely. */
    for (size_t j = n - k; j < n; j++) {
        uint64_t t;
        if (uniform(&r, (uint64_t)j + 1, &t, err) != 0)
            return -1;
        if (insert_sorted(idx, have, (size_t)t))
            have++;
        else if (insert_sorted(idx, have, j))
            have++;
    }
    return (long)have;
}

int xcheck_window_message(const msggen_key *key, unsigned long long offset,
                          unsigned long long size, unsigned long long j,
                          const unsigned char *prev, size_t dlen, unsigned char *out,
                          hb_err *err)
{
    if (size && j > (MSGGEN_STREAM_BYTES - offset) / size)
        return hb_fail(err, "message %llu of %llu bytes lies past the stream of one key",
                       j, size);
    if (msggen_fill(key, offset + j * size, out, (size_t)size, err) != 0)
        return -1;
    if (j > 0)
        chain_apply(out, (size_t)size, chain_word(prev, dlen));
    return 0;
}
