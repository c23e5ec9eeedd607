/* Publishing a run directory whose texts quote paths of the measuring host
 * (a compiler given as --cc /usr/bin/gcc, a compiler message naming a
 * header under /root, a KAT log naming a library elsewhere): the dataset
 * gets them as <path>/<name>, the run directory and package folders
 * relative, the kernel's /proc kept, a rewritten KAT log's SHA-256 updated
 * where it is cited, and campaign.json records what was redacted; the
 * dataset then validates. Then validate against a published dataset
 * changed afterwards: a compiler log with a host file appended to it, a log
 * no entry cites, a dataset folder or a log replaced by a symbolic link to
 * an identical copy elsewhere. Last, publishing again over a published
 * system: replaced as a whole, the other systems untouched, a refused
 * publication leaving it as it was. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dataset/publish.h"
#include "dataset/tree.h"
#include "common/digest.h"
#include "common/fs.h"
#include "common/json.h"
#include "report/report.h"
#include "report/validate.h"

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
             "Implementations/Reference_Implementation/Inst/x.c:1:5: error: found\n"
             "NOTICE_rival_figures_forged.c:1:2: warning: by #line\n"
             "see /proc/cpuinfo\n# result: BUILDFAIL\n", run, pkg);
    put(run, "logs/build/Cand/Inst.log", log);
    put(run, "logs/build/Cand/Ok.log", "$ /usr/bin/gcc -o x.so x.c\n# result: BUILT\n");
    put(run, "logs/build/Cand/Ok.harness-default.log", "$ cc -O2 -o x.so x.c\n");
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
    assert_int_equal(n.build_logs, 3);
    assert_int_equal(n.kat_logs, 1);
    char sys[1024];
    snprintf(sys, sizeof sys, "%s/x86_1", data);
    assert_int_equal(tree_walk(sys, "", check_file, sys, &err), 0);

    char *log = slurp(at(sys, "logs/build/Cand/Inst.log"));
    const char *want[] = {"$ <path>/gcc -std=c99 -I<path>/include -o x86_1/lib/Cand/",
                          "# working folder: Cand/\n",
                          /* a file this machine does not hold, a name "#line" chose */
                          "> <no-such-file>:3:10: error\n",
                          "> Implementations/Reference_Implementation/Inst/x.c:1:5: error\n",
                          "> <no-such-file>:1:2: warning\n",
                          "# 1 lines of compiler output not published"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!strstr(log, want[i]))
            fail_msg("no '%s' in:\n%s", want[i], log);
    /* the compiler's own text (it quotes the submitted source) is not copied */
    if (strstr(log, "boom") || strstr(log, "cpuinfo") || strstr(log, "NOTICE"))
        fail_msg("compiler text published:\n%s", log);
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
    snprintf(err.msg, sizeof err.msg, "an older message"); /* must not matter */
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

/* Publishes the run afresh; returns DATA/x86_1 (static). */
static const char *publish_fresh(void)
{
    static char sys[1024];
    hb_err err;
    if (publish_run(run, "x86_1", data, NULL, &err) != 0)
        fail_msg("publish: %s", err.msg);
    snprintf(sys, sizeof sys, "%s/x86_1", data);
    return sys;
}

/* Validates DATA; returns its status, and its output in OUT (static). */
static int validate(const char **out)
{
    static char text[8192];
    report_validate_stats st;
    hb_err err = {{0}};
    FILE *fp = tmpfile();
    assert_non_null(fp);
    int rc = report_validate(data, NULL, fp, &st, &err);
    rewind(fp);
    size_t n = fread(text, 1, sizeof text - 1, fp);
    text[n] = '\0';
    fclose(fp);
    *out = text;
    return rc;
}

