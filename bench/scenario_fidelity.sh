#!/usr/bin/env bash
# scenario_fidelity.sh — do real time and virtual time agree on a scenario?
#
#   bench/scenario_fidelity.sh [BUILD_DIR] [SCRIPT] [TIERS] [key=value ...]
#
# Runs SCRIPT (default scripts/main.lua) with `tiersim compare` twice in one
# go: in real time through tierfs mounts, then with --virtual (the same tier
# model, engine profile and decode calibration on a discrete-event clock),
# and prints per configuration the samples/s of each and their ratio
# (virtual / real). The key=value arguments go to both runs; without any,
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

"$CLI" compare "$SCRIPT" --tiers "$TIERS" pipeline.decode=modeled "$@" --quiet \
	--json "$out/real.json" >/dev/null
"$CLI" compare "$SCRIPT" --tiers "$TIERS" pipeline.decode=modeled "$@" --quiet --virtual \
	--json "$out/virtual.json" >/dev/null
python3 - "$out/real.json" "$out/virtual.json" <<'PY'
import json, sys
real = json.load(open(sys.argv[1]))["rows"]
virt = json.load(open(sys.argv[2]))["rows"]
print(f"{'configuration':28} {'real samples/s':>15} {'virtual':>10} {'virtual/real':>13}"
      f" {'real AU %':>10} {'virtual AU %':>13}")
for r, v in zip(real, virt):
    if r.get("error") or v.get("error"):
        print(f"{r['label']:28} {r.get('error') or v.get('error')}")
        continue
    a, b = r["throughput"]["value"], v["throughput"]["value"]
    print(f"{r['label']:28} {a:15.1f} {b:10.1f} {b / a:13.3f}"
          f" {r['accelerator_utilization']['value']:10.1f}"
          f" {v['accelerator_utilization']['value']:13.1f}")
PY
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
