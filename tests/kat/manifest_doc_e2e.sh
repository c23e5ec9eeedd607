#!/bin/sh
# The manifest by hand (ctest: kat_manifest_doc_e2e): the one-line command
# docs/FORMATS.md gives, run on the KAT_2_12 text of the example SM3,
# prints the digest examples/SM3/kat.sha256 lists, also for a copy saved
# with CRLF line ends, trailing blanks and empty lines (which a plain
# sha256sum does not match), and `hashbench kat --digest` prints the same.
# `publish` without --system takes the system campaign.json records.
# Needs HB_BUILD_DIR (with hashbench) and HB_SOURCE_DIR.
set -u
B="${HB_BUILD_DIR:?}/hashbench"
SRC="${HB_SOURCE_DIR:?}"
T=$(mktemp -d "${TMPDIR:-/tmp}/hb-mdoc.XXXXXX")
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../checks.sh"
HB_LOCK_DIR="$T/locks"
export HB_LOCK_DIR
mkdir -p "$HB_LOCK_DIR"

"$B" build --run-dir "$T/r" "$SRC/examples/SM3" >"$T/b.log" 2>&1 &&
    "$B" kat --run-dir "$T/r" --no-loop >"$T/k.log" 2>&1 || { bad "SM3 kat"; cat "$T/b.log" "$T/k.log"; }
want=$(sed -n 's|^\([0-9a-f]*\) strict SM3/KAT_2_12_SM3.txt$|\1|p' "$SRC/examples/SM3/kat.sha256")
cmd=$(grep 'KAT_2_12_SM3.txt.*| sha256sum$' "$SRC/docs/FORMATS.md" | head -1)
D="$T/r/kat/SM3/SM3"
got=$(cd "$D" && sh -c "$cmd" | cut -d' ' -f1)
[ -n "$want" ] && [ "$got" = "$want" ] && ok "the command of docs/FORMATS.md reproduces the manifest's digest" ||
    bad "docs command: got '$got', manifest '$want' (command: $cmd)"
# the same text with CRLF, trailing blanks and empty lines
sed 's/$/ \t\r/; 3s/^/\r\n/' "$D/KAT_2_12_SM3.txt" >"$T/crlf.txt"
cp "$T/crlf.txt" "$T/KAT_2_12_SM3.txt"
got2=$(cd "$T" && sh -c "$cmd" | cut -d' ' -f1)
plain=$(sha256sum "$T/crlf.txt" | cut -d' ' -f1)
[ "$got2" = "$want" ] && [ "$plain" != "$want" ] &&
    ok "it canonicalises CRLF, trailing blanks and empty lines" || bad "canonical form: $got2 / $plain"
"$B" kat --digest "$D/KAT_2_12_SM3.txt" "$T/crlf.txt" >"$T/d.txt" 2>&1
[ "$(cut -d' ' -f1 "$T/d.txt" | sort -u)" = "$want" ] && [ "$(wc -l <"$T/d.txt")" -eq 2 ] &&
    ok "hashbench kat --digest prints the manifest's digest" || { bad "kat --digest"; cat "$T/d.txt"; }

# publish: the system from campaign.json (written here as a run records it)
printf '{"system": "box_1"}\n' >"$T/r/campaign.json"
"$B" publish --run-dir "$T/r" --data "$T/data" >"$T/p.log" 2>&1 && [ -f "$T/data/box_1/kat.json" ] &&
    ok "publish without --system takes campaign.json's system" || { bad "publish fallback"; cat "$T/p.log"; }
printf '{"tool": "x"}\n' >"$T/r/campaign.json"
"$B" publish --run-dir "$T/r" --data "$T/data2" >"$T/p2.log" 2>&1
[ $? -eq 2 ] && grep -q "campaign.json: records no system; give --system ID" "$T/p2.log" &&
    ok "without a recorded system it names the file and --system" || { bad "publish refusal"; cat "$T/p2.log"; }

# a manifest keyed by the instance's folder, as the published harness's are
# ("MoFang-512/KAT_2_12_MoFang_512.txt"): the example with its instance
# folder named SM3-256 and its lines keyed so
mkdir -p "$T/folder"
cp -r "$SRC/examples/SM3" "$T/folder/SM3"
mv "$T/folder/SM3/Implementations/Reference_Implementation/SM3" \
    "$T/folder/SM3/Implementations/Reference_Implementation/SM3-256"
sed 's| strict SM3/| strict SM3-256/|' "$SRC/examples/SM3/kat.sha256" >"$T/folder/SM3/kat.sha256"
"$B" build --run-dir "$T/rf" "$T/folder/SM3" >"$T/bf.log" 2>&1 &&
    "$B" kat --run-dir "$T/rf" --no-loop >"$T/kf.log" 2>&1 &&
    grep -q '"status": "PASS"' "$T/rf/kat.json" &&
    ok "a manifest keyed by the instance's folder is compared (PASS)" ||
    { bad "manifest keyed by folder"; tail -5 "$T/kf.log"; grep '"reason"' "$T/rf/kat.json"; }
checks_summary
