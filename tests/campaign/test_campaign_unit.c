/* The campaign's pure parts: parsing and dealing shards, the calibrated
 * cost model and the shared costs file, reconciling
 * planning settings with campaign.json, the absolute-path scan of publish,
 * merging the build entries of folders that share an instance name, the
 * progress line and its heartbeat, and the closing table of `hashbench run`. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/digest.h"
#include "campaign/campaign.h"
#include "campaign/costs.h"
#include "dataset/merge.h"
#include "common/json.h"
#include "common/fs.h"
#include "campaign/progress.h"
#include "dataset/publish.h"
#include "campaign/shard.h"
#include "campaign/table.h"

static void test_shard_parse(void **state)
{
    (void)state;
    shard_spec s;
    hb_err err;
    assert_int_equal(shard_parse("2/3", &s, &err), 0);
    assert_int_equal(s.k, 2);
    assert_int_equal(s.n, 3);
    const char *bad[] = {"0/2", "3/2", "1/0", "1", "a/b", "1/2x", "/2", "-1/2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_not_equal(shard_parse(bad[i], &s, &err), 0);
        assert_non_null(strstr(err.msg, bad[i]));
    }
}

#define NKEYS 37

static void make_keys(char names[NKEYS][32], const char *keys[NKEYS])
{
    for (int i = 0; i < NKEYS; i++) {
        snprintf(names[i], 32, "Cand%d/Inst%d", i % 7, i);
        keys[i] = names[i];
    }
}

static void test_shard_assign_partition(void **state)
{
    (void)state;
    char names[NKEYS][32];
    const char *keys[NKEYS];
    make_keys(names, keys);
    for (int n = 1; n <= 5; n++) {
        int owner[NKEYS], again[NKEYS], count[6] = {0};
        shard_assign(keys, NULL, NKEYS, n, owner);
        shard_assign(keys, NULL, NKEYS, n, again);
        for (int i = 0; i < NKEYS; i++) {
            assert_true(owner[i] >= 1 && owner[i] <= n);
            assert_int_equal(owner[i], again[i]); /* deterministic */
            count[owner[i]]++;
        }
        int lo = NKEYS, hi = 0;
        for (int k = 1; k <= n; k++) {
            lo = count[k] < lo ? count[k] : lo;
            hi = count[k] > hi ? count[k] : hi;
        }
        assert_true(hi - lo <= 1); /* equal costs: sizes differ by <= 1 */
    }
}

static void test_shard_assign_independent_of_order(void **state)
{
    (void)state;
    char names[NKEYS][32];
    const char *keys[NKEYS], *rev[NKEYS];
    make_keys(names, keys);
    for (int i = 0; i < NKEYS; i++)
        rev[i] = keys[NKEYS - 1 - i];
    int a[NKEYS], b[NKEYS];
    shard_assign(keys, NULL, NKEYS, 3, a);
    shard_assign(rev, NULL, NKEYS, 3, b);
    for (int i = 0; i < NKEYS; i++)
        assert_int_equal(a[i], b[NKEYS - 1 - i]);
}

static void test_shard_assign_costs(void **state)
{
    (void)state;
    /* one heavy instance and many light ones: the heavy one gets a shard
       of its own share, the light ones fill the other */
    const char *keys[] = {"A/heavy", "B/l1", "B/l2", "B/l3", "B/l4"};
    double costs[] = {4, 1, 1, 1, 1};
    int owner[5];
    shard_assign(keys, costs, 5, 2, owner);
    double load[3] = {0};
    for (int i = 0; i < 5; i++)
        load[owner[i]] += costs[i];
    assert_true(load[1] == 4 && load[2] == 4);
}

static void test_costs_estimate(void **state)
{
    (void)state;
    measure_settings s;
    memset(&s, 0, sizeof s);
    snprintf(s.planner, sizeof s.planner, "reference");
    s.trials = 5;
    /* reference rule: calls = min(20000, max(ceil(1 s / t1), 20)) */
    double fast = costs_estimate(&s, 100, 2e9);      /* 20000 calls of 100 ns */
    double slow = costs_estimate(&s, 1e6, 2e9);      /* 1000 calls of 1 ms */
    assert_true(fast > 5 * 20000 * 100e-9 && fast < 0.2);
    assert_true(slow > 5 * 1.0 && slow < 6.0);
    snprintf(s.planner, sizeof s.planner, "adaptive");
    double a_fast = costs_estimate(&s, 100, 2e9);
    double a_slow = costs_estimate(&s, 1e6, 2e9);
    assert_true(a_fast < a_slow);
    /* adaptive trials last about 1 ms each (at least 5 of them), far less
     * than the reference rule's 20000-call trials */
    assert_true(a_fast >= 5 * 1e-3);
    assert_true(a_fast < fast);
}

