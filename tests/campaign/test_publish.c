/* Publishing a run directory whose texts quote paths of the measuring host
 * (a compiler given as --cc /usr/bin/gcc, a compiler message naming a
 * header under /root, a KAT log naming a library elsewhere): the dataset
 * gets them as <path>/<name>, the run directory and package folders
 * relative, the kernel's /proc kept, a rewritten KAT log's SHA-256 updated
 * where it is cited, and campaign.json records what was redacted; the
 * dataset then validates. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "campaign/publish.h"
#include "campaign/tree.h"
#include "common/digest.h"
#include "common/fs.h"
#include "common/json.h"
#include "report/report.h"

static char root[256], run[512], data[512], pkg[512];

static const char *at(const char *base, const char *rel)
{
    static char p[2][PATH_MAX];
    static int k;
    k ^= 1;
    if (snprintf(p[k], sizeof p[k], "%s/%s", base, rel) >= (int)sizeof p[k])
        fail_msg("path too long");
    return p[k];
}

static void put(const char *base, const char *rel, const char *text)
{
    hb_err err;
    if (hb_write_atomic(at(base, rel), text, strlen(text), &err) != 0)
        fail_msg("%s", err.msg);
}

static void put_json(const char *rel, json_t *doc)
{
    hb_err err;
    if (hb_json_save(at(run, rel), doc, &err) != 0)
        fail_msg("%s", err.msg);
    json_decref(doc);
}

static char *slurp(const char *path)
{
    char *text = NULL;
    hb_err err;
    if (hb_read_file(path, &text, NULL, &err) != 0)
        fail_msg("%s", err.msg);
    return text;
}

/* A run directory: two instances of candidate Cand, one BUILDFAIL whose
 * reason and log quote /root/secret/include/x.h, both built with
 * --cc /usr/bin/gcc; Ok's KAT log names /opt/elsewhere/libOk.so. */
