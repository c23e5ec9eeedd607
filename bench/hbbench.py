#!/usr/bin/env python3
"""The hashbench benchmarks (accuracy, precision, speed, sandbox, variation,
shared), run by bench/accuracy.sh, bench/precision.sh, bench/speed.sh,
bench/sandbox.sh, bench/variation.sh and bench/shared.sh once those have built
hashbench. Each benchmark drives the hashbench binary
exactly as a user would (`hashbench build`, `hashbench measure`), reads the
measurement records it writes, times the independent references where there
are some (`openssl speed`, Google Benchmark, the probe's loop against the one
it replaced in bench/variation.c), prints every ratio side by side and, after
a full run, replaces its own results block in bench/README.md (between the
`<!-- bench:NAME:begin -->` and `<!-- bench:NAME:end -->` markers) with the
figures, the date and the host line. Nothing in that block is typed by hand.
"""

import argparse
import datetime
import glob
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

SIZES = [32, 128, 512, 1024, 4096, 8192, 16384, 65536]
ACCURACY_SIZE = 16384
ACCURACY_TARGET = 3.0       # percent, |ratio - 1|
PRECISION_RATIO_TARGET = 2.0  # percent, run-to-run spread of the ratio to the baseline
SPEED_TARGET = 10.0         # interleaved at least this many times faster than reference
SANDBOX_TARGET = 3.0        # percent, |sandboxed / unsandboxed - 1| per figure
SANDBOX_WALL_TARGET = 10.0  # percent, growth of a whole campaign's wall time
SHARED_TARGET = 3.0         # percent, |library / static build - 1| per figure
# The adaptive planner's time budget per (instance, size) in the quick
# precision and speed runs. Full runs use hashbench's default budget (the
# smaller of 10 s and a tenth of the reference rule's cost at that size), so
# that they show the planner as a campaign runs it.
QUICK_BUDGET = 1


class BenchError(Exception):
    pass


class Ctx:
    """Paths and settings shared by the benchmarks."""

    def __init__(self, args):
        self.name = args.bench
        self.root = os.path.abspath(args.root)
        self.build = os.path.abspath(args.build)
        self.quick = args.quick
        self.write_readme = not args.quick and not args.no_readme
        self.cpu = args.cpu if args.cpu is not None else max(os.sched_getaffinity(0))
        self.hashbench = os.path.join(self.build, "hashbench")
        self.work = os.path.join(self.build, "bench-work", self.name)
        self.log = os.path.join(self.work, "commands.log")
        self.load_before = os.getloadavg()[0]
        self.started = time.monotonic()
        self.failed_records = 0
        shutil.rmtree(self.work, ignore_errors=True)
        os.makedirs(self.work)

    def run(self, argv, what, ok_codes=(0,)):
        """Run ARGV, appending its output to the log; returns (stdout, wall s)."""
        with open(self.log, "a") as log:
            log.write("$ " + " ".join(argv) + "\n")
            log.flush()
            t0 = time.monotonic()
            p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=log, text=True)
            wall = time.monotonic() - t0
            log.write(p.stdout)
        if p.returncode not in ok_codes:
            raise BenchError("%s failed (exit %d); see %s" % (what, p.returncode, self.log))
        return p.stdout, wall


def say(text=""):
    print(text, flush=True)


def pct(x):
    return "%.2f %%" % x


# ---------------------------------------------------------------- hashbench


def build_run_dir(ctx, run_dir, packages):
    pkgs = [os.path.join(ctx.root, "examples", p) for p in packages]
    ctx.run([ctx.hashbench, "build", "--run-dir", run_dir, "--jobs", "2"] + pkgs,
            "hashbench build")


def measure(ctx, run_dir, instances, sizes, plan="interleaved", extra=(), tolerate=False):
    """One `hashbench measure` run; returns (wall seconds, {(inst, size): record})."""
    argv = [ctx.hashbench, "measure", "--run-dir", run_dir, "--plan", plan,
            "--cpu", str(ctx.cpu), "--sizes", ",".join(map(str, sizes)),
            "--instances", ",".join(instances), "--force", "--allow-unfit-host"] + list(extra)
    _, wall = ctx.run(argv, "hashbench measure", ok_codes=(0, 1) if tolerate else (0,))
    recs = {}
    for path in glob.glob(os.path.join(run_dir, "records", "*", "*__hash_*.json")):
        with open(path) as f:
            r = json.load(f)
        if r["instance"] in instances and r["size_bytes"] in sizes:
            if r.get("status") != "OK":
                if tolerate:  # counted and said, not a reason to stop the bench
                    say("%s: status %s: %s" % (path, r.get("status"), r.get("failure")))
                    ctx.failed_records += 1
                    continue
                raise BenchError("%s: status %s: %s" % (path, r.get("status"), r.get("failure")))
            recs[(r["instance"], r["size_bytes"])] = r
    missing = [(i, s) for i in instances for s in sizes if (i, s) not in recs]
    if missing and not tolerate:
        raise BenchError("hashbench measure wrote no record for %s" % missing)
    return wall, recs


def library_of(run_dir, instance):
    with open(os.path.join(run_dir, "build.json")) as f:
        for e in json.load(f)["instances"]:
            if e["instance"] == instance:
                return os.path.join(run_dir, e["library"]), e["digest_bits"]
    raise BenchError("%s/build.json has no instance %s" % (run_dir, instance))


# ---------------------------------------------------------------- host line


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            text = f.read()
    except OSError:
        return "unknown CPU", False
    m = re.search(r"^model name\s*:\s*(.+)$", text, re.M)
    return (m.group(1).strip() if m else "unknown CPU"), (" hypervisor" in text)


def host_line(ctx, record):
    model, vm = cpu_model()
    env = record.get("environment", {})
    ctr = env.get("counter", {})
    kind = "core cycles" if ctr.get("is_cycles") else "not core cycles"
    rate = ctr.get("rate_hz") or 0
    return ("%s, %d cores%s, Linux %s, counter %s (%s, %.3f GHz), core %d, "
            "load average %.1f before / %.1f after (1 min)" % (
                model, os.cpu_count(), ", virtual machine" if vm else "",
                os.uname().release, ctr.get("name", "?"), kind, rate / 1e9, ctx.cpu,
                ctx.load_before, os.getloadavg()[0]))


