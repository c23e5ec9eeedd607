/* hashbench soak: the long-run stability check (src/soak/soak.h) on a run
 * directory whose KAT stage has run. This file parses the options and
 * prints one line per instance, with the command that replays a failure. */
#include "cli/cli.h"
#include "cli/options.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "common/json.h"
#include "soak/soak.h"

const char hb_summary_soak[] = "long-run stability: digests, memory, descriptors";
const char hb_usage_soak[] =
    "usage: hashbench soak --run-dir DIR [--instances LIST] [--duration TIME]\n"
    "                      [--key HEX --calls N]\n"
    "\n"
    "For every instance of DIR/kat.json that passed its KATs, calls the library\n"
    "for TIME in one sandboxed process on fresh messages of random lengths (0\n"
    "to 64 KiB, and the guide's eight sizes), each drawn from a secret key the\n"
    "library never sees. Every digest is recomputed: by OpenSSL when the\n"
    "instance's KAT vectors show a standard function, else by fresh sandboxed\n"
    "processes of the same library, given the messages in a secret order. The\n"
    "process's resident memory (VmRSS), open descriptors and mappings are read\n"
    "from /proc after every 64 calls; growth beyond 16 MiB, 8 descriptors or 64\n"
    "mappings is a failure. The verdict is STABLE, or the first call that went\n"
    "wrong (WRONG, FAULT, CRASH, TIMEOUT, ERROR, LEAK) with its message key and\n"
    "length, and the command that replays the soak up to it.\n"
    "Writes DIR/soak/<cand>/<Inst>.json (docs/FORMATS.md); the candidate page\n"
    "shows it.\n"
    "  --instances LIST   comma-separated Inst or Cand/Inst names (default: all)\n"
    "  --duration TIME    per instance: seconds, or with a unit (90s, 5m, 1h;\n"
    "                     default 60s)\n"
    "  --key HEX          the soak's key (64 hex digits; default: a fresh one)\n"
    "  --calls N          stop after N calls (with --key: replay a soak up to a\n"
    "                     failing call; no time limit unless --duration is given)\n"
    "\n"
    "Exit status: 0 every instance STABLE, 1 some not, 2 error.\n";

enum { OPT_DURATION = HB_OPT_OWN, OPT_KEY, OPT_CALLS };

/* "60", "60s", "5m", "1h" as seconds, more than 0 and at most a week. */
static int parse_duration(const char *text, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || !isfinite(v))
        return -1;
    if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0)
        v *= 60;
    else if (strcmp(end, "h") == 0)
        v *= 3600;
    else if (*end && strcmp(end, "s") != 0)
        return -1;
    if (!(v > 0) || v > 7 * 86400.0)
        return -1;
    *out = v;
    return 0;
}

static void progress(void *ctx, const char *cand, const char *inst, const json_t *r)
{
    const char *run_dir = ctx;
    if (!r) {
        fprintf(stderr, "soak %s/%s ...\n", cand, inst);
        return;
    }
    const json_t *f = json_object_get(r, "failure");
    const char *verdict = hb_json_str(r, "verdict");
    printf("%-8s %s/%s  %lld calls, %.1f MiB in %.1f s", verdict ? verdict : "?", cand, inst,
           (long long)json_integer_value(json_object_get(r, "calls")),
           (double)json_integer_value(json_object_get(r, "bytes")) / (1024.0 * 1024.0),
           json_number_value(json_object_get(r, "seconds")));
    const json_t *o = json_object_get(r, "outside");
    const json_t *s = json_object_get(o, "start"), *p = json_object_get(o, "peak");
    if (s && json_integer_value(json_object_get(s, "rss_kib")) >= 0)
        printf(", RSS %lld-%lld KiB, fds %lld-%lld, maps %lld-%lld",
               (long long)json_integer_value(json_object_get(s, "rss_kib")),
               (long long)json_integer_value(json_object_get(p, "rss_kib")),
               (long long)json_integer_value(json_object_get(s, "fds")),
               (long long)json_integer_value(json_object_get(p, "fds")),
               (long long)json_integer_value(json_object_get(s, "maps")),
               (long long)json_integer_value(json_object_get(p, "maps")));
    printf("\n");
    if (f && verdict && strcmp(verdict, "NOT_RUN") == 0) {
        printf("         %s\n", hb_json_str(f, "what") ? hb_json_str(f, "what") : "");
    } else if (f) {
        printf("         call %lld, message key %s, length %lld B: %s\n",
               (long long)json_integer_value(json_object_get(f, "call")),
               hb_json_str(f, "message_key") ? hb_json_str(f, "message_key") : "",
               (long long)json_integer_value(json_object_get(f, "length_bytes")),
               hb_json_str(f, "what") ? hb_json_str(f, "what") : "");
        char cmd[1024];
        soak_reproduce_command(r, run_dir, cmd, sizeof cmd);
        if (cmd[0])
            printf("         reproduce: %s\n", cmd);
    }
    fflush(stdout);
}

