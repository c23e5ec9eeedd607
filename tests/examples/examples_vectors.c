/* Correctness of the seven example instances against independent oracles:
 * every vector of the NIST CAVP files in Debian's python3-cryptography-vectors
 * (SHA-2 and SHA-3 ShortMsg and LongMsg, SHAKE256 ShortMsg, LongMsg and the
 * VariableOut records whose output fits the instance, the SM3 examples of the
 * standard), read with the kat/rsp reader, and OpenSSL's EVP digests on a few
 * thousand random byte-length messages plus a few large ones. Each test
 * prints how many vectors it checked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>
#include <openssl/evp.h>

#include "example_load.h"
#include "kat/rsp.h"

#define EX_RANDOM_MESSAGES 3000
#define EX_RANDOM_MAX_BYTES 2000

typedef struct ex_case {
    int index;                  /* into ex_instance_table */
    const char *files[4];       /* CAVP files under HB_EX_VECTORS */
    const EVP_MD *(*evp)(void);
    int xof;                    /* EVP_DigestFinalXOF of the full size */
} ex_case;

static const ex_case ex_cases[EX_INSTANCES] = {
    { 0, { "SM3/oscca.txt" }, EVP_sm3, 0 },
    { 1, { "SHA2/SHA256ShortMsg.rsp", "SHA2/SHA256LongMsg.rsp" }, EVP_sha256, 0 },
    { 2, { "SHA2/SHA512ShortMsg.rsp", "SHA2/SHA512LongMsg.rsp" }, EVP_sha512, 0 },
    { 3, { "SHA3/SHA3_256ShortMsg.rsp", "SHA3/SHA3_256LongMsg.rsp" }, EVP_sha3_256, 0 },
    { 4, { "SHA3/SHA3_512ShortMsg.rsp", "SHA3/SHA3_512LongMsg.rsp" }, EVP_sha3_512, 0 },
    { 5, { "SHAKE/SHAKE256ShortMsg.rsp", "SHAKE/SHAKE256LongMsg.rsp",
           "SHAKE/SHAKE256VariableOut.rsp" }, EVP_shake256, 1 },
    { 6, { "SHAKE/SHAKE256ShortMsg.rsp", "SHAKE/SHAKE256LongMsg.rsp",
           "SHAKE/SHAKE256VariableOut.rsp" }, EVP_shake256, 1 },
};

static void ex_need_vectors(void)
{
    struct stat st;
    if (stat(HB_EX_VECTORS, &st) != 0 || !S_ISDIR(st.st_mode))
        fail_msg("%s is missing: install the NIST vectors with "
                 "`apt-get install python3-cryptography-vectors`", HB_EX_VECTORS);
}

static void ex_hex(const unsigned char *p, size_t n, char *out)
{
    size_t i;
    for (i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", p[i]);
}

static void ex_expect_equal(const ex_instance *in, const unsigned char *got,
                            const unsigned char *want, size_t n, const char *where)
{
    char g[2 * EX_MAX_DIGEST + 1], w[2 * EX_MAX_DIGEST + 1];
    if (memcmp(got, want, n) == 0)
        return;
    ex_hex(got, n, g);
    ex_hex(want, n, w);
    fail_msg("%s: %s\n  got  %s\n  want %s", in->name, where, g, w);
}

/* Checks every record of one CAVP file whose output fits the instance (a
 * shorter XOF output is compared with the prefix); *SKIPPED counts the
 * VariableOut records longer than the instance's output. */
static int ex_check_file(const ex_instance *in, const ex_case *c, const char *rel,
                         int *skipped)
{
    char path[4096], where[4200];
    unsigned char digest[EX_MAX_DIGEST];
    rsp_reader *r;
    rsp_record rec;
    hb_err err;
    int rc, checked = 0;

    snprintf(path, sizeof path, "%s/%s", HB_EX_VECTORS, rel);
    if (rsp_open(path, &r, &err) != 0)
        fail_msg("%s", err.msg);
    while ((rc = rsp_next(r, &rec, &err)) == 1) {
        size_t want_bytes = rec.md_bytes;
        if (want_bytes * 8 > (size_t)in->digest_bits) {
            assert_true(c->xof);
            (*skipped)++;
            continue;
        }
        if (!c->xof)
            assert_int_equal(want_bytes * 8, in->digest_bits);
        ex_hash(in, rec.msg, rec.len_bits, digest);
        snprintf(where, sizeof where, "%s:%ld (Len = %llu)", path, rec.line,
                 rec.len_bits);
        ex_expect_equal(in, digest, rec.md, want_bytes, where);
        checked++;
    }
    if (rc < 0)
        fail_msg("%s", err.msg);
    rsp_close(r);
    if (checked == 0)
        fail_msg("%s: no vector fits %s", path, in->name);
    return checked;
}

static void ex_openssl(const ex_case *c, size_t out_bytes, const unsigned char *m,
                       size_t n, unsigned char *out)
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    unsigned int len = 0;
    assert_non_null(ctx);
    assert_int_equal(EVP_DigestInit_ex(ctx, c->evp(), NULL), 1);
    assert_int_equal(EVP_DigestUpdate(ctx, m, n), 1);
    if (c->xof) {
        assert_int_equal(EVP_DigestFinalXOF(ctx, out, out_bytes), 1);
    } else {
        assert_int_equal(EVP_DigestFinal_ex(ctx, out, &len), 1);
        assert_int_equal(len, out_bytes);
    }
    EVP_MD_CTX_free(ctx);
}

