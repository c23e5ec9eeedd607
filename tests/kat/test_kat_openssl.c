/* The KAT pipeline against an independent oracle. The example submissions'
 * manifests come from our own implementations, so here the texts that the
 * KAT stage generates for the SM3, SHA-256, SHA-512, SHA3-256 and SHA3-512
 * examples are read back and every byte-aligned record is hashed again with
 * OpenSSL: KAT_2_12 (Msg given in full) and KAT_2_23 (all zero, all 0xFF,
 * and the random message regenerated from its Msg_Seed, whose first and last
 * bytes must match Msg_Exp). The number of records checked is printed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/evp.h>
#include "common/digest.h"
#include "common/fs.h"
#include "kat/drng.h"
#include "kat/kat.h"
#include "kat_test_util.h"

typedef struct example {
    const char *inst;
    int bits;
    const EVP_MD *(*md)(void);
} example;

static const example examples[] = {
    {"SM3", 256, EVP_sm3},         {"SHA256", 256, EVP_sha256},
    {"SHA512", 512, EVP_sha512},   {"SHA3_256", 256, EVP_sha3_256},
    {"SHA3_512", 512, EVP_sha3_512},
};
#define N_EX (sizeof examples / sizeof examples[0])

static char *root;

static int setup(void **state)
{
    (void)state;
    root = kt_mkdtemp("openssl");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    kt_release(root);
    return 0;
}

static void openssl_hex(const example *x, const unsigned char *m, size_t n, char *hex)
{
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    assert_int_equal(EVP_Digest(m, n, d, &len, x->md(), NULL), 1);
    assert_int_equal((int)len * 8, x->bits);
    hb_hex_encode(d, len, hex, 1);
}

/* One parsed record: its fields as read (without "KEY = "). */
typedef struct record {
    unsigned long long len;
    char *msg, *seed, *exp, *dst;
} record;

static void record_free(record *r)
{
    free(r->msg);
    free(r->seed);
    free(r->exp);
    free(r->dst);
    memset(r, 0, sizeof *r);
}

/* The value after "KEY = " on the next line of FP, or NULL at the end. */
static char *next_value(FILE *fp, const char *key)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, fp)) >= 0) {
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == ' '))
            line[--n] = '\0';
        if (n == 0)
            continue;
        size_t k = strlen(key);
        if (strncmp(line, key, k) != 0 || strncmp(line + k, " =", 2) != 0)
            fail_msg("expected '%s = ', found '%.60s'", key, line);
        char *v = strdup(line + k + (line[k + 2] == ' ' ? 3 : 2));
        free(line);
        return v;
    }
    free(line);
    return NULL;
}

static int next_record(FILE *fp, int long_form, record *r)
{
    char *len = next_value(fp, "Msg_Len");
    if (!len)
        return 0;
    r->len = strtoull(len, NULL, 10);
    free(len);
    if (long_form) {
        r->seed = next_value(fp, "Msg_Seed");
        r->exp = next_value(fp, "Msg_Exp");
    } else {
        r->msg = next_value(fp, "Msg");
    }
    free(next_value(fp, "Dst_Len"));
    r->dst = next_value(fp, "Dst");
    assert_non_null(r->dst);
    return 1;
}

static FILE *open_text(const char *run, const char *kind, const char *inst)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/kat/ex/%s/%s_%s.txt", run, inst, kind, inst);
    FILE *fp = fopen(path, "r");
    if (!fp)
        fail_msg("%s: not generated", path);
    return fp;
}

