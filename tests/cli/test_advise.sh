#!/usr/bin/env bash
# tiersim advise in virtual time, where every figure is exact: the grid is
# complete, the recommended point is within the tolerance of the best and no
# cheaper point is, an IO-bound workload (GoogLeNet inference, which ultra
# cloud disk starves) gets a faster tier than a compute-bound one (training),
# and a bad command line is one line with exit status 2.
set -u
build=${TS_BUILD_ROOT:?run through meson test}
src=${TS_SOURCE_ROOT:?run through meson test}
tiersim=$build/cli/tiersim
command -v python3 >/dev/null || { echo "no python3 to read the JSON"; exit 77; }

work=$(mktemp -d /tmp/tiersim-advise.XXXXXX)
trap 'rm -rf "$work"' EXIT
export TIERSIM_WORKDIR=$work
export XDG_CACHE_HOME=$work/cache
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# A fixed decode calibration, so that the advice does not depend on this
# host's speed (the figures are one measurement on an AMD EPYC host).
mkdir -p "$XDG_CACHE_HOME/tiersim"
cat >"$XDG_CACHE_HOME/tiersim/decode.json" <<'EOF'
{
  "what": "test calibration: ns per image = base_ns + ns_per_mpix * megapixels",
  "base_ns": 888137.9,
  "ns_per_mpix": 4929113.0,
  "decode_ips": 721.4,
  "full_ips": 513.6,
  "images": 1000,
  "cpu": "test",
  "when": 1795963881,
  "version": "1"
}
EOF

# scripts/main.lua (inference and training) scaled down; the study's tiers.
args=("$src/scripts/main.lua" count=20000 iterations=100 --vcpus 8,2,4 --mem 8GiB,1GiB --quiet)
"$tiersim" advise "${args[@]}" --json "$work/a.json" --csv "$work/a.csv" >"$work/a.txt" 2>"$work/a.err" ||
	fail "advise exits $?: $(cat "$work/a.err")"
grep -q '<- recommended' "$work/a.txt" || fail "no recommended row in the table"
# The grid's line says what each axis is, in one line.
grep -q '^grid: 3 tiers x 3 vCPU counts x 2 memory sizes; .*memory = page-cache model (mount.mem) or, with mount.fs (block mode), the job.s memory cgroup$' \
	"$work/a.txt" || fail "the grid line: $(grep '^grid:' "$work/a.txt")"
grep -q '^inference: .* vCPU, .*GiB, .*\(is the best\|keeps\)' "$work/a.txt" ||
	fail "no recommendation sentence for inference"
[ "$(wc -l <"$work/a.csv")" -eq 37 ] || fail "CSV: expected a header and 36 rows"

