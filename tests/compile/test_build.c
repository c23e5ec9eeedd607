/* Tests of whole builds (src/compile/build.c, compile.c, elfsize.c) on small
 * packages written by the tests and compiled with the system compiler:
 * nothing a package ships is run, a broken instance is BUILDFAIL with its
 * log while the others build, the one-folder-many-instances layout builds
 * every instance with its own name and size (checked through dlopen),
 * hashbench init splitting a folder of variant files that share function
 * names (the fixture package fixtures/Garnish) into sections that build,
 * with advice that never points back at what just failed, the
 * performance flags, the static size against readelf, the CryptHash check,
 * resuming, the harness-default rebuild, the baseline entry, the command's
 * exit codes, no program of the package found through a relative PATH entry
 * or a relative --cc, silence about plain files among the packages, --cc
 * clang, a source named like an option, a source too large to read,
 * instances sharing a name, and the bundled examples when present. A check
 * that cannot run here is skipped, and fails under CI=true. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "compile/build.h"
#include "compile/init.h"
#include "common/json.h"
#include "kat/kat.h"
#include "common/digest.h"
#include "common/fs.h"
#include "common/proc.h"
#include "fixture.h"

#define REF "Implementations/Reference_Implementation/"

/* A check that cannot run here (WHY says what is missing): skipped, except
 * under CI=true, where nothing may be skipped, so it fails. */
static void skip_unless_ci(const char *why)
{
    const char *ci = getenv("CI");
    if (ci && !strcmp(ci, "true"))
        fail_msg("%s (CI=true: nothing may be skipped)", why);
    print_message("%s\n", why);
    skip();
}

/* Builds the packages (relative to fx_root) into fx_root/RUN; returns build.json. */
static json_t *build(const char *run, const char *profile, const char *pkg1,
                     const char *pkg2, int expect_failed)
{
    char run_dir[PATH_MAX], p1[PATH_MAX], p2[PATH_MAX];
    snprintf(run_dir, sizeof run_dir, "%s/%s", fx_root, run);
    snprintf(p1, sizeof p1, "%s/%s", fx_root, pkg1);
    snprintf(p2, sizeof p2, "%s/%s", fx_root, pkg2 ? pkg2 : "");
    const char *pkgs[] = {p1, p2};
    build_options opt = {run_dir, profile, NULL, 2, pkgs, pkg2 ? 2 : 1, NULL, NULL, NULL, NULL, 0, 0};
    hb_err err;
    int failed = -1;
    if (build_run(&opt, &failed, &err) != 0)
        fail_msg("build_run: %s", err.msg);
    assert_int_equal(failed, expect_failed);
    return fx_load_build(run_dir);
}

static const char *str(const json_t *e, const char *key)
{
    const char *s = json_string_value(json_object_get(e, key));
    assert_non_null(s);
    return s;
}

static json_t *entry(const json_t *b, const char *cand, const char *inst)
{
    json_t *e = fx_entry(b, cand, inst);
    if (!e)
        fail_msg("no build.json entry %s/%s", cand, inst);
    return e;
}

static void test_shipped_build_files_never_run(void **state)
{
    (void)state;
    char marker[PATH_MAX];
    snprintf(marker, sizeof marker, "%s/MARKER", fx_root);
    char text[PATH_MAX + 200];
    fx_instance(fx_root, "Ship", "A", "A", 256);
    snprintf(text, sizeof text, "all:\n\ttouch %s.make\n", marker);
    fx_write(fx_root, "Ship/Makefile", text);
    fx_write(fx_root, "Ship/" REF "A/Makefile", text);
    snprintf(text, sizeof text, "file(WRITE %s.cmake \"x\")\n", marker);
    fx_write(fx_root, "Ship/CMakeLists.txt", text);
    fx_write(fx_root, "Ship/" REF "A/CMakeLists.txt", text);
    snprintf(text, sizeof text, "#!/bin/sh\ntouch %s.sh\n", marker);
    fx_write_exec(fx_root, "Ship/build.sh", text);
    fx_write_exec(fx_root, "Ship/" REF "A/build.sh", text);
    fx_write_exec(fx_root, "Ship/" REF "A/configure", text);
    json_t *b = build("run_ship", "reference", "Ship", NULL, 0);
    assert_string_equal(str(entry(b, "Ship", "A"), "status"), "BUILT");
    const char *suffixes[] = {".make", ".cmake", ".sh"};
    for (size_t i = 0; i < 3; i++) {
        char m[PATH_MAX + 16];
        snprintf(m, sizeof m, "%s%s", marker, suffixes[i]);
        assert_false(hb_is_file(m));
    }
    json_decref(b);
}

static void test_broken_instance_buildfail(void **state)
{
    (void)state;
    fx_instance(fx_root, "Brk", "Good", "Good", 256);
    fx_write(fx_root, "Brk/" REF "Bad/CryptHash_AlgorithmInstance.h", fx_header("Bad", 256));
    fx_write(fx_root, "Brk/" REF "Bad/bad.c", "int CryptHash(void) { return this is not C; }\n");
    json_t *b = build("run_brk", "reference", "Brk", NULL, 1);
    json_t *bad = entry(b, "Brk", "Bad");
    assert_string_equal(str(bad, "status"), "BUILDFAIL");
    assert_null(json_object_get(bad, "library"));
    /* The reason names the first complaint of the compiler, file:line. */
    if (!strstr(str(bad, "reason"), REF "Bad/bad.c:1:") ||
        !strstr(str(bad, "reason"), "error"))
        fail_msg("reason without the compiler's first error: %s", str(bad, "reason"));
    char *log = NULL;
    hb_err err;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/run_brk/%s", fx_root, str(bad, "log"));
    assert_int_equal(hb_read_file(path, &log, NULL, &err), 0);
    assert_true(strncmp(log, "$ ", 2) == 0);                /* the command first */
    assert_non_null(strstr(log, REF "Bad/bad.c"));
    assert_non_null(strstr(log, "error"));                  /* compiler's words */
    free(log);
    json_t *good = entry(b, "Brk", "Good");
    assert_string_equal(str(good, "status"), "BUILT");
    snprintf(path, sizeof path, "%s/run_brk/%s", fx_root, str(good, "library"));
    assert_true(hb_is_file(path));
    assert_string_equal(str(good, "library"), "lib/Brk/libGood.so");
    json_decref(b);
}

/* dlopens LIB and checks that it exports CryptHash alone (the fixture's
 * instance_name() stays inside, SPEC §2), that the defines reached the
 * compiler (the instance name is in the library's bytes) and CryptHash's
 * digest size. */
static void check_library(const char *lib, const char *name, int bits)
{
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        fail_msg("dlopen %s: %s", lib, dlerror());
    int (*hash)(int, const unsigned char *, unsigned long long, unsigned char *) =
        (int (*)(int, const unsigned char *, unsigned long long, unsigned char *))
            dlsym(h, "CryptHash");
    assert_null(dlsym(h, "instance_name"));
    assert_non_null(hash);
    char *bytes = NULL;
    size_t len = 0;
    hb_err err;
    assert_int_equal(hb_read_file(lib, &bytes, &len, &err), 0);
    assert_non_null(memmem(bytes, len, name, strlen(name) + 1));
    free(bytes);
    unsigned char out[300];
    memset(out, 0, sizeof out);
    assert_int_equal(hash(bits, (const unsigned char *)"abc", 24, out), 0);
    for (int i = 0; i < (int)sizeof out; i++)
        assert_int_equal(out[i], i < bits / 8 ? 0xAB : 0);
    assert_int_not_equal(hash(bits + 8, (const unsigned char *)"abc", 24, out), 0);
    dlclose(h);
}

