#!/usr/bin/env python3
"""The CSV export checked against the records it came from (ctest:
report_cli_export). Runs `hashbench export DATA --csv OUT`, which must exit
0 and say how many rows it wrote, then reads the CSV back and requires one
row per record of DATA (every records/**/*.json of every system, none
twice), each row's identity columns to be the record's, and each figure to
be the record's derived figure to the 10 significant digits the CSV keeps
(empty for a FAILED record), and the paired ratio to the baseline, its
interval and pairs to be the record's derived.paired_ratio (empty without
one). `export DATA --csv -` must write the same bytes to standard output.
It also checks the figures that follow from
others (ticks per byte, MB/s) against the row's size, so a figure written into the wrong column fails too.
Usage: check_export.py HASHBENCH DATA OUT_CSV"""

import csv
import json
import math
import os
import subprocess
import sys

FIGURES = ["n", "trials", "calls", "mean_ticks_per_call", "ticks_per_byte",
           "mean_ns_per_call", "mb_per_s", "median_trial_mean", "q1_trial_mean",
           "q3_trial_mean", "min_trial_mean", "max_trial_mean", "cv_percent",
           "ci95_low", "ci95_high", "ci95_rel_percent"]
PAIRED = {"paired_ratio": "ratio", "paired_ratio_ci95_low": "ci95_low",
          "paired_ratio_ci95_high": "ci95_high", "pairs": "pairs"}
WIDENED = ["paired_ratio_widened_low", "paired_ratio_widened_high",
           "ratio_drift_margin_percent"]
COLUMNS = ["system", "candidate", "instance", "variant", "size_bytes", "status",
           "kat_status", "flags_kind", "counter", "counter_is_cycles"] + FIGURES + \
          list(PAIRED) + WIDENED + ["harness_ns_per_call", "failure", "record"]

problems = []


def bad(msg):
    problems.append(msg)
    print("FAILED: " + msg)