static void test_compiler_log_sha_checked(void **state)
{
    (void)state;
    const char *sys = publish_fresh(), *out;
    json_t *b = NULL;
    hb_err err;
    char sha[HB_SHA256_HEX];
    assert_int_equal(hb_json_load(at(sys, "build.json"), &b, &err), 0);
    json_t *e = json_array_get(json_object_get(b, "instances"), 0);
    assert_int_equal(hb_sha256_file_hex(at(sys, "logs/build/Cand/Inst.log"), sha, &err), 0);
    assert_string_equal(json_string_value(json_object_get(e, "log_sha256")), sha);
    json_t *other = json_array_get(json_object_get(b, "other_logs"), 0);
    assert_string_equal(json_string_value(json_object_get(other, "log")),
                        "x86_1/logs/build/Cand/Ok.harness-default.log");
    json_decref(b);
    assert_int_equal(validate(&out), 0);

    /* a host file appended to a published compiler log */
    char *host = slurp("/etc/passwd"), *log = slurp(at(sys, "logs/build/Cand/Inst.log"));
    char *both = malloc(strlen(log) + strlen(host) + 1);
    strcpy(both, log);
    strcat(both, host);
    put(sys, "logs/build/Cand/Inst.log", both);
    free(both);
    free(host);
    assert_int_equal(validate(&out), 1);
    if (!strstr(out, "x86_1/logs/build/Cand/Inst.log: field log_sha256: recorded"))
        fail_msg("validate said:\n%s", out);
    /* ... whose lines are not hashbench's: compiler text as it was written */
    if (!strstr(out, "x86_1/logs/build/Cand/Inst.log:8: compiler text as the compiler "
                     "wrote it"))
        fail_msg("validate said:\n%s", out);
    put(sys, "logs/build/Cand/Inst.log", log);
    free(log);
    assert_int_equal(validate(&out), 0);
    /* the harness-default rebuild's log is checked too */
    put(sys, "logs/build/Cand/Ok.harness-default.log", "# edited\n");
    assert_int_equal(validate(&out), 1);
    assert_non_null(strstr(out, "Ok.harness-default.log: field log_sha256"));
    /* a log no entry cites */
    publish_fresh();
    put(sys, "logs/build/Cand/Extra.log", "added\n");
    assert_int_equal(validate(&out), 1);
    assert_non_null(strstr(out, "x86_1/logs/build/Cand/Extra.log: not cited by "
                                "x86_1/build.json"));
}

static void test_symbolic_links_refused(void **state)
{
    (void)state;
    const char *sys = publish_fresh(), *out;
    char away[300], cmd[8192];
    snprintf(away, sizeof away, "%s/away", root);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s' && cp -a '%s' '%s/' && "
             "rm -rf '%s' && ln -s '%s/x86_1' '%s'", away, away, sys, away, sys, away, sys);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(validate(&out), 1); /* the same files, through a link */
    if (!strstr(out, "x86_1: a symbolic link; a dataset holds plain files"))
        fail_msg("validate said:\n%s", out);
    assert_int_equal(unlink(sys), 0);
    sys = publish_fresh();
    assert_int_equal(validate(&out), 0);
    snprintf(cmd, sizeof cmd, "cp '%s/kat/Cand/Ok.log' '%s/Ok.log' && rm '%s/kat/Cand/Ok.log' "
             "&& ln -s '%s/Ok.log' '%s/kat/Cand/Ok.log'", sys, away, sys, away, sys);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(validate(&out), 1);
    assert_non_null(strstr(out, "x86_1/kat/Cand/Ok.log: a symbolic link"));
}

/* The lines of TEXT that start with PREFIX. */
static int rt_lines(const char *text, const char *prefix)
{
    int n = 0;
    for (const char *p = text; *p; p = strchr(p, '\n') + 1) {
        n += strncmp(p, prefix, strlen(prefix)) == 0;
        if (!strchr(p, '\n'))
            break;
    }
    return n;
}

/* One line "REL SHA-256" per file of a tree (tree_walk's visitor). */
static int list_file(void *ctx, const char *rel, hb_err *err)
{
    char **acc = ((char ***)ctx)[0], *base = ((char **)ctx)[1];
    char sha[HB_SHA256_HEX], *more = NULL;
    if (hb_sha256_file_hex(at(base, rel), sha, err) != 0)
        return -1;
    if (asprintf(&more, "%s%s %s\n", *acc ? *acc : "", rel, sha) < 0)
        return -1;
    free(*acc);
    *acc = more;
    return 0;
}

