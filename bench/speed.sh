#!/usr/bin/env bash
# speed.sh — how much CPU two tiersim builds take on the speed cases of
# virtual time, side by side in one run: A and B run each case in turn,
# RUNS times (default 3), interleaved (A first in odd rounds, B first in
# even ones, so that neither always runs on the cache or the load the
# other left), as CPU seconds (user + sys: the machine may be shared;
# wall seconds are printed too, for the record).
# Prints per case both medians, their spreads (max - min), the ratio of
# the medians B / A, each round's B / A as its median and min..max, and
# whether both printed the same figures (JSON without the host-time
# fields). The cases:
#   epoch     bench/imagenet_epoch.lua --virtual: one ImageNet epoch,
#             ResNet-50 on one V100, 60 GiB page-cache model
#   scale     resnet50_h100 x 115 H100s x 5 epochs on micron-9550
#   findmax   resnet50_h100 --find-max on micron-9550
#   validate  tiersim validate, every case of the corpus
# Each binary reads its tier profiles and workloads from its own build's
# source tree unless TIERSIM_DATADIR is set: a tree that changes while the
# bench runs (a rebase, a checkout) changes the figures; compare builds of
# trees that stay put, or set TIERSIM_DATADIR to one frozen copy.
# Usage: bench/speed.sh A_TIERSIM B_TIERSIM [RUNS] [CASE...]
# e.g.   bench/speed.sh /tmp/old/tiersim build/cli/tiersim 3 epoch findmax
set -u
a=${1:?usage: bench/speed.sh A_TIERSIM B_TIERSIM [RUNS] [CASE...]}
b=${2:?usage: bench/speed.sh A_TIERSIM B_TIERSIM [RUNS] [CASE...]}
runs=${3:-3}
shift $(($# < 3 ? $# : 3))
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(epoch scale findmax validate)
src=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$src/bench/lib.sh"
tmp=$(mktemp -d /tmp/speed-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# The command of case $1 for tiersim $2, its JSON to $3.
cmd() {
	case $1 in
	epoch) echo "$2 run $src/bench/imagenet_epoch.lua --virtual --quiet --json $3" ;;
	scale) echo "$2 dlio resnet50_h100 --profile $src/validation/tiers.lua --tier micron-9550" \
		"--accelerators 115 --virtual --quiet --json $3" ;;
	findmax) echo "$2 dlio resnet50_h100 --profile $src/validation/tiers.lua --tier micron-9550" \
		"--find-max --virtual --quiet --json $3" ;;
	validate) echo "$2 validate --json" ;;
	*) echo "bench/speed.sh: unknown case '$1' (epoch, scale, findmax, validate)" >&2; return 1 ;;
	esac
}
# Figures only: host times and paths out.
figures() {
	/usr/bin/python3 -c '
import json, sys
def strip(o):
    if isinstance(o, dict):
        return {k: strip(v) for k, v in o.items()
                if not any(w in k for w in ("wall", "host", "elapsed", "cpu_s", "script"))}
    if isinstance(o, list):
        return [strip(v) for v in o]
    return o
print(json.dumps(strip(json.load(open(sys.argv[1]))), sort_keys=True))' "$1"
}
# the rounds' figures -> "median spread" (spread: max - min)
stats() { bench_stat -r | awk '{ printf "%.2f %.2f", $1, $3 - $2 }'; }

echo "load before: $(uptime)"
for c in "${cases[@]}"; do
	cmd "$c" x x >/dev/null || exit 2
	declare -A cpu=() wall=()
	same=yes
	for ((i = 0; i < runs; i++)); do
		for w in $(bench_order "$i" a b); do
			prog=${!w}
			out="$tmp/$c.$w.json"
			if [ "$c" = validate ]; then
				/usr/bin/time -o "$tmp/t" -f "%U %S %e" $(cmd "$c" "$prog") >"$out" 2>"$tmp/err"
			else
				/usr/bin/time -o "$tmp/t" -f "%U %S %e" $(cmd "$c" "$prog" "$out") >/dev/null 2>"$tmp/err"
			fi
			rc=$?
			# validate exits 1 on a ratchet failure: its figures still count.
			[ $rc -eq 0 ] || [ "$c" = validate ] || { echo "$c ($w): exit $rc"; cat "$tmp/err"; exit 1; }
			cpu[$w]+="$(tail -1 "$tmp/t" | awk '{ print $1 + $2 }') "
			wall[$w]+="$(tail -1 "$tmp/t" | awk '{ print $3 }') "
		done
		[ "$(figures "$tmp/$c.a.json")" = "$(figures "$tmp/$c.b.json")" ] || same=no
	done
	read -r ma sa <<<"$(echo "${cpu[a]}" | stats)"
	read -r mb sb <<<"$(echo "${cpu[b]}" | stats)"
	printf "%-9s A %6.2f s CPU (spread %.2f)  B %6.2f s CPU (spread %.2f)  B/A %.3f  same figures: %s\n" \
		"$c" "$ma" "$sa" "$mb" "$sb" "$(awk -v a="$ma" -v b="$mb" 'BEGIN { print b / a }')" "$same"
	printf "          runs A: %s  B: %s\n" "${cpu[a]% }" "${cpu[b]% }"
	read -r wa swa <<<"$(echo "${wall[a]}" | stats)"
	read -r wb swb <<<"$(echo "${wall[b]}" | stats)"
	printf "          wall A %.2f s (spread %.2f)  B %.2f s (spread %.2f)\n" "$wa" "$swa" "$wb" "$swb"
	# cpu[a] and cpu[b] hold the rounds in order: B / A within each round
	printf "          B/A per round: median %s\n" "$(bench_ratio "${cpu[b]}" "${cpu[a]}")"
	unset cpu wall
done
echo "load after: $(uptime)"
