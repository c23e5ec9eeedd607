/* hashbench publish: copies what the reports cite from a run directory to
 * DATA/ID/ with paths relative to DATA (src/dataset/publish.h). */
#include "cli/cli.h"
#include "cli/options.h"

#include <string.h>
#include "dataset/publish.h"
#include "dataset/sign.h"

const char hb_summary_publish[] = "publish a run directory into a dataset";
const char hb_usage_publish[] =
    "usage: hashbench publish --run-dir DIR --system ID --data DATA\n"
    "\n"
    "Copies campaign.json, build.json, kat.json, the records, the KAT logs\n"
    "and the compiler logs of DIR to DATA/ID/ (replacing an earlier\n"
    "publication of ID), rewriting every path relative to DATA and dropping\n"
    "the submissions' absolute package paths (in a compiler log a package\n"
    "folder becomes its name); libraries are not copied (their SHA-256\n"
    "identifies them). The evaluator's notes DIR/notes.txt, when there is one\n"
    "(docs/FORMATS.md), are copied too, after they parse.\n"
    "Refuses when an absolute path would remain. Text submitted code could\n"
    "have written (raw_*_untrusted) stays in DIR; an instance whose data would\n"
    "carry this host's boot_id or DIR's path is withheld (campaign.json).\n"
    "\n"
    "  --system ID   the test system, e.g. x86_1 or arm_1 ([A-Za-z0-9_-])\n"
    "  --sign KEY    then sign the whole dataset DATA with the Ed25519 private\n"
    "                key KEY (PEM; openssl genpkey -algorithm ed25519 -out KEY):\n"
    "                DATA/MANIFEST.sha256 lists every file's SHA-256 and\n"
    "                DATA/MANIFEST.sha256.sig signs it, DATA/MANIFEST.sha256.pub\n"
    "                names the key (the site's index shows its fingerprint;\n"
    "                hashbench validate --key PUB checks all). Without --sign\n"
    "                an earlier signature of DATA is removed: it would not\n"
    "                cover DATA\n"
    "\n"
    "Exit status: 0 published, 2 usage error or refusal.\n";

int cmd_publish(int argc, char **argv)
{
    enum { OPT_SYSTEM = HB_OPT_OWN, OPT_DATA, OPT_SIGN };
    static const struct option longopts[] = {
        HB_OPTION_RUN_DIR, {"system", required_argument, NULL, OPT_SYSTEM},
        {"data", required_argument, NULL, OPT_DATA},
        {"sign", required_argument, NULL, OPT_SIGN}, HB_OPTIONS_END};
    const char *run_dir = NULL, *system = NULL, *data = NULL, *key = NULL;
    hb_err err;
    int ch;
    hb_opt_start();
    while ((ch = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        if (ch == HB_OPT_RUN_DIR) {
            run_dir = optarg;
        } else if (ch == OPT_SYSTEM) {
            system = optarg;
        } else if (ch == OPT_DATA) {
            data = optarg;
        } else if (ch == OPT_SIGN) {
            key = optarg;
        } else {
            hb_opt_getopt_error(ch, argv, &err);
            return hb_cli_usage_error("publish", "%s", err.msg);
        }
    }
    if (optind < argc)
        return hb_cli_usage_error("publish", "unknown argument '%s'", argv[optind]);
    if (!run_dir || !system || !data)
        return hb_cli_usage_error("publish", "--run-dir, --system and --data "
                                  "are required");
    publish_counts c;
    if (publish_run(run_dir, system, data, &c, &err) < 0) {
        fprintf(stderr, "hashbench publish: %s\n", err.msg);
        return 2;
    }
    printf("published %s as %s/%s: %d records, %d KAT logs, %d compiler logs\n",
           run_dir, data, system, c.records, c.kat_logs, c.build_logs);
    if (c.withheld)
        printf("withheld %d instances whose data would carry host data (%s/%s/campaign.json: "
               "withheld, with why)\n", c.withheld, data, system);
    /* a signature covers the whole dataset as it now is, or is removed */
    char fp[SIGN_FINGERPRINT_HEX];
    int n;
    if (key && (n = sign_dataset(data, key, fp, &err)) < 0) {
        int had = sign_remove(data, NULL);
        fprintf(stderr, "hashbench publish: %s%s\n", err.msg, had > 0 ?
                " (the dataset's earlier signature was removed: it no longer covers it)"
                : "");
        return 2;
    }
    if (key) {
        printf("signed %s: %s lists %d files, %s is its Ed25519 signature; public key "
               "fingerprint SHA256:%s\n(check with: hashbench validate %s --key PUB)\n",
               data, DATASET_MANIFEST, n, DATASET_SIGNATURE, fp, data);
    } else if (sign_remove(data, &err) > 0) {
        fprintf(stderr, "hashbench publish: %s was signed; its signature no longer "
                "covers it and was removed: publish with --sign KEY to sign it again\n",
                data);
    }
    return 0;
}
