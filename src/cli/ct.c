/* hashbench ct: the constant-time stage (src/ct/ct.h) on a run directory
 * whose KAT stage has run: the Valgrind taint check and the timing test of
 * every instance that passed, one record each under DIR/ct/. This file
 * parses the options and prints one line per instance. */
#include "cli/cli.h"
#include "cli/options.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "common/fs.h"
#include "common/json.h"
#include "ct/ct.h"
#include "kat/kat.h"
#include "measure/counter.h"
#include "rundir/lock.h"

const char hb_summary_ct[] = "look for secret-dependent branches, memory indexes and timing";
const char hb_usage_ct[] =
    "usage: hashbench ct --run-dir DIR [--instances LIST] [--bytes N]\n"
    "                    [--measurements N]\n"
    "       hashbench ct --library LIB --digest-bits B [--source DIR] [--bytes N]\n"
    "                    [--measurements N]\n"
    "\n"
    "For every instance of DIR/kat.json that passed its KATs (and the OpenSSL\n"
    "baseline), in the sandbox:\n"
    "  - a taint check: the library is rebuilt with its KAT flags plus -g and\n"
    "    run under Valgrind's memcheck with the message bytes marked undefined,\n"
    "    for messages of 0, 1, 55, 64, 65 and 1024 bytes and 13 bits; every\n"
    "    branch on, or memory index computed from, message bytes is a finding\n"
    "    (file:line);\n"
    "  - a timing test in the manner of dudect: an all-zero message against\n"
    "    random messages of the same length, in random order, timed with the\n"
    "    campaign's counter; |t| > 4.5 (Welch) is evidence of a difference.\n"
    "Writes DIR/ct/<cand>/<Inst>.json (docs/FORMATS.md). No finding means \"none\n"
    "found by this analysis\", not \"constant-time\" (docs/CONSTANT_TIME.md).\n"
    "  --instances LIST   comma-separated Inst or Cand/Inst names (default: all)\n"
    "  --bytes N          timed message length (default 64)\n"
    "  --measurements N   timing measurements per instance (default 100000)\n"
    "  --instance-budget S  wall seconds each instance may take over all its\n"
    "                     processes, shared with the other stages and counted in\n"
    "                     DIR/budget/ (default: DIR/campaign.json's, else "
    SETTINGS_TEXT(SETTINGS_DEFAULT_INSTANCE_BUDGET_S) ")\n"
    "\n"
    "The second form analyses one library (built with -g for file:line) and\n"
    "prints its \"taint\" and \"timing\" objects as JSON; --source names the\n"
    "folder whose files may be quoted (default: none).\n"
    "\n"
    "Exit status: 0 nothing found, 1 findings or instances not analysable,\n"
    "2 error.\n";

static void progress(void *ctx, const char *step, int done, int total)
{
    (void)ctx;
    if (done < total)
        fprintf(stderr, "[%d/%d] %s\n", done + 1, total, step);
}

static void print_records(const char *run_dir)
{
    char path[4096];
    json_t *kat = NULL, *e;
    hb_err err;
    size_t i;
    if (rundir_path(path, sizeof path, run_dir, RUNDIR_KAT_JSON, &err) != 0 ||
        hb_json_load(path, &kat, &err) != 0)
        return;
    json_array_foreach(json_object_get(kat, "instances"), i, e) {
        json_t *r = NULL;
        const char *cand = json_string_value(json_object_get(e, "candidate"));
        const char *inst = json_string_value(json_object_get(e, "instance"));
        char rel[4096];
        if (!cand || !inst || rundir_ct_rel(rel, sizeof rel, cand, inst, &err) != 0 ||
            rundir_path(path, sizeof path, run_dir, rel, &err) != 0 ||
            hb_json_load(path, &r, &err) != 0)
            continue;
        const json_t *taint = json_object_get(r, "taint"), *tm = json_object_get(r, "timing");
        printf("%-14s %s/%s  taint: %s, %zu finding(s)%s%s; timing: ",
               json_string_value(json_object_get(r, "verdict")), cand, inst,
               json_string_value(json_object_get(taint, "status")),
               json_array_size(json_object_get(taint, "findings")),
               *json_string_value(json_object_get(taint, "reason")) ? " - " : "",
               json_string_value(json_object_get(taint, "reason")));
        if (json_is_number(json_object_get(tm, "t")))
            printf("t = %.2f over %lld measurements\n",
                   json_number_value(json_object_get(tm, "t")),
                   (long long)json_integer_value(json_object_get(tm, "measurements")));
        else
            printf("%s\n", json_string_value(json_object_get(tm, "reason")));
        json_decref(r);
    }
    json_decref(kat);
}

