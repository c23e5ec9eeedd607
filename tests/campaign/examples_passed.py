#!/usr/bin/env python3
"""Whether a campaign on the bundled examples passed, for the end-to-end
scripts: examples_passed.py EXIT_STATUS RUN_DIR exits 0 when `hashbench run`
exited 0, or exited 1 with every instance built and through its KATs
(campaign.json's phases) and only measurements failed: FAILED records
(INCONSISTENT or disturbed trials) are what a heavily loaded shared host
causes, and say nothing of the examples. Any other status, or a build or
KAT failure, exits 1 naming it."""

import json
import os
import sys


def main():
    rc, run = int(sys.argv[1]), sys.argv[2]
    if rc == 0:
        return 0
    if rc != 1:
        print("FAILED: the run exited %d" % rc)
        return 1
    try:
        phases = json.load(open(os.path.join(run, "campaign.json")))["phases"]
    except (OSError, ValueError, KeyError) as e:
        print("FAILED: exit 1 and no campaign.json phases in %s: %s" % (run, e))
        return 1
    failed = {p: phases.get(p, {}).get("failed", 0) for p in ("build", "kat", "measure")}
    if failed["build"] or failed["kat"] or not failed["measure"]:
        print("FAILED: exit 1 with failures %s (bundled examples must build and pass)" % failed)
        return 1
    reasons = []
    for d, _, files in os.walk(os.path.join(run, "records")):
        for f in sorted(files):
            if f.endswith(".json"):
                r = json.load(open(os.path.join(d, f)))
                if r.get("status") == "FAILED":
                    reasons.append("%s: %s" % (f, r.get("failure", "")[:160]))
    print("note: exit 1 for %d measurement(s) the loaded host spoiled:" % failed["measure"])
    for line in reasons:
        print("  " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
