/* The run directory's layout of src/rundir/rundir.c: each stage's paths
 * (and a path too long fails instead of being cut), the record-name rule
 * (a name maps to exactly one instance and size: X never takes X_'s
 * records, names that are not records are rejected), the record listing
 * by candidate and instance, and the library an instance uses (the
 * harness-default rebuild when the KAT stage kept it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fs.h"
#include "rundir/baselines.h"
#include "rundir/rundir.h"

static void test_paths(void **state)
{
    (void)state;
    char p[256];
    hb_err err;
    assert_int_equal(rundir_library_rel(p, sizeof p, "SM3", "SM3_ref", NULL, &err), 0);
    assert_string_equal(p, "lib/SM3/libSM3_ref.so");
    assert_int_equal(rundir_library_rel(p, sizeof p, "SM3", "A", RUNDIR_HARNESS_DEFAULT,
                                        &err), 0);
    assert_string_equal(p, "lib/SM3/harness-default/libA.so");
    assert_int_equal(rundir_build_log_rel(p, sizeof p, "SM3", "A", NULL, &err), 0);
    assert_string_equal(p, "logs/build/SM3/A.log");
    assert_int_equal(rundir_build_log_rel(p, sizeof p, "SM3", "A", "2", &err), 0);
    assert_string_equal(p, "logs/build/SM3/A.2.log");
    assert_int_equal(rundir_build_log_rel(p, sizeof p, "SM3", "A", RUNDIR_HARNESS_DEFAULT,
                                          &err), 0);
    assert_string_equal(p, "logs/build/SM3/A.harness-default.log");
    assert_int_equal(rundir_kat_log_rel(p, sizeof p, "W", "B", NULL, &err), 0);
    assert_string_equal(p, "kat/W/B.log");
    assert_int_equal(rundir_kat_log_rel(p, sizeof p, "W", "B", RUNDIR_HARNESS_DEFAULT,
                                        &err), 0);
    assert_string_equal(p, "kat/W/B.harness-default.log");
    assert_int_equal(rundir_kat_texts_rel(p, sizeof p, "W", "B", NULL, &err), 0);
    assert_string_equal(p, "kat/W/B");
    assert_int_equal(rundir_kat_texts_rel(p, sizeof p, "W", "B", RUNDIR_HARNESS_DEFAULT,
                                          &err), 0);
    assert_string_equal(p, "kat/W/B/harness-default");
    assert_int_equal(rundir_record_rel(p, sizeof p, "W", "B", 65536, &err), 0);
    assert_string_equal(p, "records/W/B__hash_65536.json");
    assert_int_equal(rundir_ct_rel(p, sizeof p, "W", "B", &err), 0);
    assert_string_equal(p, "ct/W/B.json");
    assert_int_equal(rundir_ct_debug_library_rel(p, sizeof p, "W", "B", &err), 0);
    assert_string_equal(p, "ct/W/libB-g.so");
    assert_int_equal(rundir_ct_debug_log_rel(p, sizeof p, "W", "B", &err), 0);
    assert_string_equal(p, "ct/W/B.build.log");
    assert_int_equal(rundir_ct_dir_rel(p, sizeof p, "W", "B", &err), 0);
    assert_string_equal(p, "ct/W/B");
    assert_int_equal(rundir_core_rel(p, sizeof p, "cpu3", &err), 0);
    assert_string_equal(p, "cores/cpu3");
    assert_int_equal(rundir_path(p, sizeof p, "/r/", RUNDIR_KAT_JSON, &err), 0);
    assert_string_equal(p, "/r/kat.json");

    /* a path that does not fit fails and says so; nothing cut is returned */
    char small[16];
    memset(&err, 0, sizeof err);
    assert_int_equal(rundir_record_rel(small, sizeof small, "W", "B", 32, &err), -1);
    assert_string_equal(small, "");
    assert_non_null(strstr(err.msg, "path longer than 16 bytes"));

    assert_true(rundir_is_kat_log("kat/W/B.log"));
    assert_true(rundir_is_kat_log("kat/W/B.harness-default.log"));
    assert_false(rundir_is_kat_log("kat/W/B/KAT_2_12_B.log"));
    assert_false(rundir_is_kat_log("kat/B.log"));
    assert_false(rundir_is_kat_log("records/W/B.log"));
    assert_true(rundir_kat_rel_of("kat/W/B.log", "W", "B"));
    assert_true(rundir_kat_rel_of("kat/W/B/KAT_2_12_B.txt", "W", "B"));
    assert_false(rundir_kat_rel_of("kat/W/B_.log", "W", "B"));
    assert_true(rundir_kat_rel_of("kat/W/B.harness-default.log", "W", "B"));
    assert_false(rundir_kat_rel_of("kat/W/B.x.log", "W", "B")); /* instance B.x's */
    assert_false(rundir_kat_rel_of("kat/W/B.x/KAT_2_12_B.x.txt", "W", "B"));
    assert_true(rundir_kat_rel_of("kat/W/B.x.log", "W", "B.x"));
    assert_false(rundir_kat_rel_of("kat/V/B.log", "W", "B"));
    assert_true(rundir_is_baseline("baseline", "OpenSSL_SM3"));
    assert_false(rundir_is_baseline("baseline", "OpenSSL_SM3_"));
}

