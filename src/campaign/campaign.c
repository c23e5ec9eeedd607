/* The campaign driver (see campaign.h). campaign.json is rewritten
 * atomically after every phase, so a campaign killed at any moment leaves a
 * readable file saying which phases finished; a session that never ended
 * keeps "end_utc": null as the honest trace of the interruption. */
#include "campaign/campaign.h"

#include <stdarg.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "compile/build.h"
#include "measure/hostcheck.h"
#include "common/clock.h"
#include "campaign/costs.h"
#include "campaign/settings.h"
#include "campaign/seed.h"
#include "common/digest.h"
#include "campaign/progress.h"
#include "campaign/stages.h"
#include "measure/drift.h"
#include "common/fs.h"
#include "common/json.h"
#include "measure/measure.h"
#include "report/ratiodrift.h"
#include "rundir/lock.h"
#include "rundir/rundir.h"
#include "sandbox/check.h"

int campaign_count_records(const char *run_dir)
{
    hb_err ignored;
    int n = rundir_count_records(run_dir, NULL, NULL, &ignored);
    return n > 0 ? n : 0;
}

/* ---- campaign.json ---------------------------------------------------- */

typedef struct campaign_ctx {
    const campaign_options *o;
    char path[PATH_MAX];  /* DIR/campaign.json */
    json_t *doc;
    json_t *session;      /* borrowed from doc.sessions */
    campaign_settings settings;
    check_facts facts;
    int problems;
    double phase_t0;      /* monotonic seconds when the current phase began */
} campaign_ctx;

static json_t *new_document(void)
{
    json_t *d = json_object();
    json_object_set_new(d, "schema", json_integer(1));
    json_object_set_new(d, "kind", json_string("hashbench-campaign"));
    return d;
}

static int load_document(campaign_ctx *c, hb_err *err)
{
    if (rundir_path(c->path, sizeof c->path, c->o->run_dir, RUNDIR_CAMPAIGN_JSON, err) != 0)
        return -1;
    if (!hb_is_file(c->path)) {
        c->doc = new_document();
        return 0;
    }
    if (hb_json_load(c->path, &c->doc, err) < 0)
        return -1;
    if (!json_is_object(c->doc)) {
        json_decref(c->doc);
        c->doc = NULL;
        return hb_fail_at(err, c->path, 1, "not a campaign file (not a JSON "
                          "object); remove it or use another --run-dir");
    }
    return 0;
}

static int save_document(campaign_ctx *c, hb_err *err)
{
    return hb_json_save(c->path, c->doc, err);
}

static void set_str(json_t *o, const char *key, const char *value)
{
    json_object_set_new(o, key, value ? json_string(value) : json_null());
}

static json_t *object_at(json_t *parent, const char *key)
{
    json_t *o = json_object_get(parent, key);
    if (!json_is_object(o)) {
        o = json_object();
        json_object_set_new(parent, key, o);
    }
    return o;
}

static int phase_done(campaign_ctx *c, const char *phase, int *failed)
{
    json_t *p = json_object_get(json_object_get(c->doc, "phases"), phase);
    if (!json_is_true(json_object_get(p, "done")))
        return 0;
    if (failed)
        *failed = (int)json_integer_value(json_object_get(p, "failed"));
    return 1;
}

