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
    "usage: hashbench init PACKAGE [--print] [--cc COMPILER]\n"
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
    "An existing hashbench.ini is never overwritten.\n"
    "  --print          print the file instead of writing it\n"
    "  --cc COMPILER    C compiler (default: $CC, else cc)\n";

int cmd_init(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"print", no_argument, NULL, HB_OPT_OWN},
        {"cc", required_argument, NULL, HB_OPT_OWN + 1}, HB_OPTIONS_END};
    const char *package = NULL, *cc = NULL;
    int print = 0, ch;
    hb_err err;
    hb_opt_start();
    while ((ch = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        if (ch == HB_OPT_OWN) {
            print = 1;
        } else if (ch == HB_OPT_OWN + 1) {
            cc = optarg;
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
    char *text = NULL, path[PATH_MAX];
    int n = 0;
    if (init_override_text(package, cc, &text, &n, &err) != 0) {
        fprintf(stderr, "hashbench init: %s\n", err.msg);
        return 2;
    }
    int rc = 0;
    if (print) {
        fputs(text, stdout);
    } else if (snprintf(path, sizeof path, "%s/%s", package, OVERRIDE_FILE) >= (int)sizeof path ||
               hb_write_atomic(path, text, strlen(text), &err) != 0) {
        fprintf(stderr, "hashbench init: %s\n", err.msg[0] ? err.msg : "path too long");
        rc = 2;
    } else {
        printf("wrote %s: %d instance section%s; check and edit it (see "
               "docs/OVERRIDE.md), then run hashbench build\n", path, n, n == 1 ? "" : "s");
    }
    free(text);
    return rc;
}
