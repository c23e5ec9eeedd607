/* Fuzz target: published datasets (docs/FORMATS.md, src/report/). A small
 * real dataset is committed in fuzz/dataset_base/ (one system, one
 * candidate, one instance, one record, its KAT log). Each input replaces
 * one of its files: the first byte chooses which ('0' campaign.json, '1'
 * build.json, '2' kat.json, '3' the record, '4' the KAT log; other bytes
 * wrap around, so the seeds in corpus/dataset stay text), the rest is the
 * new content. The dataset is then validated (report_validate) and rendered
 * (report_site) into a scratch folder. Checked besides memory safety and
 * hangs: a failure is one line naming a file; validate never reports fewer
 * problems than zero, and its status agrees with its problem count; a
 * path field with ".." must be refused, not followed (following one to a
 * device such as /dev/zero shows up as a hang). */
#include "report/report.h"
#include "fuzz_util.h"

static const char *const files[] = {
    "x86_1/campaign.json", "x86_1/build.json", "x86_1/kat.json",
    "x86_1/records/Toy/Healthy__hash_32.json", "x86_1/kat/Toy/Healthy.log"};
#define NFILES (sizeof files / sizeof files[0])

static char *base[NFILES];
static size_t base_len[NFILES];

static void load_base(void)
{
    for (size_t i = 0; i < NFILES; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/dataset_base/%s", HB_FUZZ_DIR, files[i]);
        FILE *fp = fopen(path, "rb");
        if (!fp) {
            perror(path);
            abort();
        }
        base[i] = malloc(1 << 20);
        base_len[i] = fread(base[i], 1, 1 << 20, fp);
        fclose(fp);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char rel[256], data_dir[1024], site[1024];
    if (!base[0])
        load_base();
    if (size < 1)
        return 0;
    size_t pick = (size_t)(unsigned char)(data[0] - '0') % NFILES;
    for (size_t i = 0; i < NFILES; i++) {
        snprintf(rel, sizeof rel, "data/%s", files[i]);
        if (i == pick)
            fuzz_put(rel, data + 1, size - 1, NULL, 0);
        else
            fuzz_put(rel, base[i], base_len[i], NULL, 0);
    }
    snprintf(data_dir, sizeof data_dir, "%s/data", fuzz_scratch());
    snprintf(site, sizeof site, "%s/site", fuzz_scratch());
    FILE *devnull = fopen("/dev/null", "w");
    report_validate_stats st;
    hb_err err = {{0}};
    memset(&st, 0, sizeof st);
    int rc = report_validate(data_dir, NULL, devnull, &st, &err);
    fclose(devnull);
    if (rc < 0)
        fuzz_check_err(&err);
    else if (st.problems < 0 || (rc == 0) != (st.problems == 0))
        abort();
    hb_err serr = {{0}};
    if (report_site(data_dir, site, &serr) != 0)
        fuzz_check_err(&serr);
    fuzz_rm_tree(site);
    return 0;
}