# Checks the JSON of one advise run: $1 = file, $2 = the tolerance asked
# (percent), $3 = the expected kind of result ("io" or "all-cheapest").
check_json() {
	python3 - "$@" <<'EOF' || exit 1
import json, sys
path, asked, expect = sys.argv[1], float(sys.argv[2]), sys.argv[3]
rows = json.load(open(path))["rows"]
tiers = ["ultra-cloud", "ssd-cloud", "nvme-local"]   # by their caps, lowest first
vcpus, mems = [2, 4, 8], ["1.00 GiB", "8.00 GiB"]
def fail(msg):
    print("FAIL:", msg, file=sys.stderr); sys.exit(1)
def cost(r):
    c = r["config"]
    return (int(c["pipeline.vcpus"]), mems.index(c["mount.mem"]), tiers.index(c["mount.tier"]))
by = {}
for r in rows:
    by.setdefault(r["config"]["advise.workload"], []).append(r)
if sorted(by) != ["inference", "training"]:
    fail("workloads %s" % sorted(by))
rec_tier = {}
for name, rs in by.items():
    # The grid is complete: every point once.
    pts = sorted(cost(r) for r in rs)
    want = sorted((v, m, t) for v in vcpus for m in range(2) for t in range(3))
    if pts != want:
        fail("%s: grid points %s" % (name, pts))
    sps = {cost(r): r["throughput"]["value"] for r in rs}
    best = max(sps.values())
    tol = float(rs[0]["config"]["advise.tolerance"].rstrip("%"))
    spread = rs[0]["config"]["advise.spread"]
    if spread == "-" or float(spread.rstrip("%")) < 0:
        fail("%s: spread %s" % (name, spread))
    if abs(tol - max(asked, float(spread.rstrip("%")))) > 1e-3:
        fail("%s: tolerance %s is not max(asked %s, spread %s)" % (name, tol, asked, spread))
    recs = [r for r in rs if "recommended" in r["config"].get("advise.choice", "")]
    if len(recs) != 1:
        fail("%s: %d recommended rows" % (name, len(recs)))
    rec = cost(recs[0])
    floor = best * (1 - tol / 100)
    if sps[rec] < floor:
        fail("%s: recommended %s at %.3f is below %.3f" % (name, rec, sps[rec], floor))
    cheaper = [p for p in sps if p < rec and sps[p] >= floor]
    if cheaper:
        fail("%s: cheaper points within tolerance: %s" % (name, cheaper))
    for r in rs:
        rel = r["relative_to_best"]["value"]
        if abs(rel - r["throughput"]["value"] / best) > 1e-9:
            fail("%s: rel %s is not relative to the workload's best" % (name, rel))
    rec_tier[name] = rec[2]
if expect == "io":
    # Inference reads ~3x faster than training consumes: ultra cloud disk
    # starves it, not training.
    if not rec_tier["inference"] > rec_tier["training"]:
        fail("inference got tier %s, training %s" % (tiers[rec_tier["inference"]],
                                                     tiers[rec_tier["training"]]))
    if sps_ultra := [r["throughput"]["value"] for r in by["inference"]
                     if r["config"]["mount.tier"] == "ultra-cloud"]:
        if max(sps_ultra) >= max(r["throughput"]["value"] for r in by["inference"]) * 0.98:
            fail("inference is not IO-bound on ultra-cloud")
else:
    for name, rs in by.items():
        r = [r for r in rs if "recommended" in r["config"].get("advise.choice", "")][0]
        if cost(r) != (2, 0, 0):
            fail("%s: with a 99%% tolerance the cheapest point should win, got %s" %
                 (name, cost(r)))
EOF
}
check_json "$work/a.json" 2 io

# The same run again gives the same advice, byte for byte.
"$tiersim" advise "${args[@]}" >"$work/b.txt" 2>/dev/null || fail "second run"
cmp -s "$work/a.txt" "$work/b.txt" || fail "virtual-time advice differs between runs"

# A tolerance that forgives everything recommends the cheapest grid point.
"$tiersim" advise "${args[@]}" --tolerance 99% --repeats 1 --json "$work/c.json" \
	>/dev/null 2>&1 || fail "advise --tolerance 99%"
check_json "$work/c.json" 99 all-cheapest

# The plot: per workload, tier x vCPU at the recommended memory.
if command -v gnuplot >/dev/null; then
	"$tiersim" advise "${args[@]}" --repeats 0 --plot "$work/p.svg" >/dev/null 2>&1 ||
		fail "advise --plot"
	grep -q '<svg' "$work/p.svg" || fail "--plot wrote no SVG"
	grep -q 'training 2v ultra-cloud' "$work/p.svg" || fail "--plot: no bar for training 2v ultra-cloud"
fi

# Bad command lines: one line on stderr, exit 2, nothing run.
bad() {
	"$tiersim" advise "$@" >"$work/out" 2>"$work/err"
	local rc=$?
	[ $rc -eq 2 ] || fail "advise $*: exit $rc, expected 2"
	[ "$(wc -l <"$work/err")" -eq 1 ] || fail "advise $*: expected one line, got: $(cat "$work/err")"
	[ -s "$work/out" ] && fail "advise $*: wrote to stdout"
	return 0
}
m=$src/scripts/main.lua
bad
bad "$m" --vcpus 0
bad "$m" --vcpus 2,x
bad "$m" --vcpus 2,2
bad "$m" --vcpus
bad "$m" --mem lots
bad "$m" --mem 0
bad "$m" --tolerance 100%
bad "$m" --tolerance -1
bad "$m" --tiers ssd-cloud,no-such-tier
bad "$m" --tiers none
bad "$m" --tiers ssd-cloud,ssd-cloud
bad "$m" --repeats 99
bad "$m" --plot out.pdf
bad "$m" --real --virtual
bad "$m" --no-such-option
bad "$m" pipeline.vcpus=4
bad "$m" mount.mem=4GiB
bad "$m" nosuch.key=1 --vcpus 2 --mem 1GiB --repeats 0
exit 0
