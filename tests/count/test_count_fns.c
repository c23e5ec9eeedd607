/* Tests of the reader of callgrind's output that gives each function's
 * share of a counted call (src/count/count_fns.c), on callgrind's own text
 * captured from the SHA-256 example (fixtures/callgrind_sha256.txt: the
 * header, one empty window and two calls, names compressed in the first
 * part and referred to by id after): every function's self instructions,
 * adding up to each part's total; the functions' objects; the shared
 * helpers' inclusive share; the names a submission chose, sanitised; lines
 * not of the format refused; and the record check of the result. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "count/count_fns.h"

#define LIB "/run/lib/libSHA256.so"
#define DRIVER "/opt/hb/hashbench-count"

/* Reads TEXT (lines) into P; each call part's costs, once its totals line
 * is read, into TALLY (the empty windows' parts are left out). Returns the
 * number of parts, or -1 when a line is refused. */
static int feed(cg_parser *p, const char *text, cg_tally *tally)
{
    char *copy = strdup(text), *save = NULL, why[160];
    int parts = 0, is_call = 0;
    for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (cg_parser_line(p, l, why, sizeof why) != 0) {
            free(copy);
            return -1;
        }
        if (strncmp(l, "desc: Trigger: Client Request: call", 35) == 0)
            is_call = 1;
        if (strncmp(l, "totals: ", 8) == 0) {
            if (is_call)
                cg_tally_add(tally, p, atoll(l + 8));
            is_call = 0;
            parts++;
        }
    }
    free(copy);
    return parts;
}

static char *fixture(void)
{
    FILE *fp = fopen(HB_COUNT_FIXTURES "/callgrind_sha256.txt", "r");
    assert_non_null(fp);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    fclose(fp);
    buf[n] = '\0';
    return buf;
}

static const json_t *fn_named(const json_t *fns, const char *name)
{
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(fns, "functions"), i, f)
        if (strcmp(json_string_value(json_object_get(f, "function")), name) == 0)
            return f;
    return NULL;
}

static long long ir_of(const json_t *f)
{
    return f ? (long long)json_integer_value(json_object_get(f, "Ir")) : -1;
}

static void test_sha256_parts(void **state)
{
    (void)state;
    cg_parser p;
    cg_tally t = {0};
    cg_parser_init(&p);
    assert_int_equal(feed(&p, fixture(), &t), 3);
    /* the second call's part alone: its functions add up to its total */
    assert_int_equal(p.part_ir, 10177);
    assert_int_equal(t.total, 5323 + 10177);
    assert_false(t.broken);
    json_t *j = cg_tally_json(&t, &p, LIB, DRIVER, NULL);
    assert_non_null(j);
    assert_int_equal(json_integer_value(json_object_get(j, "Ir")), 15500);
    /* by self cost, largest first; the names of the first part, by id after */
    const json_t *first = json_array_get(json_object_get(j, "functions"), 0);
    assert_string_equal(json_string_value(json_object_get(first, "function")),
                        "sha256_block");
    assert_string_equal(json_string_value(json_object_get(first, "object")), "library");
    assert_int_equal(ir_of(first), 4143 + 8286);
    assert_int_equal(ir_of(fn_named(j, "CryptHash")), 520 + 591);
    const json_t *mc = fn_named(j, "__memcpy_avx_unaligned_erms");
    assert_int_equal(ir_of(mc), 640 + 1280);
    assert_string_equal(json_string_value(json_object_get(mc, "object")), "C library");
    const json_t *w = fn_named(j, "window.constprop.0");
    assert_int_equal(ir_of(w), 40);
    assert_string_equal(json_string_value(json_object_get(w, "object")), "hashbench-count");
    assert_int_equal(json_array_size(json_object_get(j, "functions")), 4);
    double sum = 0;
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(j, "functions"), i, f)
        sum += json_real_value(json_object_get(f, "share"));
    assert_true(sum > 1 - 1e-12 && sum < 1 + 1e-12);
    assert_int_equal(json_array_size(json_object_get(j, "helpers")), 0);
    /* the record check accepts it, and refuses a changed figure */
    char why[256];
    json_t *raw = json_pack("[I, I]", (json_int_t)5323, (json_int_t)10177);
    assert_int_equal(cg_functions_check(j, raw, why, sizeof why), 0);
    json_object_set_new((json_t *)first, "Ir", json_integer(4143 + 8286 - 1));
    assert_int_equal(cg_functions_check(j, raw, why, sizeof why), -1);
    json_decref(raw);
    json_decref(j);
    cg_tally_free(&t);
    cg_parser_free(&p);
}