static void test_record_names(void **state)
{
    (void)state;
    char inst[64], name[128];
    unsigned long long size = 0;
    hb_err err;
    assert_int_equal(rundir_parse_record_name("X__hash_32.json", inst, sizeof inst, &size), 1);
    assert_string_equal(inst, "X");
    assert_int_equal(size, 32);
    assert_int_equal(rundir_parse_record_name("X___hash_1024.json", inst, sizeof inst,
                                              &size), 1);
    assert_string_equal(inst, "X_");
    assert_int_equal(size, 1024);
    /* an instance may contain the mark: the last one splits */
    assert_int_equal(rundir_parse_record_name("A__hash_1__hash_2.json", inst, sizeof inst,
                                              &size), 1);
    assert_string_equal(inst, "A__hash_1");
    assert_int_equal(size, 2);
    /* name -> (instance, size) -> the same name */
    const char *insts[] = {"X", "X_", "Whirl_256-Optimized", "A__hash_1"};
    const unsigned long long sizes[] = {0, 1, 32, 65536, 18446744073709551615ULL};
    for (size_t i = 0; i < sizeof insts / sizeof *insts; i++)
        for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
            assert_int_equal(rundir_record_name(name, sizeof name, insts[i], sizes[k],
                                                &err), 0);
            assert_int_equal(rundir_parse_record_name(name, inst, sizeof inst, &size), 1);
            assert_string_equal(inst, insts[i]);
            assert_int_equal(size, sizes[k]);
        }
    const char *not_records[] = {
        "X__hash_.json", "X__hash_32.json.tmp.123", "X__hash_32.JSON", "__hash_32.json",
        "X__hash_032.json", "X__hash_3x2.json", "X__hash_-1.json", "X_hash_32.json",
        "X__hash_32", "X.json", "notes.json", "X__hash_18446744073709551616.json",
        "X__hash_99999999999999999999.json", "..__hash_32.json", "a/X__hash_32.json",
        "X__hash_32.json~", ".json", ""};
    for (size_t i = 0; i < sizeof not_records / sizeof *not_records; i++) {
        if (rundir_parse_record_name(not_records[i], inst, sizeof inst, &size) != 0)
            fail_msg("'%s' taken for a record", not_records[i]);
    }
    /* an instance that does not fit the caller's buffer is not a record */
    assert_int_equal(rundir_parse_record_name("Long__hash_32.json", inst, 4, &size), 0);
    assert_int_equal(rundir_parse_record_name("Lon__hash_32.json", inst, 4, &size), 1);
}

