#!/usr/bin/env bash
# dlio_findmax.sh — what `tiersim dlio --find-max` costs with its two
# searches, side by side in one run: --search doubling (1, 2, 4, ... whole
# runs, then bisection) and --search bracket (the default: from the drive's
# bandwidth bound, runs stopped once they cannot pass), interleaved RUNS
# times each (default 3) on one workload and tier, as CPU seconds (user +
# sys: the machine may be shared), their medians, spreads (max - min) and
# the ratio of the medians. It also checks both name the same count.
# Usage: bench/dlio_findmax.sh [TIERSIM] [WORKLOAD] [TIER] [RUNS]
# e.g.   bench/dlio_findmax.sh build/cli/tiersim resnet50_h100 micron-9550 3
set -u
prog=${1:-build/cli/tiersim}
wl=${2:-resnet50_h100}
tier=${3:-micron-9550}
runs=${4:-3}
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/dlio-findmax-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
declare -A cpu answer
for ((i = 0; i < runs; i++)); do
	for how in doubling bracket; do
		/usr/bin/time -o "$tmp/t" -f "%U %S" "$prog" dlio "$wl" --profile "$src/validation/tiers.lua" \
			--tier "$tier" --virtual --find-max --search "$how" --quiet >"$tmp/out" 2>"$tmp/err" ||
			{ cat "$tmp/err"; exit 1; }
		cpu[$how]+="$(awk '{ print $1 + $2 }' "$tmp/t") "
		a=$(grep -o 'max [0-9]* accelerators' "$tmp/out" || echo none)
		[ -z "${answer[$how]:-}" ] || [ "${answer[$how]}" = "$a" ] || { echo "$how: $a, then ${answer[$how]}"; exit 1; }
		answer[$how]=$a
	done
done
[ "${answer[doubling]}" = "${answer[bracket]}" ] ||
	{ echo "the searches differ: doubling ${answer[doubling]}, bracket ${answer[bracket]}"; exit 1; }
stats() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END {
	m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
	printf "%.2f %.2f", m, v[NR] - v[1] }'; }
read -r md sd <<<"$(echo "${cpu[doubling]}" | stats)"
read -r mb sb <<<"$(echo "${cpu[bracket]}" | stats)"
echo "$wl on $tier: ${answer[bracket]} with either search ($runs interleaved runs each)"
printf "  doubling: median %s s CPU (spread %s; runs %s)\n" "$md" "$sd" "${cpu[doubling]% }"
printf "  bracket:  median %s s CPU (spread %s; runs %s)\n" "$mb" "$sb" "${cpu[bracket]% }"
awk -v d="$md" -v b="$mb" 'BEGIN { printf "  bracket / doubling: %.3f\n", b / d }'