static void test_costs_file(void **state)
{
    (void)state;
    char dir[] = "/tmp/hb-costs-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char file[256], bad[256];
    snprintf(file, sizeof file, "%s/costs.json", dir);
    snprintf(bad, sizeof bad, "%s/bad.json", dir);
    const char *text = "{\"kind\": \"hashbench-shard-costs\", \"instances\": "
                       "{\"A/a\": 3.5, \"B/b\": 0.5}}";
    hb_err err;
    assert_int_equal(hb_write_atomic(file, text, strlen(text), &err), 0);
    assert_int_equal(hb_write_atomic(bad, "{\"kind\": \"x\"}", 13, &err), 0);
    /* an existing file is read as it is: no calibration (nothing to
       calibrate in this request's run directory) */
    campaign_settings s;
    memset(&s, 0, sizeof s);
    costs_request rq = {"/nonexistent-run-dir", "/nonexistent-probe", 0,
                        COUNTER_TSC, 0, &s};
    json_t *doc;
    char sha[HB_SHA256_HEX], want[HB_SHA256_HEX];
    assert_int_equal(costs_obtain(file, &rq, &doc, sha, &err), 0);
    hb_sha256_buf_hex(text, strlen(text), want);
    assert_string_equal(sha, want);
    strlist keys = {0};
    strlist_push(&keys, "B/b");
    strlist_push(&keys, "C/unknown");
    strlist_push(&keys, "A/a");
    double costs[3];
    assert_int_equal(costs_lookup(doc, &keys, costs), 1);
    assert_true(costs[0] == 0.5 && costs[1] == 3.5 && costs[2] == 3.5);
    json_decref(doc);
    strlist_free(&keys);
    /* a file of another kind is refused, naming it */
    assert_int_equal(costs_obtain(bad, &rq, &doc, sha, &err), -1);
    assert_non_null(strstr(err.msg, bad));
    assert_non_null(strstr(err.msg, "shard costs"));
    /* no file and no build.json to calibrate from: an error naming it */
    snprintf(file, sizeof file, "%s/missing.json", dir);
    assert_int_equal(costs_obtain(file, &rq, &doc, sha, &err), -1);
    assert_non_null(strstr(err.msg, "/nonexistent-run-dir"));
    assert_false(hb_is_file(file));
    remove(bad);
    snprintf(file, sizeof file, "%s/costs.json", dir);
    remove(file);
    rmdir(dir);
}

static json_t *settings(const char *planner, double budget)
{
    campaign_settings s;
    memset(&s, 0, sizeof s);
    if (planner)
        snprintf(s.measure.planner, sizeof s.measure.planner, "%s", planner);
    s.measure.budget_s = budget;
    return campaign_settings_json(&s);
}

static void test_reconcile(void **state)
{
    (void)state;
    json_t *stored = settings("reference", 2), *out;
    hb_err err;
    /* not given: inherited */
    json_t *none = settings(NULL, 0);
    assert_int_equal(campaign_settings_reconcile(stored, none, 1, "D/campaign.json",
                                                 &out, &err), 0);
    assert_string_equal(json_string_value(json_object_get(out, "planner")),
                        "reference");
    assert_true(json_number_value(json_object_get(out, "budget_s")) == 2);
    json_decref(out);
    /* the same value again: fine */
    json_t *same = settings("reference", 2);
    assert_int_equal(campaign_settings_reconcile(stored, same, 1, "D/campaign.json",
                                                 &out, &err), 0);
    json_decref(out);
    /* a change with records: refused, naming the file and the setting */
    json_t *changed = settings("adaptive", 0);
    assert_int_not_equal(campaign_settings_reconcile(stored, changed, 1,
                                                     "D/campaign.json", &out, &err), 0);
    assert_non_null(strstr(err.msg, "D/campaign.json"));
    assert_non_null(strstr(err.msg, "'planner'"));
    assert_non_null(strstr(err.msg, "adaptive"));
    /* the same change without records: taken */
    assert_int_equal(campaign_settings_reconcile(stored, changed, 0,
                                                 "D/campaign.json", &out, &err), 0);
    assert_string_equal(json_string_value(json_object_get(out, "planner")),
                        "adaptive");
    json_decref(out);
    /* a new campaign: whatever is given */
    assert_int_equal(campaign_settings_reconcile(NULL, changed, 0, "D/campaign.json",
                                                 &out, &err), 0);
    json_decref(out);
    json_decref(stored);
    json_decref(none);
    json_decref(same);
    json_decref(changed);
}