/* Every file under DIR with its SHA-256, one a line, sorted (malloc'd;
 * "" for an empty or missing tree). */
static char *listing(const char *dir)
{
    char *acc = NULL;
    void *ctx[2] = {&acc, (void *)dir};
    hb_err err;
    if (tree_walk(dir, "", list_file, ctx, &err) != 0)
        fail_msg("%s", err.msg);
    return acc ? acc : strdup("");
}

/* A record of instance Cand/Ok at SIZE bytes in the run directory. */
static void put_record(int size, const char *library)
{
    char rel[64];
    snprintf(rel, sizeof rel, "records/Cand/Ok__hash_%d.json", size);
    put_json(rel, json_pack("{s:s, s:s, s:i, s:s, s:s}", "candidate", "Cand",
                            "instance", "Ok", "size_bytes", size, "status", "OK",
                            "library", library));
}

/* Publishing again into a dataset that has the system: the system's folder
 * is replaced by the new publication as a whole (records gone from the run
 * directory go from the dataset, none is doubled), the other systems and
 * nothing else of the dataset change, no staging folder is left; a refused
 * publication leaves the published system byte for byte as it was. */
static void test_republish(void **state)
{
    (void)state;
    char redata[600], sys[1024], other[1024];
    hb_err err;
    publish_counts n;
    snprintf(redata, sizeof redata, "%s/redata", root);
    snprintf(sys, sizeof sys, "%s/x86_1", redata);
    snprintf(other, sizeof other, "%s/arm_1", redata);
    put_record(64, "lib/Cand/libOk.so");
    put_record(1024, "lib/Cand/libOk.so");
    if (publish_run(run, "x86_1", redata, &n, &err) != 0 ||
        publish_run(run, "arm_1", redata, NULL, &err) != 0)
        fail_msg("publish: %s", err.msg);
    assert_int_equal(n.records, 2);
    char *arm = listing(other), *first = listing(sys);
    assert_int_equal(rt_lines(first, "records/"), 2);

    /* the same run again: the same records, once each */
    if (publish_run(run, "x86_1", redata, &n, &err) != 0)
        fail_msg("publish again: %s", err.msg);
    assert_int_equal(n.records, 2);
    char *again = listing(sys);
    assert_int_equal(rt_lines(again, "records/"), 2);
    free(again);

    /* the run changed: 1024 gone, 65536 new; the dataset follows it */
    assert_int_equal(unlink(at(run, "records/Cand/Ok__hash_1024.json")), 0);
    put_record(65536, "lib/Cand/libOk.so");
    if (publish_run(run, "x86_1", redata, &n, &err) != 0)
        fail_msg("publish the changed run: %s", err.msg);
    assert_int_equal(n.records, 2);
    char *changed = listing(sys);
    assert_non_null(strstr(changed, "records/Cand/Ok__hash_64.json "));
    assert_non_null(strstr(changed, "records/Cand/Ok__hash_65536.json "));
    assert_null(strstr(changed, "records/Cand/Ok__hash_1024.json"));
    assert_int_equal(rt_lines(changed, "records/"), 2);
    char *arm_now = listing(other);
    assert_string_equal(arm_now, arm);
    free(arm_now);
    /* nothing but the two systems in the dataset: no staging folder left */
    char *all = listing(redata);
    assert_int_equal(rt_lines(all, ""), rt_lines(changed, "") + rt_lines(arm, ""));
    free(all);

    /* a refused publication (an absolute library path) leaves x86_1 as it was */
    put_record(2048, "/opt/elsewhere/libOk.so");
    assert_int_equal(publish_run(run, "x86_1", redata, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "Ok__hash_2048.json"));
    char *kept = listing(sys);
    assert_string_equal(kept, changed);
    all = listing(redata);
    assert_int_equal(rt_lines(all, ""), rt_lines(changed, "") + rt_lines(arm, ""));
    free(all);
    free(kept);
    free(changed);
    free(arm);
    free(first);
    assert_int_equal(hb_remove_tree(at(run, "records"), &err), 0);
}