int cmd_soak(int argc, char **argv)
{
    static const struct option opts[] = {
        HB_OPTION_RUN_DIR, HB_OPTION_INSTANCES,
        {"duration", required_argument, 0, OPT_DURATION},
        {"key", required_argument, 0, OPT_KEY},
        {"calls", required_argument, 0, OPT_CALLS}, HB_OPTIONS_END};
    soak_options o;
    memset(&o, 0, sizeof o);
    msggen_key key;
    char *list = NULL;
    double duration = 0;
    hb_err err;
    int ch;
    hb_opt_start();
    while ((ch = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        switch (ch) {
        case HB_OPT_RUN_DIR: o.run_dir = optarg; break;
        case HB_OPT_INSTANCES: list = optarg; break;
        case OPT_DURATION:
            if (parse_duration(optarg, &duration) != 0)
                return hb_cli_usage_error("soak", "--duration %s: give seconds (90, 90s) "
                                          "or minutes or hours (5m, 1h), up to a week",
                                          optarg);
            break;
        case OPT_KEY:
            if (msggen_key_parse(optarg, &key) != 0)
                return hb_cli_usage_error("soak", "--key %s: give the 64 hex digits of a "
                                          "soak's key (its record's \"key\")", optarg);
            o.limits.key = &key;
            break;
        case OPT_CALLS: {
            char *end = NULL;
            errno = 0;
            unsigned long long n = strtoull(optarg, &end, 10);
            if (errno || !*optarg || *end || optarg[0] == '-' || n == 0)
                return hb_cli_usage_error("soak", "--calls %s: give a whole number of "
                                          "calls, 1 or more", optarg);
            o.limits.calls = n;
            break;
        }
        default:
            hb_opt_getopt_error(ch, argv, &err);
            return hb_cli_usage_error("soak", "%s", err.msg);
        }
    }
    if (!o.run_dir || optind != argc)
        return hb_cli_usage_error("soak", "give --run-dir DIR, and no other argument");
    o.limits.duration_s = duration > 0 ? duration
                        : o.limits.calls ? 0 : SOAK_DEFAULT_DURATION_S;
    const char **names = NULL;
    if (list) {
        if (hb_opt_instances(list, &names, &o.n_instances, &err) < 0)
            return hb_cli_usage_error("soak", "%s", err.msg);
        o.instances = names;
    }
    o.progress = progress;
    o.ctx = (void *)o.run_dir;
    hb_opt_print_skipped(stderr, "soak", o.run_dir, o.instances, o.n_instances);
    int stable = 0, failed = 0;
    int rc = soak_run(&o, &stable, &failed, &err);
    free(names);
    if (rc != 0) {
        fprintf(stderr, "hashbench soak: %s\n", err.msg);
        return 2;
    }
    if (stable + failed == 0) {
        fprintf(stderr, "hashbench soak: no instance of %s passed its KATs; run hashbench "
                "kat first\n", o.run_dir);
        return 2;
    }
    return failed ? 1 : 0;
}
