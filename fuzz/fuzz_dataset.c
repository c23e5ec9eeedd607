/* Fuzz target: published datasets (docs/FORMATS.md, src/report/). A small
 * real dataset is committed in fuzz/dataset_base/ (one system, one
 * candidate, one instance, one record, its KAT log). Each input replaces
 * one of its files: the first byte chooses which ('0' campaign.json, '1'
 * build.json, '2' kat.json, '3' the record, '4' the KAT log; other bytes
 * wrap around, so the seeds in corpus/dataset stay text), the rest is the
 * new content. The dataset is then validated (report_validate) and, when it
 * validates cleanly and for one other input in eight, rendered (report_site)
 * into a scratch folder that each render overwrites. Checked besides memory safety and
 * hangs: a failure is one line naming a file; validate never reports fewer
 * problems than zero, and its status agrees with its problem count; a
 * path field with ".." must be refused, not followed (following one to a
 * device such as /dev/zero shows up as a hang). */
#include "report/report.h"
#include "report/validate.h"
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

/* 1 for inputs the renderer must see: a dataset that validates cleanly
 * (the normal path to a published page), and one input in eight of the
 * others, picked by a hash of the input so that a rerun of the same input
 * takes the same path. Rendering writes a whole site and is by far the
 * dearest step, so rendering every input would cut the executions per
 * second tenfold. */
static int want_render(const uint8_t *data, size_t size, int clean)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * 16777619u;
    return clean || (h & 7) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static size_t last_pick = NFILES;
    char rel[256], data_dir[1024], site[1024];
    if (!base[0]) {
        load_base();
        for (size_t i = 0; i < NFILES; i++) {
            snprintf(rel, sizeof rel, "data/%s", files[i]);
            fuzz_put(rel, base[i], base_len[i], NULL, 0);
        }
    }
    if (size < 1)
        return 0;
    /* Only the replaced file and the one replaced last time are written:
     * the other files of the dataset stay as the base has them. */
    size_t pick = (size_t)(unsigned char)(data[0] - '0') % NFILES;
    if (last_pick < NFILES && last_pick != pick) {
        snprintf(rel, sizeof rel, "data/%s", files[last_pick]);
        fuzz_put(rel, base[last_pick], base_len[last_pick], NULL, 0);
    }
    snprintf(rel, sizeof rel, "data/%s", files[pick]);
    fuzz_put(rel, data + 1, size - 1, NULL, 0);
    last_pick = pick;
    snprintf(data_dir, sizeof data_dir, "%s/data", fuzz_scratch());
    snprintf(site, sizeof site, "%s/site", fuzz_scratch());
    static FILE *devnull;
    if (!devnull && !(devnull = fopen("/dev/null", "w")))
        abort();
    report_validate_stats st;
    hb_err err = {{0}};
    memset(&st, 0, sizeof st);
    int rc = report_validate(data_dir, NULL, devnull, &st, &err);
    if (rc < 0)
        fuzz_check_err(&err);
    else if (st.problems < 0 || (rc == 0) != (st.problems == 0))
        abort();
    if (!want_render(data, size, rc == 0))
        return 0;
    hb_err serr = {{0}};
    if (report_site(data_dir, site, &serr) != 0)
        fuzz_check_err(&serr);
    return 0;
}
