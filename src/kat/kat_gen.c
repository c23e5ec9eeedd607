/* The official KAT procedures (SPEC §3) driven from hashbench: see
 * kat_gen.h. The DRNG messages are generated here and sent to the runner
 * one call at a time (KAT_2_12, KAT_2_23, KAT_2_33); KAT_Loop's million
 * chained calls run inside the runner (a round trip per call would cost
 * more than the hash), which sends back the final digest only. */
#include "kat/kat_gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/clock.h"
#include "kat/drng.h"
#include "kat/katfile.h"
#include "runner/client.h"

#define KAT_2_12_BUF 512
#define KAT_LOOP_BYTES 1024

static const char *const prefixes[KAT_KIND_COUNT] = {"KAT_2_12", "KAT_2_23",
                                                      "KAT_Loop", "KAT_2_33"};

const char *kat_kind_prefix(kat_kind k)
{
    return prefixes[k];
}

int kat_file_name(kat_kind k, const char *instance, char *out, size_t outsz, hb_err *err)
{
    int n = snprintf(out, outsz, "%s_%s.txt", prefixes[k], instance);
    if (n < 0 || (size_t)n >= outsz)
        return hb_fail(err, "instance name '%.80s' too long for a KAT file name",
                       instance);
    return 0;
}

/* 0 when the call answered; 1 when the library stopped the generation
 * (ctx->end set); -1 on our own failure. */
static int outcome(kat_gen_ctx *c, int call_rc)
{
    if (call_rc == RUNNER_CALL_OK)
        return 0;
    if (call_rc == RUNNER_CALL_FAULT) {
        c->end = KAT_GEN_FAULT;
        return 1;
    }
    if (call_rc == RUNNER_CALL_GONE) {
        c->end = KAT_GEN_ENDED;
        return 1;
    }
    return -1;
}

static int hash_one(kat_gen_ctx *c, runner_session *s, const unsigned char *m,
                    unsigned long long bits, unsigned char *dig, hb_err *err)
{
    c->cur_len = bits;
    return outcome(c, runner_hash(s, m, bits, dig, &c->fault, err));
}

static int seeded(drng *d, kat_kind k, hb_err *err)
{
    unsigned char seed[DRNG_SEED_BYTES];
    drng_seed_text(prefixes[k], seed);
    return drng_init(d, seed, sizeof seed, err);
}

static int gen_2_12(kat_gen_ctx *c, runner_session *s, kat_writer *w, hb_err *err)
{
    unsigned char buf[KAT_2_12_BUF], dig[KAT_MAX_DIGEST_BYTES];
    drng d;
    int rc = 0;
    if (seeded(&d, KAT_2_12, err) != 0)
        return -1;
    for (unsigned long long len = 0; len <= 8 * KAT_2_12_BUF && rc == 0; len++) {
        memset(buf, 0, sizeof buf);
        rc = drng_generate(&d, buf, len, err);
        if (rc == 0)
            rc = hash_one(c, s, buf, len, dig, err);
        if (rc == 0)
            rc = kat_writer_record(w, buf, len, dig, c->digest_bits, err);
    }
    drng_free(&d);
    return rc;
}

static int long_record(kat_gen_ctx *c, runner_session *s, kat_writer *w,
                       const unsigned char *m, unsigned long long bits,
                       const char *seed_hex, hb_err *err)
{
    unsigned char dig[KAT_MAX_DIGEST_BYTES];
    size_t n = (size_t)(bits / 8);
    int rc = hash_one(c, s, m, bits, dig, err);
    if (rc != 0)
        return rc;
    return kat_writer_long_record(w, bits, seed_hex, m, m + n - 8, dig,
                                  c->digest_bits, err);
}

/* KAT_2_23 / KAT_2_33: all zero, all 0xFF, then the first random draw. */
static int gen_long(kat_gen_ctx *c, runner_session *s, kat_writer *w, kat_kind k,
                    unsigned long long bits, hb_err *err)
{
    size_t n = (size_t)(bits / 8);
    unsigned char seed[DRNG_SEED_BYTES];
    char seed_hex[2 * DRNG_SEED_BYTES + 1];
    drng d;
    unsigned char *m = malloc(n);
    if (!m)
        return hb_fail(err, "out of memory for a %zu-byte KAT message", n);
    memset(m, 0x00, n);
    int rc = long_record(c, s, w, m, bits, "", err);
    if (rc == 0) {
        memset(m, 0xFF, n);
        rc = long_record(c, s, w, m, bits, "", err);
    }
    if (rc == 0) {
        drng_seed_text(prefixes[k], seed);
        hb_hex_encode(seed, sizeof seed, seed_hex, 1);
        rc = drng_init(&d, seed, sizeof seed, err);
        if (rc == 0) {
            rc = drng_generate(&d, m, bits, err);
            drng_free(&d);
        }
        if (rc == 0)
            rc = long_record(c, s, w, m, bits, seed_hex, err);
    }
    free(m);
    return rc;
}

/* The first message of KAT_Loop into M0 (KAT_LOOP_BYTES). */
static int loop_message(const kat_gen_ctx *c, unsigned char *m0, hb_err *err)
{
    drng dr;
    if (c->digest_bits > 8 * KAT_LOOP_BYTES)
        return hb_fail(err, "KAT_Loop needs a digest of at most %d bits",
                       8 * KAT_LOOP_BYTES);
    if (seeded(&dr, KAT_LOOP, err) != 0)
        return -1;
    int rc = drng_generate(&dr, m0, 8 * KAT_LOOP_BYTES, err);
    drng_free(&dr);
    return rc;
}