static void test_one_folder_many_instances(void **state)
{
    (void)state;
    /* The shared header gives defaults only; the override names each instance. */
    fx_write(fx_root, "Multi/" REF "Shared/CryptHash_AlgorithmInstance.h",
             "#ifndef ALGORITHM_INSTANCE\n#define ALGORITHM_INSTANCE \"Multi\"\n#endif\n"
             "#ifndef DIGEST_BIT_LENGTH\n#define DIGEST_BIT_LENGTH 256\n#endif\n");
    fx_write(fx_root, "Multi/" REF "Shared/impl.c", fx_source);
    fx_write(fx_root, "Multi/" REF "Shared/KAT_CryptHash.c", "int main(void) { return 0; }\n");
    const int bits[] = {256, 384, 1152, 2048};
    char ini[4096] = "[candidate]\nid = MultiCand\nalgorithm = Multi\n";
    for (int i = 0; i < 4; i++) {
        char sec[512];
        snprintf(sec, sizeof sec, "[instance Multi_%d]\ndir = " REF "Shared\n"
                 "digest_bits = %d\ndefines = ALGORITHM_INSTANCE=\"Multi_%d\" "
                 "DIGEST_BIT_LENGTH=%d\n", bits[i], bits[i], bits[i], bits[i]);
        strcat(ini, sec);
    }
    fx_write(fx_root, "Multi/hashbench.ini", ini);
    json_t *b = build("run_multi", "reference", "Multi", NULL, 0);
    assert_int_equal(json_array_size(json_object_get(b, "instances")), 4);
    for (int i = 0; i < 4; i++) {
        char name[32], lib[PATH_MAX];
        snprintf(name, sizeof name, "Multi_%d", bits[i]);
        json_t *e = entry(b, "MultiCand", name);
        assert_string_equal(str(e, "status"), "BUILT");
        assert_int_equal(json_integer_value(json_object_get(e, "digest_bits")), bits[i]);
        assert_string_equal(str(e, "algorithm"), "Multi");
        assert_int_equal(json_array_size(json_object_get(e, "sources")), 1);
        snprintf(lib, sizeof lib, "%s/run_multi/%s", fx_root, str(e, "library"));
        check_library(lib, name, bits[i]);
    }
    json_decref(b);
}

/* A variant file of the one-folder fixture: CryptHash for BITS, calling
 * non-static helpers (multi_check here, multi_fill in common.c). */
static void multi_variant(const char *rel, int bits)
{
    char text[1024];
    snprintf(text, sizeof text,
             "void multi_fill(unsigned char *d, int bytes, int v);\n"
             "int multi_check(int bits);\n"
             "int multi_check(int bits) { return bits == %d; }\n"
             "int CryptHash(int bits, const unsigned char *m, unsigned long long mbits,\n"
             "              unsigned char *d)\n"
             "{\n"
             "    (void)m;\n"
             "    (void)mbits;\n"
             "    if (!multi_check(bits))\n"
             "        return 1;\n"
             "    multi_fill(d, %d, %d);\n"
             "    return 0;\n"
             "}\n", bits, bits / 8, bits / 8);
    fx_write(fx_root, rel, text);
}

/* init writes the instances by digest size, not in text order: Duet_512
 * before Duet_1024. */
static void test_init_digest_order(void **state)
{
    (void)state;
    const int bits[] = {1024, 512};
    for (int i = 0; i < 2; i++) {
        char rel[256], text[512];
        snprintf(rel, sizeof rel, "Duet/" REF "Duet_%d/CryptHash_AlgorithmInstance.h", bits[i]);
        snprintf(text, sizeof text, "#define ALGORITHM_INSTANCE \"Duet_%d\"\n"
                 "#define DIGEST_BIT_LENGTH %d\n", bits[i], bits[i]);
        fx_write(fx_root, rel, text);
        snprintf(rel, sizeof rel, "Duet/" REF "Duet_%d/duet.c", bits[i]);
        fx_write(fx_root, rel, "#include <string.h>\n"
                 "int CryptHash(int b, const unsigned char *m, unsigned long long n, "
                 "unsigned char *d);\n"
                 "int CryptHash(int b, const unsigned char *m, unsigned long long n, "
                 "unsigned char *d) { (void)m; (void)n; memset(d, 0, (size_t)b / 8); "
                 "return 0; }\n");
    }
    char pkg[PATH_MAX], *text = NULL;
    int n = 0;
    hb_err err;
    snprintf(pkg, sizeof pkg, "%s/Duet", fx_root);
    if (init_override_text(pkg, NULL, &text, &n, &err) != 0)
        fail_msg("init: %s", err.msg);
    assert_int_equal(n, 2);
    const char *a = strstr(text, "[instance Duet_512]"), *b = strstr(text, "[instance Duet_1024]");
    assert_non_null(a);
    assert_non_null(b);
    assert_true(a < b);
    free(text);
}

/* One folder serving two instances (a variant file each, shared helpers):
 * without an override the build fails naming the linker's real complaint
 * and saying an override is probably needed; hashbench init writes one,
 * and after a one-line edit (the second digest size) both build. */
static void test_one_folder_init_override(void **state)
{
    (void)state;
    fx_write(fx_root, "OneDir/" REF "Multi/CryptHash_AlgorithmInstance.h",
             "#define ALGORITHM_INSTANCE \"Multi\"\n#define DIGEST_BIT_LENGTH 256\n");
    fx_write(fx_root, "OneDir/" REF "Multi/common.c",
             "#include <string.h>\nvoid multi_fill(unsigned char *d, int bytes, int v);\n"
             "void multi_fill(unsigned char *d, int bytes, int v) "
             "{ memset(d, v, (size_t)bytes); }\n");
    multi_variant("OneDir/" REF "Multi/multi_256.c", 256);
    multi_variant("OneDir/" REF "Multi/multi_512.c", 512);
    fx_write(fx_root, "OneDir/" REF "Multi/KAT_CryptHash.c", "int main(void) { return 0; }\n");
    json_t *b = build("run_onedir", "reference", "OneDir", NULL, 1);
    const char *why = str(entry(b, "OneDir", "Multi"), "reason");
    /* the linker's text only in the run directory's raw field */
    const char *raw = str(entry(b, "OneDir", "Multi"), "raw_reason_untrusted");
    if (!strstr(why, "linker: multiple definition") || strstr(why, "collect2") ||
        !strstr(raw, "multiple definition of") ||
        !strstr(why, "2 of its sources define CryptHash (multi_256.c, multi_512.c)") ||
        !strstr(why, "an override file is needed: hashbench init ") ||
        !strstr(why, "docs/OVERRIDE.md"))
        fail_msg("the reason does not name the cause and the override: %s", why);
    json_decref(b);

    char pkg[PATH_MAX], ini[PATH_MAX + 32], *text = NULL;
    int n = 0;
    hb_err err;
    snprintf(pkg, sizeof pkg, "%s/OneDir", fx_root);
    if (init_override_text(pkg, NULL, &text, &n, &err) != 0)
        fail_msg("init: %s", err.msg);
    assert_int_equal(n, 2);
    assert_non_null(strstr(text, "[instance Multi_multi_256]\n"));
    assert_non_null(strstr(text, "sources = common.c multi_256.c\n"));
    assert_non_null(strstr(text, "# unsure: 2 of its sources define the same global symbols"));
    assert_non_null(strstr(text, "#   CryptHash, multi_check in multi_256.c, multi_512.c\n"));
    assert_non_null(strstr(text, "# left out: KAT_CryptHash.c"));
    /* the edit: the second instance is 512 bits, as the header cannot say */
    char *second = strstr(text, "[instance Multi_multi_512]");
    assert_non_null(second);
    char *bits = strstr(second, "digest_bits = 256");
    assert_non_null(bits);
    memcpy(bits + strlen("digest_bits = "), "512", 3);
    snprintf(ini, sizeof ini, "%s/hashbench.ini", pkg);
    assert_int_equal(hb_write_atomic(ini, text, strlen(text), &err), 0);
    free(text);
    /* init never overwrites the file a user may have edited */
    assert_int_equal(init_override_text(pkg, NULL, &text, &n, &err), -1);
    assert_non_null(strstr(err.msg, "hashbench.ini exists"));

    b = build("run_onedir_ini", "reference", "OneDir", NULL, 0);
    const int want[] = {256, 512};
    for (int i = 0; i < 2; i++) {
        char name[64], lib[PATH_MAX];
        snprintf(name, sizeof name, "Multi_multi_%d", want[i]);
        json_t *e = entry(b, "OneDir", name);
        assert_string_equal(str(e, "status"), "BUILT");
        snprintf(lib, sizeof lib, "%s/run_onedir_ini/%s", fx_root, str(e, "library"));
        void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
        if (!h)
            fail_msg("dlopen %s: %s", lib, dlerror());
        int (*hash)(int, const unsigned char *, unsigned long long, unsigned char *) =
            (int (*)(int, const unsigned char *, unsigned long long, unsigned char *))
                dlsym(h, "CryptHash");
        assert_non_null(hash);
        assert_null(dlsym(h, "multi_fill")); /* CryptHash alone is exported */
        unsigned char out[64] = {0};
        assert_int_equal(hash(want[i], (const unsigned char *)"", 0, out), 0);
        assert_int_equal(out[want[i] / 8 - 1], want[i] / 8);
        assert_int_not_equal(hash(want[1 - i], (const unsigned char *)"", 0, out), 0);
        dlclose(h);
    }
    json_decref(b);
}

