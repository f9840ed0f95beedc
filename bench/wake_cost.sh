#!/usr/bin/env bash
# wake_cost.sh BUILD_DIR OUT_DIR — make the block-mode recordings that a
# host's replay_wake_cost_ns (pipeline/hosts.lua; the replay's wake-up rule,
# traces/README.md) is fitted on, then fit it (bench/wake_cost.py).
#
# The recordings are bench/pytorch_replay.sh's block-mode ones, made the same
# way: a DataLoader (bench/pytorch_loader.py, bytes only, 2 workers, prefetch
# 2, batch 32, the training step a 40 ms sleep: bytes-w2-p2-s40) reads an
# imagenet-jpeg dataset through `tiersim record --fs ext4 --mem 0` (every
# read reaches the tier model through the loop device, with the wake file),
# round by round, each round every tier in turn, so that a load that drifts
# weighs on every tier alike. They are kept in OUT_DIR as TIER.rN.trace
# (with .wakes) and the fit's table follows (bench/wake_cost.py OUT_DIR).
#
# Environment: TS_IMAGES (default 600), TS_REPEAT (rounds, default 3),
# TS_TIERS (comma-separated, the first the fast tier every other is fitted
# against; default nvme-local,essd-pl0,ultra-cloud), TS_FS (default ext4),
# TS_CHRT (a SCHED_FIFO priority for each recording, as pytorch_replay.sh),
# TS_PYTORCH_DATA (a dataset directory to reuse; made there if missing).
# Prints the load at the start and the end and each run's UTC time.
set -u

[ $# -ge 2 ] || { echo "usage: bench/wake_cost.sh BUILD_DIR OUT_DIR" >&2; exit 2; }
BUILD=$(cd "$1" 2>/dev/null && pwd) || { echo "wake_cost: no build directory '$1'" >&2; exit 1; }
OUT=$2
SRC=$(cd "$(dirname "$0")/.." && pwd)
export TIERSIM_DATADIR=${TIERSIM_DATADIR:-$SRC}
# shellcheck source=bench/lib.sh
. "$SRC/bench/lib.sh"
B=$BUILD/cli/tiersim
PY=/usr/bin/python3
N=${TS_IMAGES:-600}
R=${TS_REPEAT:-3}
FS=${TS_FS:-ext4}
IFS=, read -r -a TIERS <<< "${TS_TIERS:-nvme-local,essd-pl0,ultra-cloud}"
[ -x "$B" ] || { echo "wake_cost: $B is not built (ninja -C $BUILD)" >&2; exit 1; }
[ "${#TIERS[@]}" -ge 2 ] || { echo "wake_cost: TS_TIERS needs the fast tier and at least one other" >&2; exit 2; }
"$PY" -c 'import torch' 2> /dev/null || { echo "wake_cost: $PY has no torch (bench/pytorch_replay.sh installs it)" >&2; exit 1; }
mkdir -p "$OUT" || exit 1
DS=${TS_PYTORCH_DATA:-$OUT/ds}
if [ ! -f "$DS/dataset.json" ]; then
	"$B" dataset make imagenet-jpeg --count "$N" --out "$DS" --quiet ||
		{ echo "wake_cost: making the dataset failed" >&2; exit 1; }
fi
(cd "$DS" && find train -type f | sort | head -n "$N") > "$OUT/list"

echo "wake_cost: $(date -u +%FT%TZ) start, $(bench_load); $N images, ${#TIERS[@]} tiers x $R rounds, $FS"
for r in $(seq 1 "$R"); do
	for t in "${TIERS[@]}"; do
		tr="$OUT/$t.r$r.trace"
		s0=$(date -u +%T)
		bench_loader_record "$B" "$DS" "$t" "$FS" "$tr" "$OUT/list" "$OUT/$t.r$r.json" \
			--mode bytes --workers 2 --prefetch 2 --batch 32 --step 0.040 \
			> "$OUT/$t.r$r.rec" 2> "$OUT/$t.r$r.err" ||
			{ echo "wake_cost: $t round $r failed:" >&2; cat "$OUT/$t.r$r.err" >&2; exit 1; }
		[ -f "$tr.wakes" ] || { echo "wake_cost: $tr has no wake file (record runs as root)" >&2; exit 1; }
		[ -n "$(bench_request_clock "$B" "$tr")" ] ||
			{ echo "wake_cost: $tr has no request clock (the loop device's issue): mount tracefs at /sys/kernel/tracing" >&2; exit 1; }
		echo "round $r $t: $s0-$(date -u +%T) epoch $(jq -r .epoch_s "$OUT/$t.r$r.json") s"
	done
done
echo "wake_cost: $(date -u +%FT%TZ) end, $(bench_load)"
[ "${TS_FIT:-1}" = 0 ] || "$PY" "$SRC/bench/wake_cost.py" "$BUILD" "$OUT" "${TIERS[@]}"