static void ex_compare_openssl(const ex_instance *in, const ex_case *c,
                               const unsigned char *m, size_t n)
{
    unsigned char got[EX_MAX_DIGEST], want[EX_MAX_DIGEST];
    char where[64];
    ex_hash(in, m, 8ull * n, got);
    ex_openssl(c, (size_t)in->digest_bits / 8, m, n, want);
    snprintf(where, sizeof where, "OpenSSL on %zu random bytes", n);
    ex_expect_equal(in, got, want, (size_t)in->digest_bits / 8, where);
}

/* Random byte-length messages of 0..2000 bytes, then a few large ones. */
static int ex_check_openssl(const ex_instance *in, const ex_case *c)
{
    static const size_t large[] = { 65536, 1000003, 1u << 22 };
    unsigned long long seed = 0x6861736862656e63ull + (unsigned)c->index;
    unsigned char *buf = malloc(1u << 22);
    int i, done = 0;

    assert_non_null(buf);
    for (i = 0; i < EX_RANDOM_MESSAGES; i++, done++) {
        size_t n = (size_t)(ex_rand(&seed) % (EX_RANDOM_MAX_BYTES + 1));
        ex_rand_fill(&seed, buf, n);
        ex_compare_openssl(in, c, buf, n);
    }
    for (i = 0; i < (int)(sizeof large / sizeof large[0]); i++, done++) {
        ex_rand_fill(&seed, buf, large[i]);
        ex_compare_openssl(in, c, buf, large[i]);
    }
    free(buf);
    return done;
}

static void test_instance(void **state)
{
    const ex_case *c = *state;
    ex_instance in = ex_instance_table[c->index];
    int vectors = 0, skipped = 0, compared, i;

    ex_need_vectors();
    ex_load(&in);
    for (i = 0; i < 4 && c->files[i] != NULL; i++)
        vectors += ex_check_file(&in, c, c->files[i], &skipped);
    compared = ex_check_openssl(&in, c);
    ex_unload(&in);
    if (skipped)
        printf("%s: %d CAVP vectors (%d VariableOut records longer than %d bits "
               "not applicable) + %d OpenSSL comparisons passed\n",
               in.name, vectors, skipped, in.digest_bits, compared);
    else
        printf("%s: %d CAVP vectors + %d OpenSSL comparisons passed\n",
               in.name, vectors, compared);
}

int main(void)
{
#define EX_TEST(i, name) { name, test_instance, NULL, NULL, (void *)&ex_cases[i] }
    const struct CMUnitTest tests[] = {
        EX_TEST(0, "SM3"), EX_TEST(1, "SHA256"), EX_TEST(2, "SHA512"),
        EX_TEST(3, "SHA3_256"), EX_TEST(4, "SHA3_512"),
        EX_TEST(5, "SHAKE256_768"), EX_TEST(6, "SHAKE256_1024"),
    };
    return cmocka_run_group_tests_name("examples_vectors", tests, NULL, NULL);
}
