#!/bin/sh
# Signed datasets (ctest: test_dataset_sign): a campaign published with
# `publish --sign KEY` (an Ed25519 key made here with openssl genpkey)
# validates with `validate --key PUB`, and each kind of edit is caught and
# named: a host fact in campaign.json, a disturbed trial of a record, a
# compiler log, a file added, a file removed, the manifest itself, a page
# of the site (with --site), and a key that is not the signer's. A dataset
# republished without --sign loses its stale signature; republished with it,
# it validates again. The signature also verifies with openssl alone.
# Needs HB_BUILD_DIR (with hashbench) and HB_SOURCE_DIR; openssl, python3.
set -u
B="${HB_BUILD_DIR:?}/hashbench"
SRC="${HB_SOURCE_DIR:?}"
T=$(mktemp -d "${TMPDIR:-/tmp}/hb-sign.XXXXXX")
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../checks.sh"
HB_LOCK_DIR="$T/locks"
export HB_LOCK_DIR
mkdir -p "$HB_LOCK_DIR"

openssl genpkey -algorithm ed25519 -out "$T/key.pem" 2>/dev/null &&
    openssl pkey -in "$T/key.pem" -pubout -out "$T/key.pub.pem" &&
    openssl genpkey -algorithm ed25519 -out "$T/other.pem" 2>/dev/null &&
    openssl pkey -in "$T/other.pem" -pubout -out "$T/other.pub.pem" ||
    { bad "openssl cannot make Ed25519 keys"; checks_summary; exit 1; }

"$B" run --run-dir "$T/run" --sizes 64 --budget 0.3 --target-ci 5 --allow-unfit-host \
    --no-loop "$SRC/examples/SM3" >"$T/run.log" 2>&1
rc=$?
[ $rc -le 1 ] || { bad "campaign exit $rc"; tail -3 "$T/run.log"; checks_summary; exit 1; }
"$B" publish --run-dir "$T/run" --system x86_1 --data "$T/D" --sign "$T/key.pem" >"$T/pub.log" 2>&1
rc=$?
if [ $rc -eq 0 ] && [ -s "$T/D/MANIFEST.sha256" ] && [ -s "$T/D/MANIFEST.sha256.sig" ] &&
    grep -q "fingerprint SHA256:[0-9a-f]\{64\}" "$T/pub.log"; then
    ok "publish --sign writes the manifest and its signature, naming the key's fingerprint"
else
    bad "publish --sign: exit $rc"; cat "$T/pub.log"