def counter_unit(record):
    ctr = record.get("environment", {}).get("counter", {})
    return "cycles" if ctr.get("is_cycles") else "%s ticks" % ctr.get("name", "counter")


def revision(ctx):
    try:
        rev = subprocess.run(["git", "-C", ctx.root, "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", ctx.root, "status", "--porcelain",
                                "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
    except OSError:
        return "unknown"
    return (rev + (" with local changes" if dirty else "")) if rev else "unknown"


def header(ctx, record, command):
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return ["Measured %s by `%s` (%.0f s), hashbench at %s." % (
                now, command, time.monotonic() - ctx.started, revision(ctx)),
            "",
            "Host: " + host_line(ctx, record) + ".",
            ""]


def write_readme(ctx, lines):
    path = os.path.join(ctx.root, "bench", "README.md")
    begin = "<!-- bench:%s:begin -->" % ctx.name
    end = "<!-- bench:%s:end -->" % ctx.name
    block = begin + "\n" + "\n".join(lines).rstrip() + "\n" + end
    with open(path) as f:
        text = f.read()
    if begin in text and end in text:
        a = text.index(begin)
        b = text.index(end) + len(end)
        text = text[:a] + block + text[b:]
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.replace(path + ".tmp", path)
    say("%s: wrote the results block of %s" % (ctx.name, path))


def finish(ctx, lines, command):
    """Print LINES (a Markdown block) and, after a full run, put it in the README."""
    say()
    say("\n".join(lines))
    if ctx.write_readme:
        write_readme(ctx, lines)
    elif ctx.quick:
        say("(quick run: bench/README.md left unchanged; run `%s` for its figures)" % command)


def spread(values):
    """(max - min) / median, in percent."""
    med = statistics.median(values)
    return (max(values) - min(values)) / med * 100.0 if med else float("inf")


def verdict(value, target, higher_is_better=False):
    if higher_is_better:
        if value >= target:
            return "met"
        return "missed: %.1f× reached, %.0f× wanted (%.1f times short)" % (
            value, target, target / value if value > 0 else float("inf"))
    if value <= target:
        return "met"
    return "missed by %.2f percentage points (%.1f times the target)" % (
        value - target, value / target)


# ---------------------------------------------------------------- accuracy


ACCURACY_SIZES = [64, ACCURACY_SIZE]  # a short size and 16 KiB


def openssl_speed(ctx, digest, seconds, size=ACCURACY_SIZE):
    """MB/s of `openssl speed -evp DIGEST` at SIZE bytes, elapsed mode."""
    out, _ = ctx.run(["taskset", "-c", str(ctx.cpu), "openssl", "speed", "-evp", digest,
                      "-bytes", str(size), "-elapsed", "-seconds", str(seconds)],
                     "openssl speed")
    m = re.search(r"^%s\s+([0-9.]+)k\s*$" % re.escape(digest), out, re.M)
    if not m:
        raise BenchError("cannot read the result of openssl speed -evp %s; see %s"
                         % (digest, ctx.log))
    return float(m.group(1)) * 1000.0 / 1e6


def gbench(ctx, lib, bits, min_time, size=ACCURACY_SIZE):
    """MB/s of Google Benchmark timing CryptHash of LIB at SIZE bytes."""
    out, _ = ctx.run(["taskset", "-c", str(ctx.cpu), os.path.join(ctx.build, "gbench_crypthash"),
                      "--lib=" + lib, "--size=%d" % size, "--bits=%d" % bits,
                      "--benchmark_format=json", "--benchmark_min_time=%g" % min_time],
                     "gbench_crypthash")
    b = json.loads(out)["benchmarks"][0]
    if b.get("error_occurred"):
        raise BenchError("gbench_crypthash %s: %s" % (lib, b.get("error_message")))
    return b["bytes_per_second"] / 1e6


def harness_of(rec):
    """The record's harness cost per call in ns (measure/harness.h), or None."""
    v = (rec.get("verification") or {}).get("harness_ns_per_call")
    return v if isinstance(v, (int, float)) and v >= 0 else None


def ratio_cell(values):
    if not values:
        return "n/a"
    return "%.3f (%.3f–%.3f)" % (statistics.median(values), min(values), max(values))


def bench_accuracy(ctx):
    rounds = 2 if ctx.quick else 5
    ossl_s = 1 if ctx.quick else 2
    gb_s = 0.3 if ctx.quick else 1.0
    sizes = ACCURACY_SIZES
    run_dir = os.path.join(ctx.work, "run")
    build_run_dir(ctx, run_dir, ["SHA2"])
    subjects = [("OpenSSL_SHA256", "sha256"), ("OpenSSL_SM3", "sm3"), ("SHA256", None)]
    names = [s[0] for s in subjects]
    libs = {n: library_of(run_dir, n) for n in names}
    cells = [(n, z) for n in names for z in sizes]
    # per (instance, size), one entry per round: hashbench's MB/s and mean
    # ns per call, its CV, the harness cost, openssl speed, Google Benchmark
    hb, ns, cv, harness, ossl, gb = ({c: [] for c in cells} for _ in range(6))
    rec0 = None

    def time_hashbench(n, digest):
        nonlocal rec0
        _, recs = measure(ctx, run_dir, [n], sizes)
        for z in sizes:
            rec = recs[(n, z)]
            hb[(n, z)].append(rec["derived"]["mb_per_s"])
            ns[(n, z)].append(rec["derived"]["mean_ns_per_call"])
            if rec["derived"].get("cv_percent") is not None:  # (one window: none)
                cv[(n, z)].append(rec["derived"]["cv_percent"])
            harness[(n, z)].append(harness_of(rec))
            rec0 = rec0 or rec

    def time_openssl(n, digest):
        for z in sizes:
            ossl[(n, z)].append(openssl_speed(ctx, digest, ossl_s, z) if digest else None)

    def time_gbench(n, digest):
        for z in sizes:
            gb[(n, z)].append(gbench(ctx, libs[n][0], libs[n][1], gb_s, z))

    def without_harness(c, k):
        """Round K's hashbench MB/s of cell C with the harness cost taken out
        (an upper bound of what the harness takes; not a published figure)."""
        h = harness[c][k]
        if h is None or not ns[c][k] > h:
            return None
        return c[1] / (ns[c][k] - h) * 1e3

    def ratios(c, ref, bare=False):
        out = []
        for k in range(len(hb[c])):
            mine = without_harness(c, k) if bare else hb[c][k]
            if mine is not None and ref[c][k]:
                out.append(mine / ref[c][k])
        return out

    # The three timers of one instance run back to back in every round, so
    # that a ratio compares figures taken within seconds of each other; their
    # order is rotated from round to round so that none is always first.
    timers = [time_hashbench, time_openssl, time_gbench]
    for r in range(rounds):
        say("accuracy: round %d/%d" % (r + 1, rounds))
        for n, digest in subjects:
            for t in timers[r % 3:] + timers[:r % 3]:
                t(n, digest)
        for c in cells:
            h = harness[c][r]
            parts = ["  %s %d B: hashbench %.1f MB/s" % (c[0], c[1], hb[c][r])]
            if ossl[c][r]:
                parts.append("openssl %.1f (%.3f)" % (ossl[c][r], hb[c][r] / ossl[c][r]))
            parts.append("Google Benchmark %.1f (%.3f)" % (gb[c][r], hb[c][r] / gb[c][r]))
            parts.append("harness %s" % ("%.0f ns/call (%.1f %%)" % (h, h / ns[c][r] * 100)
                                         if h is not None else "not recorded"))
            say(", ".join(parts))

    cmd = "bench/accuracy.sh" + (" --quick" if ctx.quick else "")
    lines = header(ctx, rec0, cmd)
    lines += ["%d rounds at %s B; in each round every instance is timed by the three "
              "timers back to back at every size, their order rotated from round to round: "
              "`hashbench measure` (the default planner: trial sessions, its default "
              "settings; the figure is the mean over windows), `openssl speed -evp -elapsed "
              "-seconds %g -bytes N`, Google Benchmark (`--benchmark_min_time=%g`, real "
              "time). Figures are medians over rounds; a ratio is the median of the "
              "per-round ratios, with its range over rounds. hashbench CV: the median over "
              "rounds of the coefficient of variation of its trial means, a gauge of the "
              "machine's noise. Harness: what hashbench's window holds besides the hash at "
              "that size (fresh messages, chaining, loop; `verification.harness_ns_per_call`, "
              "timed on hashbench's null library), per call and as a share of hashbench's "
              "mean time; the last two columns take it out of hashbench's figure, an upper "
              "bound of what it explains (hashbench publishes the figure with it)." % (
                  rounds, " and ".join(map(str, sizes)), ossl_s, gb_s), "",
              "| instance | size | hashbench MB/s | hashbench CV | openssl speed MB/s "
              "| Google Benchmark MB/s | hashbench / openssl | hashbench / Google Benchmark "
              "| harness per call | without harness / openssl "
              "| without harness / Google Benchmark |",
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    worst, worst_bare = 0.0, 0.0
    for c in cells:
        n, z = c
        r_os, r_gb = ratios(c, ossl), ratios(c, gb)
        b_os, b_gb = ratios(c, ossl, True), ratios(c, gb, True)
        for v in (r_os, r_gb):
            if v:
                worst = max(worst, abs(statistics.median(v) - 1) * 100)
        for v in (b_os, b_gb):
            if v:
                worst_bare = max(worst_bare, abs(statistics.median(v) - 1) * 100)
        hs = [h for h in harness[c] if h is not None]
        shares = [h / m * 100 for h, m in zip(harness[c], ns[c]) if h is not None]
        os_mb = [o for o in ossl[c] if o]
        lines.append("| %s | %d | %.1f | %s | %s | %.1f | %s | %s | %s | %s | %s |" % (
            n, z, statistics.median(hb[c]),
            pct(statistics.median(cv[c])) if cv[c] else "n/a",
            "%.1f" % statistics.median(os_mb) if os_mb else "n/a",
            statistics.median(gb[c]), ratio_cell(r_os), ratio_cell(r_gb),
            "%.0f ns (%.1f %%)" % (statistics.median(hs), statistics.median(shares))
            if hs else "not recorded", ratio_cell(b_os), ratio_cell(b_gb)))
    lines += ["", "Per round (hashbench / openssl speed, hashbench / Google Benchmark):", "",
              "| instance | size | " + " | ".join("round %d" % (k + 1) for k in range(rounds))
              + " |", "| --- | ---: |" + " ---: |" * rounds]
    for c in cells:
        row = []
        for k in range(rounds):
            o = "%.3f" % (hb[c][k] / ossl[c][k]) if ossl[c][k] else "n/a"
            row.append("%s, %.3f" % (o, hb[c][k] / gb[c][k]))
        lines.append("| %s | %d | %s |" % (c[0], c[1], " | ".join(row)))
    lines += ["",
              "`openssl speed` times OpenSSL's own code, so it is a reference for the "
              "OpenSSL-backed instances only (n/a for the SHA-256 example).",
              "",
              "**Target: every ratio within %.0f %% of 1. Largest deviation: %s — %s.** "
              "With the harness cost taken out: %s." % (
                  ACCURACY_TARGET, pct(worst), verdict(worst, ACCURACY_TARGET),
                  pct(worst_bare))]
    finish(ctx, lines, "bench/accuracy.sh")


# ---------------------------------------------------------------- precision

T95 = {1: 12.7062, 2: 4.3027, 3: 3.1824, 4: 2.7764, 5: 2.5706, 6: 2.4469, 7: 2.3646,
       8: 2.3060, 9: 2.2622, 10: 2.2281, 15: 2.1314, 20: 2.0860, 30: 2.0423}


def t95(df):
    """t(0.975, df) from the nearest smaller row (as src/measure/stats.c)."""
    rows = [d for d in sorted(T95) if d <= df]
    return T95[rows[-1]] if rows and df <= 30 else (1.96 if df > 30 else float("nan"))


def iid_interval(record):
    """The 95 % interval the record would state if its kept trials were
    independent: mean +- t(k-1) sd(m_i) / sqrt(k)."""
    kept = [t for t in record["trials"] if not t["disturbed"]]
    m = [t["ticks"] / t["calls"] for t in kept]
    mean = record["derived"]["mean_ticks_per_call"]
    if len(m) < 2:
        return float("nan"), float("nan")
    half = t95(len(m) - 1) * statistics.stdev(m) / math.sqrt(len(m))
    return mean - half, mean + half


def ratio_of(recs, inst, size, base="OpenSSL_SM3"):
    """(ratio, low, high): the record's paired ratio to the baseline, or the
    ratio of the two figures (no interval) when it has none."""
    d = recs[(inst, size)]["derived"]
    pr = d.get("paired_ratio")
    if pr:
        return pr["ratio"], pr["ci95_low"], pr["ci95_high"]
    b = recs[(base, size)]["derived"]
    return d["ticks_per_byte"] / b["ticks_per_byte"], float("nan"), float("nan")


def inside(v, lo, hi):
    return lo <= v <= hi


def renamed_copy(ctx, package, name):
    """A copy of examples/PACKAGE under the work folder whose one instance is
    called NAME (its ALGORITHM_INSTANCE): the same code, another instance."""
    dst = os.path.join(ctx.work, "packages", name)
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(os.path.join(ctx.root, "examples", package), dst)
    for d, _, files in os.walk(dst):
        for f in files:
            if f.startswith("CryptHash_") and f.endswith(".h"):
                path = os.path.join(d, f)
                with open(path) as fh:
                    text = fh.read()
                text = text.replace('ALGORITHM_INSTANCE "%s"' % package,
                                    'ALGORITHM_INSTANCE "%s"' % name)
                with open(path, "w") as fh:
                    fh.write(text)
    return dst


def median_ratio(record):
    """(ratio, low, high) of a record's paired figure: the median of pair
    ratios where the record has it, else the paired ratio of means."""
    d = record["derived"]
    m = d.get("paired_median") or d.get("pair_median")
    if m:
        return m["ratio"], m["ci95_low"], m["ci95_high"]
    pr = d["paired_ratio"]
    return pr["ratio"], pr["ci95_low"], pr["ci95_high"]


def ratio_drift_of(recs):
    """The host's ratio drift as hashbench records it (report/ratiodrift.c),
    from one run's records: per size the P10-P90 spread of its blocks'
    median SHA-256 / SM3 log ratios, the pooled spread, and each size's
    margin (half the larger of the two), in percent."""
    first, second = "baseline/OpenSSL_SM3", "baseline/OpenSSL_SHA256"

    def q(v, p):
        v = sorted(v)
        k = (len(v) - 1) * p
        i = int(math.floor(k))
        return v[i] if i + 1 >= len(v) else v[i] + (v[i + 1] - v[i]) * (k - i)

    def spread_pct(dev):
        return (math.exp(q(dev, 0.9) - q(dev, 0.1)) - 1) * 100

    per, pooled = {}, []
    for size in sorted({s for (_, s) in recs}):
        g = []
        for (inst, s), r in recs.items():
            if s != size:
                continue
            for i, t in enumerate(r["trials"]):
                w = {p["instance"]: p for p in t.get("pairs") or []}
                if first in w and second in w and w[first]["calls"] and w[second]["calls"]:
                    a = w[first]["ns"] / w[first]["calls"]
                    b = w[second]["ns"] / w[second]["calls"]
                    if a > 0 and b > 0:
                        g.append((t.get("round", i), t.get("slot", 0), math.log(b / a)))
        if not g:
            continue
        g.sort()
        logs = [x[2] for x in g]
        med = statistics.median(logs)
        n = len(logs)
        blocks = min(4, n // 3)
        dev = [statistics.median(logs[b * n // blocks:(b + 1) * n // blocks]) - med
               for b in range(blocks)] if blocks >= 2 else []
        pooled += dev
        per[size] = spread_pct(dev) if len(dev) >= 2 else float("nan")
    within = spread_pct(pooled) if len(pooled) >= 4 else float("nan")
    margin = {s: max(v if v == v else 0.0, within if within == within else 0.0) / 2
              for s, v in per.items()}
    return per, within, margin


def precision_table(recs_of, drift, sizes, instances, copy):
    """The per-size rows, the readings and the coverage of one setting's runs."""
    rows, aa_all, worst = [], [], [0.0, 0.0]
    for s in sizes:
        aa = [abs(median_ratio(rr[(copy, s)])[0] / median_ratio(rr[("SM3", s)])[0] - 1) * 100
              for rr in recs_of]
        aa_all += aa
        sp = max(spread([median_ratio(rr[(i, s)])[0] for rr in recs_of]) for i in instances)
        dr = [d[0].get(s, float("nan")) for d in drift]
        mg = [d[2].get(s, float("nan")) for d in drift]
        worst = [max(worst[0], max(aa)), max(worst[1], sp)]
        rows.append("| %d B | %s | %s | %s | %s | %s | %s |" % (
            s, pct(max(aa)), pct(statistics.median(aa)), pct(sp),
            pct(statistics.median(dr)), pct(statistics.median(mg)),
            "met" if max(aa) <= 1.0 and sp <= 3.0 else "missed"))
    # coverage: does a record's ratio interval, as recorded and as published
    # (widened by the run's margin at that size), hold the median of the runs?
    hit = hit_pub = n = 0
    for i in instances:
        for s in sizes:
            ratios = [median_ratio(rr[(i, s)]) for rr in recs_of]
            med = statistics.median(x[0] for x in ratios)
            for k, x in enumerate(ratios):
                m = drift[k][2].get(s, 0.0) / 100
                n += 1
                hit += inside(med, x[1], x[2])
                hit_pub += inside(med, x[1] / (1 + m), x[2] * (1 + m))
    return rows, aa_all, worst, hit / n, hit_pub / n


def bench_precision(ctx):
    runs = 3 if ctx.quick else 5
    sizes = [32, 1024, 65536] if ctx.quick else SIZES
    copy = "SM3copy"
    instances = ["SM3", "SHA512", copy]
    timed = instances + ["OpenSSL_SM3"]
    run_dir = os.path.join(ctx.work, "run")
    pkgs = [os.path.join(ctx.root, "examples", p) for p in ("SM3", "SHA2")]
    pkgs.append(renamed_copy(ctx, "SM3", copy))
    ctx.run([ctx.hashbench, "build", "--run-dir", run_dir, "--jobs", "2"] + pkgs,
            "hashbench build")
    # two settings, their campaigns alternating (who goes first alternating
    # too): the default, and more groups per cell (HB_PRECISION_TRIALS, 64)
    more = os.environ.get("HB_PRECISION_TRIALS", "64")
    settings = [("default", []), ("--trials " + more, ["--trials", more])]
    recs_of = {k: [] for k, _ in settings}
    wall = {k: [] for k, _ in settings}
    drift = {k: [] for k, _ in settings}
    for k in range(runs):
        for name, extra in (settings if k % 2 == 0 else settings[::-1]):
            say("precision: run %d/%d, %s" % (k + 1, runs, name))
            w, recs = measure(ctx, run_dir, timed, sizes, extra=extra)
            recs_of[name].append(recs)
            wall[name].append(w)
            drift[name].append(ratio_drift_of(recs))
            # each run's records kept (the next run overwrites the run
            # directory's), to study run-to-run changes afterwards
            kept = os.path.join(ctx.work, "runs", "%s-%d" % (
                "default" if not extra else "trials" + more, k + 1))
            shutil.rmtree(kept, ignore_errors=True)
            shutil.copytree(os.path.join(run_dir, "records"), kept)
    rec0 = recs_of["default"][0][(instances[0], sizes[0])]
    pairs = rec0["derived"]["paired_ratio"]["pairs"]
    cmd = "bench/precision.sh" + (" --quick" if ctx.quick else "")
    lines = header(ctx, rec0, cmd)
    lines += ["%d independent `hashbench measure --force` runs of each of two settings, the "
              "default (%d groups per cell) and `--trials %s`, their runs alternating, on "
              "the SM3 and SHA-512 examples, a copy of the SM3 example under another "
              "instance name (%s) and the OpenSSL SM3 baseline (OpenSSL SHA-256 joins for "
              "the ratio drift). Per size: A/A, |copy / SM3 - 1| of the paired ratios, the "
              "worst and the median of the runs; the run-to-run spread (max - min) / median "
              "of each paired ratio (worst of the three instances); beside it the host's "
              "ratio drift each run recorded (P10-P90 of its SHA-256 / SM3 blocks at that "
              "size, median of the runs) and the margin every published interval at that "
              "size is widened by (median of the runs). Wall time of one measure run: "
              "default %.0f s, `--trials %s` %.0f s (medians)." % (
                  runs, pairs, more, copy, statistics.median(wall["default"]), more,
                  statistics.median(wall[settings[1][0]])), ""]
    verdicts = []
    for name, _ in settings:
        rows, aa_all, worst, cov, cov_pub = precision_table(
            recs_of[name], drift[name], sizes, instances, copy)
        within_runs = ", ".join(pct(d[1]) for d in drift[name])
        over = sum(1 for v in aa_all if v > 1.0)
        lines += ["**%s**" % ("Default settings" if name == "default" else "`%s`" % name), "",
                  "| size | A/A worst | A/A median | ratio spread between runs | recorded "
                  "ratio drift | published margin | verdict (A/A <= 1 %, spread <= 3 %) |",
                  "| ---: | ---: | ---: | ---: | ---: | ---: | --- |"] + rows + [
                  "", "Interval coverage: the share of paired-ratio intervals that contain "
                  "the median of the runs' ratios: as recorded %s, as published (widened by "
                  "the margin) %s. The pooled ratio drift each run recorded: %s. A/A above "
                  "1 %%: %d of the %d (size, run) readings." % (
                      pct(100 * cov), pct(100 * cov_pub), within_runs, over, len(aa_all)), ""]
        verdicts.append("%s: A/A within 1 %% at every size (worst %s, median of the "
                        "readings %s — %s), ratio spread at most 3 %% (worst %s — %s), "
                        "coverage at least 90 %% (%s — %s)" % (
                            "default" if name == "default" else "`%s`" % name,
                            pct(worst[0]), pct(statistics.median(aa_all)),
                            verdict(worst[0], 1.0), pct(worst[1]), verdict(worst[1], 3.0),
                            pct(100 * cov), "met" if cov >= 0.9 else "missed"))
    lines += ["**Targets. " + "; ".join(verdicts) + ".**"]
    finish(ctx, lines, "bench/precision.sh")


# ---------------------------------------------------------------- speed


def bench_speed(ctx):
    rounds = 2
    sizes = [32, 4096] if ctx.quick else SIZES
    packages = ["SM3", "SHA2"] if ctx.quick else ["SM3", "SHA2", "SHA3"]
    run_dir = os.path.join(ctx.work, "run")
    build_run_dir(ctx, run_dir, packages)
    with open(os.path.join(run_dir, "build.json")) as f:
        instances = [e["instance"] for e in json.load(f)["instances"]
                     if e.get("status") == "BUILT"]
    plans = ["reference", "interleaved-processes", "interleaved"]
    extra = ["--budget", str(QUICK_BUDGET)] if ctx.quick else []
    wall = {p: [] for p in plans}
    cpb = {(p, i, s): [] for p in plans for i in instances for s in sizes}
    rec0 = None
    for r in range(rounds):
        for p in (plans if r % 2 == 0 else plans[::-1]):  # alternate who goes first
            say("speed: round %d/%d, %s planner" % (r + 1, rounds, p))
            # (a FAILED record does not stop the bench: the spreads leave it out)
            w, recs = measure(ctx, run_dir, instances, sizes, plan=p,
                              extra=extra if p == "interleaved-processes" else [],
                              tolerate=True)
            wall[p].append(w)
            for (i, s), rec in recs.items():
                cpb[(p, i, s)].append(rec["derived"]["ticks_per_byte"])
            rec0 = rec0 or next(iter(recs.values()), None)
    unit = counter_unit(rec0)
    cmd = "bench/speed.sh" + (" --quick" if ctx.quick else "")
    lines = header(ctx, rec0, cmd)
    sp = {p: [spread(cpb[(p, i, s)]) for i in instances for s in sizes
              if len(cpb[(p, i, s)]) >= 2] for p in plans}
    med = {p: statistics.median(wall[p]) for p in plans}
    lines += ["%d rounds; in each, one `hashbench measure --force` stage per planner over %d "
              "instances (the bundled examples and the OpenSSL SM3 baseline) at %d sizes, the "
              "order alternating between rounds%s. Wall time of the stage: median (range). "
              "Spread: for each (instance, size), (max − min) / median over the rounds of "
              "the mean %s per byte; median and worst over all of them. Records that ended "
              "FAILED (every trial disturbed) are left out of the spreads: %d." % (
                  rounds, len(instances), len(sizes),
                  ", budget %g s for the short-trial planners" % QUICK_BUDGET
                  if ctx.quick else "", unit, ctx.failed_records), "",
              "| planner | stage wall | spread median / worst |",
              "| --- | ---: | ---: |"]
    for p in plans:
        lines.append("| %s | %.1f s (%.1f–%.1f) | %s / %s |" % (
            p, med[p], min(wall[p]), max(wall[p]), pct(statistics.median(sp[p])),
            pct(max(sp[p]))))
    vs_ref = med["reference"] / med["interleaved"]
    vs_ada = med["interleaved-processes"] / med["interleaved"]
    spread_ok = statistics.median(sp["interleaved"]) <= statistics.median(sp["reference"])
    lines += ["", "**Targets: sessions (interleaved) no slower than one process per trial "
              "(interleaved-processes: %.2f× its speed — %s), at "
              "least %.0f× faster than the reference rule (%.1f× — %s), spread no worse than "
              "the reference rule's (%s vs %s median — %s).**" % (
                  vs_ada, verdict(vs_ada, 1.0, higher_is_better=True), SPEED_TARGET, vs_ref,
                  verdict(vs_ref, SPEED_TARGET, higher_is_better=True),
                  pct(statistics.median(sp["interleaved"])),
                  pct(statistics.median(sp["reference"])),
                  "met" if spread_ok else "missed")]
    finish(ctx, lines, "bench/speed.sh")


def bench_sandbox(ctx):
    """The sandbox's cost: the same instances measured with and without it,
    alternated in one run (figures: ratio of mean ticks per byte), and a
    whole demo campaign (`hashbench run --loop`, every stage) with and
    without it (wall time)."""
    rounds = 2 if ctx.quick else 4
    sizes = [64, 16384] if ctx.quick else [32, 1024, 16384]
    instances = ["SM3", "SHA256"] if ctx.quick else ["SM3", "SHA256", "SHA512", "SHA3_256"]
    modes = ["sandbox", "no-sandbox"]
    run_dir = os.path.join(ctx.work, "run")
    build_run_dir(ctx, run_dir, ["SM3", "SHA2", "SHA3"])
    cpb = {(m, i, s): [] for m in modes for i in instances for s in sizes}
    rec0 = None
    for r in range(rounds):
        for m in (modes if r % 2 == 0 else modes[::-1]):  # alternate who goes first
            say("sandbox: round %d/%d, %s" % (r + 1, rounds, m))
            extra = ["--no-sandbox"] if m == "no-sandbox" else []
            _, recs = measure(ctx, run_dir, instances, sizes, extra=extra)
            for i in instances:
                for s in sizes:
                    cpb[(m, i, s)].append(recs[(i, s)]["derived"]["ticks_per_byte"])
            rec0 = rec0 or recs[(instances[0], sizes[0])]
    walls = {m: [] for m in modes}
    campaign_rounds = 1 if ctx.quick else 2
    run_args = ["--allow-unfit-host", "--loop", "--cpu", str(ctx.cpu)]
    if ctx.quick:
        run_args += ["--sizes", "64,16384", "--budget", str(QUICK_BUDGET)]
    for r in range(campaign_rounds):
        for m in (modes if r % 2 == 0 else modes[::-1]):
            say("sandbox: campaign %d/%d, %s" % (r + 1, campaign_rounds, m))
            d = os.path.join(ctx.work, "campaign-%s-%d" % (m, r))
            argv = [ctx.hashbench, "run", "--run-dir", d] + run_args
            if m == "no-sandbox":
                argv.append("--no-sandbox")
            with open(ctx.log, "a") as log:
                log.write("$ " + " ".join(argv) + "\n")
                t0 = time.monotonic()
                p = subprocess.run(argv, stdout=log, stderr=log)
                walls[m].append(time.monotonic() - t0)
            if p.returncode > 1:
                raise BenchError("hashbench run failed (exit %d); see %s" % (p.returncode, ctx.log))
    unit = counter_unit(rec0)
    cmd = "bench/sandbox.sh" + (" --quick" if ctx.quick else "")
    lines = header(ctx, rec0, cmd)
    lines += ["%d rounds; in each, `hashbench measure` times %s at %s bytes once sandboxed "
              "and once with `--no-sandbox`, the order alternating between rounds. Ratio: "
              "median over rounds of sandboxed / unsandboxed mean %s per byte, with the "
              "range of the per-round ratios." % (
                  rounds, ", ".join(instances), ", ".join(map(str, sizes)), unit), "",
              "| instance | " + " | ".join("%d B" % s for s in sizes) + " |",
              "| --- | " + " | ".join("---:" for _ in sizes) + " |"]
    worst = 0.0
    for i in instances:
        cells = []
        for s in sizes:
            ratios = [a / b for a, b in zip(cpb[("sandbox", i, s)], cpb[("no-sandbox", i, s)])]
            med = statistics.median(ratios)
            worst = max(worst, abs(med - 1) * 100)
            cells.append("%.3f (%.2f–%.2f)" % (med, min(ratios), max(ratios)))
        lines.append("| %s | %s |" % (i, " | ".join(cells)))
    ws, wn = statistics.median(walls["sandbox"]), statistics.median(walls["no-sandbox"])
    growth = (ws / wn - 1) * 100
    lines += ["", "Whole campaign (`hashbench run %s` on the examples, fresh run directory, "
              "%d round(s)): sandboxed %.1f s, unsandboxed %.1f s: %+.1f %%." % (
                  " ".join(run_args), campaign_rounds, ws, wn, growth), "",
              "**Targets: every figure within %.0f %% (worst %.2f %%) — %s; campaign wall time "
              "growth under %.0f %% (%+.1f %%) — %s.**" % (
                  SANDBOX_TARGET, worst, verdict(worst, SANDBOX_TARGET), SANDBOX_WALL_TARGET,
                  growth, verdict(growth, SANDBOX_WALL_TARGET))]
    finish(ctx, lines, "bench/sandbox.sh")


# ---------------------------------------------------------------- variation


def build_variation(ctx):
    """bench/variation.c, built into the build folder like the probe."""
    out = os.path.join(ctx.build, "variation")
    ctx.run([os.environ.get("CC", "cc"), "-std=c11", "-D_GNU_SOURCE", "-O2", "-Wall",
             "-Wextra", "-Werror", "-o", out, os.path.join(ctx.root, "bench", "variation.c"),
             "-ldl"], "building bench/variation.c")
    return out


def bench_variation(ctx):
    rounds = 3 if ctx.quick else 15
    sizes = [32, 4096] if ctx.quick else SIZES
    run_dir = os.path.join(ctx.work, "run")
    build_run_dir(ctx, run_dir, ["SM3", "SHA2", "SHA3"])
    with open(os.path.join(run_dir, "build.json")) as f:
        entries = [e for e in json.load(f)["instances"] if e.get("status") == "BUILT"]
    libs = ["%s:%d:%s" % (e["instance"], e["digest_bits"],
                          os.path.join(run_dir, e["library"])) for e in entries]
    exe = build_variation(ctx)
    say("variation: %d instances x %d sizes, %d rounds each" % (len(libs), len(sizes), rounds))
    out, _ = ctx.run([exe, "--cpu", str(ctx.cpu), "--rounds", str(rounds), "--sizes",
                      ",".join(map(str, sizes))] + libs, "bench/variation.c")
    rows, counter = [], {}
    for line in out.splitlines():
        f = line.split()
        if f[0] == "counter":
            counter = {"name": f[1], "is_cycles": False, "rate_hz": float(f[2])}
        else:
            rows.append((f[0], int(f[1]), int(f[2])) + tuple(float(x) for x in f[3:]))
    unit = "%s ticks" % counter.get("name", "counter")
    cmd = "bench/variation.sh" + (" --quick" if ctx.quick else "")
    lines = header(ctx, {"environment": {"counter": counter}}, cmd)
    lines += ["Every example instance (`hashbench build`, reference profile) and the "
              "OpenSSL SM3 baseline, at each size, in one process pinned to one core: "
              "%d rounds, each timing the loop the probe ran before its messages varied "
              "(one message at one address, one digest buffer) and the probe's loop "
              "(`probe_timed_loop`: call i's message from the trial's seed, two buffers "
              "in turn, a digest slot per call, the words prepared before the clock "
              "starts), about 2 ms each, the order alternating from round to round. "
              "Figures: median %s per call of each loop, and the median (lowest–highest) "
              "of the per-round ratios varying / same. Untimed: the work the probe adds "
              "around its loop in the trial's window (the seed's message, the words, "
              "the fold of the digests), in ns per call, not in any figure." % (rounds, unit),
              "",
              "| instance | size | calls | same message | varying | ratio varying / same | "
              "untimed ns/call |",
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name, size, calls, old, new, med, lo, hi, untimed in rows:
        lines.append("| %s | %d B | %d | %.1f | %.1f | %.3f (%.3f–%.3f) | %.1f |" % (
            name, size, calls, old, new, med, lo, hi, untimed))
    by_size = {s: [r[5] for r in rows if r[1] == s] for s in sizes}
    lines += ["", "Median over the instances of the per-instance median ratio, by size: " +
              ", ".join("%d B %.3f" % (s, statistics.median(v)) for s, v in by_size.items() if v)
              + "."]
    allr = [r[5] for r in rows]
    lines += ["", "**Varying messages cost %+.1f %% per call (median over every instance "
              "and size; lowest %.3f, highest %.3f).**" % (
                  (statistics.median(allr) - 1) * 100, min(allr), max(allr))]
    finish(ctx, lines, "bench/variation.sh")


# ---------------------------------------------------------------- shared


def guide_words(flags, keep_shared):
    """The words of a build.json FLAGS without what hashbench adds to keep a
    library as fast as a static build (hidden visibility, the -include
    header, -fno-semantic-interposition, the version script) and, unless
    KEEP_SHARED, without -fPIC -shared: the guide's flags, defines and
    include folders as a static build would use them."""
    out, skip = [], False
    for w in flags.split(" "):
        if skip:
            skip = False
        elif w == "-include":
            skip = True
        elif w in ("-fvisibility=hidden", "-fno-semantic-interposition") or \
                w.startswith("-Wl,--version-script="):
            pass
        elif w in ("-fPIC", "-shared") and not keep_shared:
            pass
        elif w:
            out.append(w)
    return out


def compile_in(ctx, cwd, argv, what):
    with open(ctx.log, "a") as log:
        log.write("$ (cd %s && %s)\n" % (cwd, " ".join(argv)))
        log.flush()
        p = subprocess.run(argv, cwd=cwd, stdout=log, stderr=log)
    if p.returncode != 0:
        raise BenchError("%s failed (exit %d); see %s" % (what, p.returncode, ctx.log))


def bench_shared(ctx):
    """Each example instance and the CrossCall fixture, as hashbench's
    library, statically linked, and as a library with -fPIC -shared alone,
    timed alternately by bench/shared_timer.c in one run."""
    profiles = ["reference"] if ctx.quick else ["reference", "performance"]
    sizes = [64, 16384]
    rounds = 3 if ctx.quick else 7
    ms = 70 if ctx.quick else 140
    cc = os.environ.get("CC", "cc")
    timer = os.path.join(ctx.root, "bench", "shared_timer.c")
    dl_timer = os.path.join(ctx.work, "shared_timer")
    compile_in(ctx, ctx.work, [cc, "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-o",
                               dl_timer, timer, "-ldl"], "building bench/shared_timer.c")
    pkgs = [os.path.join(ctx.root, "examples", p) for p in ["SHA2", "SHA3", "SM3"]]
    pkgs.append(os.path.join(ctx.root, "bench", "packages", "CrossCall"))
    cells = []  # (profile, instance, bits, {kind: argv prefix})
    for prof in profiles:
        run_dir = os.path.join(ctx.work, "run-" + prof)
        ctx.run([ctx.hashbench, "build", "--run-dir", run_dir, "--profile", prof,
                 "--jobs", "2"] + pkgs, "hashbench build")
        with open(os.path.join(run_dir, "build.json")) as f:
            entries = [e for e in json.load(f)["instances"]
                       if e.get("status") == "BUILT" and not e.get("baseline")]
        for e in entries:
            srcs = [s["path"] for s in e["sources"]]
            exe = os.path.join(ctx.work, "static-%s-%s" % (prof, e["instance"]))
            plain = os.path.join(ctx.work, "plain-%s-lib%s.so" % (prof, e["instance"]))
            # the instance's sources first, as in its library: code placement
            # alone moved a static SHA-3 by 10 % on the development VM
            compile_in(ctx, e["package"], [cc] + guide_words(e["flags"], False) +
                       ["-DHB_STATIC", "-o", exe] + srcs + [timer, "-ldl"],
                       "the static build of " + e["instance"])
            compile_in(ctx, e["package"], [cc] + guide_words(e["flags"], True) +
                       ["-o", plain] + srcs, "the -fPIC -shared build of " + e["instance"])
            cells.append((prof, e["instance"], e["digest_bits"], e["flags"], {
                "static": [exe, "-"],
                "library": [dl_timer, os.path.join(run_dir, e["library"])],
                "plain": [dl_timer, plain]}))
    kinds = ["static", "library", "plain"]
    ns = {}
    say("shared: %d libraries x %d sizes x 3 builds, %d rounds" % (len(cells), len(sizes), rounds))
    for r in range(rounds):
        say("shared: round %d/%d" % (r + 1, rounds))
        for prof, inst, bits, _, argv in cells:
            for s in sizes:
                order = kinds[r % 3:] + kinds[:r % 3]  # nobody always first
                for k in order:
                    out, _ = ctx.run(["taskset", "-c", str(ctx.cpu)] + argv[k] +
                                     [str(s), str(bits), str(ms)], "bench/shared_timer.c")
                    ns.setdefault((prof, inst, s, k), []).append(float(out.strip()))
    cmd = "bench/shared.sh" + (" --quick" if ctx.quick else "")
    lines = header(ctx, {"environment": {"counter": {"name": "CLOCK_MONOTONIC_RAW", "rate_hz": 1e9}}}, cmd)
    lines += ["Each instance built by `hashbench build` (%s), timed by `bench/shared_timer.c` "
              "pinned to core %d: as hashbench's library (dlopen), statically linked into "
              "the timer (same sources, the same guide flags, defines and include folders, "
              "without `-fPIC -shared`), and as a library built with the guide flags and "
              "`-fPIC -shared` alone (what hashbench built before it hid every symbol but "
              "CryptHash). %d rounds, the three builds timed back to back in an order "
              "rotating from round to round; each timing is the median of 7 trials of "
              "about %d ms. Figures: median over rounds of ns per call against the static "
              "build, with the range of the per-round ratios." % (
                  " and ".join(profiles), ctx.cpu, rounds, ms // 7), "",
              "| profile | instance | size | static ns/call | library / static | "
              "`-fPIC -shared` alone / static |",
              "| --- | --- | ---: | ---: | ---: | ---: |"]
    worst = 0.0
    for prof, inst, bits, _, _ in cells:
        for s in sizes:
            st = ns[(prof, inst, s, "static")]
            lib = [a / b for a, b in zip(ns[(prof, inst, s, "library")], st)]
            pl = [a / b for a, b in zip(ns[(prof, inst, s, "plain")], st)]
            worst = max(worst, abs(statistics.median(lib) - 1) * 100)
            lines.append("| %s | %s | %d B | %.1f | %.3f (%.3f–%.3f) | %.3f (%.3f–%.3f) |" % (
                prof, inst, s, statistics.median(st), statistics.median(lib), min(lib),
                max(lib), statistics.median(pl), min(pl), max(pl)))
    lines += ["", "**Target: every library within %.0f %% of its static build (worst %.2f %%) "
              "— %s.**" % (SHARED_TARGET, worst, verdict(worst, SHARED_TARGET))]
    finish(ctx, lines, "bench/shared.sh")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bench", choices=["accuracy", "precision", "speed", "sandbox",
                                       "variation", "shared"])
    ap.add_argument("--root", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--cpu", type=int)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-readme", action="store_true")
    args = ap.parse_args()
    ctx = Ctx(args)
    say("%s: work folder %s (commands and their output: %s)" % (ctx.name, ctx.work, ctx.log))
    try:
        {"accuracy": bench_accuracy, "precision": bench_precision,
         "speed": bench_speed, "sandbox": bench_sandbox,
         "variation": bench_variation, "shared": bench_shared}[ctx.name](ctx)
    except BenchError as e:
        print("%s: %s" % (ctx.name, e), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
