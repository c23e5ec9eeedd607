#!/usr/bin/env python3
"""What a run directory holds, as sorted lines that two runs of the same
campaign must share: run_summary.py RUN_DIR prints "record
CANDIDATE/INSTANCE/SIZE STATUS" for every record and "kat
CANDIDATE/INSTANCE STATUS" for every kat.json entry (the end-to-end tests
of --cpus and Slurm compare a sharded run with a one-piece one)."""

import json
import os
import sys


def main():
    run = sys.argv[1]
    out = []
    for d, _, files in os.walk(os.path.join(run, "records")):
        for f in files:
            if f.endswith(".json"):
                r = json.load(open(os.path.join(d, f)))
                out.append("record %s/%s/%s %s" % (r["candidate"], r["instance"],
                                                  r["size_bytes"], r["status"]))
    for e in json.load(open(os.path.join(run, "kat.json")))["instances"]:
        out.append("kat %s/%s %s" % (e["candidate"], e["instance"], e["status"]))
    print("\n".join(sorted(out)))


if __name__ == "__main__":
    main()