static void log_line(const campaign_options *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Records PHASE in campaign.json with its wall time in this session, and
 * says on the log how long a finished one took ("build: finished in
 * 12.3 s"). */
static void mark_phase(campaign_ctx *c, const char *phase, int done, int failed,
                       const char *note)
{
    char now[32];
    hb_utc_now(now, sizeof now);
    json_t *p = json_object();
    json_object_set_new(p, "done", json_boolean(done));
    json_object_set_new(p, "utc", json_string(now));
    json_object_set_new(p, "failed", json_integer(failed));
    json_object_set_new(p, "note", json_string(note ? note : ""));
    /* the phase's wall time in this session (time to result, stage by stage) */
    double now_s = hb_mono_s(), secs = now_s - c->phase_t0;
    c->phase_t0 = now_s;
    json_object_set_new(p, "seconds", json_real(secs));
    json_object_set_new(object_at(c->doc, "phases"), phase, p);
    json_t *run = json_object_get(c->session, "phases_run");
    if (json_is_array(run))
        json_array_append_new(run, json_string(phase));
    if (c->session)
        json_object_set_new(object_at(c->session, "phase_seconds"), phase,
                            json_real(secs));
    char d[32];
    /* an unsharded run's split takes nothing and is not worth a line */
    if (done && (strcmp(phase, "split") != 0 || c->settings.shard.n > 1))
        log_line(c->o, "%s: finished in %s", phase,
                 campaign_format_duration(secs, d, sizeof d));
}

/* What a user can do about a bad setting read back from campaign.json. */
#define STORED_SETTING_FIX "correct or remove it in that file (a setting left " \
    "out takes its default, one given as an option replaces it while the run " \
    "directory holds no records), or start a new --run-dir"

/* Appends to OUT (size SZ, used *LEN) the entries of A missing from B. */
static void missing_from(const json_t *a, const json_t *b, char *out, size_t sz,
                         size_t *len, int *n)
{
    size_t i, k;
    json_t *x, *y;
    json_array_foreach(a, i, x) {
        int found = 0;
        json_array_foreach(b, k, y)
            found |= json_equal(x, y);
        if (found || !json_is_string(x) || *len >= sz)
            continue;
        int w = snprintf(out + *len, sz - *len, "%s%s", (*n)++ ? ", " : "",
                         json_string_value(x));
        *len += w > 0 ? (size_t)w : 0;
        if (*len >= sz)
            *len = sz - 1;
    }
}

/* A run directory belongs to one campaign: the set of submissions it was
 * started with. 1 with ERR naming what differs and the ways on when SUBS
 * (this command's) is another set than OLD (campaign.json's); 0 when the
 * sets are equal (in any order). */
static int submissions_differ(campaign_ctx *c, const json_t *old, const json_t *subs,
                              hb_err *err)
{
    char added[600] = "", missing[600] = "";
    size_t la = 0, lm = 0;
    int na = 0, nm = 0;
    missing_from(subs, old, added, sizeof added, &la, &na);
    missing_from(old, subs, missing, sizeof missing, &lm, &nm);
    if (na == 0 && nm == 0)
        return 0;
    if (c->o->extend && nm == 0) {
        log_line(c->o, "adding %d submission%s to the campaign of %s (%s): every phase "
                 "runs again, its finished work kept", na, na == 1 ? "" : "s",
                 c->o->run_dir, added);
        json_object_del(c->doc, "phases");
        return 0;
    }
    hb_fail(err, "%s: this run directory holds the campaign of %zu other submission "
            "folder%s (%s%s%s%s%s); a run directory keeps one campaign, so its verdicts "
            "and records are never mixed with another's: give the same submissions "
            "again to resume it, add new ones to it with --add PACKAGE, or start this "
            "campaign in a new --run-dir",
            c->path, json_array_size(old), json_array_size(old) == 1 ? "" : "s",
            na ? "not in it: " : "", added, na && nm ? "; " : "",
            nm ? "left out now: " : "", missing);
    return 1;
}

/* Settings and the submissions list: another set of submissions than the
 * one the run directory was started with is refused. The settings
 * (given, else stored, else the defaults) are checked in full here, before
 * the run directory is created or campaign.json written. */
static int apply_settings(campaign_ctx *c, hb_err *err)
{
    hb_err lerr;
    int n_records = rundir_count_records(c->o->run_dir, NULL, NULL, &lerr);
    if (n_records < 0)
        return hb_fail(err, "%s; make the run directory readable, or give a new "
                       "--run-dir", lerr.msg);
    json_t *given = campaign_settings_json(&c->o->settings), *merged;
    int has_records = n_records > 0;
    int rc = campaign_settings_reconcile(json_object_get(c->doc, "settings"),
                                         given, has_records, c->path, &merged,
                                         err);
    json_decref(given);
    if (rc < 0)
        return -1;
    campaign_settings s;
    rc = settings_from_json(merged, c->path, &s, err);
    json_decref(merged);
    if (rc < 0 || settings_validate(&s, c->path, STORED_SETTING_FIX, err) < 0)
        return -1;
    settings_resolve(&s);
    c->settings = s;
    json_object_set_new(c->doc, "settings", campaign_settings_json(&s));

    json_t *subs = json_array();
    for (size_t i = 0; i < c->o->n_packages; i++) {
        char abs[PATH_MAX];
        const char *p = c->o->packages[i];
        json_array_append_new(subs, json_string(realpath(p, abs) ? abs : p));
    }
    json_t *old = json_object_get(c->doc, "submissions");
    if (json_is_array(old) && json_object_get(c->doc, "phases") &&
        submissions_differ(c, old, subs, err)) {
        json_decref(subs);
        return -1;
    }
    if (json_is_array(old) && json_array_size(old) >= json_array_size(subs))
        json_decref(subs); /* the same set: the stored order stays */
    else
        json_object_set_new(c->doc, "submissions", subs);
    json_t *bases = json_array(); /* --baseline */
    for (size_t i = 0; i < c->o->n_baseline_packages; i++) {
        char abs[PATH_MAX];
        const char *p = c->o->baseline_packages[i];
        json_array_append_new(bases, json_string(realpath(p, abs) ? abs : p));
    }
    old = json_object_get(c->doc, "baselines");
    if (!json_equal(old ? old : json_array_size(bases) ? NULL : bases, bases) &&
        json_object_get(c->doc, "phases")) {
        char *had = json_dumps(old ? old : json_array(), JSON_COMPACT);
        char *now = json_dumps(bases, JSON_COMPACT);
        hb_fail(err, "%s: this campaign was run with the baseline packages %s, not %s; "
                "a run directory keeps one campaign: give the same --baseline packages "
                "again to resume it, or start this campaign in a new --run-dir",
                c->path, had ? had : "[]", now ? now : "[]");
        free(had);
        free(now);
        json_decref(bases);
        return -1;
    }
    json_object_set_new(c->doc, "baselines", bases);
    return 0;
}

/* Ends a progress line still showing on the terminal. */
static void break_progress(const campaign_options *o)
{
    if (o->progress)
        o->progress(o->progress_ctx, NULL, 0, 0);
}

static void log_line(const campaign_options *o, const char *fmt, ...)
{
    if (!o->log)
        return;
    break_progress(o);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(o->log, fmt, ap);
    va_end(ap);
    fputc('\n', o->log);
    fflush(o->log);
}

static void start_session(campaign_ctx *c)
{
    char now[32];
    hb_utc_now(now, sizeof now);
    json_t *d = c->doc;
    set_str(d, "tool", "hashbench " HB_VERSION);
    const char *system = c->o->system_id;
    if (!system && !json_is_string(json_object_get(d, "system")))
        system = c->facts.host.arch;
    if (system)
        set_str(d, "system", system);
    if (!json_is_string(json_object_get(d, "start_utc")))
        set_str(d, "start_utc", now);
    json_object_set_new(d, "end_utc", json_null());
    json_object_set_new(d, "cpu", json_integer(c->o->cpu));
    json_t *env = object_at(d, "environment");
    if (!json_object_get(env, "start"))
        json_object_set_new(env, "start", host_info_json(&c->facts.host));
    json_object_set_new(d, "counter", check_counter_json(&c->facts));
    json_t *sessions = json_object_get(d, "sessions");
    if (!json_is_array(sessions)) {
        sessions = json_array();
        json_object_set_new(d, "sessions", sessions);
    }
    c->session = json_object();
    set_str(c->session, "start_utc", now);
    json_object_set_new(c->session, "end_utc", json_null());
    json_object_set_new(c->session, "cpu", json_integer(c->o->cpu));
    json_object_set_new(c->session, "environment", host_info_json(&c->facts.host));
    json_object_set_new(c->session, "phases_run", json_array());
    set_str(c->session, "outcome", "interrupted");
    set_str(c->session, "sandbox", hb_sandbox_describe());
    hb_sandbox_record(d);
    json_array_append_new(sessions, c->session);
}

/* The check phase: always run, since the host can change between sessions;
 * every session keeps its own verdicts, the top level the latest ones. */
static int run_check(campaign_ctx *c, hb_err *err)
{
    if (check_gather(c->o->host_root ? c->o->host_root : "/", c->o->cpu,
                     &c->facts, err) < 0)
        return -1;
    check_item items[CHECK_MAX_ITEMS];
    int n;
    c->problems = check_judge(&c->facts, items, &n);
    start_session(c);
    json_object_set_new(c->doc, "host_checks", check_items_json(items, n));
    json_object_set_new(c->session, "host_checks", check_items_json(items, n));
    json_object_set_new(c->doc, "host_problems", json_integer(c->problems));
    json_object_set_new(c->doc, "allow_unfit_host",
                        json_boolean(c->o->allow_unfit_host));
    json_object_set_new(c->session, "time_failed", json_boolean(c->o->time_failed));
    json_object_set_new(c->session, "independent_check",
                        json_boolean(!c->o->no_independent_check));
    if (c->o->log) {
        break_progress(c->o);
        fprintf(c->o->log, "host check (CPU %d):\n", c->o->cpu);
        check_print(c->o->log, items, n);
    }
    mark_phase(c, "check", 1, c->problems, c->problems ? "host problems recorded"
                                                       : "fit");
    return save_document(c, err);
}

static void finish_session(campaign_ctx *c, const char *outcome)
{
    char now[32];
    hb_utc_now(now, sizeof now);
    host_info end;
    hb_err ignored;
    set_str(c->session, "end_utc", now);
    set_str(c->session, "outcome", outcome);
    if (host_read(c->o->host_root ? c->o->host_root : "/", c->o->cpu, &end,
                  &ignored) == 0) {
        json_object_set_new(c->session, "environment_end", host_info_json(&end));
        if (strcmp(outcome, "complete") == 0)
            json_object_set_new(object_at(c->doc, "environment"), "end",
                                host_info_json(&end));
    }
    if (strcmp(outcome, "complete") == 0)
        set_str(c->doc, "end_utc", now);
}

/* ---- the phases ------------------------------------------------------- */

/* The compiler that built the code the campaign times (--cc, else $CC,
 * else cc), as build.json records it: "compiler": {"name", "version"}. */
static void record_compiler(campaign_ctx *c)
{
    char path[PATH_MAX];
    json_t *b = NULL;
    hb_err ignored;
    if (rundir_path(path, sizeof path, c->o->run_dir, RUNDIR_BUILD_JSON, &ignored) != 0 ||
        hb_json_load(path, &b, &ignored) != 0)
        return;
    json_object_set_new(c->doc, "compiler",
                        json_pack("{s:s, s:s}", "name", hb_json_str(b, "compiler"), "version",
                                  hb_json_str(b, "compiler_version")));
    json_decref(b);
}

static int run_build(campaign_ctx *c, campaign_result *res, hb_err *err)
{
    if (phase_done(c, "build", &res->build_failed)) {
        log_line(c->o, "build: done in an earlier session");
        return 0;
    }
    if (c->o->seed_dir && seed_build(c->o->seed_dir, c->o->run_dir, err) < 0)
        return -1;
    if (stages_build(c->o, &c->settings, &res->build_failed, err) < 0)
        return -1;
    mark_phase(c, "build", 1, res->build_failed, NULL);
    record_compiler(c);
    return save_document(c, err);
}

/* The split an earlier session of this run directory recorded for the same
 * shard: kept, so a resumed shard measures the instances it started with
 * even if the costs file has changed or gone since. 1 when found. */
static int stored_split(campaign_ctx *c, strlist *out)
{
    json_t *shard = json_object_get(c->doc, "shard");
    json_t *names = json_object_get(shard, "instances");
    shard_spec sh = c->settings.shard;
    if (!json_is_array(names) ||
        json_integer_value(json_object_get(shard, "k")) != sh.k ||
        json_integer_value(json_object_get(shard, "n")) != sh.n ||
        !phase_done(c, "split", NULL))
        return 0;
    size_t i;
    json_t *x;
    json_array_foreach(names, i, x)
        if (json_is_string(x))
            strlist_push(out, json_string_value(x));
    return 1;
}

/* Costs for ALL from the --shard-costs file (calibrating when it does not
 * exist yet) into COSTS; records the file's identity in SHARD. Without a
 * file every instance counts alike. */
static int split_costs(campaign_ctx *c, const strlist *all, double *costs,
                       json_t *shard, hb_err *err)
{
    const char *file = c->o->shard_costs;
    if (!file) {
        log_line(c->o, "shard: no --shard-costs file, so every instance counts "
                 "as equal cost; give one to balance the shards by calibrated "
                 "cost");
        set_str(shard, "rule", "instances ordered by SHA-256 of "
                "candidate/instance, dealt to the least loaded shard (equal "
                "cost per instance)");
        return 0;
    }
    costs_request rq = {c->o->run_dir, c->o->probe_path, c->o->cpu,
                        c->facts.counter,
                        c->facts.steady_tested ? c->facts.rate_hz : 0,
                        &c->settings};
    json_t *doc;
    char sha[HB_SHA256_HEX];
    log_line(c->o, "shard: costs from %s (calibrated once, shared by every "
             "shard)", file);
    if (costs_obtain(file, &rq, &doc, sha, err) < 0)
        return -1;
    int missing = costs_lookup(doc, all, costs);
    json_decref(doc);
    if (missing)
        log_line(c->o, "shard: %s lacks %d of the instances; they count as the "
                 "costliest", file, missing);
    set_str(shard, "rule", "instances ordered by calibrated cost (descending), "
            "then SHA-256 of candidate/instance, each dealt to the shard with "
            "the least cost so far");
    set_str(shard, "costs_file", hb_basename(file));
    set_str(shard, "costs_sha256", sha);
    return 0;
}

/* This shard's instances ("cand/Inst") from build.json into *OUT, recorded
 * in campaign.json "shard". */
static int shard_instances(campaign_ctx *c, strlist *out, hb_err *err)
{
    shard_spec sh = c->settings.shard;
    if (sh.n > 1 && stored_split(c, out))
        return 0;
    strlist all = {0};
    if (stages_instances(c->o->run_dir, &all, err) < 0)
        return -1;
    json_t *shard = json_object();
    json_object_set_new(shard, "k", json_integer(sh.n > 0 ? sh.k : 1));
    json_object_set_new(shard, "n", json_integer(sh.n > 0 ? sh.n : 1));
    if (sh.n <= 1) {
        *out = all;
        set_str(shard, "rule", "unsharded: every instance");
    } else {
        size_t n = all.n ? (size_t)all.n : 1;
        int *owner = calloc(n, sizeof *owner);
        double *costs = calloc(n, sizeof *costs);
        int rc = owner && costs ? 0 : hb_fail(err, "out of memory");
        if (rc == 0)
            rc = split_costs(c, &all, costs, shard, err);
        if (rc == 0) {
            shard_assign((const char *const *)all.v,
                         json_object_get(shard, "costs_sha256") ? costs : NULL,
                         (size_t)all.n, sh.n, owner);
            double mine = 0, total = 0;
            for (int i = 0; i < all.n; i++) {
                total += costs[i];
                if (owner[i] == sh.k) {
                    mine += costs[i];
                    strlist_push(out, all.v[i]);
                }
            }
            if (json_object_get(shard, "costs_sha256")) {
                json_object_set_new(shard, "cost_s", json_real(mine));
                json_object_set_new(shard, "total_cost_s", json_real(total));
            }
        }
        free(owner);
        free(costs);
        strlist_free(&all);
        if (rc < 0) {
            json_decref(shard);
            return -1;
        }
    }
    json_t *names = json_array();
    for (int i = 0; i < out->n; i++)
        json_array_append_new(names, json_string(out->v[i]));
    json_object_set_new(shard, "instances", names);
    json_object_set_new(c->doc, "shard", shard);
    mark_phase(c, "split", 1, 0, NULL);
    return save_document(c, err);
}

static int run_kat(campaign_ctx *c, const strlist *mine,
                   campaign_result *res, hb_err *err)
{
    /* Run again even when an earlier session finished it: the KAT stage
     * keeps every result whose library, vectors and options are unchanged
     * and redoes the others, so a library rebuilt since (hashbench build on
     * this run directory) is never measured under a stale verdict. */
    if (phase_done(c, "kat", NULL))
        log_line(c->o, "kat: done in an earlier session; checking that each "
                 "result still matches its library");
    if (c->o->seed_dir && seed_kat(c->o->seed_dir, c->o->run_dir, mine, err) < 0)
        return -1;
    if (stages_kat(c->o, &c->settings, mine, &res->kat_failed, err) < 0)
        return -1;
    mark_phase(c, "kat", 1, res->kat_failed, NULL);
    return save_document(c, err);
}

/* Says where an interrupted measure stage resumes: the round its journal
 * reached, the trials it holds, the records already written. Nothing when
 * the stage starts afresh. */
static void say_resumed(campaign_ctx *c)
{
    char path[PATH_MAX];
    hb_err ignored;
    json_t *j = NULL;
    int records = campaign_count_records(c->o->run_dir);
    if (rundir_path(path, sizeof path, c->o->run_dir, RUNDIR_JOURNAL, &ignored) == 0 &&
        hb_is_file(path) && hb_json_load(path, &j, &ignored) == 0) {
        long long trials = 0;
        size_t i;
        json_t *cell;
        json_array_foreach(json_object_get(j, "cells"), i, cell)
            trials += (long long)json_array_size(json_object_get(cell, "trials"));
        json_t *round = json_object_get(j, "round");
        if (json_is_integer(round))
            log_line(c->o, "measure: continuing from its journal %s: round %lld was the "
                     "last finished, %lld trials of %zu cells kept; %d record%s kept",
                     path, (long long)json_integer_value(round) + 1, trials,
                     json_array_size(json_object_get(j, "cells")), records,
                     records == 1 ? "" : "s");
        else
            log_line(c->o, "measure: continuing from its journal %s; %d record%s kept",
                     path, records, records == 1 ? "" : "s");
        json_decref(j);
    } else if (records > 0 && !phase_done(c, "measure", NULL)) {
        log_line(c->o, "measure: continuing: %d record%s kept, the others measured (a "
                 "record that was under way is measured again)", records,
                 records == 1 ? "" : "s");
    }
}

/* Core O->cpu locked host-wide for the measurement of O->run_dir (lock.h):
 * waited for, or refused with O->core_nowait. */
static int lock_core(const campaign_options *o, hb_lock *lk, hb_err *err)
{
    char what[PATH_MAX + 64];
    snprintf(what, sizeof what, "measuring %s", o->run_dir);
    break_progress(o);
    return core_lock(o->cpu, what, !o->core_nowait, o->log, lk, err);
}

static int run_measure(campaign_ctx *c, const strlist *mine,
                       campaign_result *res, hb_err *err)
{
    int done = phase_done(c, "measure", &res->measure_failed);
    if (done && c->problems && !c->o->allow_unfit_host) {
        log_line(c->o, "measure: done in an earlier session");
        res->measured = 1;
        return 0;
    }
    /* As with the KAT stage: finished records whose library and settings
     * are unchanged are kept, the others measured again. */
    if (done)
        log_line(c->o, "measure: done in an earlier session; checking that each "
                 "record still matches its library");
    if (c->problems && !c->o->allow_unfit_host) {
        mark_phase(c, "measure", 0, 0, "refused: unfit host");
        finish_session(c, "refused: unfit host");
        save_document(c, NULL);
        return hb_fail(err, "%s: the host check found %d problem%s (listed "
                       "above and in host_checks); fix them, or measure anyway "
                       "with --allow-unfit-host (the problems stay recorded)",
                       c->path, c->problems, c->problems == 1 ? "" : "s");
    }
    say_resumed(c);
    hb_lock core = HB_LOCK_NONE;
    if (lock_core(c->o, &core, err) < 0)
        return -1;
    int rc = stages_measure(c->o, &c->settings, mine, &res->measure_failed, err);
    hb_unlock(&core);
    if (rc < 0)
        return -1;
    json_t *drift = stages_host_drift(c->o->run_dir);
    json_object_set_new(c->doc, "host_drift", drift ? drift : json_null());
    json_t *ratio = stages_ratio_drift(c->o->run_dir);
    json_object_set_new(c->doc, RATIODRIFT_KEY, ratio ? ratio : json_null());
    if (drift && json_number_value(json_object_get(drift, "spread_percent")) > DRIFT_WARN_PERCENT)
        log_line(c->o, "host drift: the baseline's speed varied by %.1f %% during the "
                 "measurement (P10-P90); compare instances by their paired ratios",
                 json_number_value(json_object_get(drift, "spread_percent")));
    mark_phase(c, "measure", 1, res->measure_failed,
               c->problems ? "measured on an unfit host (--allow-unfit-host)"
                           : NULL);
    res->measured = 1;
    return save_document(c, err);
}

static int run_phases(campaign_ctx *c, campaign_result *res, hb_err *err)
{
    if (run_check(c, err) < 0 || run_build(c, res, err) < 0)
        return -1;
    strlist mine = {0};
    if (shard_instances(c, &mine, err) < 0)
        return -1;
    if (c->settings.shard.n > 1)
        log_line(c->o, "instances on shard %d/%d: %d", c->settings.shard.k,
                 c->settings.shard.n, mine.n);
    else
        log_line(c->o, "instances: %d", mine.n);
    int rc = run_kat(c, &mine, res, err);
    if (rc == 0 && !c->o->stop_before_measure)
        rc = run_measure(c, &mine, res, err);
    strlist_free(&mine);
    return rc;
}

int campaign_run(const campaign_options *o, campaign_result *res, hb_err *err)
{
    campaign_ctx c;
    memset(&c, 0, sizeof c);
    memset(res, 0, sizeof *res);
    c.o = o;
    c.phase_t0 = hb_mono_s();
    /* The compiler first: a wrong --cc is said before the host check, and
     * also when the build phase is done (the KAT fallback rebuilds). */
    if (build_check_compiler(o->cc, err) < 0 ||
        settings_validate(&o->settings, NULL, NULL, err) < 0)
        return -1;
    /* every setting checked before the run directory is made; then the run
     * directory locked, and campaign.json read again under the lock (another
     * command may have changed it meanwhile) */
    int stale = 0;
    hb_lock lock = HB_LOCK_NONE;
    if (load_document(&c, err) < 0)
        return -1;
    int rc = apply_settings(&c, err);
    json_decref(c.doc);
    c.doc = NULL;
    if (rc < 0 || hb_mkdirs(o->run_dir, err) < 0 ||
        rundir_lock(o->run_dir, "run", o->log, &lock, err) < 0)
        return -1;
    if (load_document(&c, err) < 0) {
        hb_unlock(&lock);
        return -1;
    }
    if (apply_settings(&c, err) < 0 ||
        hb_remove_stale_tmp(o->run_dir, &stale, err) < 0) {
        json_decref(c.doc);
        hb_unlock(&lock);
        return -1;
    }
    if (stale)
        log_line(o, "removed %d temporary file%s left by an interrupted run", stale,
                 stale == 1 ? "" : "s");
    rc = run_phases(&c, res, err);
    res->host_problems = c.problems;
    if (rc == 0) {
        finish_session(&c, o->stop_before_measure ? "paused before measuring"
                                                   : "complete");
        rc = save_document(&c, err);
    } else if (c.session && json_is_null(json_object_get(c.session, "end_utc"))) {
        char outcome[HB_ERR_MAX + 16];
        snprintf(outcome, sizeof outcome, "error: %s", err->msg);
        finish_session(&c, outcome);
        save_document(&c, NULL);
    }
    json_decref(c.doc);
    hb_unlock(&lock);
    return rc;
}

/* ---- the separate measure command ------------------------------------- */

/* Marks PHASE done, as the separate command NOTE did, when FILE exists in
 * the run directory and no session marked it; FAILED counts the entries of
 * FILE whose status is none of OK (a NULL-ended list). */
static void note_separate_phase(campaign_ctx *c, const char *phase, const char *file,
                                const char *const *ok, const char *note)
{
    char path[PATH_MAX];
    json_t *phases = json_object_get(c->doc, "phases");
    json_t *doc = NULL;
    hb_err ignored;
    if (rundir_path(path, sizeof path, c->o->run_dir, file, &ignored) != 0 ||
        json_object_get(phases, phase) || !hb_is_file(path) ||
        hb_json_load(path, &doc, &ignored) < 0)
        return;
    int failed = 0;
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(doc, "instances"), i, e) {
        const char *st = json_string_value(json_object_get(e, "status"));
        int good = 0;
        for (int k = 0; st && ok[k]; k++)
            good |= strcmp(st, ok[k]) == 0;
        failed += !good;
    }
    json_decref(doc);
    char now[32];
    hb_utc_now(now, sizeof now);
    json_object_set_new(object_at(c->doc, "phases"), phase, json_pack(
        "{s:b, s:s, s:i, s:s}", "done", 1, "utc", now, "failed", failed, "note", note));
}

/* The submissions of a run directory made by separate commands: the
 * package folders of build.json, in order, each once. */
static json_t *packages_of_build(const char *run_dir)
{
    char path[PATH_MAX];
    json_t *doc = NULL, *subs = json_array();
    hb_err ignored;
    if (rundir_path(path, sizeof path, run_dir, RUNDIR_BUILD_JSON, &ignored) != 0 ||
        hb_json_load(path, &doc, &ignored) < 0)
        return subs;
    size_t i, k;
    json_t *e, *x;
    json_array_foreach(json_object_get(doc, "instances"), i, e) {
        json_t *pkg = json_object_get(e, "package");
        int seen = !json_is_string(pkg) || !json_string_value(pkg)[0];
        json_array_foreach(subs, k, x)
            seen |= json_equal(x, pkg);
        if (!seen)
            json_array_append(subs, pkg);
    }
    json_decref(doc);
    return subs;
}

int campaign_measure_session(const campaign_options *o, campaign_stage_fn measure,
                             void *ctx, campaign_result *res, hb_err *err)
{
    static const char *const built[] = {"BUILT", "SKIPPED", NULL};
    static const char *const passed[] = {"PASS", NULL};
    campaign_ctx c;
    memset(&c, 0, sizeof c);
    c.phase_t0 = hb_mono_s();
    memset(res, 0, sizeof *res);
    c.o = o;
    hb_lock lock = HB_LOCK_NONE, core = HB_LOCK_NONE;
    if (hb_is_dir(o->run_dir) && rundir_lock(o->run_dir, "measure", o->log, &lock, err) < 0)
        return -1;
    if (load_document(&c, err) < 0) {
        hb_unlock(&lock);
        return -1;
    }
    if (settings_validate(&o->settings, NULL, NULL, err) < 0) {
        json_decref(c.doc);
        hb_unlock(&lock);
        return -1;
    }
    campaign_settings resolved = o->settings;
    settings_resolve(&resolved);
    json_t *given = campaign_settings_json(&resolved);
    if (!json_object_get(c.doc, "settings"))
        json_object_set(c.doc, "settings", given);
    if (!json_object_get(c.doc, "submissions"))
        json_object_set_new(c.doc, "submissions", packages_of_build(o->run_dir));
    int rc = run_check(&c, err);
    if (rc == 0) {
        set_str(c.session, "command", "measure");
        json_object_set(c.session, "settings", given);
        note_separate_phase(&c, "build", RUNDIR_BUILD_JSON, built, "hashbench build");
        note_separate_phase(&c, "kat", RUNDIR_KAT_JSON, passed, "hashbench kat");
    }
    json_decref(given);
    res->host_problems = c.problems;
    if (rc == 0 && c.problems && !o->allow_unfit_host) {
        mark_phase(&c, "measure", 0, 0, "refused: unfit host");
        finish_session(&c, "refused: unfit host");
        save_document(&c, NULL);
        rc = hb_fail(err, "the host check found %d problem%s (listed above and in "
                     "%s, host_checks); fix them, or measure anyway with "
                     "--allow-unfit-host (the problems stay recorded)", c.problems,
                     c.problems == 1 ? "" : "s", c.path);
    } else if (rc == 0 && (lock_core(o, &core, err) < 0 ||
                           measure(ctx, &res->measure_failed, err) < 0)) {
        char outcome[HB_ERR_MAX + 16];
        snprintf(outcome, sizeof outcome, "error: %s", err->msg);
        finish_session(&c, outcome);
        save_document(&c, NULL);
        rc = -1;
    } else if (rc == 0) {
        mark_phase(&c, "measure", 1, res->measure_failed,
                   c.problems ? "measured on an unfit host (--allow-unfit-host)" : NULL);
        res->measured = 1;
        finish_session(&c, "complete");
        rc = save_document(&c, err);
    }
    json_decref(c.doc);
    hb_unlock(&core);
    hb_unlock(&lock);
    return rc;
}
