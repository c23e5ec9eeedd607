/* hashbench drng: prints the official KAT generator's output, so a submitter
 * can check their own drng.c against ours. The seed is SEED_TEXT repeated to
 * 64 bytes, as the KAT files seed it; each BITS argument is one successive
 * call, printed as one uppercase hex line (an empty line for 0 bits). */
#include "cli/cli.h"
#include "cli/options.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common/digest.h"
#include "kat/drng.h"

const char hb_summary_drng[] = "print the official KAT DRNG's output for a seed";
const char hb_usage_drng[] =
    "usage: hashbench drng SEED_TEXT BITS...\n"
    "\n"
    "Seeds the official SM3 Hash_DRBG with SEED_TEXT repeated to 64 bytes (the\n"
    "KAT files use the first 8 characters of their name, e.g. KAT_2_12) and\n"
    "prints one uppercase hex line per BITS argument, one generator call each;\n"
    "0 bits prints an empty line. BITS is at most 16777216 per call.\n";

#define DRNG_CLI_MAX_BITS (1ULL << 24)

static int parse_bits(const char *s, unsigned long long *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || !end || *end || s[0] == '-' || s[0] == '\0' || v > DRNG_CLI_MAX_BITS)
        return -1;
    *out = v;
    return 0;
}

static int print_draw(drng *d, unsigned long long bits, hb_err *err)
{
    size_t n = (size_t)((bits + 7) / 8);
    unsigned char *buf = malloc(n ? n : 1);
    char *hex = malloc(2 * n + 1);
    int rc = -1;
    if (!buf || !hex) {
        hb_fail(err, "out of memory");
    } else if (drng_generate(d, buf, bits, err) == 0) {
        hb_hex_encode(buf, n, hex, 1);
        printf("%s\n", hex);
        rc = 0;
    }
    free(buf);
    free(hex);
    return rc;
}

int cmd_drng(int argc, char **argv)
{
    /* no options: getopt_long only refuses them (a seed text that starts
     * with '-' follows "--") */
    static const struct option longopts[] = {HB_OPTIONS_END};
    hb_err err;
    int ch;
    hb_opt_start();
    if ((ch = getopt_long(argc, argv, "+:", longopts, NULL)) != -1) {
        hb_opt_getopt_error(ch, argv, &err);
        return hb_cli_usage_error("drng", "%s", err.msg);
    }
    argc -= optind - 1;
    argv += optind - 1;
    if (argc < 3)
        return hb_cli_usage_error("drng", "give a seed text and at least one bit count");
    if (argv[1][0] == '\0')
        return hb_cli_usage_error("drng", "the seed text must not be empty");
    for (int i = 2; i < argc; i++) {
        unsigned long long bits;
        if (parse_bits(argv[i], &bits) != 0)
            return hb_cli_usage_error("drng", "argument %d ('%s'): give a bit "
                                      "count from 0 to %llu", i, argv[i],
                                      DRNG_CLI_MAX_BITS);
    }
    unsigned char seed[DRNG_SEED_BYTES];
    drng d;
    drng_seed_text(argv[1], seed);
    if (drng_init(&d, seed, sizeof seed, &err) != 0) {
        fprintf(stderr, "hashbench drng: %s\n", err.msg);
        return 2;
    }
    int rc = 0;
    for (int i = 2; i < argc && rc == 0; i++) {
        unsigned long long bits = 0;
        parse_bits(argv[i], &bits);
        if (print_draw(&d, bits, &err) != 0) {
            fprintf(stderr, "hashbench drng: %s\n", err.msg);
            rc = 2;
        }
    }
    drng_free(&d);
    return rc;
}
