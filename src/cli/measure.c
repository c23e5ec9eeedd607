/* hashbench measure: times every built instance of a run directory at the
 * guide's message sizes with the probe (one fresh pinned process per trial)
 * and writes one record per (instance, size). Options only; the work is
 * measure_run in src/measure/measure.c, run inside a campaign.json session
 * (campaign_measure_session: the host check and its refusal, as in `run`). */
#include "cli/cli.h"
#include "common/progress.h"

#include <stdlib.h>
#include <string.h>

#include "campaign/campaign.h"
#include "common/fs.h"
#include "measure/measure.h"
#include "cli/options.h"
#include "rundir/rundir.h"

const char hb_summary_measure[] = "time the built instances and write measurement records";
const char hb_usage_measure[] =
    "usage: hashbench measure --run-dir DIR\n"
    "         [--plan interleaved|interleaved-processes|adaptive|reference]\n"
    "         [--cpu N]\n"
    "         [--sizes LIST] [--instances LIST] [--trials N]\n"
    "         [--target-ci PERCENT] [--budget S] [--force] [--time-failed]\n"
    "         [--no-independent-check]\n"
    "         [--allow-unfit-host] [--no-wait]\n"
    "\n"
    "Measures every instance of DIR/build.json (library from DIR/kat.json when\n"
    "present) and writes DIR/" RUNDIR_RECORD_PATTERN ". Existing\n"
    "records made with the same settings are kept. Checks the host first, as\n"
    "`hashbench run` does, and records the check and this session in\n"
    "DIR/campaign.json, so that `hashbench publish` works after separate\n"
    "build, kat and measure commands.\n"
    "\n"
    "  --plan P           interleaved (default): one sandboxed probe session per\n"
    "                     instance and size serves windows of at least 3 ms on\n"
    "                     fresh messages, each beside a window of the baseline,\n"
    "                     in shuffled rounds, --trials pairs per cell; the figure\n"
    "                     is the probe's CPU time read by hashbench from outside\n"
    "                     (docs/TIMING.md);\n"
    "                     interleaved-processes: short (1 ms) trials, one probe\n"
    "                     process each, in shuffled rounds beside a baseline\n"
    "                     trial, until the 95% CI (batch means over the rounds)\n"
    "                     is within --target-ci or the budget is spent;\n"
    "                     adaptive: the same short trials, one (instance, size)\n"
    "                     after another; preempted trials are run again;\n"
    "                     reference: the published rule, N trials (default "
    SETTINGS_TEXT(SETTINGS_REFERENCE_TRIALS) ") of\n"
    "                     min(20000, max(ceil(1 s / t1), 20)) calls\n"
    "  --cpu N            core to pin the probe to (default: the last usable\n"
    "                     one, as for check, clock and run)\n"
    "  --sizes LIST       message bytes, comma-separated\n"
    "                     (default " SETTINGS_DEFAULT_SIZES_TEXT ")\n"
    "  --instances LIST   only these instances (Inst or Cand/Inst), comma-separated\n"
    "  --trials N         reference: trials; others: minimum trials (default\n"
    "                     " SETTINGS_TEXT(SETTINGS_INTERLEAVED_MIN_TRIALS) " interleaved, "
    SETTINGS_TEXT(SETTINGS_REFERENCE_TRIALS) " the others)\n"
    "  --target-ci P      target CI half-width in percent (default "
    SETTINGS_TEXT(SETTINGS_DEFAULT_TARGET_CI) ")\n"
    "  --budget S         time budget per (instance, size) in s (default: "
    SETTINGS_TEXT(SETTINGS_AUTO_BUDGET_FRACTION) "\n"
    "                     of the reference rule's cost for that size, at most\n"
    "                     " SETTINGS_TEXT(SETTINGS_AUTO_BUDGET_MAX_S) " s, raised to what the "
    "minimum trials and\n"
    "                     100 calls need; interleaved: paired baseline trials\n"
    "                     included; a given S is used as it is)\n"
    "  --instance-budget S  wall seconds each instance may take over all its\n"
    "                     processes, counted in DIR/budget/ (default "
    SETTINGS_TEXT(SETTINGS_DEFAULT_INSTANCE_BUDGET_S) ")\n"
    "  --force            redo existing records\n"
    "  --no-independent-check\n"
    "                     recompute the sampled timed digests with the same\n"
    "                     library in a fresh process only, not with OpenSSL or\n"
    "                     another variant (as for a candidate with one\n"
    "                     implementation); recorded in each record\n"
    "  --time-failed      also time instances whose KAT status is MISMATCH (by\n"
    "                     default an instance that fails its KAT is not timed);\n"
    "                     their figures carry the status on every page\n"
    "  --allow-unfit-host measure even when the host check finds problems (they\n"
    "                     stay recorded in campaign.json)\n"
    "  --no-wait          refuse, instead of waiting, when another campaign of\n"
    "                     this host measures on the core\n";

#define MAX_INSTANCES 256

typedef struct measure_cli {
    measure_options o;
    campaign_settings settings; /* the planning settings as given; the
                                   measure stage takes their measure part
                                   and the instance budget */
    int allow_unfit_host;
    int no_wait;          /* --no-wait: refuse a core another campaign holds */
    char *inst_buf;
    const char *inst[MAX_INSTANCES];
    char probe[4200];
} measure_cli;