static void test_absolute_scan(void **state)
{
    (void)state;
    hb_err err;
    json_t *ok = json_pack("{s:s, s:[s,s], s:{s:s}}", "log", "x86_1/kat/A/B.log",
                           "probe_command", "hashbench-probe", "--lib",
                           "env", "kernel", "6.1 with /proc mentioned");
    assert_int_equal(publish_check_no_absolute(ok, "/run/dir", "f.json", &err), 0);
    json_t *bad = json_pack("{s:[{s:s}]}", "instances", "library",
                            "/home/x/lib/libA.so");
    assert_int_not_equal(publish_check_no_absolute(bad, NULL, "f.json", &err), 0);
    assert_non_null(strstr(err.msg, "f.json"));
    assert_non_null(strstr(err.msg, "instances[0].library"));
    json_t *inner = json_pack("{s:s}", "reason", "dlopen /run/dir/lib/a.so failed");
    assert_int_not_equal(publish_check_no_absolute(inner, "/run/dir", "g.json",
                                                   &err), 0);
    /* absolute paths quoted inside text, whatever the run directory */
    const char *quoted[] = {"see /home/someone/notes.txt", "-O2 -I/opt/inc",
                            "flags=-L/usr/lib64", "lib '/tmp/x.so' missing",
                            "(/srv/data)"};
    for (size_t i = 0; i < sizeof quoted / sizeof quoted[0]; i++) {
        json_t *q = json_pack("{s:s}", "note", quoted[i]);
        assert_int_not_equal(publish_check_no_absolute(q, NULL, "h.json", &err), 0);
        assert_non_null(strstr(err.msg, "'note'"));
        json_decref(q);
    }
    /* relative paths, ratios, URLs and the kernel's interfaces are fine */
    json_t *fine = json_pack("[s,s,s,s,s]", "SHA2/SHA256", "shard 1/2",
                             "tsc ticks/ns", "echo 1 | sudo tee "
                             "/sys/devices/system/cpu/intel_pstate/no_turbo",
                             "make /proc/loadavg readable; see https://x.org/a");
    assert_int_equal(publish_check_no_absolute(fine, NULL, "i.json", &err), 0);
    json_decref(fine);
    json_decref(ok);
    json_decref(bad);
    json_decref(inner);
}

/* One shard of a two-shard run directory (shard K owning OWNED) whose
 * build.json holds two folders named X (both BUILDFAIL, each with its own
 * log) and the built instance Solo. */