fi
"$B" report "$T/D" --out "$T/SITE" >/dev/null 2>&1 || bad "report of the signed dataset failed"
# the host's ratio drift, recorded when the measure stage ended, at every
# size, and the paired interval the candidate page publishes widened by its
# margin: [lo / (1 + m), hi * (1 + m)] of the record's (kept as measured)
msg=$(python3 - "$T/D/x86_1" "$T/SITE/x86_1/SM3.md" <<'EOF'
import glob, json, re, sys
sysdir, page = sys.argv[1], open(sys.argv[2]).read()
rd = json.load(open(sysdir + "/campaign.json")).get("ratio_drift") or {}
sizes = {e["size_bytes"]: e for e in rd.get("sizes") or []}
if 64 not in sizes:
    sys.exit("campaign.json ratio_drift has no entry for 64 B: %r" % rd)
e = sizes[64]
pooled = rd.get("spread_percent")
spreads = [x for x in (e.get("spread_percent"), pooled) if isinstance(x, (int, float))]
m = e.get("margin_percent")
# (a loaded host can leave a cell too few groups for 2 blocks of 3: no
# spread is known, and the interval is published as measured)
if not spreads:
    if m is not None or e["blocks"] >= 2 or e["groups"] >= 6:
        sys.exit("64 B: %r: a margin without a spread, or no spread with 2 blocks" % e)
    m = 0.0
elif abs(m - max(spreads) / 2) > 1e-9 * max(1, m):
    sys.exit("margin %r is not half the larger of %r" % (m, spreads))
rec = json.load(open(glob.glob(sysdir + "/records/SM3/SM3__hash_64.json")[0]))
pr = rec["derived"]["paired_ratio"]
if pr.get("ci95_low") is None or pr.get("ci95_high") is None:
    # too few pairs on a loaded host for an interval: none to widen, and
    # the page must show none either
    if re.search(r"^\| SM3 \| 64 B \| [0-9.]+× \(±", page, re.M):
        sys.exit("page: an interval at 64 B where the record has none")
    print("no paired interval recorded at 64 B (%d groups): none published" % e["groups"])
    sys.exit(0)
f = 1 + m / 100
half = (pr["ci95_high"] * f - pr["ci95_low"] / f) / 2 / pr["ratio"] * 100
row = re.search(r"^\| SM3 \| 64 B \| [0-9.]+× \(±([0-9.]+) %\)", page, re.M)
if not row:
    sys.exit("no paired ratio of SM3 at 64 B on its page")
got = float(row.group(1))
if abs(got - half) > 0.006 * half:
    sys.exit("page: ±%s %%, the record's interval widened by %.4g %% gives ±%.4g %%"
             % (row.group(1), m, half))
print("ratio drift at 64 B (%d groups): spread %s %%, margin %.3g %%; SM3's interval ±%s %%"
      " on its page (recorded ±%.3g %%)" % (e["groups"], e.get("spread_percent"), m, row.group(1),
      (pr["ci95_high"] - pr["ci95_low"]) / 2 / pr["ratio"] * 100))
EOF
) && ok "$msg" || bad "$msg"
fp=$(openssl pkey -pubin -in "$T/key.pub.pem" -outform DER | sha256sum | cut -c1-64)
grep -q "fingerprint \`SHA256:$fp\`" "$T/SITE/index.md" &&
    grep -q "hashbench validate DATA --key" "$T/SITE/index.md" &&
    ok "the index page names the signing key's fingerprint and how to verify" ||
    { bad "no fingerprint SHA256:$fp on the index page"; grep -A3 Signature "$T/SITE/index.md"; }
"$B" validate "$T/D" --site "$T/SITE" --key "$T/key.pub.pem" >"$T/v.log" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q "every file is what was signed" "$T/v.log" &&
    ok "the signed dataset validates with its key" || { bad "validate --key: exit $rc"; cat "$T/v.log"; }
openssl pkeyutl -verify -pubin -inkey "$T/key.pub.pem" -rawin -in "$T/D/MANIFEST.sha256" \
    -sigfile "$T/D/MANIFEST.sha256.sig" >/dev/null 2>&1 &&
    ok "the signature verifies with openssl pkeyutl" || bad "openssl pkeyutl does not verify the signature"
(cd "$T/D" && sha256sum -c --quiet MANIFEST.sha256) >/dev/null 2>&1 &&
    ok "the manifest checks with sha256sum -c" || bad "sha256sum -c fails on the manifest"

# edited NAME SCRIPT EXPECT: a copy of the dataset edited by SCRIPT (run in
# it) must fail validate --key with a line matching EXPECT
edited() {
    name=$1 script=$2 expect=$3
    rm -rf "$T/E"
    cp -r "$T/D" "$T/E"
    (cd "$T/E" && eval "$script")
    "$B" validate "$T/E" --key "$T/key.pub.pem" >"$T/e.log" 2>&1
    rc=$?
    if [ $rc -ne 0 ] && grep -q "$expect" "$T/e.log"; then
        ok "$name is caught: $(grep -m1 "$expect" "$T/e.log" | cut -c1-100)"
    else
        bad "$name: validate --key exit $rc, no line matching '$expect'"; cat "$T/e.log"
    fi
}
edited "a host fact (governor)" \
    "python3 -c \"import json; p='x86_1/campaign.json'; d=json.load(open(p)); d['environment']['start']['governor']='performance'; json.dump(d, open(p, 'w'), indent=2)\"" \
    "x86_1/campaign.json: changed since the dataset was signed"
