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
#include "measure/plan.h"
#include "rundir/rundir.h"

const char hb_summary_measure[] = "time the built instances and write measurement records";
const char hb_usage_measure[] =
    "usage: hashbench measure --run-dir DIR [--plan interleaved|adaptive|reference]\n"
    "         [--cpu N]\n"
    "         [--sizes LIST] [--instances LIST] [--trials N]\n"
    "         [--target-ci PERCENT] [--budget S] [--force] [--time-failed]\n"
    "         [--allow-unfit-host]\n"
    "\n"
    "Measures every instance of DIR/build.json (library from DIR/kat.json when\n"
    "present) and writes DIR/" RUNDIR_RECORD_PATTERN ". Existing\n"
    "records made with the same settings are kept. Checks the host first, as\n"
    "`hashbench run` does, and records the check and this session in\n"
    "DIR/campaign.json, so that `hashbench publish` works after separate\n"
    "build, kat and measure commands.\n"
    "\n"
    "  --plan P           interleaved (default): short (1 ms) trials taken in\n"
    "                     rounds, every (instance, size) once per round in a\n"
    "                     shuffled order, each beside a trial of the baseline at\n"
    "                     the same size, until the 95% CI (batch means over the\n"
    "                     rounds) is within --target-ci or the budget is spent;\n"
    "                     adaptive: the same short trials, one (instance, size)\n"
    "                     after another; preempted trials are run again;\n"
    "                     reference: the published rule, N trials (default 5) of\n"
    "                     min(20000, max(ceil(1 s / t1), 20)) calls\n"
    "  --cpu N            core to pin the probe to (default: the last one)\n"
    "  --sizes LIST       message bytes, comma-separated\n"
    "                     (default 32,128,512,1024,4096,8192,16384,65536)\n"
    "  --instances LIST   only these instances (Inst or Cand/Inst), comma-separated\n"
    "  --trials N         reference: trials; others: minimum trials (default 5)\n"
    "  --target-ci P      target CI half-width in percent (default 0.5)\n"
    "  --budget S         time budget per (instance, size) in s (default: a tenth\n"
    "                     of the reference rule's cost for that size, at most\n"
    "                     10 s, raised to what 5 trials and 100 calls need;\n"
    "                     interleaved: paired baseline trials included; a given\n"
    "                     S is used as it is)\n"
    "  --force            redo existing records\n"
    "  --time-failed      also time instances whose KAT status is MISMATCH (by\n"
    "                     default an instance that fails its KAT is not timed);\n"
    "                     their figures carry the status on every page\n"
    "  --allow-unfit-host measure even when the host check finds problems (they\n"
    "                     stay recorded in campaign.json)\n";

#define MAX_SIZES 64
#define MAX_INSTANCES 256

typedef struct measure_cli {
    measure_options o;
    int allow_unfit_host;
    unsigned sizes[MAX_SIZES];
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

static int number(const char *opt, const char *s, double lo, double hi, double *out)
{
    char *end;
    *out = strtod(s, &end);
    if (end == s || *end || !(*out >= lo && *out <= hi))
        return hb_cli_usage_error("measure", "%s needs a number from %g to %g, not '%s'",
                                  opt, lo, hi, s);
    return 0;
}

static int parse_option(measure_cli *m, const char *k, const char *v)
{
    double d;
    hb_err err;
    if (!strcmp(k, "--run-dir")) {
        m->o.run_dir = v;
    } else if (!strcmp(k, "--plan")) {
        if (!plan_known(v))
            return hb_cli_usage_error("measure", "--plan is interleaved, adaptive or "
                                      "reference, not '%s'", v);
        m->o.planner = v;
    } else if (!strcmp(k, "--sizes")) {
        int n = measure_parse_sizes(v, m->sizes, MAX_SIZES, &err);
        if (n < 0)
            return hb_cli_usage_error("measure", "%s", err.msg);
        m->o.sizes = m->sizes;
        m->o.n_sizes = n;
    } else if (!strcmp(k, "--instances")) {
        return split_instances(m, v);
    } else if (!strcmp(k, "--cpu")) {
        if (number(k, v, 0, 4095, &d))
            return 2;
        m->o.cpu = (int)d;
    } else if (!strcmp(k, "--trials")) {
        if (number(k, v, 2, 1000, &d))
            return 2;
        m->o.trials = (int)d;
    } else if (!strcmp(k, "--target-ci")) {
        if (number(k, v, 0.001, 100, &d))
            return 2;
        m->o.target_ci = d;
    } else if (!strcmp(k, "--budget")) {
        if (number(k, v, 0.001, 86400, &d))
            return 2;
        m->o.budget_s = d;
    } else {
        return hb_cli_usage_error("measure", "unknown option %s", k);
    }
    return 0;
}

static int parse_args(int argc, char **argv, measure_cli *m)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--force")) {
            m->o.force = 1;
            continue;
        }
        if (!strcmp(argv[i], "--time-failed")) {
            m->o.time_failed = 1;
            continue;
        }
        if (!strcmp(argv[i], "--allow-unfit-host")) {
            m->allow_unfit_host = 1;
            continue;
        }
        if (i + 1 >= argc)
            return hb_cli_usage_error("measure", "option %s needs a value", argv[i]);
        int rc = parse_option(m, argv[i], argv[i + 1]);
        if (rc)
            return rc;
        i++;
    }
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
    c->time_failed = m->o.time_failed;
    c->host_root = "/";
    c->log = stderr;
    if (m->o.planner)
        snprintf(c->settings.planner, sizeof c->settings.planner, "%s", m->o.planner);
    for (int i = 0; i < m->o.n_sizes && i < CAMPAIGN_MAX_SIZES; i++)
        c->settings.sizes[c->settings.n_sizes++] = (long)m->o.sizes[i];
    c->settings.target_ci = m->o.target_ci;
    c->settings.budget_s = m->o.budget_s;
    c->settings.trials = m->o.trials;
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
    snprintf(m.probe, sizeof m.probe, "%s/hashbench-probe", hb_cli_exe_dir);
    m.o.probe_path = m.probe;
    if (m.o.cpu < 0)
        m.o.cpu = measure_default_cpu() < 0 ? 0 : measure_default_cpu();
    hb_err err;
    if (!hb_is_dir(m.o.run_dir)) {
        free(m.inst_buf);
        fprintf(stderr, "hashbench measure: %s: no such run directory; run hashbench "
                "build --run-dir %s PACKAGE... first\n", m.o.run_dir, m.o.run_dir);
        return 2;
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