static char dir[256];

static void touch(const char *rel)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    hb_err err;
    assert_int_equal(hb_write_atomic(p, "{}", 2, &err), 0);
}

static int setup(void **state)
{
    (void)state;
    const char *t = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/hb-rundir-XXXXXX", t && *t ? t : "/tmp");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    hb_err err;
    return hb_remove_tree(dir, &err);
}

typedef struct seen {
    char text[1024];
} seen;

static int note(const rundir_record *r, void *ctx, hb_err *err)
{
    (void)err;
    seen *s = ctx;
    size_t n = strlen(s->text);
    snprintf(s->text + n, sizeof s->text - n, "%s%s/%s@%llu", n ? " " : "", r->candidate,
             r->instance, r->size);
    char want[512];
    snprintf(want, sizeof want, "%s/%s", dir, r->rel);
    assert_string_equal(r->path, want);
    assert_memory_equal(r->rel, "records/", 8);
    return 0;
}

static int stop_at_second(const rundir_record *r, void *ctx, hb_err *err)
{
    (void)r;
    return ++*(int *)ctx == 2 ? hb_fail(err, "stop") - 4 : 0;
}

static void test_listing(void **state)
{
    (void)state;
    hb_err err;
    seen s = {""};
    /* no records folder yet: nothing, not an error */
    assert_int_equal(rundir_list_records(dir, NULL, NULL, note, &s, &err), 0);
    assert_string_equal(s.text, "");
    touch("records/W/X__hash_32.json");
    touch("records/W/X_a__hash_32.json");
    touch("records/W/X___hash_64.json");
    touch("records/W/X___hash_1024.json");
    touch("records/W/X__hash_32.json.tmp.99");
    touch("records/W/notes.json");
    touch("records/W/deeper/X__hash_16.json");
    touch("records/X__hash_8.json");
    touch("records/V/X__hash_65536.json");
    touch("records/baseline/OpenSSL_SM3__hash_32.json");
    char link[512];
    snprintf(link, sizeof link, "%s/records/W/X__hash_2048.json", dir);
    assert_int_equal(symlink("X__hash_32.json", link), 0);

    assert_int_equal(rundir_list_records(dir, NULL, NULL, note, &s, &err), 0);
    /* bytewise file-name order: X___hash_ sorts before X__hash_ */
    assert_string_equal(s.text, "V/X@65536 W/X_@1024 W/X_@64 W/X@32 W/X_a@32 "
                                "baseline/OpenSSL_SM3@32");
    s.text[0] = '\0';
    assert_int_equal(rundir_list_records(dir, "W", "X", note, &s, &err), 0);
    assert_string_equal(s.text, "W/X@32");
    s.text[0] = '\0';
    assert_int_equal(rundir_list_records(dir, "W", "X_", note, &s, &err), 0);
    assert_string_equal(s.text, "W/X_@1024 W/X_@64");
    s.text[0] = '\0';
    assert_int_equal(rundir_list_records(dir, NULL, "X", note, &s, &err), 0);
    assert_string_equal(s.text, "V/X@65536 W/X@32");
    assert_int_equal(rundir_count_records(dir, "W", NULL, &err), 4);
    assert_int_equal(rundir_count_records(dir, RUNDIR_BASELINE_CANDIDATE,
                                          hb_baseline_primary()->instance, &err), 1);
    assert_int_equal(rundir_count_records(dir, "none", NULL, &err), 0);
    int calls = 0;
    assert_int_equal(rundir_list_records(dir, NULL, NULL, stop_at_second, &calls, &err), -5);
    assert_int_equal(calls, 2);
    assert_string_equal(err.msg, "stop");
}