/* Copies the fixture package tests/compile/fixtures/NAME (one instance
 * folder deep) into fx_root/NAME. */
static void copy_fixture(const char *name, const char *inst_dir)
{
    char from[PATH_MAX], to[PATH_MAX];
    snprintf(from, sizeof from, "%s/tests/compile/fixtures/%s/%s", getenv("HB_SOURCE_DIR"),
             name, inst_dir);
    DIR *d = opendir(from);
    if (!d)
        fail_msg("%s: cannot open the fixture (is HB_SOURCE_DIR set?)", from);
    struct dirent *e;
    hb_err err;
    while ((e = readdir(d)) != NULL) {
        char src[PATH_MAX + 256];
        if (e->d_name[0] == '.')
            continue;
        snprintf(src, sizeof src, "%s/%s", from, e->d_name);
        snprintf(to, sizeof to, "%s/%s/%s/%s", fx_root, name, inst_dir, e->d_name);
        if (hb_mkdirs_for(to, &err) != 0 || hb_copy_file(src, to, &err) != 0)
            fail_msg("copying %s: %s", src, err.msg);
    }
    closedir(d);
}

/* The real-package case: one wrapper file defines CryptHash, and three
 * variant files each define the same internal functions (CryptHash_512,
 * pad_message, garnish_digest_bits) plus a static helper of the same name.
 * Discovery makes one instance of all five sources, whose link fails; its
 * advice names hashbench init. init compiles each source alone, reads the
 * symbols, and writes one section per variant file with the wrapper and
 * the shared helper; the static helper is no conflict. With the one digest
 * size the header could not give filled in, every section builds, and each
 * library is its own variant. A section that lists two variant files fails
 * with advice naming that section, never init (which wrote it). */
static void test_init_splits_variant_files(void **state)
{
    (void)state;
    const char *dir = REF "Garnish";
    copy_fixture("Garnish", dir);
    json_t *b = build("run_garnish", "reference", "Garnish", NULL, 1);
    const char *why = str(entry(b, "Garnish", "Garnish"), "reason");
    const char *raw = str(entry(b, "Garnish", "Garnish"), "raw_reason_untrusted"); /* run dir only */
    if (!strstr(why, "linker: multiple definition") || strstr(why, "multiple definition of") ||
        !strstr(raw, "multiple definition of") ||
        !strstr(why, "is defined in more than one of its sources") ||
        !strstr(why, "hashbench init "))
        fail_msg("the discovered instance's failure does not point at init: %s", why);
    json_decref(b);

    char pkg[PATH_MAX], ini[PATH_MAX + 32], *text = NULL;
    int n = 0;
    hb_err err;
    snprintf(pkg, sizeof pkg, "%s/Garnish", fx_root);
    if (init_override_text(pkg, NULL, &text, &n, &err) != 0)
        fail_msg("init: %s", err.msg);
    assert_int_equal(n, 3);
    const char *want[] = {
        "# unsure: 3 of its sources define the same global symbols",
        "#   CryptHash_512, garnish_digest_bits, pad_message in garnish_cap256.c, "
        "garnish_cap512.c, garnish_lite.c\n",
        "each with the sources that conflict with no other: garnish_api.c, garnish_util.c.\n",
        "[instance Garnish_garnish_cap256]\ndir = " REF "Garnish\n"
        "sources = garnish_api.c garnish_cap256.c garnish_util.c\ndigest_bits = 256\n",
        "[instance Garnish_garnish_cap512]\ndir = " REF "Garnish\n"
        "sources = garnish_api.c garnish_cap512.c garnish_util.c\ndigest_bits = 256\n",
        "[instance Garnish_garnish_lite]\ndir = " REF "Garnish\n"
        "sources = garnish_api.c garnish_lite.c garnish_util.c\ndigest_bits = 256\n",
        "# left out: KAT_Garnish.c"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!strstr(text, want[i]))
            fail_msg("init's file lacks '%s':\n%s", want[i], text);
    assert_null(strstr(text, "mix")); /* static: no conflict */
    /* the one edit: the 512-bit variant's digest size */
    char *bits = strstr(strstr(text, "[instance Garnish_garnish_cap512]"), "digest_bits = 256");
    memcpy(bits + strlen("digest_bits = "), "512", 3);
    snprintf(ini, sizeof ini, "%s/hashbench.ini", pkg);
    assert_int_equal(hb_write_atomic(ini, text, strlen(text), &err), 0);

    b = build("run_garnish_ini", "reference", "Garnish", NULL, 0);
    const char *names[] = {"Garnish_garnish_cap256", "Garnish_garnish_cap512",
                           "Garnish_garnish_lite"};
    const int sizes[] = {256, 512, 256};
    unsigned char digests[3][64];
    for (int i = 0; i < 3; i++) {
        char lib[PATH_MAX];
        json_t *e = entry(b, "Garnish", names[i]);
        assert_string_equal(str(e, "status"), "BUILT");
        /* no ALGORITHM_INSTANCE define: the section's name is its KAT label */
        assert_string_equal(str(e, "algorithm_instance"), names[i]);
        snprintf(lib, sizeof lib, "%s/run_garnish_ini/%s", fx_root, str(e, "library"));
        void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
        if (!h)
            fail_msg("dlopen %s: %s", lib, dlerror());
        int (*hash)(int, const unsigned char *, unsigned long long, unsigned char *) =
            (int (*)(int, const unsigned char *, unsigned long long, unsigned char *))
                dlsym(h, "CryptHash");
        assert_non_null(hash);
        assert_null(dlsym(h, "pad_message"));
        memset(digests[i], 0, sizeof digests[i]);
        assert_int_equal(hash(sizes[i], (const unsigned char *)"abc", 24, digests[i]), 0);
        assert_int_not_equal(hash(sizes[i] == 256 ? 512 : 256, (const unsigned char *)"abc",
                                  24, digests[i] + 32), 0);
        dlclose(h);
    }
    assert_memory_not_equal(digests[0], digests[2], 32); /* two variants of 256 bits */
    json_decref(b);

    /* two variant files in one section: the advice names the section */
    char *cap = strstr(text, "sources = garnish_api.c garnish_cap256.c garnish_util.c\n");
    assert_non_null(cap);
    size_t at = (size_t)(cap - text) + strlen("sources = garnish_api.c garnish_cap256.c");
    char *edited = malloc(strlen(text) + 32);
    assert_non_null(edited);
    snprintf(edited, strlen(text) + 32, "%.*s garnish_lite.c%s", (int)at, text, text + at);
    assert_int_equal(hb_write_atomic(ini, edited, strlen(edited), &err), 0);
    b = build("run_garnish_twice", "reference", "Garnish", NULL, 1);
    why = str(entry(b, "Garnish", "Garnish_garnish_cap256"), "reason");
    if (strstr(why, "hashbench init") || !strstr(why, "hashbench.ini:") ||
        !strstr(why, "[instance Garnish_garnish_cap256]") ||
        !strstr(why, "is defined in more than one of its sources") ||
        !strstr(why, "give each other one a section of its own"))
        fail_msg("the advice does not say what to change in the section: %s", why);
    json_decref(b);
    free(edited);
    free(text);
}

/* A package whose own CryptHash declaration clashes with the visibility
 * header (an enum return type) is compiled once more without hidden
 * visibility: it builds, its flags are those used, and the version script
 * still exports CryptHash alone. */
