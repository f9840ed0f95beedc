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
	edit_case "$good" "$work/cases/$1.json" "c[\"id\"] = \"$1\"; c[\"role\"] = \"checks\"; $2"
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
# The bucket as the run before left it: a fill in [0, 1], with its reason.
refused bucket-fill 'c["config"]["device"]["bucket"] = {"start": 1.5, "idle": "1s", "why": "x"}' 16 config.device.bucket.start
refused bucket-why 'c["config"]["device"]["bucket"] = {"start": 0, "idle": "1s"}' 15 config.device.bucket.why
refused bucket-form 'c["config"]["device"]["bucket"] = 3' 15 config.device.bucket
# A window of the run: an iops figure's, inside the runtime, FROM before TO.
refused window-metric 'c["figures"][0]["window"] = ["1s", "2s"]' 46 figures.0.window
refused window-count 'c["figures"][0]["metric"] = "iops"; c["figures"][0]["unit"] = "IOPS"; c["figures"][0]["window"] = ["1s", "2s"]' 46 figures.0.window
refused window-order 'c["config"]["workload"]["runtime"] = "10s"; c["figures"][0]["metric"] = "iops"; c["figures"][0]["unit"] = "IOPS"; c["figures"][0]["window"] = ["3s", "2s"]' 47 figures.0.window

# Accelerator cases: a scope of hold_out the engine does not have, or an
# engine block in another level, is refused at load; a checking figure that
# the engine profiles publish themselves (an anchor) is refused at run time
# unless held out, since the check would read back its own anchor.
acc=$src/validation/cases/accel-mxnet-inception3-v100-infer-32.json
mkdir -p "$work/acc"
edit_case "$acc" "$work/acc/acc-scope.json" 'c["id"] = "acc-scope"; c["config"]["workload"]["engine"]["hold_out"] = "all"'
expect_refused "$work/acc" acc-scope 29 config.workload.engine.hold_out
rm -f "$work/acc/"*.json
edit_case "$acc" "$work/acc/acc-metric.json" 'c["id"] = "acc-metric"; c["figures"][0]["metric"] = "au"'
expect_refused "$work/acc" acc-metric 39 figures.0.metric
rm -f "$work/acc/"*.json
# A scaling figure (n GPUs over one) needs n > 1; a scenario runs only a
# loader case.
edit_case "$acc" "$work/acc/acc-scaling.json" 'c["id"] = "acc-scaling"; c["figures"][0]["metric"] = "scaling"; c["figures"][0]["unit"] = "x"'
expect_refused "$work/acc" acc-scaling 39 figures.0.metric
rm -f "$work/acc/"*.json
edit_case "$acc" "$work/acc/acc-scenario.json" 'c["id"] = "acc-scenario"; c["config"]["workload"]["scenario"] = {"script": "x.lua"}'
expect_refused "$work/acc" acc-scenario 31 config.workload.scenario
rm -f "$work/acc/"*.json
cp "$src/validation/cases/"*.json "$work/acc/"
edit_case "$acc" "$work/acc/acc-anchor.json" 'c["id"] = "acc-anchor"; del c["config"]["workload"]["engine"]["hold_out"]'
out=$("$tiersim" validate --cases "$work/acc" acc-anchor 2>&1) && fail "an anchored figure checked without hold_out was accepted"
echo "$out" | grep -q "acc-anchor.json: the figure is a published anchor of the engine profiles" ||
	fail "anchor check: no message naming the case: $out"

# An instance the price profiles do not have: the case fails to run, and
# the line names its file and the field.
mkdir -p "$work/inst"
cp "$src/validation/cases/"*.json "$work/inst/"
f=$work/inst/ebs-st1-1000g-read-4k-qd256.json
edit_case "$f" "$f" 'c["config"]["device"]["instance"] = "t9.huge"'
out=$("$tiersim" validate --cases "$work/inst" ebs-st1-1000g-read-4k-qd256 2>&1) &&
	fail "a case on an unknown instance ran"
echo "$out" | grep -q "ebs-st1-1000g-read-4k-qd256.json: config.device.instance: .*t9.huge" ||
	fail "unknown instance: no line naming the case and field: $out"