static void make_shard(const char *dir, int k, const char *owned)
{
    hb_err err;
    char path[512];
    json_t *c = json_pack("{s:i, s:s, s:{s:{s:b}}, s:{s:i, s:i, s:[s]}}", "schema", 1,
                          "kind", "hashbench-campaign", "phases", "measure", "done", 1,
                          "shard", "k", k, "n", 2, "instances", owned);
    json_t *b = json_pack("{s:i, s:[{s:s, s:s, s:s, s:s, s:s}, {s:s, s:s, s:s, s:s, s:s},"
                          " {s:s, s:s, s:s, s:s, s:s}]}", "schema", 1, "instances",
                          "candidate", "C", "instance", "X", "source_dir", "Impl/One",
                          "status", "BUILDFAIL", "log", "logs/build/C/X.1.log",
                          "candidate", "C", "instance", "X", "source_dir", "Impl/Two",
                          "status", "BUILDFAIL", "log", "logs/build/C/X.2.log",
                          "candidate", "C", "instance", "Solo", "source_dir", "Impl/Solo",
                          "status", "BUILT", "log", "logs/build/C/Solo.log");
    json_t *kat = json_pack("{s:i, s:[{s:s, s:s, s:s}]}", "schema", 1, "instances",
                            "candidate", "C", "instance", "Solo", "status", "PASS");
    snprintf(path, sizeof path, "%s/campaign.json", dir);
    assert_int_equal(hb_json_save(path, c, &err), 0);
    snprintf(path, sizeof path, "%s/build.json", dir);
    assert_int_equal(hb_json_save(path, b, &err), 0);
    snprintf(path, sizeof path, "%s/kat.json", dir);
    assert_int_equal(hb_json_save(path, kat, &err), 0);
    const char *logs[] = {"X.1.log", "X.2.log", "Solo.log"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/logs/build/C/%s", dir, logs[i]);
        assert_int_equal(hb_write_atomic(path, logs[i], strlen(logs[i]), &err), 0);
    }
    json_decref(c);
    json_decref(b);
    json_decref(kat);
}

/* merge takes each build.json entry by candidate, instance and source
 * folder: two folders named X keep their own entries. */
static void test_merge_same_name_folders(void **state)
{
    (void)state;
    char root[] = "/tmp/hb-merge-XXXXXX";
    assert_non_null(mkdtemp(root));
    char s1[256], s2[256], out[256], path[300];
    snprintf(s1, sizeof s1, "%s/s1", root);
    snprintf(s2, sizeof s2, "%s/s2", root);
    snprintf(out, sizeof out, "%s/all", root);
    make_shard(s1, 1, "C/Solo");
    make_shard(s2, 2, "C/X");
    const char *dirs[] = {s1, s2};
    hb_err err;
    if (merge_run(out, dirs, 2, NULL, &err) != 0)
        fail_msg("merge: %s", err.msg);
    json_t *b = NULL;
    snprintf(path, sizeof path, "%s/build.json", out);
    assert_int_equal(hb_json_load(path, &b, &err), 0);
    json_t *arr = json_object_get(b, "instances");
    assert_int_equal(json_array_size(arr), 3);
    const char *want[][2] = {{"Impl/One", "logs/build/C/X.1.log"},
                             {"Impl/Two", "logs/build/C/X.2.log"}};
    for (size_t i = 0; i < 2; i++) {
        json_t *e = json_array_get(arr, i);
        assert_string_equal(json_string_value(json_object_get(e, "source_dir")), want[i][0]);
        assert_string_equal(json_string_value(json_object_get(e, "log")), want[i][1]);
    }
    json_decref(b);
    assert_int_equal(hb_remove_tree(root, &err), 0);
}

static void test_eta_format(void **state)
{
    (void)state;
    char buf[32];
    assert_string_equal(campaign_format_eta(44.6, buf, sizeof buf), "45 s");
    assert_string_equal(campaign_format_eta(200, buf, sizeof buf), "3 min 20 s");
    assert_string_equal(campaign_format_eta(7500, buf, sizeof buf), "2 h 05 min");
    assert_string_equal(campaign_format_eta(-3, buf, sizeof buf), "0 s");
}

static char *progress_output(int tty)
{
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    campaign_progress p;
    campaign_progress_init(&p, fp, tty);
    campaign_progress_fn(&p, "kat A/a", 0, 3);
    campaign_progress_fn(&p, "kat A/a", 0, 3); /* repeated: no new plain line */
    campaign_progress_fn(&p, "kat B/b", 1, 3);
    campaign_progress_fn(&p, "kat C/c", 2, 3);
    campaign_progress_fn(&p, "measure A/a 32 B", 0, 2);
    campaign_progress_end(&p);
    fclose(fp);
    return text;
}