static void test_visibility_clash(void **state)
{
    (void)state;
    fx_write(fx_root, "Enum/" REF "E/CryptHash_AlgorithmInstance.h",
             "#define ALGORITHM_INSTANCE \"E\"\n#define DIGEST_BIT_LENGTH 256\n");
    fx_write(fx_root, "Enum/" REF "E/e.c",
             "typedef enum { SUCCESS = 0, FAIL = 1 } HashReturn;\n"
             "int e_helper(int d);\n"
             "int e_helper(int d) { return d / 8; }\n"
             "HashReturn CryptHash(int d, const unsigned char *m, unsigned long long l,\n"
             "                     unsigned char *o);\n"
             "HashReturn CryptHash(int d, const unsigned char *m, unsigned long long l,\n"
             "                     unsigned char *o)\n"
             "{ (void)m; (void)l; o[0] = (unsigned char)e_helper(d); return SUCCESS; }\n");
    json_t *b = build("run_enum", "reference", "Enum", NULL, 0);
    json_t *e = entry(b, "Enum", "E");
    assert_string_equal(str(e, "status"), "BUILT");
    assert_null(strstr(str(e, "flags"), "-fvisibility=hidden"));
    assert_non_null(strstr(str(e, "flags"), " -Wl,--version-script="));
    char lib[PATH_MAX];
    snprintf(lib, sizeof lib, "%s/run_enum/%s", fx_root, str(e, "library"));
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        fail_msg("dlopen %s: %s", lib, dlerror());
    assert_non_null(dlsym(h, "CryptHash"));
    assert_null(dlsym(h, "e_helper"));
    dlclose(h);
    json_decref(b);
}

static void test_performance_flags(void **state)
{
    (void)state;
    fx_instance(fx_root, "Perf", "P", "P", 256);
    json_t *b = build("run_perf", "performance", "Perf", NULL, 0);
    json_t *e = entry(b, "Perf", "P");
    const char *want = strstr(str(b, "arch"), "aarch64")
        ? "-O3 -march=armv8.2-a+sve -flto -fomit-frame-pointer"
        : "-O3 -march=x86-64 -mavx2 -mtune=native -flto -fomit-frame-pointer";
    assert_non_null(strstr(str(e, "flags"), want));
    assert_non_null(strstr(str(e, "flags"), "-std=c99 -Wpedantic -Wall -Wextra -fPIC -shared"));
    /* What keeps the library as fast as a static build, recorded as used. */
    assert_non_null(strstr(str(e, "flags"), " -fvisibility=hidden -include "));
    assert_non_null(strstr(str(e, "flags"), "visibility.h"));
    assert_non_null(strstr(str(e, "flags"), " -Wl,--version-script="));
    assert_non_null(strstr(str(e, "flags"), "exports.map"));
    assert_non_null(strstr(str(e, "flags"), " -fno-semantic-interposition"));
    assert_string_equal(str(e, "profile"), "performance");
    assert_string_equal(str(b, "profile"), "performance");
    /* The same run directory refuses another profile. */
    char run_dir[PATH_MAX], pkg[PATH_MAX];
    snprintf(run_dir, sizeof run_dir, "%s/run_perf", fx_root);
    snprintf(pkg, sizeof pkg, "%s/Perf", fx_root);
    const char *pkgs[] = {pkg};
    build_options opt = {run_dir, "resource", NULL, 1, pkgs, 1, NULL, NULL, NULL, NULL, 0, 0};
    hb_err err;
    int failed;
    assert_int_equal(build_run(&opt, &failed, &err), -1);
    assert_non_null(strstr(err.msg, "profile performance"));
    json_decref(b);
}

static void test_candidate_id_clash(void **state)
{
    (void)state;
    fx_instance(fx_root, "Clash1", "A", "A", 256);
    fx_instance(fx_root, "Clash2", "B", "B", 256);
    fx_write(fx_root, "Clash2/hashbench.ini", "[candidate]\nid = Clash1\n");
    char run_dir[PATH_MAX], p1[PATH_MAX], p2[PATH_MAX];
    snprintf(run_dir, sizeof run_dir, "%s/run_clash", fx_root);
    snprintf(p1, sizeof p1, "%s/Clash1", fx_root);
    snprintf(p2, sizeof p2, "%s/Clash2", fx_root);
    const char *pkgs[] = {p1, p2};
    build_options opt = {run_dir, NULL, NULL, 1, pkgs, 2, NULL, NULL, NULL, NULL, 0, 0};
    hb_err err;
    int failed;
    assert_int_equal(build_run(&opt, &failed, &err), -1);
    assert_non_null(strstr(err.msg, "both have the candidate id Clash1"));
    assert_false(hb_is_file(fx_path(fx_root, "run_clash/build.json")));
    /* the baseline's id is taken: its library and log would be replaced */
    fx_write(fx_root, "Clash2/hashbench.ini", "[candidate]\nid = baseline\n");
    opt.packages = pkgs + 1;
    opt.n_packages = 1;
    assert_int_equal(build_run(&opt, &failed, &err), -1);
    assert_non_null(strstr(err.msg, "the candidate id 'baseline' is hashbench's own"));
}

/* A sparse 6 GiB source is not read (neither to look for main() nor to
 * record its SHA-256): its instance is BUILDFAIL naming the file and the
 * 64 MiB limit, another package's instance builds, and it all takes no
 * time. (The other instances of the same package fail too: the sandbox
 * stages no package of more than 512 MiB.) */
static void test_huge_source_not_read(void **state)
{
    (void)state;
    fx_instance(fx_root, "HugeOk", "Fine", "Fine", 256);
    fx_instance(fx_root, "Huge", "Big", "Big", 256);
    fx_write(fx_root, "Huge/" REF "Big/huge.c", "");
    assert_int_equal(truncate(fx_path(fx_root, "Huge/" REF "Big/huge.c"), 6LL << 30), 0);
    time_t t0 = time(NULL);
    json_t *b = build("run_huge", "reference", "Huge", "HugeOk", 1);
    assert_true(time(NULL) - t0 < 60);
    json_t *big = entry(b, "Huge", "Big");
    assert_string_equal(str(big, "status"), "BUILDFAIL");
    if (!strstr(str(big, "reason"), REF "Big/huge.c: 6442450944 bytes, more than the "
                                    "64 MiB limit for a source file"))
        fail_msg("reason: %s", str(big, "reason"));
    assert_string_equal(str(entry(b, "HugeOk", "Fine"), "status"), "BUILT");
    json_decref(b);
}

/* The build.json entries of CAND/INST into OUT (at most MAX); their number. */
static int entries_named(const json_t *b, const char *cand, const char *inst,
                         json_t **out, int max)
{
    size_t i;
    json_t *e;
    int n = 0;
    json_array_foreach(json_object_get(b, "instances"), i, e)
        if (strcmp(str(e, "candidate"), cand) == 0 && strcmp(str(e, "instance"), inst) == 0 &&
            n < max)
            out[n++] = e;
    return n;
}

/* Two folders declaring one ALGORITHM_INSTANCE, and a name that sanitizes
 * to another folder's name: every one of them is BUILDFAIL naming all the
 * folders of its name, each keeps its own log, and the KAT stage that
 * follows keeps the other instance's verdict (none vanishes); a build.json
 * where one such twin is built anyway is refused by the KAT stage. */