/* A part whose functions do not add up to its total: no shares. */
static void test_broken_total(void **state)
{
    (void)state;
    cg_parser p;
    cg_tally t = {0};
    cg_parser_init(&p);
    const char *text = "part: 1\nevents: Ir\nob=(1) " LIB "\nfn=(1) f\n3 100\n";
    assert_int_equal(feed(&p, text, &t), 0);
    cg_tally_add(&t, &p, 101);
    assert_true(t.broken);
    assert_null(cg_tally_json(&t, &p, LIB, DRIVER, NULL));
    cg_tally_free(&t);
    cg_parser_free(&p);
}

/* Lines not of the format are refused. */
static void test_refused(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "events: Ir\nob=(1) x\nfn=(7)\n",                /* an id never named */
        "events: Ir\nob=(1) x\nfn=(1) f\ncalls=1 2\n",   /* a call of no function */
        "events: Ir\nob=(1) x\nfn=(1) f\n3 12x\n",       /* not a number */
        "events: Ir\nob=(1) x\nfn=(1) f\nfn=(1) g\n",    /* an id named twice */
        "ob=(1) x\nfn=(1) f\n3 12\n",                    /* costs before events */
        "events: Ir\nob=(1) x\nfn=(1) f\ncfn=(2) g\ncalls=1 3\nfn=(1)\n",
        "events: Ir\njust words\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cg_parser p;
        cg_tally t = {0};
        cg_parser_init(&p);
        assert_int_equal(feed(&p, bad[i], &t), -1);
        cg_tally_free(&t);
        cg_parser_free(&p);
    }
}

/* The shared helpers: the instructions of the calls into a group from
 * outside it (pseudohash calling sm3_bit counts for both groups, sm3_bit
 * calling sm3_bit_compress only once for SM3). */
static void test_helpers(void **state)
{
    (void)state;
    const char *text =
        "part: 1\nevents: Ir\npositions: line\n"
        "ob=(1) " LIB "\n"
        "fn=(1) CryptHash\n1 10\ncfn=(2) pseudohash\ncalls=1 2\n* 300\n"
        "fn=(2)\n1 20\ncfn=(3) sm3_bit\ncalls=2 3\n* 280\n"
        "fn=(3)\n1 30\ncfn=(4) sm3_bit_compress\ncalls=2 3\n* 250\n"
        "fn=(4)\n1 250\n"
        "totals: 310\n";
    cg_parser p;
    cg_tally t = {0};
    cg_parser_init(&p);
    assert_int_equal(feed(&p, text, &t), 1);
    cg_tally_add(&t, &p, 310);
    json_t *j = cg_tally_json(&t, &p, LIB, DRIVER, NULL);
    assert_non_null(j);
    const json_t *h = json_object_get(j, "helpers");
    assert_int_equal(json_array_size(h), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(h, 0), "helper")),
                        "SM3");
    assert_int_equal(ir_of(json_array_get(h, 0)), 280);
    assert_string_equal(json_string_value(json_object_get(json_array_get(h, 1), "helper")),
                        "pseudo-hash");
    assert_int_equal(ir_of(json_array_get(h, 1)), 300);
    json_decref(j);
    cg_tally_free(&t);
    cg_parser_free(&p);
}

/* The names a submission chose, and the objects, as records keep them. */
static void test_names(void **state)
{
    (void)state;
    char out[CG_NAME_MAX + 16];
    cg_safe_name("f<script>\x1b[31m", out, sizeof out);
    assert_string_equal(out, "f?script???31m");
    char longn[200];
    memset(longn, 'a', sizeof longn - 1);
    longn[sizeof longn - 1] = '\0';
    cg_safe_name(longn, out, sizeof out);
    assert_int_equal(strlen(out), CG_NAME_MAX);
    assert_string_equal(out + CG_NAME_MAX - 3, "...");
    cg_safe_name("", out, sizeof out);
    assert_string_equal(out, "?");
    cg_object_class("/usr/lib/x86_64-linux-gnu/libc.so.6", LIB, DRIVER, out, sizeof out);
    assert_string_equal(out, "C library");
    cg_object_class("/tmp/x/libc.so.6", LIB, DRIVER, out, sizeof out);
    assert_string_equal(out, "other object");
    cg_object_class("/usr/lib/../../tmp/libc.so.6", LIB, DRIVER, out, sizeof out);
    assert_string_equal(out, "other object");
    cg_object_class("/usr/lib/x86_64-linux-gnu/libcrypto.so.3", LIB, DRIVER, out, sizeof out);
    assert_string_equal(out, "system: libcrypto.so.3");
    cg_object_class(LIB, LIB, DRIVER, out, sizeof out);
    assert_string_equal(out, "library");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sha256_parts), cmocka_unit_test(test_broken_total),
        cmocka_unit_test(test_refused),      cmocka_unit_test(test_helpers),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