def close(a, b, rel=1e-9):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def main():
    exe, data, out = sys.argv[1:4]
    p = subprocess.run([exe, "export", data, "--csv", out],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(p.stdout, end="")
    if p.returncode != 0:
        bad("export exited %d" % p.returncode)
        return 1
    records = {}
    for system in sorted(os.listdir(data)):
        root = os.path.join(data, system, "records")
        for d, _, files in os.walk(root):
            for f in files:
                if f.endswith(".json"):
                    rel = os.path.relpath(os.path.join(d, f), data)
                    records[rel] = (system, json.load(open(os.path.join(d, f))))
    margins = {}
    for system in sorted(os.listdir(data)):
        try:
            camp = json.load(open(os.path.join(data, system, "campaign.json")))
        except (OSError, ValueError):
            continue
        for e in ((camp.get("ratio_drift") or {}).get("sizes") or []):
            if isinstance(e.get("margin_percent"), (int, float)):
                margins[(system, e["size_bytes"])] = e["margin_percent"]
    if len(records) < 10:
        bad("only %d records in %s" % (len(records), data))
    if "%d rows written" % len(records) not in p.stdout:
        bad("export did not say it wrote %d rows" % len(records))
    with open(out, newline="") as fp:
        rows = list(csv.reader(fp))
    if not rows or rows[0] != COLUMNS:
        bad("header: %s" % (rows[0] if rows else "none"))
        return 1
    seen = set()
    figures_checked = 0
    paired_checked = 0
    for row in rows[1:]:
        r = dict(zip(COLUMNS, row))
        if len(row) != len(COLUMNS):
            bad("row of %d fields: %s" % (len(row), row))
            continue
        rel = r["record"]
        if rel not in records:
            bad("row for %s, which is no record" % rel)
            continue
        if rel in seen:
            bad("two rows for %s" % rel)
        seen.add(rel)
        system, rec = records[rel]
        counter = rec["environment"]["counter"]
        want = {"system": system, "candidate": rec["candidate"],
                "instance": rec["instance"], "variant": rec.get("variant", ""),
                "size_bytes": str(rec["size_bytes"]), "status": rec.get("status", "OK"),
                "flags_kind": rec.get("flags_kind", ""), "counter": counter["name"],
                "counter_is_cycles": "true" if counter["is_cycles"] else "false",
                "failure": rec.get("failure", "")}
        for k, v in want.items():
            if r[k] != v:
                bad("%s: %s is %r, the record says %r" % (rel, k, r[k], v))
        if not r["kat_status"].startswith(rec["kat_status"]):
            bad("%s: kat_status %r, the record says %r" % (rel, r["kat_status"], rec["kat_status"]))
        derived = rec.get("derived") or {}
        for k in FIGURES:
            v = derived.get(k)
            if not isinstance(v, (int, float)) or not math.isfinite(v):
                if r[k] != "":
                    bad("%s: %s is %r, the record has none" % (rel, k, r[k]))
                continue
            try:
                got = float(r[k])
            except ValueError:
                bad("%s: %s is %r, not a number (the record says %r)" % (rel, k, r[k], v))
                continue
            if not close(got, float(v)):
                bad("%s: %s is %r, the record says %r" % (rel, k, r[k], v))
            figures_checked += 1
        if r["mean_ticks_per_call"]:
            size = rec["size_bytes"]
            ticks = float(r["mean_ticks_per_call"])
            ns = float(r["mean_ns_per_call"])
            for k, v in (("ticks_per_byte", ticks / size), ("mb_per_s", size / ns * 1e3)):
                if not close(float(r[k]), v, 1e-8):
                    bad("%s: %s is %s, %g follows from the row's other figures" % (rel, k, r[k], v))
        paired = derived.get("paired_ratio") or {}
        for col, key in PAIRED.items():
            v = paired.get(key)
            if not isinstance(v, (int, float)) or not math.isfinite(v):
                if r[col] != "":
                    bad("%s: %s is %r, the record has none" % (rel, col, r[col]))
                continue
            if r[col] == "" or not close(float(r[col]), float(v)):
                bad("%s: %s is %r, the record says %r" % (rel, col, r[col], v))
            paired_checked += 1
        # the published interval: widened by campaign.json's ratio drift at
        # the record's size (none recorded: the interval as measured)
        margin = margins.get((system, rec["size_bytes"]))
        lo, hi = paired.get("ci95_low"), paired.get("ci95_high")
        if isinstance(paired.get("ratio"), (int, float)) and isinstance(lo, (int, float)):
            f = 1 + (margin or 0) / 100
            for col, v in (("paired_ratio_widened_low", lo / f),
                           ("paired_ratio_widened_high", hi * f)):
                if r[col] == "" or not close(float(r[col]), v):
                    bad("%s: %s is %r, the widened interval is %r" % (rel, col, r[col], v))
            want = "" if margin is None else margin
            if (r["ratio_drift_margin_percent"] == "") != (want == "") or \
                    (want != "" and not close(float(r["ratio_drift_margin_percent"]), want)):
                bad("%s: ratio_drift_margin_percent is %r, campaign.json says %r"
                    % (rel, r["ratio_drift_margin_percent"], want))
        elif any(r[c] != "" for c in WIDENED):
            bad("%s: widened interval without a paired ratio" % rel)
        h = (rec.get("verification") or {}).get("harness_ns_per_call")
        if isinstance(h, (int, float)):
            if r["harness_ns_per_call"] == "" or not close(float(r["harness_ns_per_call"]), h):
                bad("%s: harness_ns_per_call is %r, the record says %r"
                    % (rel, r["harness_ns_per_call"], h))
        elif r["harness_ns_per_call"] != "":
            bad("%s: harness_ns_per_call %r, the record has none"
                % (rel, r["harness_ns_per_call"]))
    if paired_checked < 4 * 10:
        bad("only %d paired-ratio figures compared" % paired_checked)
    p = subprocess.run([exe, "export", data, "--csv", "-"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if p.returncode != 0 or p.stdout != open(out, "rb").read():
        bad("export --csv - (exit %d) did not write the file's bytes to standard output"
            % p.returncode)
    for rel in sorted(set(records) - seen):
        bad("no row for %s" % rel)
    if figures_checked < 10 * len(FIGURES):
        bad("only %d figures compared" % figures_checked)
    print("%d rows, %d figures compared with their records; %d problems"
          % (len(rows) - 1, figures_checked, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