static void test_instance_name_collision(void **state)
{
    (void)state;
    fx_instance(fx_root, "Twin", "One", "X", 256);
    fx_instance(fx_root, "Twin", "Two", "X", 256);
    fx_instance(fx_root, "Twin", "Dot", "X.Y", 256);
    fx_instance(fx_root, "Twin", "Under", "X_Y", 256);
    fx_instance(fx_root, "Twin", "Solo", "Solo", 256);
    json_t *b = build("run_twin", "reference", "Twin", NULL, 4);
    json_t *e[4];
    char run[PATH_MAX], *log = NULL;
    hb_err err;
    snprintf(run, sizeof run, "%s/run_twin", fx_root);
    const char *names[] = {"X", "X_Y"};
    const char *dirs[][2] = {{REF "One", REF "Two"}, {REF "Dot", REF "Under"}};
    for (int k = 0; k < 2; k++) {
        assert_int_equal(entries_named(b, "Twin", names[k], e, 4), 2);
        assert_string_not_equal(str(e[0], "log"), str(e[1], "log"));
        for (int i = 0; i < 2; i++) {
            assert_string_equal(str(e[i], "status"), "BUILDFAIL");
            const char *why = str(e[i], "reason");
            if (!strstr(why, dirs[k][0]) || !strstr(why, dirs[k][1]) ||
                !strstr(why, "none of them is built"))
                fail_msg("reason without both folders: %s", why);
            assert_int_equal(hb_read_file(fx_path(run, str(e[i], "log")), &log, NULL,
                                          &err), 0);
            assert_non_null(strstr(log, dirs[k][0]));
            free(log);
        }
    }
    assert_non_null(strstr(str(e[0], "reason"), "ALGORITHM_INSTANCE is not"));
    assert_string_equal(str(entry(b, "Twin", "Solo"), "status"), "BUILT");
    kat_options ko = {0};
    ko.run_dir = run;
    int failed = -1;
    if (kat_run(&ko, &failed, &err) != 0)
        fail_msg("kat_run: %s", err.msg);
    json_t *kat = NULL;
    assert_int_equal(hb_json_load(fx_path(run, "kat.json"), &kat, &err), 0);
    assert_int_equal(json_array_size(json_object_get(kat, "instances")), 1);
    assert_non_null(fx_entry(kat, "Twin", "Solo"));
    json_decref(kat);
    /* a build.json with a built twin: one verdict would replace the other */
    entries_named(b, "Twin", "X", e, 4);
    json_object_set_new(e[1], "status", json_string("BUILT"));
    assert_int_equal(hb_json_save(fx_path(run, "build.json"), b, &err), 0);
    assert_int_equal(kat_run(&ko, &failed, &err), -1);
    assert_non_null(strstr(err.msg, "Twin/X is listed for both"));
    json_decref(b);
}

/* Sums readelf's view of LIB: LOAD MemSiz, and allocated section sizes by
 * the classes of elfsize.h. Returns 0 when readelf is not installed. */
static int readelf_sizes(const char *lib, unsigned long long v[5])
{
    if (!hb_is_file("/usr/bin/readelf"))
        return 0;
    char cmd[PATH_MAX + 64], line[1024];
    memset(v, 0, 5 * sizeof v[0]);
    snprintf(cmd, sizeof cmd, "/usr/bin/readelf -lW '%s'", lib);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    while (fgets(line, sizeof line, p)) {
        char type[32], off[32], va[32], pa[32], fs[32], ms[32];
        if (sscanf(line, " %31s %31s %31s %31s %31s %31s", type, off, va, pa, fs, ms) == 6 &&
            strcmp(type, "LOAD") == 0)
            v[0] += strtoull(ms, NULL, 16);
    }
    pclose(p);
    snprintf(cmd, sizeof cmd, "/usr/bin/readelf -SW '%s'", lib);
    p = popen(cmd, "r");
    assert_non_null(p);
    while (fgets(line, sizeof line, p)) {
        char *close = strchr(line, ']');
        if (!strchr(line, '[') || !close)
            continue;
        char t[10][64];
        int n = sscanf(close + 1, "%63s %63s %63s %63s %63s %63s %63s %63s %63s %63s",
                       t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8], t[9]);
        if (n != 10 || !strchr(t[6], 'A'))
            continue; /* header line, NULL section, or not allocated */
        unsigned long long size = strtoull(t[4], NULL, 16);
        if (strcmp(t[1], "NOBITS") == 0)
            v[4] += size;
        else if (strchr(t[6], 'X'))
            v[1] += size;
        else if (strchr(t[6], 'W'))
            v[3] += size;
        else
            v[2] += size;
    }
    pclose(p);
    return 1;
}

static void test_static_size_and_export_check(void **state)
{
    (void)state;
    fx_instance(fx_root, "Size", "S", "S", 256);
    fx_write(fx_root, "Size/" REF "S/tables.c",
             "const unsigned char big_table[4000] = {1};\n"
             "unsigned char scratch[3000];\nint counter = 5;\n");
    fx_write(fx_root, "Size/" REF "NoExport/CryptHash_AlgorithmInstance.h",
             fx_header("NoExport", 256));
    fx_write(fx_root, "Size/" REF "NoExport/impl.c",
             "static int CryptHash(int b) { return b; }\n"
             "int other(int b);\nint other(int b) { return CryptHash(b); }\n");
    json_t *b = build("run_size", "reference", "Size", NULL, 1);
    json_t *e = entry(b, "Size", "S");
    char lib[PATH_MAX];
    snprintf(lib, sizeof lib, "%s/run_size/%s", fx_root, str(e, "library"));
    unsigned long long v[5];
    if (readelf_sizes(lib, v)) {
        const char *keys[] = {"image", "text", "rodata", "data", "bss"};
        json_t *s = json_object_get(e, "static_size");
        for (int i = 0; i < 5; i++)
            assert_int_equal(json_integer_value(json_object_get(s, keys[i])), v[i]);
        assert_true(v[2] >= 4000 && v[4] >= 3000);
    } else {
        print_message("readelf not installed: static size not cross-checked\n");
    }
    char hex[HB_SHA256_HEX];
    hb_err err;
    assert_int_equal(hb_sha256_file_hex(lib, hex, &err), 0);
    assert_string_equal(str(e, "library_sha256"), hex);
    json_t *ne = entry(b, "Size", "NoExport");
    assert_string_equal(str(ne, "status"), "BUILDFAIL");
    /* the compiler's location and class, its message (quoting the source)
     * only in the run directory's raw field */
    assert_non_null(strstr(str(ne, "reason"), "impl.c:1:"));
    assert_non_null(strstr(str(ne, "reason"), ": error"));
    assert_null(strstr(str(ne, "reason"), "CryptHash"));
    assert_non_null(strstr(str(ne, "raw_reason_untrusted"), "CryptHash"));
    snprintf(lib, sizeof lib, "%s/run_size/lib/Size/libNoExport.so", fx_root);
    assert_false(hb_is_file(lib));
    json_decref(b);
}

/* A library's bytes that the loader never maps (here a section without the
 * "a" flag, which a library could read from its own file at run time: a
 * table the static size would not count) are zeros once built; the loaded
 * bytes stay, the static size is the same, and the library loads and runs. */
static void test_unloaded_bytes_zeroed(void **state)
{
    (void)state;
    fx_instance(fx_root, "Unloaded", "U", "U", 256);
    fx_write(fx_root, "Unloaded/" REF "U/table.c",
             "__asm__(\".pushsection .hbkept,\\\"\\\",@progbits\\n"
             ".ascii \\\"HB-NEVER-LOADED-MARKER\\\"\\n.popsection\\n\");\n"
             "const char hb_loaded_marker[] = \"HB-LOADED-MARKER\";\n");
    json_t *b = build("run_unloaded", "reference", "Unloaded", NULL, 0);
    json_t *e = entry(b, "Unloaded", "U");
    assert_string_equal(str(e, "status"), "BUILT");
    char lib[PATH_MAX];
    snprintf(lib, sizeof lib, "%s/run_unloaded/%s", fx_root, str(e, "library"));
    char *text = NULL;
    size_t len = 0;
    hb_err err;
    assert_int_equal(hb_read_file(lib, &text, &len, &err), 0);
    assert_null(memmem(text, len, "HB-NEVER-LOADED-MARKER", 22));
    assert_non_null(memmem(text, len, "HB-LOADED-MARKER", 16));
    free(text);
    unsigned long long v[5];
    if (readelf_sizes(lib, v))
        assert_int_equal(json_integer_value(json_object_get(json_object_get(e, "static_size"),
                                                            "image")), v[0]);
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        fail_msg("%s", dlerror());
    int (*fn)(int, const unsigned char *, unsigned long long, unsigned char *) =
        (int (*)(int, const unsigned char *, unsigned long long, unsigned char *))dlsym(h, "CryptHash");
    assert_non_null(fn);
    unsigned char msg[3] = {1, 2, 3}, digest[32];
    assert_int_equal(fn(256, msg, 24, digest), 0);
    dlclose(h);
    json_decref(b);
}