edited "a disturbed trial" \
    "python3 -c \"import json, glob; p=sorted(glob.glob('x86_1/records/SM3/*.json'))[0]; d=json.load(open(p)); d['trials'][0]['disturbed']=True; d['trials'][0]['ticks']+=1; json.dump(d, open(p, 'w'), indent=2)\"" \
    "x86_1/records/SM3/SM3__hash_64.json: changed since"
edited "a compiler log" \
    "f=\$(find x86_1/logs -type f | head -1); echo 'edited' >>\"\$f\"" \
    "x86_1/logs/.*: changed since"
edited "an added file" "echo extra >x86_1/records/SM3/notes.txt" \
    "x86_1/records/SM3/notes.txt: added since the dataset was signed"
edited "a removed file" "rm x86_1/kat.json" "x86_1/kat.json: removed since the dataset was signed"
edited "an edited manifest" \
    "echo extra >x86_1/notes.txt; echo \"\$(sha256sum <x86_1/notes.txt | cut -c1-64)  x86_1/notes.txt\" >>MANIFEST.sha256" \
    "MANIFEST.sha256: the signature MANIFEST.sha256.sig does not verify"
edited "another named key" "cp \"$T/other.pub.pem\" MANIFEST.sha256.pub" \
    "MANIFEST.sha256.pub: the dataset names the signing key SHA256:"
# a page: the site regenerated from the signed dataset differs
cp -r "$T/SITE" "$T/SITE2"
page=$(find "$T/SITE2" -name '*.html' | head -1)
echo '<p>edited</p>' >>"$page"
"$B" validate "$T/D" --site "$T/SITE2" --key "$T/key.pub.pem" >"$T/p.log" 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q "differs from the page regenerated" "$T/p.log" &&
    ok "an edited page is caught against the signed dataset" || { bad "edited page: exit $rc"; cat "$T/p.log"; }
# another key
"$B" validate "$T/D" --key "$T/other.pub.pem" >"$T/o.log" 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q "does not verify with" "$T/o.log" &&
    ok "another key does not verify the signature" || { bad "other key: exit $rc"; cat "$T/o.log"; }
# a private key where the public one is wanted, a missing key: exit 2
"$B" validate "$T/D" --key "$T/nokey.pem" >"$T/k.log" 2>&1
[ $? -eq 2 ] && grep -q "nokey.pem" "$T/k.log" && ok "a missing key file is refused naming it" ||
    { bad "missing key"; cat "$T/k.log"; }

# republishing without --sign removes the stale signature; with it, signs anew
"$B" publish --run-dir "$T/run" --system x86_1 --data "$T/D" >"$T/pub2.log" 2>&1
if [ ! -e "$T/D/MANIFEST.sha256" ] && [ ! -e "$T/D/MANIFEST.sha256.sig" ] &&
    grep -q "signature no longer covers it and was removed" "$T/pub2.log"; then
    ok "republishing without --sign removes the stale signature and says so"
else
    bad "republish without --sign"; cat "$T/pub2.log"; ls "$T/D"
fi
"$B" validate "$T/D" >"$T/u.log" 2>&1
grep -q "the dataset is unsigned" "$T/u.log" && ok "validate without a key says the dataset is unsigned" ||
    { bad "unsigned not said"; cat "$T/u.log"; }
"$B" report "$T/D" --out "$T/SITE3" >/dev/null 2>&1
[ ! -e "$T/D/MANIFEST.sha256.pub" ] && grep -q "This dataset is not signed" "$T/SITE3/index.md" &&
    ok "an unsigned dataset's index says it is not signed" ||
    { bad "unsigned index"; ls "$T/D"; grep -A3 Signature "$T/SITE3/index.md"; }
"$B" publish --run-dir "$T/run" --system arm_1 --data "$T/D" --sign "$T/key.pem" >/dev/null 2>&1
"$B" validate "$T/D" --key "$T/key.pub.pem" >"$T/v2.log" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q "arm_1/campaign.json" "$T/D/MANIFEST.sha256" && grep -q "x86_1/campaign.json" "$T/D/MANIFEST.sha256" &&
    ok "a second system published with --sign: both systems signed, and it validates" ||
    { bad "second system: exit $rc"; cat "$T/v2.log"; }
checks_summary