static void test_library(void **state)
{
    (void)state;
    json_t *build = json_pack("{s:s, s:s, s:s, s:s, s:{s:s, s:s, s:s, s:s}}",
        "library", "lib/W/libX.so", "library_sha256", "aa", "flags_kind", "guide",
        "flags", "-O2", "harness_default", "library", "lib/W/harness-default/libX.so",
        "library_sha256", "bb", "flags_kind", "harness-default", "flags", "-O1");
    json_t *passed = json_pack("{s:s, s:s, s:s}", "status", "PASS",
                               "library", "lib/W/libX.so", "library_sha256", "aa");
    json_t *kept = json_pack("{s:s, s:{s:s}}", "status", "PASS", "guide", "status",
                             "MISMATCH");
    json_t *old_kept = json_pack("{s:s, s:s, s:s, s:s, s:{s:s}}", "library",
        "lib/W/harness-default/libX.so", "library_sha256", "cc", "flags_kind",
        "harness-default", "flags", "-O0", "guide", "status", "MISMATCH");
    rundir_library l;
    rundir_instance_library(build, NULL, &l);
    assert_string_equal(l.library, "lib/W/libX.so");
    assert_string_equal(l.library_sha256, "aa");
    assert_string_equal(l.flags_kind, "guide");
    assert_string_equal(l.flags, "-O2");
    rundir_instance_library(build, passed, &l);
    assert_string_equal(l.library, "lib/W/libX.so");
    assert_string_equal(l.library_sha256, "aa");
    /* the KAT stage kept the rebuild: build.json's record of it */
    rundir_instance_library(build, kept, &l);
    assert_string_equal(l.library, "lib/W/harness-default/libX.so");
    assert_string_equal(l.library_sha256, "bb");
    assert_string_equal(l.flags_kind, "harness-default");
    assert_string_equal(l.flags, "-O1");
    /* an older run directory: the rebuild is in kat.json only */
    json_object_del(build, "harness_default");
    rundir_instance_library(build, old_kept, &l);
    assert_string_equal(l.library, "lib/W/harness-default/libX.so");
    assert_string_equal(l.library_sha256, "cc");
    assert_string_equal(l.flags, "-O0");
    /* a rebuild the KAT stage did not keep is not used */
    json_object_set_new(build, "harness_default", json_pack("{s:s}", "library", "x.so"));
    rundir_instance_library(build, passed, &l);
    assert_string_equal(l.library, "lib/W/libX.so");
    json_decref(build);
    json_decref(passed);
    json_decref(kept);
    json_decref(old_kept);
}

/* The built-in baselines' table: its first row is the primary and the
 * only one, every row has its own instance and library file, and the
 * run directory's baseline is the primary's instance alone. */
static void test_baselines_table(void **state)
{
    (void)state;
    assert_true(hb_n_baselines >= 2);
    assert_ptr_equal(hb_baseline_primary(), &hb_baselines[0]);
    assert_ptr_equal(hb_baseline_second(), &hb_baselines[1]);
    for (size_t i = 0; i < hb_n_baselines; i++) {
        const hb_baseline *b = &hb_baselines[i];
        assert_int_equal(b->primary, i == 0);
        assert_true(b->digest_bits > 0 && b->algorithm[0]);
        size_t n = strlen(b->file);
        assert_true(n > 6 && !strncmp(b->file, "lib", 3) && !strcmp(b->file + n - 3, ".so"));
        for (size_t k = 0; k < i; k++) {
            assert_string_not_equal(b->instance, hb_baselines[k].instance);
            assert_string_not_equal(b->file, hb_baselines[k].file);
        }
        assert_int_equal(rundir_is_baseline(RUNDIR_BASELINE_CANDIDATE, b->instance), b->primary);
        assert_false(rundir_is_baseline("W", b->instance));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paths),
        cmocka_unit_test(test_record_names),
        cmocka_unit_test_setup_teardown(test_listing, setup, teardown),
        cmocka_unit_test(test_library),
        cmocka_unit_test(test_baselines_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
