#!/usr/bin/env bash
# scenario_fidelity.sh — do real time and virtual time agree on a scenario?
#
#   bench/scenario_fidelity.sh [BUILD_DIR] [SCRIPT] [TIERS] [key=value ...]
#
# Runs SCRIPT (default scripts/main.lua) with `tiersim compare` in one go:
# in real time through tierfs mounts REPS times (default 3; each row gives
# the median and the spread of the runs), then with --virtual (the same tier
# model, engine profile and decode calibration on a discrete-event clock),
# and prints per configuration the samples/s of each and their ratio
# (virtual / real: against each real run, its median and min..max over the
# runs), and the load before and after. Virtual time is deterministic: it
# is not run beside each real run, and the real runs run back to back
# (nothing to alternate them with). The key=value arguments go to both runs; without any,
# count=2000 iterations=30 (a script's --virtual defaults are full size). Decode is modeled in both (pipeline.decode=modeled), so
# what is compared is the storage and pipeline model, not how much of this
# host's CPU the FUSE daemon leaves to real decode workers.
set -euo pipefail
BUILD=${1:-build}
SCRIPT=${2:-scripts/main.lua}
TIERS=${3:-nvme-local,ssd-cloud,ultra-cloud}
shift $(( $# < 3 ? $# : 3 ))
[ $# -gt 0 ] || set -- count=2000 iterations=30
CLI=$BUILD/cli/tiersim
out=$(mktemp -d /tmp/tiersim-fidelity.XXXXXX)
trap 'rm -rf "$out"' EXIT
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
echo "$(bench_load) before"

# real time REPS times (default 3: each row's median and spread), virtual
# time once (it is deterministic)
reps=${REPS:-3}
for r in $(seq 1 "$reps"); do
	"$CLI" compare "$SCRIPT" --tiers "$TIERS" pipeline.decode=modeled "$@" --quiet \
		--json "$out/real.$r.json" >/dev/null
done
"$CLI" compare "$SCRIPT" --tiers "$TIERS" pipeline.decode=modeled "$@" --quiet --virtual \
	--json "$out/virtual.json" >/dev/null
/usr/bin/python3 - "$out/virtual.json" "$out"/real.*.json <<'PY'
import json, os, sys
sys.path.insert(0, os.environ["BENCH_DIR"])
from benchstat import median as med, summary
virt = json.load(open(sys.argv[1]))["rows"]
runs = [json.load(open(f))["rows"] for f in sys.argv[2:]]
print(f"{'configuration':28} {'real samples/s':>15} {'spread':>7} {'virtual':>10} {'virtual/real':>13} {'(min..max)':15}"
      f" {'real AU %':>10} {'virtual AU %':>13}   ({len(runs)} real runs: median, (max-min)/median)")
for i, v in enumerate(virt):
    rows = [run[i] for run in runs]
    bad = [x.get("error") for x in rows + [v] if x.get("error")]
    if bad:
        print(f"{v['label']:28} {bad[0]}")
        continue
    tp = [x["throughput"]["value"] for x in rows]
    a, b = med(tp), v["throughput"]["value"]
    au = med([x["accelerator_utilization"]["value"] for x in rows])
    r = summary([b / x for x in tp])
    print(f"{v['label']:28} {a:15.1f} {100 * (max(tp) - min(tp)) / a:6.1f}% {b:10.1f} {r[0]:13.3f} ({r[1]:.3f}..{r[2]:.3f})"
          f" {au:10.1f} {v['accelerator_utilization']['value']:13.1f}")
PY
echo "$(bench_load) after"