static int split_instances(measure_cli *m, const char *list)
{
    free(m->inst_buf);
    m->inst_buf = strdup(list);
    m->o.n_instances = 0;
    for (char *save = NULL, *tok = strtok_r(m->inst_buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (m->o.n_instances == MAX_INSTANCES)
            return hb_cli_usage_error("measure", "--instances: at most %d names",
                                      MAX_INSTANCES);
        m->inst[m->o.n_instances++] = tok;
    }
    m->o.instances = m->inst;
    return 0;
}

enum { OPT_FORCE = HB_OPT_OWN, OPT_TIME_FAILED, OPT_ALLOW_UNFIT, OPT_NO_INDEPENDENT,
       OPT_NO_WAIT };

static int parse_args(int argc, char **argv, measure_cli *m)
{
    static const struct option longopts[] = {
        HB_OPTION_RUN_DIR, HB_OPTION_CPU, HB_OPTION_PLAN, HB_OPTION_SIZES,
        HB_OPTION_INSTANCES, HB_OPTION_TRIALS, HB_OPTION_TARGET_CI, HB_OPTION_BUDGET,
        HB_OPTION_INSTANCE_BUDGET, {"force", no_argument, NULL, OPT_FORCE},
        {"time-failed", no_argument, NULL, OPT_TIME_FAILED},
        {"no-independent-check", no_argument, NULL, OPT_NO_INDEPENDENT},
        {"allow-unfit-host", no_argument, NULL, OPT_ALLOW_UNFIT},
        {"no-wait", no_argument, NULL, OPT_NO_WAIT},
        HB_OPTIONS_END};
    hb_err err;
    int ch, rc = 0;
    hb_opt_start();
    while (rc == 0 && (ch = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        switch (ch) {
        case HB_OPT_RUN_DIR: m->o.run_dir = optarg; break;
        case HB_OPT_INSTANCES: rc = split_instances(m, optarg); break;
        case HB_OPT_CPU: rc = hb_opt_cpu(optarg, &m->o.cpu, &err); break;
        case OPT_FORCE: m->o.force = 1; break;
        case OPT_TIME_FAILED: m->o.time_failed = 1; break;
        case OPT_NO_INDEPENDENT: m->o.no_independent_check = 1; break;
        case OPT_ALLOW_UNFIT: m->allow_unfit_host = 1; break;
        case OPT_NO_WAIT: m->no_wait = 1; break;
        default:
            rc = hb_opt_is_setting(ch) ? hb_opt_setting(ch, optarg, &m->settings, &err)
                                       : hb_opt_getopt_error(ch, argv, &err);
        }
        if (rc < 0)
            return hb_cli_usage_error("measure", "%s", err.msg);
    }
    if (rc)
        return rc;
    if (optind < argc)
        return hb_cli_usage_error("measure", "'%s': measure takes no folder; give the "
                                  "run directory as --run-dir DIR", argv[optind]);
    if (!m->o.run_dir)
        return hb_cli_usage_error("measure", "--run-dir DIR is required");
    return 0;
}

static void progress_line(void *ctx, const char *step, int done, int total)
{
    (void)ctx;
    fprintf(stderr, "[%d/%d] %s\n", hb_progress_shown(done, total), total, step);
}

static int run_stage(void *ctx, int *failed, hb_err *err)
{
    measure_cli *m = ctx;
    return measure_run(&m->o, failed, err);
}

/* The campaign options of this command: where, which core, the planning
 * settings as given (campaign.json states them). */
static void campaign_of(const measure_cli *m, campaign_options *c)
{
    memset(c, 0, sizeof *c);
    c->run_dir = m->o.run_dir;
    c->cpu = m->o.cpu;
    c->allow_unfit_host = m->allow_unfit_host;
    c->core_nowait = m->no_wait;
    c->time_failed = m->o.time_failed;
    c->no_independent_check = m->o.no_independent_check;
    c->host_root = "/";
    c->log = stderr;
    c->settings = m->settings;
}

int cmd_measure(int argc, char **argv)
{
    measure_cli m;
    memset(&m, 0, sizeof m);
    m.o.cpu = -1;
    m.o.progress = progress_line;
    int rc = parse_args(argc, argv, &m);
    if (rc) {
        free(m.inst_buf);
        return rc;
    }
    hb_err err;
    if (hb_path_join(m.probe, sizeof m.probe, hb_cli_exe_dir, "hashbench-probe", &err) < 0) {
        free(m.inst_buf);
        fprintf(stderr, "hashbench measure: %s\n", err.msg);
        return 2;
    }
    m.o.probe_path = m.probe;
    m.o.settings = m.settings.measure;
    /* --instance-budget, else the campaign's, else its default (as kat and
     * ct read it) */
    m.o.instance_budget_s = hb_opt_instance_budget(m.o.run_dir, m.settings.instance_budget_s);
    if (m.o.cpu < 0)
        m.o.cpu = hb_opt_default_cpu();
    if (!hb_is_dir(m.o.run_dir)) {
        free(m.inst_buf);
        fprintf(stderr, "hashbench measure: %s: no such run directory; run hashbench "
                "build --run-dir %s PACKAGE... first\n", m.o.run_dir, m.o.run_dir);
        return 2;
    }
    if (hb_opt_run_dir_writable(m.o.run_dir, &err) < 0) {
        free(m.inst_buf);
        return hb_cli_usage_error("measure", "%s", err.msg);
    }
    campaign_options co;
    campaign_result res;
    campaign_of(&m, &co);
    rc = campaign_measure_session(&co, run_stage, &m, &res, &err);
    free(m.inst_buf);
    if (rc != 0) {
        fprintf(stderr, "hashbench measure: %s\n", err.msg);
        return 2;
    }
    if (res.measure_failed) {
        fprintf(stderr, "hashbench measure: %d record(s) FAILED (see their "
                        "'failure' field)\n", res.measure_failed);
        return 1;
    }
    return 0;
}
