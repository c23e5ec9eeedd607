#!/usr/bin/env python3
"""The JSON export checked against its documented schema and against the
records it came from (ctest: report_cli_export_json). Runs `hashbench export
DATA --json OUT` (exit 0, the number of records said), requires `--json -`
to write the same bytes to standard output, validates OUT against the JSON
Schema in docs/FORMATS.md (the block after <!-- export-schema -->), then
requires one size entry per record of DATA (every records/**/*.json of every
system, none twice) whose names, status, every derived figure (exactly: the
export keeps the records' values) and paired ratio are the record's. Last,
`hashbench validate DATA --export` must pass the export and the CSV export,
and name the field of a figure changed in a copy of each.
Usage: check_export_json.py HASHBENCH DATA FORMATS_MD OUT_JSON"""

import json
import os
import re
import subprocess
import sys

import jsonschema

problems = []


def bad(msg):
    problems.append(msg)
    print("FAILED: " + msg)


def schema_of(formats):
    text = open(formats, encoding="utf-8").read()
    m = re.search(r"<!-- export-schema -->\s*```json\n(.*?)\n```", text, re.S)
    if not m:
        bad("no schema block in %s" % formats)
        return None
    return json.loads(m.group(1))


def records_of(data):
    records = {}
    for system in sorted(os.listdir(data)):
        for d, _, files in os.walk(os.path.join(data, system, "records")):
            for f in files:
                if f.endswith(".json"):
                    rel = os.path.relpath(os.path.join(d, f), data)
                    records[rel] = (system, json.load(open(os.path.join(d, f))))
    return records


def check_entries(doc, records):
    seen = set()
    figures = 0
    for system in doc["systems"]:
        for cand in system["candidates"]:
            for inst in cand["instances"]:
                for e in inst["sizes"]:
                    rel = e["record"]
                    if rel not in records:
                        bad("entry for %s, which is no record" % rel)
                        continue
                    if rel in seen:
                        bad("two entries for %s" % rel)
                    seen.add(rel)
                    sysname, rec = records[rel]
                    for got, want in ((system["name"], sysname), (cand["name"], rec["candidate"]),
                                      (inst["name"], rec["instance"]),
                                      (e["size_bytes"], rec["size_bytes"]),
                                      (e["status"], rec.get("status", "OK"))):
                        if got != want:
                            bad("%s: exported %r, the record says %r" % (rel, got, want))
                    derived = rec.get("derived")
                    if derived is None:
                        if e["figures"] is not None:
                            bad("%s: figures exported for a record without" % rel)
                        continue
                    for k, v in derived.items():
                        if k == "paired_ratio":
                            continue
                        if e["figures"].get(k) != v:
                            bad("%s: %s is %r, the record says %r" % (rel, k, e["figures"].get(k), v))
                        figures += 1
                    pr = derived.get("paired_ratio")
                    if pr is None:
                        if e["paired_ratio"] is not None:
                            bad("%s: a paired ratio exported for a record without" % rel)
                        continue
                    for k in ("ratio", "ci95_low", "ci95_high", "pairs"):
                        if e["paired_ratio"][k] != pr[k]:
                            bad("%s: paired_ratio.%s is %r, the record says %r"
                                % (rel, k, e["paired_ratio"][k], pr[k]))
                        figures += 1
    for rel in sorted(set(records) - seen):
        bad("no entry for %s" % rel)
    return figures


def validate(exe, data, path, want_rc, want_text):
    p = subprocess.run([exe, "validate", data, "--export", path], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if p.returncode != want_rc or want_text not in p.stdout:
        bad("validate --export %s: exit %d, output:\n%s(wanted exit %d and %r)"
            % (path, p.returncode, p.stdout, want_rc, want_text))


def main():
    exe, data, formats, out = sys.argv[1:5]
    records = records_of(data)
    p = subprocess.run([exe, "export", data, "--json", out], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    print(p.stdout, end="")
    if p.returncode != 0 or ("%d records written" % len(records)) not in p.stdout:
        bad("export --json exited %d or did not say it wrote %d records"
            % (p.returncode, len(records)))
        return 1
    raw = open(out, "rb").read()
    p = subprocess.run([exe, "export", data, "--json", "-"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if p.returncode != 0 or p.stdout != raw:
        bad("export --json - did not write the file's bytes to standard output")
    doc = json.loads(raw)
    schema = schema_of(formats)
    if schema is not None:
        try:
            jsonschema.Draft202012Validator(schema).validate(doc)
        except jsonschema.ValidationError as e:
            bad("the export breaks the documented schema: %s at %s"
                % (e.message, "/".join(str(x) for x in e.absolute_path)))
    figures = check_entries(doc, records)
    if figures < 20 * len(records) // 2:
        bad("only %d figures compared" % figures)
    # validate --export: the export passes, a changed figure is named
    validate(exe, data, out, 0, "0 problems")
    doc["systems"][0]["candidates"][0]["instances"][0]["sizes"][0]["figures"]["mb_per_s"] *= 1.5
    tampered = out + ".changed.json"
    json.dump(doc, open(tampered, "w"))
    validate(exe, data, tampered, 1, ".sizes[0].figures: field mb_per_s: exported")
    csv = out + ".csv"
    subprocess.run([exe, "export", data, "--csv", csv], stdout=subprocess.DEVNULL, check=True)
    validate(exe, data, csv, 0, "0 problems")
    lines = open(csv, newline="").read().split("\r\n")
    lines[1] = lines[1].replace(",OK,", ",FAILED,", 1)
    open(csv, "w", newline="").write("\r\n".join(lines))
    validate(exe, data, csv, 1, csv + ":2: field status: exported 'FAILED'")
    print("%d entries, %d figures compared with their records; %d problems"
          % (len(records), figures, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
