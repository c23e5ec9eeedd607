/* Helpers of the build-stage tests: see fixture.h. */
#include "fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fs.h"
#include "common/json.h"

char *fx_tmpdir(void)
{
    const char *base = getenv("TMPDIR");
    char templ[PATH_MAX];
    snprintf(templ, sizeof templ, "%s/hb-build-test-XXXXXX", base && *base ? base : "/tmp");
    char *dir = mkdtemp(templ);
    assert_non_null(dir);
    return strdup(dir);
}

char *fx_root;

int fx_setup(void **state)
{
    (void)state;
    fx_root = fx_tmpdir();
    return 0;
}

int fx_teardown(void **state)
{
    (void)state;
    fx_rmtree(fx_root);
    free(fx_root);
    return 0;
}

const char *fx_path(const char *root, const char *rel)
{
    static char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s/%s", root, rel);
    return buf;
}

void fx_write(const char *root, const char *rel, const char *text)
{
    char path[PATH_MAX];
    hb_err err;
    snprintf(path, sizeof path, "%s/%s", root, rel);
    assert_int_equal(hb_mkdirs_for(path, &err), 0);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    assert_int_equal(fclose(fp), 0);
}

void fx_write_exec(const char *root, const char *rel, const char *text)
{
    fx_write(root, rel, text);
    assert_int_equal(chmod(fx_path(root, rel), 0755), 0);
}

void fx_rmtree(const char *path)
{
    hb_err ignored;
    hb_remove_tree(path, &ignored);
}

const char *fx_header(const char *name, int bits)
{
    static char buf[512];
    snprintf(buf, sizeof buf,
             "#ifndef CRYPTHASH_ALGORITHMINSTANCE_H\n"
             "#define CRYPTHASH_ALGORITHMINSTANCE_H\n"
             "#define ALGORITHM_INSTANCE \"%s\"\n"
             "#define DIGEST_BIT_LENGTH %d\n"
             "#endif\n", name, bits);
    return buf;
}

const char fx_source[] =
    "#include <string.h>\n"
    "#include \"CryptHash_AlgorithmInstance.h\"\n"
    "int CryptHash(int bits, const unsigned char *m, unsigned long long mbits,\n"
    "              unsigned char *d);\n"
    "const char *instance_name(void);\n"
    "int CryptHash(int bits, const unsigned char *m, unsigned long long mbits,\n"
    "              unsigned char *d)\n"
    "{\n"
    "    (void)m;\n"
    "    (void)mbits;\n"
    "    if (bits != DIGEST_BIT_LENGTH)\n"
    "        return 1;\n"
    "    memset(d, 0xAB, DIGEST_BIT_LENGTH / 8);\n"
    "    return 0;\n"
    "}\n"
    "const char *instance_name(void) { return ALGORITHM_INSTANCE; }\n";

void fx_instance(const char *root, const char *pkg, const char *inst,
                 const char *name, int bits)
{
    char rel[PATH_MAX];
    snprintf(rel, sizeof rel, "%s/Implementations/Reference_Implementation/%s/"
             "CryptHash_AlgorithmInstance.h", pkg, inst);
    fx_write(root, rel, fx_header(name, bits));
    snprintf(rel, sizeof rel, "%s/Implementations/Reference_Implementation/%s/impl.c",
             pkg, inst);
    fx_write(root, rel, fx_source);
}

json_t *fx_entry(const json_t *build, const char *cand, const char *inst)
{
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(build, "instances"), i, e) {
        const char *c = json_string_value(json_object_get(e, "candidate"));
        const char *n = json_string_value(json_object_get(e, "instance"));
        if (c && n && strcmp(c, cand) == 0 && strcmp(n, inst) == 0)
            return e;
    }
    return NULL;
}

json_t *fx_load_build(const char *dir)
{
    json_t *root = NULL;
    hb_err err;
    int rc = hb_json_load(fx_path(dir, "build.json"), &root, &err);
    if (rc != 0)
        fail_msg("%s", err.msg);
    return root;
}
