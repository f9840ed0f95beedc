#!/usr/bin/env bash
# tiersim run --timeline: the Chrome trace JSON of a small scenario, in
# virtual and in real time (a tierfs mount), checked by timeline_check.py
# (tracks named, one step per iteration, every released batch's samples
# read and decoded once, no overlap on a lane, time order per track); the
# two clocks give the same layout. A cap is said and the file stays valid;
# Ctrl-C leaves a valid file; a command in which nothing ran leaves an
# existing file as it was; a path that cannot be written stops the
# command before it runs anything.
. "$(dirname "$0")/lib.sh"
check=$here/timeline_check.py
host=pipeline.host=xeon-e5-2682v4 # virtual decode charged from a host profile

# Virtual, reader at queue depth 1: one reader lane, no read overlaps.
"$tiersim" run "$here/small.lua" --virtual $host pipeline.qd=1 --quiet \
	--timeline "$work/v1.json" >/dev/null 2>"$work/err" || fail "virtual qd=1: $(cat "$work/err")"
python3 "$check" "$work/v1.json" 4 1 8 1 1 --tier || fail "virtual qd=1 timeline"

# The same configuration in both clocks: the same tracks and counts.
"$tiersim" run "$here/small.lua" --virtual $host pipeline.vcpus=3 --quiet \
	--timeline "$work/v.json" >/dev/null 2>"$work/err" || fail "virtual: $(cat "$work/err")"
python3 "$check" "$work/v.json" 4 1 8 4 3 --tier --layout "$work/v.layout" || fail "virtual timeline"
"$tiersim" run "$here/small.lua" pipeline.vcpus=3 --quiet \
	--timeline "$work/r.json" >/dev/null 2>"$work/err" || fail "real: $(cat "$work/err")"
check_clean "after a real run with --timeline"
python3 "$check" "$work/r.json" 4 1 8 4 3 --tier --layout "$work/r.layout" || fail "real timeline"
cmp -s "$work/v.layout" "$work/r.layout" ||
	fail "real and virtual layouts differ: $(cat "$work/v.layout") vs $(cat "$work/r.layout")"
ls "$work"/timeline-*.trace >/dev/null 2>&1 && fail "the mount trace made for --timeline was left"
# Each real tier slice says how late tierfs replied behind the model's
# time (late_ns; -1: no sample), never more than the slice lasted.
python3 - "$work/r.json" <<'PY' || fail "real tier slices' late_ns"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
lanes = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e["name"] == "thread_name"}
tier = [e for e in ev if e.get("ph") == "X" and lanes.get((e["pid"], e["tid"]), "").startswith("tier")]
assert tier and all("late_ns" in e["args"] for e in tier), "a tier slice without late_ns"
known = [e for e in tier if e["args"]["late_ns"] >= 0]
assert known, "no tier slice with a lateness sample"
assert all(e["args"]["late_ns"] / 1000 <= e["dur"] + 0.001 for e in known), \
    [e for e in known if e["args"]["late_ns"] / 1000 > e["dur"] + 0.001][:3]
PY

# compare: one process per row, named after its tier.
"$tiersim" compare "$here/small.lua" --tiers nvme-local,ultra-cloud --virtual pipeline.decode=none \
	--quiet --timeline "$work/c.json" >/dev/null 2>"$work/err" || fail "compare: $(cat "$work/err")"
python3 - "$work/c.json" <<'PY' || fail "compare timeline"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
names = [e["args"]["name"] for e in ev if e["name"] == "process_name"]
assert len(names) == 2 and "nvme-local" in names[0] and "ultra-cloud" in names[1], names
assert all("virtual time" in n for n in names), names
PY

# A cap: the file stays valid, holds exactly that many slices, and says so.
"$tiersim" run "$here/small.lua" --virtual pipeline.decode=none --quiet --timeline "$work/cap.json" \
	--timeline-max 7 >/dev/null 2>"$work/err" || fail "capped run failed: $(cat "$work/err")"
grep -q -- "--timeline-max 7 events" "$work/err" || fail "no notice of the cap: $(cat "$work/err")"
python3 - "$work/cap.json" <<'PY' || fail "capped timeline"
import json, sys
d = json.load(open(sys.argv[1]))
x = [e for e in d["traceEvents"] if e["ph"] == "X"]
assert len(x) == 7 and d["otherData"]["events"] == 7 and d["otherData"]["dropped"] > 0, d["otherData"]
assert any(e["ph"] == "i" and "cap reached" in e["name"] for e in d["traceEvents"])
PY

# An unwritable path: one line naming the option, exit 1, nothing run.
"$tiersim" run "$here/small.lua" --timeline "$work/no/such/dir/t.json" >"$work/out" 2>"$work/err"
rc=$?
[ $rc -eq 1 ] || fail "unwritable --timeline: exit $rc, expected 1"
[ "$(wc -l <"$work/err")" -eq 1 ] || fail "unwritable --timeline: not one line: $(cat "$work/err")"
grep -q -- "--timeline.*no/such/dir/t.json" "$work/err" || fail "the line names no path: $(cat "$work/err")"
[ -s "$work/out" ] && fail "unwritable --timeline: the scenario ran: $(cat "$work/out")"
check_clean "after an unwritable --timeline"

# A command in which nothing ran leaves an existing file as it was, and
# leaves no temporary file beside it.
echo '{"kept": true}' >"$work/old.json"
"$tiersim" run "$work/no-such-script.lua" --virtual --timeline "$work/old.json" >/dev/null 2>"$work/err" &&
	fail "a missing script succeeded"
grep -q -- "--timeline.*old.json.*not written" "$work/err" || fail "no word on the timeline: $(cat "$work/err")"
[ "$(cat "$work/old.json")" = '{"kept": true}' ] || fail "the existing timeline was overwritten"
ls "$work"/old.json.*.tmp >/dev/null 2>&1 && fail "a temporary timeline was left"

# Ctrl-C in the middle of a real run: exit 130, and the file is valid JSON.
"$tiersim" run "$here/small.lua" iterations=100000000 --quiet --timeline "$work/int.json" \
	>/dev/null 2>"$work/err" &
bg=$!
stop_mounted "SIGINT"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["otherData"]["events"] > 0' \
	"$work/int.json" || fail "the timeline of an interrupted run is not valid JSON"
echo "timeline: all checks passed"
