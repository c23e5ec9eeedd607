/* hashbench init: writes a starting hashbench.ini into a package from what
 * discovery found (src/compile/init.c), for the user to edit. Options only;
 * it compiles the package's sources (in the sandbox) to find which of them
 * conflict, so main.c sets up the sandbox first. */
#include "cli/cli.h"
#include "cli/options.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "compile/init.h"
#include "compile/override.h"
#include "common/fs.h"

const char hb_summary_init[] = "write a starting hashbench.ini for a package from discovery";
const char hb_usage_init[] =
    "usage: hashbench init PACKAGE [--print|--update] [--cc COMPILER]\n"
    "\n"
    "Writes PACKAGE/hashbench.ini from what `hashbench build` would discover:\n"
    "the candidate, then one [instance] section per instance found with its\n"
    "folder, sources, digest size and variant, and a comment wherever discovery\n"
    "was unsure. A folder whose sources cannot be linked together is split:\n"
    "each source is compiled on its own with the reference flags (in the\n"
    "sandbox) and the global symbols it defines are read; sources that define\n"
    "the same symbol (two CryptHash, or variant files that each define\n"
    "CryptHash_512, pad_message, ... behind one wrapper) get a section each,\n"
    "with the sources that conflict with none, and a comment names the files\n"
    "and the symbols. Edit it (docs/OVERRIDE.md), then run hashbench build.\n"
    "The official tree is found below the package folder too (extra folders of\n"
    "any name), and the file says where. An existing hashbench.ini is never\n"
    "overwritten but with --update; with --print or --update its [candidate]\n"
    "is kept and its [instance] sections are written again from discovery.\n"
    "  --print          print the file instead of writing it\n"
    "  --update         rewrite an existing hashbench.ini (the old one is kept\n"
    "                   as hashbench.ini.old)\n"
    "  --cc COMPILER    C compiler (default: $CC, else cc)\n";

int cmd_init(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"print", no_argument, NULL, HB_OPT_OWN},
        {"cc", required_argument, NULL, HB_OPT_OWN + 1},
        {"update", no_argument, NULL, HB_OPT_OWN + 2}, HB_OPTIONS_END};
    const char *package = NULL, *cc = NULL;
    int print = 0, update = 0, ch;
    hb_err err;
    hb_opt_start();
    while ((ch = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        if (ch == HB_OPT_OWN) {
            print = 1;
        } else if (ch == HB_OPT_OWN + 1) {
            cc = optarg;
        } else if (ch == HB_OPT_OWN + 2) {
            update = 1;
        } else {
            hb_opt_getopt_error(ch, argv, &err);
            return hb_cli_usage_error("init", "%s", err.msg);
        }
    }
    if (argc - optind > 1)
        return hb_cli_usage_error("init", "give one PACKAGE folder");
    if (optind < argc)
        package = argv[optind];
    if (!package)
        return hb_cli_usage_error("init", "give the PACKAGE folder");
    if (print && update)
        return hb_cli_usage_error("init", "give --print or --update, not both");
    char *text = NULL, path[PATH_MAX], old[PATH_MAX + 8];
    int n = 0, kept = 0;
    if (init_override_text_with(package, cc, print || update ? INIT_OVER_EXISTING : 0,
                                &text, &n, &err) != 0) {
        fprintf(stderr, "hashbench init: %s\n", err.msg);
        return 2;
    }
    int rc = 0;
    hb_err_clear(&err);
    if (print) {
        fputs(text, stdout);
    } else if (snprintf(path, sizeof path, "%s/%s", package, OVERRIDE_FILE) >= (int)sizeof path ||
               snprintf(old, sizeof old, "%s.old", path) >= (int)sizeof old) {
        fprintf(stderr, "hashbench init: %s: path too long\n", package);
        rc = 2;
    } else {
        if (update && hb_is_file(path)) {
            kept = 1;
            if (rename(path, old) != 0)
                hb_fail_errno(&err, "%s: cannot keep it as %s", path, old);
        }
        if (err.msg[0] || hb_write_atomic(path, text, strlen(text), &err) != 0) {
            fprintf(stderr, "hashbench init: %s\n", err.msg);
            rc = 2;
        } else {
            printf("wrote %s: %d instance section%s%s%s; check and edit it (see "
                   "docs/OVERRIDE.md), then run hashbench build\n", path, n,
                   n == 1 ? "" : "s", kept ? "; the previous file is " : "", kept ? old : "");
        }
    }
    free(text);
    return rc;
}