static void test_hostile_name_and_skip(void **state)
{
    (void)state;
    fx_write(fx_root, "Evil/" REF "E/CryptHash_AlgorithmInstance.h",
             "#define ALGORITHM_INSTANCE \"<script>alert(1)</script>\"\n"
             "#define DIGEST_BIT_LENGTH 256\n");
    fx_write(fx_root, "Evil/" REF "E/impl.c", fx_source);
    fx_instance(fx_root, "Evil", "Skipped", "Skipped", 256);
    fx_write(fx_root, "Evil/hashbench.ini", "[instance Skipped]\nskip = not ready\n");
    json_t *b = build("run_evil", "reference", "Evil", NULL, 1);
    char *text = NULL;
    hb_err err;
    assert_int_equal(hb_read_file(fx_path(fx_root, "run_evil/build.json"), &text, NULL, &err), 0);
    assert_null(strstr(text, "<script>"));
    assert_non_null(strstr(text, "CryptHash_AlgorithmInstance.h:1: "));
    free(text);
    size_t i;
    json_t *e;
    int refused = 0;
    json_array_foreach(json_object_get(b, "instances"), i, e) {
        if (strcmp(str(e, "status"), "BUILDFAIL") == 0) {
            refused++;
            assert_null(json_object_get(e, "library"));
            char log[PATH_MAX];
            snprintf(log, sizeof log, "%s/run_evil/%s", fx_root, str(e, "log"));
            assert_true(hb_is_file(log));
        }
    }
    assert_int_equal(refused, 1);
    assert_false(hb_is_dir(fx_path(fx_root, "run_evil/lib/Evil")));
    json_t *s = entry(b, "Evil", "Skipped");
    assert_string_equal(str(s, "status"), "SKIPPED");
    assert_string_equal(str(s, "reason"), "not ready");
    json_decref(b);
}

static long long mtime_ns(const char *path)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
}

static void test_resume(void **state)
{
    (void)state;
    fx_instance(fx_root, "Res", "A", "A", 256);
    fx_instance(fx_root, "Res", "B", "B", 256);
    json_decref(build("run_res", "reference", "Res", NULL, 0));
    char a[PATH_MAX], bl[PATH_MAX];
    snprintf(a, sizeof a, "%s/run_res/lib/Res/libA.so", fx_root);
    snprintf(bl, sizeof bl, "%s/run_res/lib/Res/libB.so", fx_root);
    long long ta = mtime_ns(a), tb = mtime_ns(bl);
    usleep(20000);
    json_decref(build("run_res", NULL, "Res", NULL, 0)); /* nothing changed */
    assert_true(mtime_ns(a) == ta && mtime_ns(bl) == tb);
    fx_write(fx_root, "Res/" REF "B/extra.c", "int extra_symbol = 1;\n");
    unlink(a);
    json_t *b = build("run_res", "reference", "Res", NULL, 0);
    assert_true(hb_is_file(a));                    /* missing library rebuilt */
    assert_true(mtime_ns(bl) != tb);               /* changed sources rebuilt */
    assert_int_equal(json_array_size(json_object_get(entry(b, "Res", "B"), "sources")), 2);
    json_decref(b);
}

static void test_harness_default_rebuild(void **state)
{
    (void)state;
    /* typeof is not C99: the guide flags fail, the gnu11 fallback builds. */
    fx_write(fx_root, "Gnu/" REF "G/CryptHash_AlgorithmInstance.h", fx_header("G", 256));
    fx_write(fx_root, "Gnu/" REF "G/impl.c",
             "#include <string.h>\n"
             "int CryptHash(int b, const unsigned char *m, unsigned long long l,\n"
             "              unsigned char *d)\n"
             "{ typeof(b) n = b / 8; (void)m; (void)l; memset(d, 1, (size_t)n); return 0; }\n");
    json_t *b = build("run_gnu", "reference", "Gnu", NULL, 1);
    json_t *e = entry(b, "Gnu", "G");
    assert_string_equal(str(e, "status"), "BUILDFAIL");
    json_t *out = NULL;
    hb_err err;
    if (build_rebuild_default(fx_path(fx_root, "run_gnu"), e, &out, &err) != 0)
        fail_msg("%s", err.msg);
    assert_string_equal(str(out, "status"), "BUILT");
    assert_string_equal(str(out, "flags_kind"), "harness-default");
    assert_string_equal(str(out, "library"), "lib/Gnu/harness-default/libG.so");
    assert_non_null(strstr(str(out, "flags"), "-std=gnu11"));
    assert_string_equal(str(out, "instance"), "G");
    char lib[PATH_MAX];
    snprintf(lib, sizeof lib, "%s/run_gnu/%s", fx_root, str(out, "library"));
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    assert_non_null(h);
    assert_non_null(dlsym(h, "CryptHash"));
    dlclose(h);
    snprintf(lib, sizeof lib, "%s/run_gnu/%s", fx_root, str(out, "log"));
    assert_true(hb_is_file(lib));
    json_decref(out);
    json_decref(b);
}

static const char *build_dir(void)
{
    const char *d = getenv("HB_BUILD_DIR");
    return d && *d ? d : ".";
}

static void test_baseline_entry(void **state)
{
    (void)state;
    char base[PATH_MAX];
    snprintf(base, sizeof base, "%s/libhb_baseline_sm3.so", build_dir());
    if (!hb_is_file(base)) {
        char why[4 * PATH_MAX];
        snprintf(why, sizeof why, "%s not built: baseline entry not checked", base);
        skip_unless_ci(why);
    }
    fx_instance(fx_root, "WithBase", "W", "W", 256);
    char run_dir[PATH_MAX], pkg[PATH_MAX];
    snprintf(run_dir, sizeof run_dir, "%s/run_base", fx_root);
    snprintf(pkg, sizeof pkg, "%s/WithBase", fx_root);
    const char *pkgs[] = {pkg};
    build_options opt = {run_dir, NULL, NULL, 1, pkgs, 1, base, NULL, NULL, NULL, 0, 0};
    hb_err err;
    int failed;
    assert_int_equal(build_run(&opt, &failed, &err), 0);
    json_t *b = fx_load_build(run_dir);
    json_t *e = entry(b, "baseline", "OpenSSL_SM3");
    assert_true(json_is_true(json_object_get(e, "baseline")));
    assert_string_equal(str(e, "flags_kind"), "hashbench");
    assert_string_equal(str(e, "library"), "lib/baseline/libOpenSSL_SM3.so");
    char hex[HB_SHA256_HEX];
    assert_int_equal(hb_sha256_file_hex(base, hex, &err), 0);
    assert_string_equal(str(e, "library_sha256"), hex);
    assert_true(json_is_true(json_object_get(e, "baseline_primary")));
    assert_true(json_is_false(json_object_get(e, "baseline_package")));
    /* the second built-in baseline, from the same folder */
    e = entry(b, "baseline", "OpenSSL_SHA256");
    assert_true(json_is_true(json_object_get(e, "baseline")));
    assert_true(json_is_false(json_object_get(e, "baseline_primary")));
    assert_true(json_is_false(json_object_get(e, "baseline_package")));
    assert_string_equal(str(e, "algorithm"), "SHA-256");
    assert_string_equal(str(e, "status"), "BUILT");
    assert_string_equal(str(e, "library"), "lib/baseline/libOpenSSL_SHA256.so");
    e = entry(b, "WithBase", "W");
    assert_true(json_is_false(json_object_get(e, "baseline")));
    json_decref(b);
    /* a package named as a baseline: built (added to the packages), its
     * entries marked, not taken for a built-in one */
    fx_instance(fx_root, "Helper", "H", "H", 256);
    char helper[PATH_MAX];
    snprintf(helper, sizeof helper, "%s/Helper", fx_root);
    const char *bases[] = {helper};
    opt.baseline_packages = bases;
    opt.n_baseline_packages = 1;
    assert_int_equal(build_run(&opt, &failed, &err), 0);
    assert_int_equal(failed, 0);
    b = fx_load_build(run_dir);
    e = entry(b, "Helper", "H");
    assert_string_equal(str(e, "status"), "BUILT");
    assert_true(json_is_true(json_object_get(e, "baseline")));
    assert_true(json_is_true(json_object_get(e, "baseline_package")));
    assert_true(json_is_false(json_object_get(e, "baseline_primary")));
    assert_false(rundir_entry_builtin_baseline(e));
    assert_true(rundir_entry_builtin_baseline(entry(b, "baseline", "OpenSSL_SHA256")));
    assert_true(json_is_false(json_object_get(entry(b, "WithBase", "W"), "baseline")));
    json_decref(b);
    opt.n_baseline_packages = 0;
    /* A missing baseline file is left out with a warning, not an error. */
    opt.baseline_lib = fx_path(fx_root, "no-such-baseline.so");
    fx_rmtree(run_dir);
    assert_int_equal(build_run(&opt, &failed, &err), 0);
    b = fx_load_build(run_dir);
    assert_null(fx_entry(b, "baseline", "OpenSSL_SM3"));
    assert_null(fx_entry(b, "baseline", "OpenSSL_SHA256"));
    json_decref(b);
}

