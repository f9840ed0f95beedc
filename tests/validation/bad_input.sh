#!/usr/bin/env bash
# bad_input.sh — a case file or a profile with a missing source, measurement
# or unit is refused with one line naming the file, the line and the field;
# nothing runs then. Also: every built-in and validation tier is labelled,
# and a fitting case named as a checking one is refused.
# shellcheck source=SCRIPTDIR/lib.sh
. "${TS_SOURCE_ROOT:?run through meson test}/tests/validation/lib.sh"

good=$src/validation/cases/ebs-gp2-ioping-qd1-short.json

# refused CASE_NAME PYTHON_EDIT EXPECT_LINE EXPECT_FIELD
refused() {
	rm -rf "$work/cases"
	mkdir -p "$work/cases"
	edit_case "$good" "$work/cases/$1.json" "c[\"id\"] = \"$1\"; $2"
	expect_refused "$work/cases" "$1" "$3" "$4"
}
# Line numbers are those of json.dump(indent=2) of the edited case: a
# missing field is reported at the line of the object that lacks it.
refused no-source 'del c["source"]' 1 source
refused no-url 'del c["source"]["url"]' 5 source.url
refused no-what 'del c["source"]["what"]' 5 source.what
refused no-measured 'del c["measured"]' 1 measured
refused no-unit 'del c["figures"][0]["unit"]' 42 figures.0.unit
refused bad-unit 'c["figures"][0]["unit"] = "furlongs"' 45 figures.0.unit
refused no-value 'del c["figures"][0]["value"]' 42 figures.0.value
refused no-tolerance-why 'del c["tolerance"]["why"]' 37 tolerance.why
refused no-role 'del c["role"]' 1 role
refused no-tier 'del c["config"]["device"]["tier"]' 11 config.device.tier
refused wrong-id 'c["id"] = "other"' 2 id
refused misspelt 'c["config"]["workload"]["numjob"] = 4' 35 config.workload.numjob
refused top-typo 'c["figure"] = []' 49 figure

# A case whose figure the profile was fitted to cannot check it.
mkdir -p "$work/fitrule"
cp "$src/validation/cases/"*.json "$work/fitrule/"
f=$work/fitrule/ebs-gp2-ioping-qd1-1000.json
edit_case "$f" "$f" 'c["role"] = "checks"'
out=$("$tiersim" validate --cases "$work/fitrule" 2>&1) && fail "a fitted figure used as a check was accepted"
echo "$out" | grep -q "evidence.latency.read names case 'ebs-gp2-ioping-qd1-1000', which is a checking case" ||
	fail "fit rule: no message naming the case: $out"

# A checking figure that leaves its tolerance fails the run (what CI relies
# on), and --json says so too.
mkdir -p "$work/off"
cp "$src/validation/cases/"*.json "$work/off/"
f=$work/off/ebs-gp2-8g-randwrite-4k-qd4.json
edit_case "$f" "$f" 'c["figures"][0]["value"] *= 1.5'
out=$("$tiersim" validate --cases "$work/off" 'ebs-*' 2>&1) && fail "a figure 50% off did not fail the run"
echo "$out" | grep -q "ebs-gp2-8g-randwrite-4k-qd4 .* OUTSIDE" || fail "no OUTSIDE row: $out"
"$tiersim" validate --cases "$work/off" --json ebs-gp2-8g-randwrite-4k-qd4 | /usr/bin/python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j["summary"]["outside_tolerance"] == 1, j["summary"]
assert j["cases"][0]["figures"][0]["status"] == "OUTSIDE"' || fail "--json does not report the miss"
"$tiersim" validate 'ffcv-*' | grep -q "ffcv-pytorch-jpeg-512-ebs .*not runnable yet: needs" ||
	fail "loader cases are not listed as not runnable"

# Profiles: an evidence entry without its source, or a set field without a
# label, is refused naming file, line and field.
cat >"$work/p1.lua" <<'LUA'
tier "x" {
	iops = 100,
	evidence = { iops = { "measured" } },
}
LUA
cat >"$work/p2.lua" <<'LUA'

tier "y" {
	iops = 100, mibps = 10,
	evidence = { iops = { "spec", "a table" } },
}
LUA
cat >"$work/p3.lua" <<'LUA'
tier "z" { iops = 100, evidence = { iops = { "guessed", "why" } } }
LUA
out=$("$tiersim" tiers --profile "$work/p1.lua" 2>&1) && fail "p1 accepted"
echo "$out" | grep -q "p1.lua:1: tier 'x': field 'evidence.iops': missing its source" || fail "p1: $out"
out=$("$tiersim" tiers --profile "$work/p2.lua" 2>&1) && fail "p2 accepted"
echo "$out" | grep -q "p2.lua:2: tier 'y': field 'evidence.mibps': missing" || fail "p2: $out"
out=$("$tiersim" tiers --profile "$work/p3.lua" 2>&1) && fail "p3 accepted"
echo "$out" | grep -q "p3.lua:1: tier 'z': field 'evidence.iops': missing its label" || fail "p3: $out"

# Every shipped tier is labelled.
out=$("$tiersim" tiers --evidence --profile "$src/validation/tiers.lua" 2>&1) || fail "tiers --evidence: $out"
echo "$out" | grep -q unlabelled && fail "unlabelled tiers: $(echo "$out" | grep unlabelled)"
echo "$out" | grep -q "^aws-gp2 .*latency.read .*measured .*ebs-gp2-ioping-qd1-1000" ||
	fail "aws-gp2's read latency is not shown as measured"

[ $fails -eq 0 ] || exit 1
echo "ok"