static void test_progress_plain_and_tty(void **state)
{
    (void)state;
    char *plain = progress_output(0);
    int lines = 0;
    for (char *c = plain; *c; c++)
        lines += *c == '\n';
    assert_int_equal(lines, 4);
    assert_null(strchr(plain, '\r'));
    /* counts start at 1: the unit under way, not the units done */
    assert_non_null(strstr(plain, "kat A/a: 1/3\n"));
    assert_non_null(strstr(plain, "kat B/b: 2/3, time left ~"));
    assert_non_null(strstr(plain, "measure A/a 32 B: 1/2\n"));
    free(plain);
    char *tty = progress_output(1);
    assert_non_null(strstr(tty, "\r\033[Kkat C/c: 3/3"));
    size_t n = strlen(tty);
    assert_true(n > 0 && tty[n - 1] == '\n');
    int newlines = 0;
    for (char *c = tty; *c; c++)
        newlines += *c == '\n';
    assert_int_equal(newlines, 1); /* one line, updated in place */
    free(tty);
}

/* A NULL step ends the terminal line so a log message starts on its own
 * line; in plain mode there is nothing to end. */
/* The time left: the pace of the finished units; with several under way
 * side by side, each counts as half done. */
static void test_progress_eta(void **state)
{
    (void)state;
    assert_true(campaign_eta_s(10, 0, 1, 5) < 0);   /* nothing finished yet */
    assert_true(campaign_eta_s(10, 2, 1, 0) < 0);   /* nothing left */
    /* one at a time: 2 units in 10 s, 3 left */
    assert_float_equal(campaign_eta_s(10, 2, 1, 3), 15.0, 1e-9);
    /* two side by side, 10 s per unit, started together: the first has
     * finished (10 s), the second is nearly done and a third just began:
     * 8 units in all, 7 not finished, 2 under way: 3 rounds of 10 s left */
    assert_float_equal(campaign_eta_s(10, 1, 2, 7), 30.0, 1e-9);
    /* steady state: 4 finished in 20 s, 2 under way, 4 not finished: 5 s
     * per unit at the pace of two, 3 units' worth left */
    assert_float_equal(campaign_eta_s(20, 4, 2, 4), 12.0, 1e-9);
}

/* The KAT phase with the known work: two instances without KAT_Loop
 * (7,170 hashes of 1024 bytes each) finished, one with it (1,007,170) left.
 * Counted in instances the time left would be half the time so far; from
 * the work it is about 70 times the time so far. */
static void test_progress_eta_from_work(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    campaign_progress p;
    campaign_progress_init(&p, fp, 0);
    campaign_progress_fn(&p, "kat A/a, B/b", 0, 3);
    usleep(200 * 1000);
    campaign_progress_work(&p, "kat", 14340, 1021680);
    campaign_progress_fn(&p, "kat C/c", 2, 3);
    campaign_progress_end(&p);
    fclose(fp);
    const char *at = strstr(text, "kat C/c: 3/3, time left ~");
    assert_non_null(at);
    int secs = atoi(at + strlen("kat C/c: 3/3, time left ~"));
    if (secs < 13 && !strstr(at, " min") && !strstr(at, " h "))
        fail_msg("expected about 70 times the 0.2 s so far left, from the known "
                 "work: %s", at);
    free(text);
}

static void test_progress_break(void **state)
{
    (void)state;
    for (int tty = 0; tty <= 1; tty++) {
        char *text = NULL;
        size_t len = 0;
        FILE *fp = open_memstream(&text, &len);
        campaign_progress p;
        campaign_progress_init(&p, fp, tty);
        campaign_progress_fn(&p, "build A/a", 1, 2);
        campaign_progress_fn(&p, NULL, 0, 0);
        fputs("a message\n", fp);
        campaign_progress_fn(&p, NULL, 0, 0); /* no line open: nothing */
        campaign_progress_end(&p);
        fclose(fp);
        assert_string_equal(text, tty ? "\r\033[Kbuild A/a: 2/2\na message\n"
                                      : "build A/a: 2/2\na message\n");
        free(text);
    }
}

/* The heartbeat shows the step under way again whenever nothing was shown
 * for its interval, with how long the stage has run, and is silent once
 * the stage's units are all done; durations read as people write them. */
