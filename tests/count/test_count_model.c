/* Tests of the length model of the instruction counts
 * (src/count/count_model.c) on synthetic counts at the curve's lengths
 * (every byte to 512, every 64 bytes to 4096, then 16 and 64 KiB):
 * staircases of iterated hashes (Merkle-Damgard with 64-byte blocks and
 * 8 bytes of length, sponges of rate 136 and 168), with a per-byte copy
 * cost and padding bumps, are fitted (block, first step, cost per block)
 * and found CONSISTENT; a fake whose cost per block drops 4 times past
 * 512 bytes is BELOW_MODEL, named at its length; one length treated apart
 * within 0..512 does not hide it; a block longer than 256 bytes, or no
 * staircase, is UNDETERMINED, and BELOW_LINE when a longer length is
 * under half the line through the covered counts (a fake with a 300-byte
 * block, or one hiding its steps under dummy blocks); a library slower at
 * long lengths is ABOVE_MODEL. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "count/count_model.h"

#define MAX_POINTS 640

typedef struct shape {
    unsigned block;      /* bytes */
    unsigned extra;      /* bytes the padding adds at least (MD: 9, sponge: 1) */
    double fixed, per_block, per_byte;
    double bump;         /* added where the padding spills into a new block */
    double fake_from;    /* from this length on (0: never) ... */
    double fake_factor;  /* ... the cost per block times this */
    unsigned apart;      /* one length (0: none) costing 0.3 of the rest */
} shape;

static double count_at(const shape *s, unsigned l)
{
    double blocks = (double)((l + s->extra) / s->block) + 1;
    double per_block = s->per_block;
    if (s->fake_from > 0 && l >= s->fake_from)
        per_block *= s->fake_factor;
    double c = s->fixed + per_block * blocks + s->per_byte * l;
    /* a padding that does not fit the last block costs a little more */
    if ((l % s->block) + s->extra > s->block)
        c += s->bump;
    c += (double)(l % 16) * 0.5; /* a copy's tail */
    if (s->apart && l == s->apart)
        c *= 0.3;
    return c;
}

static int points(const shape *s, unsigned *len, double *ir)
{
    int n = 0;
    for (unsigned l = 0; l <= 512; l++)
        len[n++] = l;
    for (unsigned l = 576; l <= 4096; l += 64)
        len[n++] = l;
    len[n++] = 16384;
    len[n++] = 65536;
    for (int i = 0; i < n; i++)
        ir[i] = count_at(s, len[i]);
    return n;
}

static void fit(const shape *s, count_model *m)
{
    unsigned len[MAX_POINTS];
    double ir[MAX_POINTS];
    int n = points(s, len, ir);
    count_model_fit(len, ir, n, 512, m);
}

static void md64(void **state)
{
    (void)state;
    shape s = {64, 8, 900, 4500, 0.4, 60, 0, 0, 0};
    count_model m;
    fit(&s, &m);
    assert_int_equal(m.determined, 1);
    assert_int_equal(m.block, 64);
    assert_int_equal(m.first_step, 56);
    assert_int_equal(m.steps, 8);
    assert_true(fabs(m.per_block - 4500) < 45);
    assert_int_equal(m.n_beyond, 58);
    assert_true(m.worst_ratio > 0.98 && m.high_ratio < 1.02);
    assert_int_equal(m.verdict, COUNT_MODEL_CONSISTENT);
    assert_string_equal(count_model_verdict_name(m.verdict), "CONSISTENT");
}

static void sponge136_168(void **state)
{
    (void)state;
    shape s = {136, 0, 1500, 35000, 23, 0, 0, 0, 0};
    count_model m;
    fit(&s, &m);
    assert_int_equal(m.determined, 1);
    assert_int_equal(m.block, 136);
    assert_int_equal(m.first_step, 136);
    assert_int_equal(m.steps, 3);
    assert_true(fabs(m.per_block - 35000) < 350);
    assert_int_equal(m.verdict, COUNT_MODEL_CONSISTENT);
    assert_true(m.worst_ratio > 0.99);
    shape t = {168, 0, 1500, 35000, 23, 400, 0, 0, 0};
    fit(&t, &m);
    assert_int_equal(m.determined, 1);
    assert_int_equal(m.block, 168);
    assert_int_equal(m.steps, 3);
    assert_int_equal(m.verdict, COUNT_MODEL_CONSISTENT);
    assert_true(m.worst_ratio > 0.98 && m.high_ratio < 1.02);
}

