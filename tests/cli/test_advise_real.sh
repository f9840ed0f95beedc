#!/usr/bin/env bash
# tiersim advise --real: a small grid through real tierfs mounts. Timings
# vary, so only the shape is checked: every grid point has a row, one is
# recommended, the spread was measured, and no mount or daemon is left.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "no python3 to read the JSON"; exit 77; }

"$tiersim" advise "$here/small.lua" --real --tiers ultra-cloud,unlimited --vcpus 1,2 \
	--mem 16MiB --repeats 1 --json "$work/r.json" >"$work/r.txt" 2>"$work/r.err" ||
	fail "advise --real exits $?: $(tail -3 "$work/r.err")"
check_clean "advise --real"
grep -q 'real time' "$work/r.txt" || fail "the table does not say real time"
python3 - "$work/r.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["rows"]
def fail(m):
    print("FAIL:", m, file=sys.stderr); sys.exit(1)
if d["clock"] != "real":
    fail("clock %s" % d["clock"])
pts = sorted((r["config"]["pipeline.vcpus"], r["config"]["mount.tier"]) for r in rows)
if pts != [("1", "ultra-cloud"), ("1", "unlimited"), ("2", "ultra-cloud"), ("2", "unlimited")]:
    fail("grid %s" % pts)
recs = [r for r in rows if "recommended" in r["config"].get("advise.choice", "")]
if len(recs) != 1:
    fail("%d recommended rows" % len(recs))
if any(r["config"]["advise.spread"] == "-" for r in rows):
    fail("spread not measured")
if any(r.get("error") for r in rows):
    fail("a row failed")
PY
exit 0