/* Runs build/hashbench ARGS... from folder CWD (NULL: this one), keeps
 * what it prints (stdout and stderr) in *OUT when OUT is not NULL, and
 * returns its exit code. */
static int run_cli_in(const char *cwd, const char *const *args, char **out)
{
    char exe[PATH_MAX];
    snprintf(exe, sizeof exe, "%s/hashbench", build_dir());
    char *argv[16] = {exe};
    int n = 1;
    for (; args[n - 1] && n < 15; n++)
        argv[n] = (char *)args[n - 1];
    argv[n] = NULL;
    hb_proc_opts o = hb_proc_defaults();
    o.timeout_s = 120;
    o.cwd = cwd;
    o.capture = out;
    o.stderr_to_stdout = out != NULL;
    hb_proc_result r;
    hb_err err;
    assert_int_equal(hb_proc_exec(argv, &o, &r, &err), 0);
    assert_true(r.exited);
    return r.exit_code;
}

static int run_cli(const char *const *args)
{
    return run_cli_in(NULL, args, NULL);
}

/* 1 when NAME is an executable file in one of the folders of PATH. */
static int on_path(const char *name)
{
    const char *path = getenv("PATH");
    char dirs[8192];
    snprintf(dirs, sizeof dirs, "%s", path ? path : "");
    for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d;
         d = strtok_r(NULL, ":", &save)) {
        char full[PATH_MAX];
        snprintf(full, sizeof full, "%s/%s", d, name);
        if (access(full, X_OK) == 0)
            return 1;
    }
    return 0;
}

static void test_cli_exit_codes(void **state)
{
    (void)state;
    char exe[PATH_MAX];
    snprintf(exe, sizeof exe, "%s/hashbench", build_dir());
    if (access(exe, X_OK) != 0) {
        char why[4 * PATH_MAX];
        snprintf(why, sizeof why, "%s not built: exit codes not checked", exe);
        skip_unless_ci(why);
    }
    fx_instance(fx_root, "CliOk", "A", "A", 256);
    fx_write(fx_root, "CliBad/" REF "X/CryptHash_AlgorithmInstance.h", fx_header("X", 256));
    fx_write(fx_root, "CliBad/" REF "X/x.c", "syntax error here\n");
    char ok[PATH_MAX], bad[PATH_MAX], run[PATH_MAX];
    snprintf(ok, sizeof ok, "%s/CliOk", fx_root);
    snprintf(bad, sizeof bad, "%s/CliBad", fx_root);
    snprintf(run, sizeof run, "%s/run_cli", fx_root);
    const char *a0[] = {"build", "--run-dir", run, ok, NULL};
    assert_int_equal(run_cli(a0), 0);
    const char *a1[] = {"build", "--run-dir", run, "-j", "1", ok, bad, NULL};
    assert_int_equal(run_cli(a1), 1);
    const char *a2[] = {"build", ok, NULL};
    assert_int_equal(run_cli(a2), 2);
    const char *a3[] = {"build", "--run-dir", run, "--profile", "fastest", ok, NULL};
    assert_int_equal(run_cli(a3), 2);
    const char *a4[] = {"build", "--run-dir", run, fx_path(fx_root, "missing"), NULL};
    assert_int_equal(run_cli(a4), 2);
}

/* A missing or non-executable --cc is an error up front naming --cc: build
 * creates no run directory, run stops before the host check, and kat
 * stops before testing anything when the compiler build.json records for
 * the harness-default rebuild cannot be run. */
static void test_cc_checked_up_front(void **state)
{
    (void)state;
    char exe[PATH_MAX];
    snprintf(exe, sizeof exe, "%s/hashbench", build_dir());
    if (access(exe, X_OK) != 0) {
        char why[4 * PATH_MAX];
        snprintf(why, sizeof why, "%s not built: --cc not checked", exe);
        skip_unless_ci(why);
    }
    fx_instance(fx_root, "CcPkg", "A", "A", 256);
    fx_write(fx_root, "not-exec-cc", "#!/bin/sh\nexec cc \"$@\"\n");
    char pkg[PATH_MAX], run[PATH_MAX], bad[PATH_MAX], *out = NULL;
    snprintf(pkg, sizeof pkg, "%s/CcPkg", fx_root);
    snprintf(run, sizeof run, "%s/run_cc", fx_root);
    snprintf(bad, sizeof bad, "%s/not-exec-cc", fx_root);
    const char *ccs[] = {"/nonexistent/gcc", bad, "no-such-compiler-xyz"};
    for (int i = 0; i < 3; i++) {
        const char *b[] = {"build", "--run-dir", run, "--cc", ccs[i], pkg, NULL};
        assert_int_equal(run_cli_in(NULL, b, &out), 2);
        if (!strstr(out, "--cc") || !strstr(out, ccs[i]))
            fail_msg("build --cc %s: %s", ccs[i], out);
        free(out);
        assert_false(hb_is_dir(run));
        const char *r[] = {"run", "--run-dir", run, "--cc", ccs[i], pkg, NULL};
        assert_int_equal(run_cli_in(NULL, r, &out), 2);
        if (!strstr(out, "--cc") || strstr(out, "host check"))
            fail_msg("run --cc %s: %s", ccs[i], out);
        free(out);
        assert_false(hb_is_dir(run));
    }
    json_t *b = build("run_cc", "reference", "CcPkg", NULL, 0);
    json_object_set_new(entry(b, "CcPkg", "A"), "compiler", json_string(ccs[0]));
    hb_err err;
    assert_int_equal(hb_json_save(fx_path(run, "build.json"), b, &err), 0);
    json_decref(b);
    const char *k[] = {"kat", "--run-dir", run, NULL};
    assert_int_equal(run_cli_in(NULL, k, &out), 2);
    if (!strstr(out, "--cc of hashbench build") || !strstr(out, ccs[0]))
        fail_msg("kat: %s", out);
    free(out);
    assert_false(hb_is_file(fx_path(run, "kat.json")));
}

/* Writes into fx_root/PKG_REL and fx_root/PKG_REL/bin a script for every
 * program the compiler might look up (and for the compiler names
 * themselves) that creates MARKER.<name> when run. */
static void ship_fake_tools(const char *pkg_rel, const char *marker)
{
    static const char *const tools[] = {"cc", "gcc", "clang", "as", "ld",
                                        "collect2", "mycc"};
    char text[PATH_MAX + 64], rel[PATH_MAX];
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++) {
        snprintf(text, sizeof text, "#!/bin/sh\ntouch %s.%s\nexit 1\n", marker, tools[i]);
        snprintf(rel, sizeof rel, "%s/%s", pkg_rel, tools[i]);
        fx_write_exec(fx_root, rel, text);
        snprintf(rel, sizeof rel, "%s/bin/%s", pkg_rel, tools[i]);
        fx_write_exec(fx_root, rel, text);
    }
}

/* No marker file MARKER.* exists. */
static void assert_no_marker(const char *marker)
{
    static const char *const tools[] = {"cc", "gcc", "clang", "as", "ld",
                                        "collect2", "mycc"};
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++) {
        char m[PATH_MAX + 16];
        snprintf(m, sizeof m, "%s.%s", marker, tools[i]);
        if (hb_is_file(m))
            fail_msg("a program shipped by the package was run: %s", m);
    }
}

/* The compiler runs inside the package folder: a PATH with relative
 * entries must not make it (or the assembler and linker it starts) pick up
 * programs the package ships. */
static void test_relative_path_entries_ignored(void **state)
{
    (void)state;
    char marker[PATH_MAX];
    snprintf(marker, sizeof marker, "%s/TOOL_MARKER", fx_root);
    fx_instance(fx_root, "Tools", "A", "A", 256);
    ship_fake_tools("Tools", marker);
    ship_fake_tools("Tools/" REF "A", marker);
    const char *old = getenv("PATH");
    char *saved = strdup(old ? old : "/usr/bin:/bin");
    char path[8192];
    snprintf(path, sizeof path, ":.:bin::%s:", saved);
    assert_int_equal(setenv("PATH", path, 1), 0);
    json_t *b = build("run_tools", "reference", "Tools", NULL, 0);
    assert_int_equal(setenv("PATH", saved, 1), 0);
    free(saved);
    assert_string_equal(str(entry(b, "Tools", "A"), "status"), "BUILT");
    assert_no_marker(marker);
    json_decref(b);
}