static int gen_loop(kat_gen_ctx *c, runner_session *s, kat_writer *w, hb_err *err)
{
    unsigned char m0[KAT_LOOP_BYTES], h[KAT_MAX_DIGEST_BYTES];
    int rc;
    if (loop_message(c, m0, err) != 0)
        return -1;
    c->cur_len = 8 * KAT_LOOP_BYTES;
    rc = outcome(c, runner_loop(s, m0, sizeof m0, KAT_LOOP_ROUNDS, h, &c->fault, err));
    if (rc == 0)
        rc = kat_writer_record(w, m0, 8 * KAT_LOOP_BYTES, h, c->digest_bits, err);
    return rc;
}

static int procedure(kat_gen_ctx *c, runner_session *s, kat_kind kind, kat_writer *w,
                     hb_err *err)
{
    switch (kind) {
    case KAT_2_12: return gen_2_12(c, s, w, err);
    case KAT_2_23: return gen_long(c, s, w, kind, 1ULL << 23, err);
    case KAT_2_33: return gen_long(c, s, w, kind, 1ULL << 33, err);
    case KAT_LOOP: return gen_loop(c, s, w, err);
    default: return hb_fail(err, "unknown KAT kind %d", (int)kind);
    }
}

double kat_work_units(kat_kind k)
{
    switch (k) {
    case KAT_2_12: return 8 * KAT_2_12_BUF + 1;
    case KAT_2_23: return 3.0 * (1 << 20) / KAT_LOOP_BYTES;
    case KAT_LOOP: return KAT_LOOP_ROUNDS + 1.0;
    case KAT_2_33: return 3.0 * (1ULL << 30) / KAT_LOOP_BYTES;
    default: return 0;
    }
}

/* Opens CTX's runner into S; 0, 1 (CTX->end says how it did not load) or
 * -1, as runner_open. */
static int open_runner(kat_gen_ctx *ctx, runner_session *s, hb_err *err)
{
    runner_target t = {ctx->lib, ctx->digest_bits, ctx->timeout_s, ctx->as_bytes};
    ctx->end = KAT_GEN_DONE;
    ctx->cur_len = 0;
    ctx->detail[0] = '\0';
    ctx->loading = 0;
    memset(&ctx->fault, 0, sizeof ctx->fault);
    memset(&ctx->proc, 0, sizeof ctx->proc);
    int rc = runner_open_cpu(s, &t, ctx->cpu_s, ctx->detail, sizeof ctx->detail, err);
    if (rc == 1) {
        runner_close(s, &ctx->proc);
        ctx->end = KAT_GEN_LOADFAIL;
        /* A runner killed before it could say is not a load failure. */
        if (ctx->proc.timed_out || ctx->proc.signaled) {
            ctx->end = KAT_GEN_ENDED;
            ctx->loading = 1;
        }
    }
    return rc;
}

/* After the calls of S ended with RC (0: all answered), closes S and says
 * how the runner ended; 1 when the library ended it badly. */
static int close_runner(kat_gen_ctx *ctx, runner_session *s, int rc)
{
    runner_close(s, &ctx->proc);
    if (rc == 0 && !(ctx->proc.exited && ctx->proc.exit_code == 0)) {
        ctx->end = KAT_GEN_ENDED; /* every answer came, then the library
                                     ended the runner badly */
        rc = 1;
    }
    if (ctx->end == KAT_GEN_ENDED && s->why[0])
        snprintf(ctx->detail, sizeof ctx->detail, "%s", s->why);
    return rc;
}

int kat_calibrate(kat_gen_ctx *ctx, double *unit_s, hb_err *err)
{
    unsigned char m0[KAT_LOOP_BYTES], h[KAT_MAX_DIGEST_BYTES];
    runner_session s;
    *unit_s = 0;
    if (loop_message(ctx, m0, err) != 0)
        return -1;
    int rc = open_runner(ctx, &s, err);
    if (rc != 0)
        return rc;
    ctx->cur_len = 8 * KAT_LOOP_BYTES;
    /* a first call of its own: what a library does once (tables, a slow
     * start) is not a hash's time */
    rc = outcome(ctx, runner_loop(&s, m0, sizeof m0, 0, h, &ctx->fault, err));
    for (long rounds = 1; rc == 0 && rounds <= 1000; rounds *= 10) {
        double t0 = hb_mono_s();
        rc = outcome(ctx, runner_loop(&s, m0, sizeof m0, rounds, h, &ctx->fault, err));
        double took = hb_mono_s() - t0;
        if (rc == 0)
            *unit_s = took / (double)(rounds + 1);
        if (took >= KAT_CALIBRATE_MIN_S)
            break;
    }
    if (rc < 0) {
        runner_close(&s, &ctx->proc);
        return -1;
    }
    return close_runner(ctx, &s, rc);
}

int kat_generate(kat_gen_ctx *ctx, kat_kind kind, const char *path,
                 char sha256[HB_SHA256_HEX], hb_err *err)
{
    runner_session s;
    kat_writer w;
    if (kat_writer_open(&w, path, err) != 0)
        return -1;
    int rc = open_runner(ctx, &s, err);
    if (rc == 0) {
        rc = procedure(ctx, &s, kind, &w, err);
        if (rc < 0)
            runner_close(&s, &ctx->proc);
        else
            rc = close_runner(ctx, &s, rc);
    }
    if (rc != 0) {
        kat_writer_abort(&w);
        return rc;
    }
    return kat_writer_close(&w, sha256, err);
}