/* A record carrying host data as a library would return it (the boot_id,
 * or the run directory's absolute path, hex-encoded) withholds its
 * instance (records, KAT log, kat.json and build.json entries) with the
 * reason in campaign.json, and the rival instance is published; host data
 * in a file of no instance publishes nothing. */
static void test_host_data_withheld(void **state)
{
    (void)state;
    char redata[600], sys[700], id[64] = "", hex[2 * 4096 + 1], real[4096];
    hb_err err;
    publish_counts n;
    snprintf(redata, sizeof redata, "%s/hostdata", root);
    snprintf(sys, sizeof sys, "%s/x86_1", redata);
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    assert_non_null(f);
    assert_non_null(fgets(id, sizeof id, f));
    fclose(f);
    id[strcspn(id, "\n")] = '\0';
    assert_non_null(realpath(run, real));
    const char *secrets[] = {id, real};
    for (int k = 0; k < 2; k++) {
        for (size_t i = 0; secrets[k][i]; i++)
            snprintf(hex + 2 * i, 3, k ? "%02X" : "%02x", (unsigned char)secrets[k][i]);
        put_json("records/Cand/Ok__hash_64.json",
                 json_pack("{s:s, s:s, s:i, s:s, s:s, s:s}", "candidate", "Cand",
                           "instance", "Ok", "size_bytes", 64, "status", "OK", "library",
                           "lib/Cand/libOk.so", "digest", hex));
        if (publish_run(run, "x86_1", redata, &n, &err) != 0)
            fail_msg("publish: %s", err.msg);
        assert_int_equal(n.withheld, 1);
        assert_int_equal(n.records, 0);
        assert_int_equal(n.kat_logs, 0);
        char *list = listing(sys);
        if (strstr(list, "/Ok") || !strstr(list, "logs/build/Cand/Inst.log"))
            fail_msg("Ok not withheld, or Inst withheld in %s:\n%s", sys, list);
        free(list);
        json_t *camp = NULL, *kat = NULL, *build = NULL;
        assert_int_equal(hb_json_load(at(sys, "campaign.json"), &camp, &err), 0);
        assert_int_equal(hb_json_load(at(sys, "kat.json"), &kat, &err), 0);
        assert_int_equal(hb_json_load(at(sys, "build.json"), &build, &err), 0);
        json_t *w = json_array_get(json_object_get(camp, "withheld"), 0);
        assert_string_equal(json_string_value(json_object_get(w, "instance")), "Ok");
        const char *why = json_string_value(json_object_get(w, "reason"));
        assert_non_null(strstr(why, k ? "run directory" : "boot_id"));
        if (!strstr(why, "its record"))
            fail_msg("reason: %s", why);
        assert_int_equal(json_array_size(json_object_get(kat, "instances")), 0);
        json_t *left = json_object_get(build, "instances");
        assert_int_equal(json_array_size(left), 1);
        assert_string_equal(json_string_value(json_object_get(json_array_get(left, 0),
                                                              "instance")), "Inst");
        json_decref(camp);
        json_decref(kat);
        json_decref(build);
    }
    /* the same text in campaign.json belongs to no instance: nothing is published */
    assert_int_equal(hb_remove_tree(redata, &err), 0);
    put_json("campaign.json", json_pack("{s:i, s:s, s:[s], s:s}", "schema", 1, "kind",
                                        "hashbench-campaign", "submissions", pkg, "note", hex));
    assert_int_equal(publish_run(run, "x86_1", redata, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "campaign.json"));
    assert_non_null(strstr(err.msg, "run directory"));
    char *none = listing(redata);
    assert_string_equal(none, ""); /* nothing published, no staging folder */
    free(none);
    put_json("campaign.json", json_pack("{s:i, s:s, s:[s]}", "schema", 1, "kind",
                                        "hashbench-campaign", "submissions", pkg));
    assert_int_equal(hb_remove_tree(at(run, "records"), &err), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_publish_redacts_host_paths),
        cmocka_unit_test(test_compiler_log_sha_checked),
        cmocka_unit_test(test_symbolic_links_refused),
        cmocka_unit_test(test_republish),
        cmocka_unit_test(test_host_data_withheld),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