/* The command line as a user types it: a plain file caught by a shell glob
 * is passed over without a word, --cc with a relative path means a path
 * from where hashbench runs (never from the package), and --cc clang gives
 * a clang build.json. */
static void test_cli_glob_and_cc(void **state)
{
    (void)state;
    char exe[PATH_MAX];
    snprintf(exe, sizeof exe, "%s/hashbench", build_dir());
    if (access(exe, X_OK) != 0) {
        char why[4 * PATH_MAX];
        snprintf(why, sizeof why, "%s not built: command line not checked", exe);
        skip_unless_ci(why);
    }
    char marker[PATH_MAX], glob[PATH_MAX], pkg[PATH_MAX], readme[PATH_MAX];
    char run[PATH_MAX];
    snprintf(marker, sizeof marker, "%s/CC_MARKER", fx_root);
    fx_instance(fx_root, "Glob/Pkg", "A", "A", 256);
    ship_fake_tools("Glob/Pkg", marker);
    ship_fake_tools("Glob/Pkg/" REF "A", marker);
    fx_write(fx_root, "Glob/README.md", "not a package\n");
    fx_write_exec(fx_root, "Glob/mycc", "#!/bin/sh\nexec cc \"$@\"\n");
    snprintf(glob, sizeof glob, "%s/Glob", fx_root);
    snprintf(pkg, sizeof pkg, "%s/Glob/Pkg", fx_root);
    snprintf(readme, sizeof readme, "%s/Glob/README.md", fx_root);
    snprintf(run, sizeof run, "%s/run_glob", fx_root);
    char *out = NULL;
    const char *a0[] = {"build", "--run-dir", run, "--cc", "./mycc", "-j", "2",
                        pkg, readme, NULL};
    int rc = run_cli_in(glob, a0, &out);
    if (rc != 0)
        fail_msg("exit %d:\n%s", rc, out);
    assert_null(strstr(out, "README"));
    free(out);
    assert_no_marker(marker);
    json_t *b = fx_load_build(run);
    json_t *e = entry(b, "Pkg", "A");
    assert_string_equal(str(e, "status"), "BUILT");
    assert_true(str(e, "compiler")[0] == '/'); /* made absolute */
    assert_non_null(strstr(str(e, "compiler"), "/Glob/mycc"));
    char *log = NULL;
    hb_err err;
    assert_int_equal(hb_read_file(fx_path(run, str(e, "log")), &log, NULL, &err), 0);
    assert_true(strncmp(log, "$ /", 3) == 0); /* an absolute compiler path */
    assert_non_null(strstr(log, "/Glob/mycc -std=c99 "));
    free(log);
    json_decref(b);
    if (!on_path("clang")) {
        skip_unless_ci("clang not installed: --cc clang not checked");
    }
    const char *a1[] = {"build", "--run-dir", run, "--cc", "clang", pkg, NULL};
    rc = run_cli_in(NULL, a1, &out);
    if (rc != 0)
        fail_msg("exit %d:\n%s", rc, out);
    free(out);
    b = fx_load_build(run);
    e = entry(b, "Pkg", "A");
    assert_string_equal(str(e, "status"), "BUILT");
    assert_string_equal(str(e, "compiler"), "clang");
    assert_non_null(strstr(str(e, "compiler_version"), "clang version"));
    assert_non_null(strstr(str(b, "compiler_version"), "clang version"));
    json_decref(b);
}

/* A source whose name starts with '-' is passed as a file, not an option. */
static void test_dash_source_name(void **state)
{
    (void)state;
    fx_write(fx_root, "Dash/CryptHash_AlgorithmInstance.h", fx_header("D", 256));
    fx_write(fx_root, "Dash/-shared-helper.c", fx_source);
    fx_write(fx_root, "Dash/hashbench.ini",
             "[instance D]\ndir = .\nvariant = Reference\ndigest_bits = 256\n"
             "sources = -shared-helper.c\n");
    json_t *b = build("run_dash", "reference", "Dash", NULL, 0);
    json_t *e = entry(b, "Dash", "D");
    assert_string_equal(str(e, "status"), "BUILT");
    char *log = NULL;
    hb_err err;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/run_dash/%s", fx_root, str(e, "log"));
    assert_int_equal(hb_read_file(path, &log, NULL, &err), 0);
    assert_non_null(strstr(log, " ./-shared-helper.c\n"));
    free(log);
    json_decref(b);
}

static void test_examples(void **state)
{
    (void)state;
    const char *src = getenv("HB_SOURCE_DIR");
    char ex[PATH_MAX];
    snprintf(ex, sizeof ex, "%s/examples", src && *src ? src : HB_SOURCE_DIR);
    const char *names[] = {"SM3", "SHA2", "SHA3"};
    char pkg[3][PATH_MAX];
    const char *pkgs[3];
    hb_err err;
    for (int i = 0; i < 3; i++) {
        assert_int_equal(hb_path_join(pkg[i], sizeof pkg[i], ex, names[i], &err), 0);
        pkgs[i] = pkg[i];
        if (!hb_is_dir(pkg[i])) {
            char why[4 * PATH_MAX];
            snprintf(why, sizeof why, "%s not there yet: examples not built", pkg[i]);
            skip_unless_ci(why);
        }
    }
    char run_dir[PATH_MAX];
    snprintf(run_dir, sizeof run_dir, "%s/run_examples", fx_root);
    build_options opt = {run_dir, "performance", NULL, 2, pkgs, 3, NULL, NULL, NULL, NULL, 0, 0};
    int failed = -1;
    if (build_run(&opt, &failed, &err) != 0)
        fail_msg("%s", err.msg);
    json_t *b = fx_load_build(run_dir);
    /* The seven instances the examples are specified to hold (issue 2). */
    const struct { const char *cand, *inst; int bits; } want[] = {
        {"SM3", "SM3", 256}, {"SHA2", "SHA256", 256}, {"SHA2", "SHA512", 512},
        {"SHA3", "SHA3_256", 256}, {"SHA3", "SHA3_512", 512},
        {"SHA3", "SHAKE256_768", 768}, {"SHA3", "SHAKE256_1024", 1024}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        json_t *e = entry(b, want[i].cand, want[i].inst);
        if (strcmp(str(e, "status"), "BUILT") != 0)
            fail_msg("%s/%s: %s", want[i].cand, want[i].inst, str(e, "reason"));
        assert_int_equal(json_integer_value(json_object_get(e, "digest_bits")), want[i].bits);
    }
    assert_int_equal(failed, 0);
    print_message("built %zu example instances\n", sizeof want / sizeof want[0]);
    json_decref(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shipped_build_files_never_run),
        cmocka_unit_test(test_broken_instance_buildfail),
        cmocka_unit_test(test_one_folder_many_instances),
        cmocka_unit_test(test_one_folder_init_override),
        cmocka_unit_test(test_init_digest_order),
        cmocka_unit_test(test_init_splits_variant_files),
        cmocka_unit_test(test_visibility_clash),
        cmocka_unit_test(test_performance_flags),
        cmocka_unit_test(test_candidate_id_clash),
        cmocka_unit_test(test_huge_source_not_read),
        cmocka_unit_test(test_instance_name_collision),
        cmocka_unit_test(test_static_size_and_export_check),
        cmocka_unit_test(test_unloaded_bytes_zeroed),
        cmocka_unit_test(test_hostile_name_and_skip),
        cmocka_unit_test(test_resume),
        cmocka_unit_test(test_harness_default_rebuild),
        cmocka_unit_test(test_baseline_entry),
        cmocka_unit_test(test_cli_exit_codes),
        cmocka_unit_test(test_cc_checked_up_front),
        cmocka_unit_test(test_relative_path_entries_ignored),
        cmocka_unit_test(test_cli_glob_and_cc),
        cmocka_unit_test(test_dash_source_name),
        cmocka_unit_test(test_examples),
    };
    return cmocka_run_group_tests(tests, fx_setup, fx_teardown);
}