# An instance's EBS limits on a volume that is not EBS: refused, as a
# scenario would not apply them.
f=$work/inst/alicloud-essd-pl1-80g-randread-4k-qd128.json
edit_case "$f" "$f" 'c["config"]["device"]["instance"] = "t3.medium"'
out=$("$tiersim" validate --cases "$work/inst" alicloud-essd-pl1-80g-randread-4k-qd128 2>&1) &&
	fail "an instance's EBS limits on essd-pl1 ran"
echo "$out" | grep -q "qd128.json: config.device.instance: tier 'essd-pl1' is not an EBS volume" ||
	fail "instance on a non-EBS tier: no line naming the case and field: $out"

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
# A loader case without a scenario to run is listed as not runnable.
mkdir -p "$work/noscn"
cp "$src/validation/cases/"*.json "$work/noscn/"
edit_case "$src/validation/cases/loader-pytorch-pillow-folder-1w.json" "$work/noscn/loader-noscn.json" \
	'c["id"] = "loader-noscn"; del c["config"]["workload"]["scenario"]'
"$tiersim" validate --cases "$work/noscn" loader-noscn | grep -q "loader-noscn .*not runnable yet: needs" ||
	fail "a loader case without a scenario is not listed as not runnable"

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
# the page-cache model's reader time per mapped window, with its range
echo "$out" | grep -q "^page cache .* map_window .* measured .* x0.434-x1.31 .*window_gap.sh" ||
	fail "the page cache's map_window is not listed as measured with its range"
