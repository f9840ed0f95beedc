#!/usr/bin/env bash
# dlio.sh — `tiersim validate` over DLIO workload cases: a fitting case (the
# host step cost's), a checking one inside its tolerance and one made to
# miss are run in virtual time and counted apart; the fitted figure never
# counts as a check, and naming it a checking case is refused; a malformed
# config.workload.dlio block is refused naming the file, line and key, and
# nothing runs then.
# shellcheck source=SCRIPTDIR/lib.sh
. "${TS_SOURCE_ROOT:?run through meson test}/tests/validation/lib.sh"

fit=mlperf-v10-juicedata-cosmoflow-h100-1acc
chk=mlperf-v05-micron9400-unet3d-v100-1acc
# The fit rule spans the corpus: every case a profile names comes along
# (the disk and loader cases); the runs select the workload ones.
corpus() {
	mkdir -p "$1"
	find "$src/validation/cases" -name '*.json' ! -name 'mlperf-*' -exec cp {} "$1/" \;
}
corpus "$work/cases"
cp "$src/validation/cases/$fit.json" "$src/validation/cases/$chk.json" "$work/cases/"
# A copy of the checking case whose published throughput is doubled: the
# model must put it outside.
edit_case "$work/cases/$chk.json" "$work/cases/mlperf-miss.json" \
	'c["id"] = "mlperf-miss"; c["figures"][0]["value"] *= 2'

out=$("$tiersim" validate --cases "$work/cases" --json "$fit" "$chk" mlperf-miss 2>"$work/err")
rc=$?
[ $rc -eq 1 ] || fail "a workload figure outside its tolerance: exit $rc, expected 1 ($(cat "$work/err"))"
echo "$out" | /usr/bin/python3 -c '
import json, sys
j = json.load(sys.stdin)
s = j["summary"]
want = {"checking_cases": 2, "inside_tolerance": 1, "outside_tolerance": 1, "known_misses": 0,
        "fitting_cases": 1, "fits_reproduced": 1, "not_runnable": 0, "failed": 0}
bad = {k: (s[k], v) for k, v in want.items() if s[k] != v}
assert not bad, "summary (got, want): %r" % bad
cs = {c["id"]: c for c in j["cases"]}
f = cs[sys.argv[1]]
assert f["role"] == "fits", f
assert all(x["status"] == "fit" for x in f["figures"]), f["figures"]
# The step cost reproduces the throughput it was fitted to (230.54 samples/s).
assert abs(f["figures"][0]["predicted"] - 230.54) < 0.5, f["figures"][0]
c = cs[sys.argv[2]]
assert [x["status"] for x in c["figures"]] == ["inside", "inside"], c["figures"]
m = cs["mlperf-miss"]
assert m["figures"][0]["status"] == "OUTSIDE" and m["figures"][1]["status"] == "inside", m
# The median is over the checking figures only (4 of them), not the fit.
errs = sorted(abs(x["error"]) for k in (sys.argv[2], "mlperf-miss") for x in cs[k]["figures"])
med = (errs[1] + errs[2]) / 2
assert abs(s["median_abs_error"] - med) < 1e-6, (s["median_abs_error"], med)
' "$fit" "$chk" || fail "validate --json over the workload cases: $out"

# The text table shows the fit apart.
out=$("$tiersim" validate --cases "$work/cases" "$fit" 2>&1) || fail "the fitting case alone: exit $?: $out"
echo "$out" | grep -q "^$fit  *fits  *throughput .* fit$" || fail "no fit row: $out"
echo "$out" | grep -q "0 checking cases ran" || fail "a fitted figure counted as a check: $out"

# The fitted case made a checking one is refused: its figure set the step cost.
edit_case "$work/cases/$fit.json" "$work/checks.json" 'c["role"] = "checks"'
corpus "$work/fitrule"
cp "$work/cases/$chk.json" "$work/fitrule/"
cp "$work/checks.json" "$work/fitrule/$fit.json"
out=$("$tiersim" validate --cases "$work/fitrule" 2>&1) && fail "the fitted case as a check was accepted"
echo "$out" | grep -q "host 'xeon-8375c': dlio_step_ns names case '$fit', which is a checking case" ||
	fail "fit rule: no message naming the host field and the case: $out"
echo "$out" | grep -q "^case " && fail "cases ran despite the fit rule"

# Tags select and skip.
edit_case "$work/cases/mlperf-miss.json" "$work/cases/mlperf-miss.json" 'c["tags"] = ["slow"]'
"$tiersim" validate --cases "$work/cases" --skip-tag slow --json 'mlperf-*' | /usr/bin/python3 -c '
import json, sys
j = json.load(sys.stdin)
assert sorted(c["id"] for c in j["cases"]) == sorted(sys.argv[1:]), [c["id"] for c in j["cases"]]
assert j["summary"]["outside_tolerance"] == 0' "$fit" "$chk" || fail "--skip-tag slow ran the tagged case"
"$tiersim" validate --cases "$work/cases" --json tag:slow | /usr/bin/python3 -c '
import json, sys
j = json.load(sys.stdin)
assert [c["id"] for c in j["cases"]] == ["mlperf-miss"], [c["id"] for c in j["cases"]]' ||
	fail "tag:slow did not select the tagged case alone"

# refused NAME PYTHON_EDIT EXPECT_FIELD: PYTHON_EDIT sees the dlio block as d.
refused() {
	rm -rf "$work/bad"
	corpus "$work/bad"
	cp "$work/cases/$fit.json" "$work/bad/"
	edit_case "$work/cases/$chk.json" "$work/bad/$1.json" \
		"c[\"id\"] = \"$1\"; d = c[\"config\"][\"workload\"][\"dlio\"]; $2"
	expect_refused "$work/bad" "$1" "[0-9]+" "$3"
}
refused dlio-no-tier 'del d["tier"]' config.workload.dlio.tier
refused dlio-typo 'd["run_file"] = 3' config.workload.dlio.run_file
refused dlio-run-files 'd["run_files"] = d["files"] + 1' config.workload.dlio.run_files
refused dlio-mem 'd["mem"] = "lots"' config.workload.dlio.mem
refused dlio-override 'd["overrides"].append("reader.read_threads")' config.workload.dlio.overrides.5
refused dlio-not-object 'c["config"]["workload"]["dlio"] = 3' config.workload.dlio
refused dlio-no-count 'del c["config"]["workload"]["accelerators"]' config.workload.accelerators
refused dlio-figure 'c["figures"][0]["metric"] = "images"' figures.0.metric
refused dlio-unit 'c["figures"][1]["unit"] = "samples/s"' figures.1.unit

[ $fails -eq 0 ] || exit 1
echo "ok"
