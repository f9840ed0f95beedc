#!/usr/bin/env bash
# dlio_findmax.sh — what `tiersim dlio --find-max` costs with its two
# searches, side by side in one run: --search doubling (1, 2, 4, ... whole
# runs, then bisection) and --search bracket (the default: from the drive's
# bandwidth bound, runs stopped once they cannot pass), in RUNS rounds
# (default 3), each running both, doubling first in odd rounds and bracket
# first in even ones, on one workload and tier, as CPU seconds (user + sys:
# the machine may be shared). Prints each search's median CPU and min..max
# over the rounds, the ratio bracket / doubling taken within each round as
# its median and min..max, and the load. It also checks both name the same
# count.
# Usage: bench/dlio_findmax.sh [TIERSIM] [WORKLOAD] [TIER] [RUNS]
# e.g.   bench/dlio_findmax.sh build/cli/tiersim resnet50_h100 micron-9550 3
set -u
prog=${1:-build/cli/tiersim}
wl=${2:-resnet50_h100}
tier=${3:-micron-9550}
runs=${4:-3}
src=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$src/bench/lib.sh"
tmp=$(mktemp -d /tmp/dlio-findmax-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
echo "$(bench_load) before"
declare -A cpu answer
for ((i = 0; i < runs; i++)); do
	for how in $(bench_order "$i" doubling bracket); do
		/usr/bin/time -o "$tmp/t" -f "%U %S" "$prog" dlio "$wl" --profile "$src/validation/tiers.lua" \
			--tier "$tier" --virtual --find-max --search "$how" --quiet >"$tmp/out" 2>"$tmp/err" ||
			{ cat "$tmp/err"; exit 1; }
		cpu[$how]+="$(tail -1 "$tmp/t" | awk '{ print $1 + $2 }') "
		a=$(grep -o 'max [0-9]* accelerators' "$tmp/out" || echo none)
		[ -z "${answer[$how]:-}" ] || [ "${answer[$how]}" = "$a" ] || { echo "$how: $a, then ${answer[$how]}"; exit 1; }
		answer[$how]=$a
	done
done
[ "${answer[doubling]}" = "${answer[bracket]}" ] ||
	{ echo "the searches differ: doubling ${answer[doubling]}, bracket ${answer[bracket]}"; exit 1; }
echo "$wl on $tier: ${answer[bracket]} with either search ($runs rounds, the order alternated)"
for how in doubling bracket; do
	# shellcheck disable=SC2086 # the rounds' figures, a word each
	printf "  %-9s median (min..max) %s s CPU; runs %s\n" "$how:" "$(bench_stat -f %.2f ${cpu[$how]})" "${cpu[$how]% }"
done
echo "  bracket / doubling within each round: $(bench_ratio "${cpu[bracket]}" "${cpu[doubling]}")"
echo "$(bench_load) after"