# The columns line up: every row's label starts where the header's does,
# whatever the length of its field name or fitted case.
cols=$(echo "$out" | awk 'NR == 1 { print index($0, " label ") + 1; next }
	match($0, / (assumed|spec|measured) +(x[^ ]+|-) /) { print RSTART + 1 }' | sort -u | wc -l)
[ "$cols" = 1 ] || fail "tiers --evidence: the label column starts at $cols places"

# same-run: a case naming a checking case (or none in the corpus) as its
# run is refused; a same-run figure out of its tolerance is shown, not
# scored, and does not fail the run.
mkdir -p "$work/same"
cp "$src/validation/cases/"*.json "$work/same/"
f=$work/same/ebs-gp2-ioping-qd1-short.json
edit_case "$f" "$f" 'c["role"]["same_run"] = "ebs-gp2-8g-randwrite-4k-qd4"'
out=$("$tiersim" validate --cases "$work/same" 'ebs-*' 2>&1) && fail "same_run naming a checking case was accepted"
echo "$out" | grep -q "role.same_run names 'ebs-gp2-8g-randwrite-4k-qd4', which is not a fitting case" ||
	fail "same_run: no message naming the case: $out"
f2=$work/same/loader-pytorch-pillow-folder-epyc-1w.json
edit_case "$f2" "$f2" 'c["role"]["same_run"] = "host no-such-host"'
out=$("$tiersim" validate --cases "$work/same" 'ebs-gp2-*' 2>&1) && fail "same_run naming an unknown host was accepted"
echo "$out" | grep -q "role.same_run names host 'no-such-host', which is not a host profile" ||
	fail "same_run host: no message naming the host: $out"
cp "$src/validation/cases/loader-pytorch-pillow-folder-epyc-1w.json" "$f2"
edit_case "$f" "$f" 'c["role"]["same_run"] = "ebs-gp2-ioping-qd1-1000"; c["figures"][0]["value"] *= 2'
out=$("$tiersim" validate --cases "$work/same" 'ebs-gp2-*' 2>&1) || fail "a same-run miss failed the run: $out"
echo "$out" | grep -q "ebs-gp2-ioping-qd1-short .*same-run, outside (not scored)" || fail "no same-run row: $out"
"$tiersim" validate --cases "$work/same" --json 'ebs-gp2-ioping-*' | /usr/bin/python3 -c '
import json, sys
s = json.load(sys.stdin)["summary"]
assert s["checking_cases"] == 0 and s["same_run_checks"] == 1 and s["same_run_inside"] == 0, s' ||
	fail "--json scores a same-run case"

# The ratchet: a case of the baseline that leaves its tolerance fails the
# run even when its miss carries a reason, naming it; a baseline naming a
# case not in the corpus is refused; --record-baseline writes the cases
# inside.
# (the corpus less its workload cases, but for the one a host profile was
# fitted to, so that the fit rule holds and the record runs quickly)
mkdir -p "$work/ratchet"
cp "$src/validation/cases/"*.json "$work/ratchet/"
grep -l '"level": "workload"' "$work/ratchet/"*.json | grep -v juicedata | xargs rm -f
out=$("$tiersim" validate --cases "$work/ratchet" --baseline "$work/baseline" --record-baseline 2>&1) ||
	fail "record: $out"
grep -qx "ebs-gp2-8g-randwrite-4k-qd4" "$work/baseline" || fail "the inside case is not recorded: $(cat "$work/baseline")"
out=$("$tiersim" validate --cases "$work/ratchet" --baseline "$work/baseline" 2>&1) || fail "same corpus failed its own baseline: $out"
f=$work/ratchet/ebs-gp2-8g-randwrite-4k-qd4.json
edit_case "$f" "$f" 'c["figures"][0]["value"] *= 1.5; c["figures"][0]["known_miss"] = "a reason"'
out=$("$tiersim" validate --cases "$work/ratchet" --baseline "$work/baseline" 2>&1) && fail "a case falling out of the baseline passed"
echo "$out" | grep -q "fell out: ebs-gp2-8g-randwrite-4k-qd4" || fail "the fallen case is not named: $out"
echo "$out" | grep -q "ebs-gp2-8g-randwrite-4k-qd4 .*known miss" || fail "the miss is not shown as known: $out"
echo "nosuch-case" >>"$work/baseline"
out=$("$tiersim" validate --cases "$work/ratchet" --baseline "$work/baseline" 2>&1) && fail "a baseline naming no case was accepted"
echo "$out" | grep -q "case 'nosuch-case' is not in the corpus" || fail "unknown baseline case: $out"
out=$("$tiersim" validate --baseline "$work/baseline" --record-baseline 'ebs-*' 2>&1) && fail "a partial record was accepted"

# Tiers: one a case checks shows its case, one none checks is labelled
# unvalidated; a corpus without the check leaves it unvalidated.
out=$("$tiersim" tiers 2>&1) || fail "tiers: $out"
echo "$out" | grep -Eq "^essd-pl3 +essd-pl3-read-4k-qd1" || fail "essd-pl3's check not listed: $out"
echo "$out" | grep -Eq "^aws-sc1 +unvalidated" || fail "aws-sc1 not labelled unvalidated: $out"
mkdir -p "$work/data/validation"
cp -r "$src/validation/cases" "$work/data/validation/"
rm "$work/data/validation/cases/essd-pl3-read-4k-qd1.json"
out=$(TIERSIM_DATADIR=$work/data "$tiersim" tiers 2>&1)
echo "$out" | grep -Eq "^essd-pl3 +unvalidated" || fail "essd-pl3 without its check is not unvalidated: $out"

# Two cases whose profile files define the same tier: one run holds one
# profile per name, so the second file is refused before anything runs.
mkdir -p "$work/dupdata/prof" "$work/dup"
cp "$src/validation/tiers.lua" "$work/dupdata/prof/a.lua"
cp "$src/validation/tiers.lua" "$work/dupdata/prof/b.lua"
for c in ebs-gp2-8g-randwrite-4k-qd4 ebs-gp2-8g-seqread-4k-qd4; do
	p=a; [ "$c" = ebs-gp2-8g-seqread-4k-qd4 ] && p=b
	edit_case "$src/validation/cases/$c.json" "$work/dup/$c.json" "c[\"config\"][\"device\"][\"profile\"] = \"prof/$p.lua\""
done
out=$(TIERSIM_DATADIR=$work/dupdata "$tiersim" validate --cases "$work/dup" 2>&1) && fail "two profiles of one tier name accepted"
echo "$out" | grep -Eq "ebs-gp2-8g-(randwrite|seqread)-4k-qd4.json: profile file prof/[ab].lua defines tier '[^']+', which prof/[ab].lua also defines" ||
	fail "duplicate tier names: no line naming both files: $out"
echo "$out" | grep -q "nothing was run" || fail "duplicate tier names: cases ran: $out"

[ $fails -eq 0 ] || exit 1
echo "ok"