static void test_progress_heartbeat(void **state)
{
    (void)state;
    char buf[32];
    assert_string_equal(campaign_format_duration(0.42, buf, sizeof buf), "0.4 s");
    assert_string_equal(campaign_format_duration(12.34, buf, sizeof buf), "12.3 s");
    assert_string_equal(campaign_format_duration(200, buf, sizeof buf), "3 min 20 s");
    FILE *fp = tmpfile();
    assert_non_null(fp);
    campaign_progress p;
    campaign_progress_init(&p, fp, 0);
    assert_int_equal(campaign_progress_heartbeat(&p, 0.2), 0);
    campaign_progress_fn(&p, "measure A/a", 0, 2);
    usleep(1100 * 1000);
    campaign_progress_fn(&p, "measure A/a", 2, 2);
    usleep(600 * 1000);
    campaign_progress_stop(&p);
    rewind(fp);
    char line[512];
    int beats = 0, after_end = 0, ended = 0;
    while (fgets(line, sizeof line, fp)) {
        if (strstr(line, "measure A/a: 2/2"))
            ended = 1;
        if (strstr(line, "measure A/a: 1/2, still under way, measure running for ")) {
            beats++;
            after_end += ended;
        }
    }
    fclose(fp);
    /* 1.1 s at 0.2 s: about five; at least three on a loaded host */
    if (beats < 3)
        fail_msg("%d heartbeat lines in 1.1 s at an interval of 0.2 s", beats);
    assert_int_equal(ended, 1);
    assert_int_equal(after_end, 0);
}

/* The run's table counts each instance's own records: X beside X_ (whose
 * record names start with "X__" too) shows 1/1, X_ shows 1/2. */
static void test_table_counts_own_records(void **state)
{
    (void)state;
    char dir[] = "/tmp/hb-table-XXXXXX", path[512];
    hb_err err;
    assert_non_null(mkdtemp(dir));
    json_t *b = json_pack("{s:[{s:s, s:s, s:i, s:s, s:s}, {s:s, s:s, s:i, s:s, s:s}]}",
                          "instances", "candidate", "C", "instance", "X", "digest_bits", 256,
                          "variant", "Reference", "status", "BUILT", "candidate", "C",
                          "instance", "X_", "digest_bits", 256, "variant", "Reference",
                          "status", "BUILT");
    snprintf(path, sizeof path, "%s/build.json", dir);
    assert_int_equal(hb_json_save(path, b, &err), 0);
    json_decref(b);
    const char *recs[][2] = {{"X__hash_64.json", "OK"}, {"X___hash_64.json", "OK"},
                             {"X___hash_128.json", "FAILED"}, {"X__hash_64.json.tmp.1", "OK"}};
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/records/C/%s", dir, recs[i][0]);
        json_t *r = json_pack("{s:s}", "status", recs[i][1]);
        assert_int_equal(hb_mkdirs_for(path, &err), 0);
        assert_int_equal(hb_json_save(path, r, &err), 0);
        json_decref(r);
    }
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    assert_int_equal(campaign_print_table(dir, fp, &err), 0);
    fclose(fp);
    char *x = strstr(text, "\nC                X   ");
    char *x_ = strstr(text, "\nC                X_  ");
    assert_non_null(x);
    assert_non_null(x_);
    /* records OK, then the KAT status ("-": no kat.json) */
    assert_non_null(strstr(x, " 1/1 "));
    assert_true(strstr(x, " 1/1 ") < x_);
    assert_non_null(strstr(x_, " 1/2 "));
    free(text);
    assert_int_equal(hb_remove_tree(dir, &err), 0);
}

/* Writes the JSON text TEXT to DIR/REL (its folders made). */
static void write_json(const char *dir, const char *rel, const char *text)
{
    char path[512];
    hb_err err;
    json_error_t jerr;
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    json_t *j = json_loads(text, 0, &jerr);
    assert_non_null(j);
    assert_int_equal(hb_mkdirs_for(path, &err), 0);
    assert_int_equal(hb_json_save(path, j, &err), 0);
    json_decref(j);
}

/* The whole closing table of a run: one aligned line per build.json entry,
 * in its order, with bits, variant, static bytes (or "-"), build status,
 * records OK of all (or "-", or "not timed" for an instance that failed its
 * KAT), and the KAT status with the files checked (or "-" untested); a run
 * directory without build.json is an error naming it. */
