/* KAT test helpers: see kat_test_util.h. */
#include "kat_test_util.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/digest.h"
#include "common/fs.h"
#include "common/json.h"

char *kt_mkdtemp(const char *tag)
{
    const char *tmp = getenv("TMPDIR");
    char buf[4096];
    snprintf(buf, sizeof buf, "%s/hb-kat-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", tag);
    assert_non_null(mkdtemp(buf));
    return strdup(buf);
}

void kt_rm_rf(const char *path)
{
    hb_err ignored;
    hb_remove_tree(path, &ignored);
}

void kt_release(char *root)
{
    if (!getenv("HB_KAT_KEEP"))
        kt_rm_rf(root);
    free(root);
}

json_t *kt_build_new(void)
{
    return json_pack("{s:i, s:s, s:[]}", "schema", 1, "tool", "test", "instances");
}

void kt_build_add(json_t *build, const char *run, const char *cand, const char *inst,
                  int digest_bits, const char *lib, const char *package,
                  const char *flags_kind)
{
    char rel[1024], abs[4096], sha[HB_SHA256_HEX];
    hb_err err;
    snprintf(rel, sizeof rel, "lib/%s/lib%s.so", cand, inst);
    snprintf(abs, sizeof abs, "%s/%s", run, rel);
    if (hb_copy_file(lib, abs, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(hb_sha256_file_hex(abs, sha, &err), 0);
    json_t *e = json_pack("{s:s, s:s, s:s, s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:s,"
                          " s:s, s:[], s:s, s:s, s:s, s:s, s:s}",
        "candidate", cand, "algorithm", cand, "instance", inst, "digest_bits", digest_bits,
        "variant", "Reference", "package", package ? package : "/nonexistent",
        "source_dir", "", "profile", "reference", "flags_kind", flags_kind,
        "flags", "-O2 -fPIC -shared", "compiler", "cc", "compiler_version", "cc (test)",
        "sources", "library", rel, "library_sha256", sha, "status", "BUILT",
        "log", "", "exclude_timing", "");
    assert_non_null(e);
    json_array_append_new(json_object_get(build, "instances"), e);
}

void kt_build_save(const json_t *build, const char *run)
{
    char path[4096];
    hb_err err;
    snprintf(path, sizeof path, "%s/build.json", run);
    if (hb_json_save(path, build, &err) != 0)
        fail_msg("%s", err.msg);
}

char *kt_last_line(const char *path)
{
    char *text = NULL;
    size_t len = 0;
    hb_err err;
    if (hb_read_file(path, &text, &len, &err) != 0)
        fail_msg("%s", err.msg);
    while (len > 0 && text[len - 1] == '\n')
        text[--len] = '\0';
    char *nl = strrchr(text, '\n');
    char *last = strdup(nl ? nl + 1 : text);
    free(text);
    return last;
}

int kt_contains(const char *path, const char *needle)
{
    char *text = NULL;
    hb_err err;
    if (hb_read_file(path, &text, NULL, &err) != 0)
        fail_msg("%s", err.msg);
    int found = strstr(text, needle) != NULL;
    free(text);
    return found;
}

json_t *kt_kat_entry(const char *run, const char *cand, const char *inst)
{
    char path[4096];
    json_t *kat = NULL, *e, *found = NULL;
    hb_err err;
    size_t i;
    snprintf(path, sizeof path, "%s/kat.json", run);
    if (hb_json_load(path, &kat, &err) != 0)
        fail_msg("%s", err.msg);
    json_array_foreach(json_object_get(kat, "instances"), i, e) {
        if (strcmp(json_string_value(json_object_get(e, "candidate")), cand) == 0 &&
            strcmp(json_string_value(json_object_get(e, "instance")), inst) == 0)
            found = json_incref(e);
    }
    json_decref(kat);
    return found;
}
