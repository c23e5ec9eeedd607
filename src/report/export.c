/* report_export_csv: the dataset as one CSV table for spreadsheets and
 * plotting tools, one row per record. Numbers keep 10 significant digits;
 * a FAILED record has empty figures and its failure text; the paired ratio
 * to the baseline is read through report/paired.h. See report.h. */
#include "report/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "common/fs.h"
#include "dataset/dataset.h"
#include "report/pages.h"
#include "report/paired.h"
#include "report/ratiodrift.h"

static const char *const figures[] = {
    "n", "trials", "calls", "mean_ticks_per_call", "ticks_per_byte",
    "mean_ns_per_call", "mb_per_s", "median_trial_mean", "q1_trial_mean",
    "q3_trial_mean", "min_trial_mean", "max_trial_mean", "cv_percent",
    "ci95_low", "ci95_high", "ci95_rel_percent",
};
#define NFIGURES (sizeof figures / sizeof figures[0])

static void csv_field(FILE *fp, const char *s, int first);

/* The paired ratio to the baseline: ratio, its 95 % interval as measured,
 * pairs, and that interval widened by the host's ratio drift at its size
 * as the pages publish it (report/ratiodrift.h), with the margin. */
static const char *const paired_cols[] = {"paired_ratio", "paired_ratio_ci95_low",
                                          "paired_ratio_ci95_high", "pairs",
                                          "paired_ratio_widened_low",
                                          "paired_ratio_widened_high",
                                          "ratio_drift_margin_percent"};
#define NPAIRED (sizeof paired_cols / sizeof paired_cols[0])

static void num_field(FILE *fp, double v)
{
    char num[64];
    if (isfinite(v))
        snprintf(num, sizeof num, "%.10g", v);
    else
        num[0] = '\0';
    csv_field(fp, num, 0);
}

/* One RFC 4180 field: quoted when it holds a comma, quote, CR or LF. */
static void csv_field(FILE *fp, const char *s, int first)
{
    if (!first)
        fputc(',', fp);
    if (!s || !strpbrk(s, ",\"\r\n")) {
        fputs(s ? s : "", fp);
        return;
    }
    fputc('"', fp);
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            fputc('"', fp);
        fputc(*p, fp);
    }
    fputc('"', fp);
}

static void csv_header(FILE *fp)
{
    static const char *const cols[] = {"system", "candidate", "instance", "variant",
                                       "size_bytes", "status", "kat_status", "flags_kind",
                                       "counter", "counter_is_cycles"};
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
        csv_field(fp, cols[i], i == 0);
    for (size_t i = 0; i < NFIGURES; i++)
        csv_field(fp, figures[i], 0);
    for (size_t i = 0; i < NPAIRED; i++)
        csv_field(fp, paired_cols[i], 0);
    csv_field(fp, "harness_ns_per_call", 0);
    csv_field(fp, "failure", 0);
    csv_field(fp, "record", 0);
    fputs("\r\n", fp);
}

static void csv_row(FILE *fp, const report_system *s, const report_record *r)
{
    char num[64];
    const json_t *counter = json_object_get(json_object_get(r->json, "environment"),
                                            "counter");
    csv_field(fp, s->name, 1);
    csv_field(fp, r->candidate, 0);
    csv_field(fp, r->instance, 0);
    csv_field(fp, report_str(r->json, "variant", ""), 0);
    snprintf(num, sizeof num, "%lld", r->size);
    csv_field(fp, num, 0);
    csv_field(fp, report_str(r->json, "status", "OK"), 0);
    char kat[1024];
    if (report_kat_entry(s, r->candidate, r->instance))
        pages_kat_status(s, r->candidate, r->instance, kat, sizeof kat);
    else
        snprintf(kat, sizeof kat, "%s", report_str(r->json, "kat_status", ""));
    csv_field(fp, kat, 0);
    csv_field(fp, report_str(r->json, "flags_kind", ""), 0);
    csv_field(fp, report_str(counter, "name", ""), 0);
    csv_field(fp, json_is_boolean(json_object_get(counter, "is_cycles"))
                      ? (json_is_true(json_object_get(counter, "is_cycles")) ? "true" : "false")
                      : "", 0);
    for (size_t i = 0; i < NFIGURES; i++)
        num_field(fp, report_num(r->derived, figures[i]));
    paired_figure pf;
    int have = r->derived && paired_read(r->json, &pf) == 0;
    num_field(fp, have ? pf.ratio : NAN);
    num_field(fp, have ? pf.lo : NAN);
    num_field(fp, have ? pf.hi : NAN);
    num_field(fp, have && pf.pairs ? (double)pf.pairs : NAN);
    double wl = have ? pf.lo : NAN, wh = have ? pf.hi : NAN;
    double margin = have && isfinite(pf.ratio) ? ratiodrift_recorded_margin(s, r->size) : NAN;
    if (have && isfinite(pf.ratio))
        ratiodrift_widen(s, r->size, &wl, &wh);
    num_field(fp, have && isfinite(pf.ratio) ? wl : NAN);
    num_field(fp, have && isfinite(pf.ratio) ? wh : NAN);
    num_field(fp, margin);
    if (have)
        paired_free(&pf);
    num_field(fp, pages_harness_ns(r));
    csv_field(fp, report_str(r->json, "failure", ""), 0);
    csv_field(fp, r->file, 0);
    fputs("\r\n", fp);
}

int report_export_csv(const char *data_dir, const char *csv_path, int *rows, hb_err *err)
{
    report_dataset ds;
    char *text = NULL;
    size_t len = 0;
    int n = 0;
    if (report_dataset_load(data_dir, &ds, err) < 0)
        return -1;
    FILE *fp = open_memstream(&text, &len);
    if (!fp) {
        report_dataset_free(&ds);
        return hb_fail_errno(err, "%s", csv_path);
    }
    csv_header(fp);
    for (size_t i = 0; i < ds.nsys; i++)
        for (size_t k = 0; k < ds.sys[i].nrecs; k++, n++)
            csv_row(fp, &ds.sys[i], &ds.sys[i].recs[k]);
    fclose(fp);
    report_dataset_free(&ds);
    int rc = report_export_write(csv_path, text, len, err);
    free(text);
    if (rows)
        *rows = n;
    return rc;
}

int report_export_write(const char *path, const char *text, size_t len, hb_err *err)
{
    if (strcmp(path, "-") != 0)
        return hb_write_atomic(path, text, len, err);
    if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0)
        return hb_fail_errno(err, "standard output");
    return 0;
}