/* KAT_2_12: 4097 records, Msg_Len 0..4096; byte-aligned ones vs OpenSSL. */
static long check_2_12(const char *run, const example *x)
{
    FILE *fp = open_text(run, "KAT_2_12", x->inst);
    unsigned char m[512];
    char hex[2 * EVP_MAX_MD_SIZE + 1];
    record r = {0};
    unsigned long long want = 0;
    long checked = 0;
    while (next_record(fp, 0, &r)) {
        assert_int_equal(r.len, want++);
        assert_int_equal(strlen(r.msg), 2 * ((r.len + 7) / 8));
        if (r.len % 8 == 0) {
            size_t n = (size_t)(r.len / 8);
            assert_int_equal(hb_hex_decode(r.msg, 2 * n, m), (long)n);
            openssl_hex(x, m, n, hex);
            if (strcmp(hex, r.dst) != 0)
                fail_msg("%s KAT_2_12 Msg_Len = %llu: Dst %s, OpenSSL %s", x->inst,
                         r.len, r.dst, hex);
            checked++;
        }
        record_free(&r);
    }
    fclose(fp);
    assert_int_equal(want, 4097);
    return checked;
}

/* KAT_2_23: zero, 0xFF and the random draw of its seed, all vs OpenSSL. */
static long check_2_23(const char *run, const example *x)
{
    FILE *fp = open_text(run, "KAT_2_23", x->inst);
    size_t n = (1u << 23) / 8;
    unsigned char *m = malloc(n), seed[DRNG_SEED_BYTES];
    char hex[2 * EVP_MAX_MD_SIZE + 1], exp[64];
    record r = {0};
    long checked = 0;
    hb_err err;
    assert_non_null(m);
    for (int i = 0; i < 3; i++) {
        assert_true(next_record(fp, 1, &r));
        assert_int_equal(r.len, 1ULL << 23);
        if (i < 2) {
            assert_string_equal(r.seed, "");
            memset(m, i ? 0xFF : 0x00, n);
        } else {
            drng d;
            assert_int_equal(strlen(r.seed), 2 * DRNG_SEED_BYTES);
            assert_int_equal(hb_hex_decode(r.seed, 2 * DRNG_SEED_BYTES, seed),
                             DRNG_SEED_BYTES);
            assert_int_equal(memcmp(seed, "KAT_2_23KAT_2_23", 16), 0);
            assert_int_equal(drng_init(&d, seed, sizeof seed, &err), 0);
            assert_int_equal(drng_generate(&d, m, 1ULL << 23, &err), 0);
            drng_free(&d);
        }
        hb_hex_encode(m, 8, exp, 1);
        memcpy(exp + 16, " .... ", 6);
        hb_hex_encode(m + n - 8, 8, exp + 22, 1);
        assert_string_equal(r.exp, exp);
        openssl_hex(x, m, n, hex);
        if (strcmp(hex, r.dst) != 0)
            fail_msg("%s KAT_2_23 record %d: Dst %s, OpenSSL %s", x->inst, i + 1,
                     r.dst, hex);
        checked++;
        record_free(&r);
    }
    assert_false(next_record(fp, 1, &r));
    fclose(fp);
    free(m);
    return checked;
}

static void test_examples_vs_openssl(void **state)
{
    char run[1024], lib[4096];
    int failed = -1;
    hb_err err;
    long total = 0;
    (void)state;
    snprintf(run, sizeof run, "%s/run", root);
    assert_int_equal(hb_mkdirs(run, &err), 0);
    json_t *b = kt_build_new();
    for (size_t i = 0; i < N_EX; i++) {
        snprintf(lib, sizeof lib, "%s/libhbex_%s.so", HB_EX_LIB_DIR, examples[i].inst);
        kt_build_add(b, run, "ex", examples[i].inst, examples[i].bits, lib, NULL,
                     "harness-default");
    }
    kt_build_save(b, run);
    json_decref(b);
    kat_options o = {0};
    o.run_dir = run;
    o.timeout_s = 240;
    if (kat_run(&o, &failed, &err) != 0)
        fail_msg("kat_run: %s", err.msg);
    assert_int_equal(failed, 0);
    for (size_t i = 0; i < N_EX; i++) {
        long a = check_2_12(run, &examples[i]), c = check_2_23(run, &examples[i]);
        printf("# ex/%s: %ld KAT_2_12 + %ld KAT_2_23 byte-aligned records equal "
               "OpenSSL's\n", examples[i].inst, a, c);
        assert_int_equal(a, 513);
        total += a + c;
    }
    printf("# %ld byte-aligned records checked against OpenSSL, all equal\n", total);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_examples_vs_openssl),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