/* The --library form: both methods on one library, printed as JSON. */
static int one_library(const char *lib, int bits, const char *source, const ct_options *o)
{
    counter_state cs;
    hb_err err;
    json_t *taint = NULL, *timing = NULL;
    counter_select(&cs, NULL, NULL, &err);
    ct_time_opts to = {cs.kind, o->bytes, o->measurements, 0, NULL};
    if (ct_taint(lib, bits, source, NULL, &taint, &err) != 0 ||
        ct_timing(lib, bits, &to, &timing, &err) != 0) {
        json_decref(taint);
        fprintf(stderr, "hashbench ct: %s\n", err.msg);
        return 2;
    }
    const char *verdict = ct_verdict(taint, timing);
    json_t *out = json_pack("{s:o, s:o, s:s}", "taint", taint, "timing", timing, "verdict",
                            verdict);
    char *text = json_dumps(out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    if (text)
        puts(text);
    free(text);
    json_decref(out);
    return strcmp(verdict, "NONE_FOUND") != 0;
}

int cmd_ct(int argc, char **argv)
{
    static const struct option opts[] = {
        HB_OPTION_RUN_DIR, HB_OPTION_INSTANCES, HB_OPTION_INSTANCE_BUDGET,
        {"bytes", required_argument, 0, 'b'}, {"measurements", required_argument, 0, 'n'},
        {"library", required_argument, 0, 'l'}, {"digest-bits", required_argument, 0, 'g'},
        {"source", required_argument, 0, 's'}, HB_OPTIONS_END};
    ct_options o = {0};
    char *list = NULL, *end;
    const char *library = NULL, *source = NULL;
    long bits = 0;
    hb_err err;
    int ch;
    hb_opt_start();
    while ((ch = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        switch (ch) {
        case HB_OPT_RUN_DIR: o.run_dir = optarg; break;
        case HB_OPT_INSTANCES: list = optarg; break;
        case HB_OPT_INSTANCE_BUDGET: {
            campaign_settings one = {0};
            if (hb_opt_setting(ch, optarg, &one, &err) != 0)
                return hb_cli_usage_error("ct", "%s", err.msg);
            o.instance_budget_s = one.instance_budget_s;
            break;
        }
        case 'l': library = optarg; break;
        case 's': source = optarg; break;
        case 'g':
            bits = strtol(optarg, &end, 10);
            if (*end || bits < 8 || bits > 8192 || bits % 8)
                return hb_cli_usage_error("ct", "--digest-bits '%s': give a multiple of 8 "
                                          "up to 8192", optarg);
            break;
        case 'b':
            o.bytes = (size_t)strtoul(optarg, &end, 10);
            if (*end || o.bytes < 1 || o.bytes > 65536)
                return hb_cli_usage_error("ct", "--bytes '%s': give 1 to 65536", optarg);
            break;
        case 'n':
            o.measurements = strtol(optarg, &end, 10);
            if (*end || o.measurements < 100 || o.measurements > 10000000)
                return hb_cli_usage_error("ct", "--measurements '%s': give 100 to "
                                          "10000000", optarg);
            break;
        default:
            hb_opt_getopt_error(ch, argv, &err);
            return hb_cli_usage_error("ct", "%s", err.msg);
        }
    }
    if (!!o.run_dir + !!library != 1 || optind != argc)
        return hb_cli_usage_error("ct", "give --run-dir DIR or --library LIB, and no other "
                                  "argument");
    if (library) {
        if (!bits)
            return hb_cli_usage_error("ct", "--library needs --digest-bits");
        return one_library(library, (int)bits, source, &o);
    }
    const char **names = NULL;
    if (list) {
        if (hb_opt_instances(list, &names, &o.n_instances, &err) < 0)
            return hb_cli_usage_error("ct", "%s", err.msg);
        o.instances = names;
    }
    o.progress = progress;
    o.instance_budget_s = hb_opt_instance_budget(o.run_dir, o.instance_budget_s);
    hb_opt_print_skipped(stderr, "ct", o.run_dir, o.instances, o.n_instances);
    int found = 0, na = 0;
    hb_lock lock = HB_LOCK_NONE;
    int rc = o.run_dir && hb_is_dir(o.run_dir)
                 ? rundir_lock(o.run_dir, "ct", stderr, &lock, &err) : 0;
    if (rc == 0)
        rc = ct_run(&o, &found, &na, &err);
    hb_unlock(&lock);
    free(names);
    if (rc != 0) {
        fprintf(stderr, "hashbench ct: %s\n", err.msg);
        return 2;
    }
    print_records(o.run_dir);
    if (found || na)
        fprintf(stderr, "hashbench ct: %d instance(s) with findings, %d not analysable; "
                "see %s/%s/\n", found, na, o.run_dir, CT_DIR);
    return found || na ? 1 : 0;
}
