/* hashbench export: a dataset's figures as one CSV file for spreadsheets and
 * plotting tools. */
#include "cli/cli.h"

#include "report/report.h"

const char hb_summary_export[] = "write a dataset's figures as CSV";
const char hb_usage_export[] =
    "usage: hashbench export DATA --csv FILE\n"
    "\n"
    "Writes FILE (RFC 4180 CSV) with one row per (system, candidate, instance,\n"
    "message size): status, KAT status, counter, and the headline and dispersion\n"
    "figures of the record (empty for a FAILED record, with its failure).\n";

int cmd_export(int argc, char **argv)
{
    const char *data = NULL, *csv = NULL;
    int rc = hb_cli_dataset_args("export", argc, argv, "--csv", &data, &csv);
    if (rc != 0)
        return rc;
    if (!data || !csv)
        return hb_cli_usage_error("export", "give the dataset folder and --csv FILE");
    hb_err err = {{0}};
    int rows = 0;
    if (report_export_csv(data, csv, &rows, &err) < 0) {
        fprintf(stderr, "hashbench export: %s\n", err.msg);
        return 2;
    }
    printf("export: %d rows written to %s\n", rows, csv);
    return 0;
}