static void fake_below(void **state)
{
    (void)state;
    /* the real function at every length a vector covers, a quarter of it
     * past them */
    shape s = {64, 8, 900, 4500, 0.4, 60, 513, 0.25, 0};
    count_model m;
    fit(&s, &m);
    assert_int_equal(m.determined, 1);
    assert_int_equal(m.block, 64);
    assert_int_equal(m.verdict, COUNT_MODEL_BELOW);
    assert_string_equal(count_model_verdict_name(m.verdict), "BELOW_MODEL");
    assert_true(m.worst_ratio < 0.3);
    assert_int_equal(m.worst_len, 65536);
    assert_true(m.high_ratio < 0.4);
    json_t *j = count_model_json(&m);
    assert_string_equal(json_string_value(json_object_get(j, "verdict")), "BELOW_MODEL");
    assert_int_equal(json_integer_value(json_object_get(j, "worst_length")), 65536);
    assert_int_equal(json_integer_value(json_object_get(j, "block_bytes")), 64);
    json_decref(j);
    /* a length treated apart within the covered ones does not hide it */
    s.apart = 32;
    fit(&s, &m);
    assert_int_equal(m.determined, 1);
    assert_int_equal(m.block, 64);
    assert_int_equal(m.verdict, COUNT_MODEL_BELOW);
    /* a fake of 20 % stays within the threshold: the stated limit */
    s.apart = 0;
    s.fake_factor = 0.8;
    fit(&s, &m);
    assert_int_equal(m.verdict, COUNT_MODEL_CONSISTENT);
    assert_true(m.worst_ratio < 0.85 && m.worst_ratio > COUNT_MODEL_LOW);
}

static void above_noted(void **state)
{
    (void)state;
    shape s = {64, 8, 900, 4500, 0.4, 60, 1024, 2.0, 0};
    count_model m;
    fit(&s, &m);
    assert_int_equal(m.verdict, COUNT_MODEL_ABOVE);
    assert_true(m.high_ratio > 1.8);
    assert_true(m.worst_ratio > 0.98);
}

static void undetermined(void **state)
{
    (void)state;
    /* a block of 300 bytes: one step within 0..512 */
    shape s = {300, 0, 900, 20000, 0.4, 0, 0, 0, 0};
    count_model m;
    fit(&s, &m);
    assert_int_equal(m.determined, 0);
    assert_int_equal(m.verdict, COUNT_MODEL_UNDETERMINED);
    assert_true(m.lin_ok && m.lin_worst > 0.8); /* honest: the line under its blocks */
    assert_non_null(strstr(m.why, "model not determined"));
    json_t *j = count_model_json(&m);
    assert_string_equal(json_string_value(json_object_get(j, "verdict")), "UNDETERMINED");
    assert_non_null(json_object_get(j, "reason"));
    json_decref(j);
    /* no staircase: a cost growing smoothly with the length */
    unsigned len[MAX_POINTS];
    double ir[MAX_POINTS];
    int n = 0;
    for (unsigned l = 0; l <= 512; l++, n++) {
        len[n] = l;
        ir[n] = 1000 + 70.0 * l;
    }
    count_model_fit(len, ir, n, 512, &m);
    assert_int_equal(m.verdict, COUNT_MODEL_UNDETERMINED);
    /* steps at no regular spacing */
    for (unsigned l = 0; l <= 512; l++)
        ir[l] = 1000 + 5000.0 * (l >= 50) + 5000.0 * (l >= 170) + 5000.0 * (l >= 230) +
                5000.0 * (l >= 400);
    count_model_fit(len, ir, n, 512, &m);
    assert_int_equal(m.verdict, COUNT_MODEL_UNDETERMINED);
    /* a covered length missing */
    count_model_fit(len + 1, ir + 1, n - 1, 512, &m);
    assert_int_equal(m.verdict, COUNT_MODEL_UNDETERMINED);
    assert_non_null(strstr(m.why, "not counted"));
}

/* Without a staircase the line through the covered counts still bounds
 * a fake from below: a block of 300 bytes, and steps hidden by dummy
 * blocks at many covered lengths. */
static void below_line(void **state)
{
    (void)state;
    shape s = {300, 0, 900, 20000, 0.4, 0, 513, 0.25, 0};
    count_model m;
    fit(&s, &m);
    assert_int_equal(m.determined, 0);
    assert_int_equal(m.verdict, COUNT_MODEL_BELOW_LINE);
    assert_string_equal(count_model_verdict_name(m.verdict), "BELOW_LINE");
    assert_true(m.worst_ratio < COUNT_MODEL_LINEAR_LOW && m.worst_len > 512);
    json_t *j = count_model_json(&m);
    assert_string_equal(json_string_value(json_object_get(j, "verdict")), "BELOW_LINE");
    assert_non_null(json_object_get(j, "line"));
    json_decref(j);
    /* a 64-byte fake whose covered counts carry a dummy block at every
     * fifth length: no clear staircase, still caught */
    shape t = {64, 8, 900, 4500, 0.4, 60, 513, 0.25, 0};
    unsigned len[MAX_POINTS];
    double ir[MAX_POINTS];
    int n = points(&t, len, ir);
    for (int i = 0; i < n; i++)
        if (len[i] <= 512 && len[i] % 5 == 3)
            ir[i] += 4500;
    count_model_fit(len, ir, n, 512, &m);
    assert_true(m.verdict == COUNT_MODEL_BELOW_LINE || m.verdict == COUNT_MODEL_BELOW);
    assert_true(m.worst_ratio < 0.5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(md64),         cmocka_unit_test(sponge136_168),
        cmocka_unit_test(fake_below),   cmocka_unit_test(above_noted),
        cmocka_unit_test(undetermined), cmocka_unit_test(below_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