static void test_table_whole(void **state)
{
    (void)state;
    char dir[] = "/tmp/hb-table-XXXXXX";
    hb_err err;
    assert_non_null(mkdtemp(dir));
    write_json(dir, "build.json",
               "{\"instances\": ["
               "{\"candidate\": \"Cand\", \"instance\": \"A\", \"digest_bits\": 256,"
               " \"variant\": \"Reference\", \"status\": \"BUILT\","
               " \"static_size\": {\"image\": 12345}},"
               "{\"candidate\": \"Cand\", \"instance\": \"B\", \"digest_bits\": 512,"
               " \"variant\": \"Optimized\", \"status\": \"BUILT\","
               " \"static_size\": {\"image\": 777}},"
               "{\"candidate\": \"Cand\", \"instance\": \"D\", \"digest_bits\": 384,"
               " \"variant\": \"\", \"status\": \"BUILDFAIL\"},"
               "{\"candidate\": \"baseline\", \"instance\": \"OpenSSL_SM3\","
               " \"digest_bits\": 256, \"variant\": \"\", \"status\": \"BUILT\"}]}");
    write_json(dir, "kat.json",
               "{\"instances\": ["
               "{\"candidate\": \"baseline\", \"instance\": \"OpenSSL_SM3\","
               " \"status\": \"BASELINE\"},"
               "{\"candidate\": \"Cand\", \"instance\": \"B\", \"status\": \"MISMATCH\","
               " \"files\": [{\"name\": \"KAT_2_12_B.txt\", \"verdict\": \"MISMATCH\","
               " \"expected_sha256\": \"00\"}]},"
               "{\"candidate\": \"Cand\", \"instance\": \"A\", \"status\": \"PASS\","
               " \"files\": [{\"name\": \"KAT_2_12_A.txt\", \"verdict\": \"PASS\","
               " \"expected_sha256\": \"00\"}, {\"name\": \"KAT_2_23_A.txt\","
               " \"verdict\": \"PASS\", \"expected_sha256\": \"00\"}]}]}");
    write_json(dir, "records/Cand/A__hash_64.json", "{\"status\": \"OK\"}");
    write_json(dir, "records/Cand/A__hash_1024.json", "{\"status\": \"OK\"}");
    write_json(dir, "records/Cand/A__hash_65536.json", "{\"status\": \"FAILED\"}");
    write_json(dir, "records/baseline/OpenSSL_SM3__hash_64.json", "{\"status\": \"OK\"}");
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    assert_int_equal(campaign_print_table(dir, fp, &err), 0);
    fclose(fp);
    assert_string_equal(text,
        "candidate        instance                   bits variant    static bytes  build     records OK KAT (files checked)\n"
        "Cand             A                           256 Reference         12345  BUILT     2/3        PASS (2_12, 2_23)\n"
        "Cand             B                           512 Optimized           777  BUILT     not timed  MISMATCH (2_12)\n"
        "Cand             D                           384                       -  BUILDFAIL -          -\n"
        "baseline         OpenSSL_SM3                 256                       -  BUILT     1/1        BASELINE\n");
    free(text);
    /* without build.json: an error naming it */
    char path[512];
    snprintf(path, sizeof path, "%s/build.json", dir);
    assert_int_equal(unlink(path), 0);
    fp = open_memstream(&text, &len);
    assert_int_equal(campaign_print_table(dir, fp, &err), -1);
    fclose(fp);
    free(text);
    assert_non_null(strstr(err.msg, path));
    assert_int_equal(hb_remove_tree(dir, &err), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shard_parse),
        cmocka_unit_test(test_shard_assign_partition),
        cmocka_unit_test(test_shard_assign_independent_of_order),
        cmocka_unit_test(test_shard_assign_costs),
        cmocka_unit_test(test_costs_estimate),
        cmocka_unit_test(test_costs_file),
        cmocka_unit_test(test_reconcile),
        cmocka_unit_test(test_absolute_scan),
        cmocka_unit_test(test_merge_same_name_folders),
        cmocka_unit_test(test_eta_format),
        cmocka_unit_test(test_progress_plain_and_tty),
        cmocka_unit_test(test_progress_eta_from_work),
        cmocka_unit_test(test_progress_eta),
        cmocka_unit_test(test_progress_break),
        cmocka_unit_test(test_progress_heartbeat),
        cmocka_unit_test(test_table_counts_own_records),
        cmocka_unit_test(test_table_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
