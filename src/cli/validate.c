/* hashbench validate: re-derives every figure of a dataset from its raw
 * evidence and, with --site, checks that the published site is exactly what
 * the dataset gives. */
#include "cli/cli.h"
#include "cli/options.h"

#include <getopt.h>
#include <string.h>
#include "report/export_check.h"
#include "dataset/sign.h"
#include "report/validate.h"

const char hb_summary_validate[] = "re-derive a dataset's figures and check its site";
const char hb_usage_validate[] =
    "usage: hashbench validate DATA [--site SITE] [--run-dir DIR] [--export FILE]\n"
    "         [--key PUB]\n"
    "\n"
    "Recomputes every record's derived figures from its raw trials, checks every\n"
    "KAT log's SHA-256 and RESULT line against kat.json, rejects absolute paths\n"
    "and '..' in the dataset's path fields, and with --site regenerates the\n"
    "report into a temporary folder and requires SITE to be byte-identical.\n"
    "Every file of DATA is searched for this host's boot_id and, with --run-dir,\n"
    "for the absolute path of the campaign's run directory DIR, each as it is\n"
    "or hex-encoded (in either case): a file holding one is a problem.\n"
    "With --key PUB (the signer's Ed25519 public key, PEM) it checks the\n"
    "signature of DATA/MANIFEST.sha256 and every file against it, naming each\n"
    "file changed, added or removed since the signing (publish --sign).\n"
    "Prints one line per problem (FILE: field X: recorded A, recomputed B) and a\n"
    "summary line; exits 1 when there is any problem, 2 on a usage or input error.\n"
    "With --export FILE (a CSV or JSON file of 'hashbench export'), also checks\n"
    "that it holds every record of DATA once and that each exported figure is the\n"
    "record's (FILE:LINE or the JSON field: exported A, the record has B).\n";

int cmd_validate(int argc, char **argv)
{
    enum { OPT_SITE = HB_OPT_OWN, OPT_EXPORT, OPT_KEY };
    static const struct option longopts[] = {
        {"site", required_argument, NULL, OPT_SITE},
        {"export", required_argument, NULL, OPT_EXPORT},
        {"key", required_argument, NULL, OPT_KEY}, HB_OPTION_RUN_DIR, HB_OPTIONS_END};
    const char *data = NULL, *site = NULL, *export = NULL, *run_dir = NULL, *key = NULL;
    hb_err err = {{0}};
    int ch;
    hb_opt_start();
    while ((ch = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        if (ch == OPT_SITE) {
            site = optarg;
        } else if (ch == OPT_EXPORT) {
            export = optarg;
        } else if (ch == OPT_KEY) {
            key = optarg;
        } else if (ch == HB_OPT_RUN_DIR) {
            run_dir = optarg;
        } else {
            hb_opt_getopt_error(ch, argv, &err);
            return hb_cli_usage_error("validate", "%s", err.msg);
        }
    }
    for (int i = optind; i < argc; i++) {
        if (data)
            return hb_cli_usage_error("validate", "one dataset folder only ('%s')", argv[i]);
        data = argv[i];
    }
    if (!data)
        return hb_cli_usage_error("validate", "give the dataset folder");
    report_validate_stats st;
    int rc = report_validate_ex(data, site, run_dir, stdout, &st, &err);
    /* the signature: every file against the signed manifest (also when the
     * dataset cannot be read: what was changed is then named) */
    char fp[SIGN_FINGERPRINT_HEX];
    int sign_problems = 0;
    hb_err serr = {{0}};
    int src = key ? sign_verify(data, key, stdout, &sign_problems, fp, &serr) : 0;
    if (rc < 0 || src < 0) {
        fprintf(stderr, "hashbench validate: %s\n", rc < 0 ? err.msg : serr.msg);
        return 2;
    }
    st.problems += sign_problems;
    printf("validate: %d records, %d KAT logs, %d compiler logs, %d pages checked; "
           "%d problem%s\n", st.records, st.kat_logs, st.build_logs, st.pages,
           st.problems, st.problems == 1 ? "" : "s");
    int bad = st.problems != 0;
    if (export) {
        export_check_stats xs;
        int xrc = report_check_export(data, export, stdout, &xs, &err);
        if (xrc < 0) {
            fprintf(stderr, "hashbench validate: %s\n", err.msg);
            return 2;
        }
        printf("validate: export %s: %d entries, %d figures checked; %d problem%s\n", export,
               xs.entries, xs.figures, xs.problems, xs.problems == 1 ? "" : "s");
        bad |= xrc != 0;
    }
    if (key)
        printf("signature: %s with the key of fingerprint SHA256:%s\n",
               sign_problems ? "the dataset is NOT what was signed" :
               "every file is what was signed", fp);
    else if (sign_is_signed(data))
        printf("signature: not checked: give the signer's public key with --key PUB\n");
    else
        printf("signature: the dataset is unsigned: these checks show that its figures "
               "agree with its evidence, not who made them or that nothing was changed "
               "(publish --sign KEY signs it)\n");
    return bad ? 1 : 0;
}