static int setup(void **state)
{
    (void)state;
    const char *t = getenv("TMPDIR");
    char kat_log[1024], sha[HB_SHA256_HEX];
    snprintf(root, sizeof root, "%s/hb-publish-XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(root))
        return -1;
    snprintf(run, sizeof run, "%s/run", root);
    snprintf(data, sizeof data, "%s/data", root);
    snprintf(pkg, sizeof pkg, "%s/Cand", root);
    put(pkg, "Implementations/Reference_Implementation/Inst/x.c", "int x;\n");
    char log[4096];
    snprintf(log, sizeof log,
             "$ /usr/bin/gcc -std=c99 -I/root/secret/include -o %s/lib/Cand/libInst.so.part "
             "Implementations/Reference_Implementation/Inst/x.c\n"
             "# working folder: %s/\n"
             "In file included from /root/secret/include/x.h:3:10: error: boom\n"
             "see /proc/cpuinfo\n# result: BUILDFAIL\n", run, pkg);
    put(run, "logs/build/Cand/Inst.log", log);
    put(run, "logs/build/Cand/Ok.log", "$ /usr/bin/gcc -o x.so x.c\n# result: BUILT\n");
    snprintf(kat_log, sizeof kat_log, "hashbench KAT log\ncandidate: Cand\ninstance: Ok\n"
             "NOTE loaded /opt/elsewhere/libOk.so\nRESULT Cand Ok PASS\n");
    put(run, "kat/Cand/Ok.log", kat_log);
    hb_sha256_buf_hex(kat_log, strlen(kat_log), sha);
    put_json("campaign.json", json_pack("{s:i, s:s, s:[s]}", "schema", 1, "kind",
                                        "hashbench-campaign", "submissions", pkg));
    put_json("build.json", json_pack(
        "{s:i, s:s, s:[{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s},"
        " {s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}]}",
        "schema", 1, "compiler", "/usr/bin/gcc", "instances",
        "candidate", "Cand", "instance", "Inst", "package", pkg,
        "source_dir", "Implementations/Reference_Implementation/Inst",
        "compiler", "/usr/bin/gcc", "status", "BUILDFAIL",
        "reason", "compiler failed (exit 1): /root/secret/include/x.h:3:10: error: "
                  "boom; see the log", "log", "logs/build/Cand/Inst.log",
        "candidate", "Cand", "instance", "Ok", "package", pkg,
        "source_dir", "Implementations/Reference_Implementation/Ok",
        "compiler", "/usr/bin/gcc", "status", "BUILT", "reason", "",
        "log", "logs/build/Cand/Ok.log"));
    put_json("kat.json", json_pack("{s:i, s:[{s:s, s:s, s:s, s:s, s:s}]}", "schema", 1,
                                   "instances", "candidate", "Cand", "instance", "Ok",
                                   "status", "PASS", "log", "kat/Cand/Ok.log",
                                   "log_sha256", sha));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    hb_err err;
    return hb_remove_tree(root, &err);
}

/* No published file may hold what only this machine knows. */
static int check_file(void *ctx, const char *rel, hb_err *err)
{
    (void)err;
    char *text = slurp(at((const char *)ctx, rel));
    if (strstr(text, "/root/") || strstr(text, "/usr/bin") || strstr(text, "/opt/") ||
        strstr(text, root))
        fail_msg("%s quotes a host path:\n%s", rel, text);
    free(text);
    return 0;
}

static void test_publish_redacts_host_paths(void **state)
{
    (void)state;
    hb_err err;
    publish_counts n;
    if (publish_run(run, "x86_1", data, &n, &err) != 0)
        fail_msg("publish: %s", err.msg);
    assert_int_equal(n.build_logs, 2);
    assert_int_equal(n.kat_logs, 1);
    char sys[1024];
    snprintf(sys, sizeof sys, "%s/x86_1", data);
    assert_int_equal(tree_walk(sys, "", check_file, sys, &err), 0);

    char *log = slurp(at(sys, "logs/build/Cand/Inst.log"));
    const char *want[] = {"$ <path>/gcc -std=c99 -I<path>/include -o x86_1/lib/Cand/",
                          "# working folder: Cand/\n",
                          "from <path>/x.h:3:10: error: boom", "see /proc/cpuinfo"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!strstr(log, want[i]))
            fail_msg("no '%s' in:\n%s", want[i], log);
    free(log);

    json_t *b = NULL, *k = NULL, *c = NULL;
    assert_int_equal(hb_json_load(at(sys, "build.json"), &b, &err), 0);
    json_t *e = json_array_get(json_object_get(b, "instances"), 0);
    assert_string_equal(json_string_value(json_object_get(b, "compiler")), "<path>/gcc");
    assert_string_equal(json_string_value(json_object_get(e, "compiler")), "<path>/gcc");
    assert_non_null(strstr(json_string_value(json_object_get(e, "reason")),
                           "(exit 1): <path>/x.h:3:10: error: boom"));
    /* the KAT log was rewritten: kat.json cites the published copy */
    char sha[HB_SHA256_HEX];
    assert_int_equal(hb_sha256_file_hex(at(sys, "kat/Cand/Ok.log"), sha, &err), 0);
    assert_int_equal(hb_json_load(at(sys, "kat.json"), &k, &err), 0);
    assert_string_equal(json_string_value(json_object_get(json_array_get(
        json_object_get(k, "instances"), 0), "log_sha256")), sha);
    log = slurp(at(sys, "kat/Cand/Ok.log"));
    assert_non_null(strstr(log, "NOTE loaded <path>/libOk.so\n"));
    free(log);
    /* what was done is recorded */
    assert_int_equal(hb_json_load(at(sys, "campaign.json"), &c, &err), 0);
    json_t *pub = json_object_get(c, "publish");
    assert_true(json_integer_value(json_object_get(pub, "paths_redacted")) >= 7);
    assert_non_null(strstr(json_string_value(json_object_get(pub, "rule")), "<path>/"));
    char *files = json_dumps(json_object_get(pub, "redacted_in"), JSON_COMPACT);
    const char *named[] = {"x86_1/logs/build/Cand/Inst.log", "x86_1/build.json",
                           "x86_1/kat/Cand/Ok.log"};
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        if (!strstr(files, named[i]))
            fail_msg("%s not in %s", named[i], files);
    free(files);
    json_decref(b);
    json_decref(k);
    json_decref(c);

    report_validate_stats st;
    FILE *out = tmpfile();
    int rc = report_validate(data, NULL, out, &st, &err);
    if (rc != 0) {
        char line[1024];
        rewind(out);
        while (fgets(line, sizeof line, out))
            print_message("%s", line);
        fail_msg("validate: %d (%s)", rc, err.msg);
    }
    fclose(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_publish_redacts_host_paths),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
