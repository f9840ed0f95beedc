#!/usr/bin/env bash
# dlio_findmax_all.sh — `tiersim dlio --find-max --virtual` on every shipped
# workload (workloads/dlio/*.yaml) x every drive of validation/tiers.lua,
# with two tiersim builds A and B side by side (interleaved): per pair the
# count each names, the CPU seconds (user + sys: the machine may be shared)
# of each, and whether the counts agree. A run past LIMIT seconds of CPU
# time (ulimit -t: wall time means nothing on a shared machine) is killed
# and shows as "timeout" (its pair is not compared). Exits 1 when a pair's
# counts differ.
# With B "-", A alone. EXTRA_A and EXTRA_B (optional) go to A's and B's
# command lines, e.g. EXTRA_A "--search doubling" holds B against the
# search that runs every count whole. WORKLOADS (a glob, default *) picks
# workloads by name.
# Usage: bench/dlio_findmax_all.sh A_TIERSIM [B_TIERSIM|-] [LIMIT] [EXTRA_A] [EXTRA_B] [WORKLOADS]
# e.g.   bench/dlio_findmax_all.sh /tmp/old/tiersim build/cli/tiersim 300 "" "" "unet3d_*"
set -u
a=${1:?usage: bench/dlio_findmax_all.sh A_TIERSIM [B_TIERSIM|-] [LIMIT] [EXTRA_A] [EXTRA_B] [WORKLOADS]}
b=${2:--}
limit=${3:-600}
xa=${4:-}
xb=${5:-}
pick=${6:-*}
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/dlio-findmax-all-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
tiers=$(grep -oE '^(tier "[^"]+"|(gp3|micron)\("[^"]+")' "$src/validation/tiers.lua" |
	grep -oE '"[^"]+"' | tr -d '"')

# One find-max: prints "COUNT CPU" (COUNT: none, timeout or failed).
one() {
	local prog=$1 wl=$2 tier=$3 extra=$4
	# shellcheck disable=SC2086
	/usr/bin/time -o "$tmp/t" -f "%U %S" bash -c 'ulimit -t "$0" && exec "$@"' "$limit" \
		"$prog" dlio "$wl" --profile "$src/validation/tiers.lua" --tier "$tier" --virtual \
		--find-max --quiet $extra >"$tmp/out" 2>"$tmp/err"
	local rc=$? n
	if [ $rc -eq 152 ] || [ $rc -eq 137 ]; then # SIGXCPU, then SIGKILL past the limit
		n=timeout
	elif [ $rc -ne 0 ]; then
		n=failed
	else
		n=$(grep -oE 'max [0-9]+ accelerators' "$tmp/out" | grep -oE '[0-9]+' || echo none)
	fi
	echo "$n $(tail -1 "$tmp/t" | awk '{ print $1 + $2 }')"
}

echo "load before: $(uptime)"
printf "%-16s %-18s %8s %8s %8s %8s %s\n" workload tier "A count" "A CPU s" "B count" "B CPU s" same
differ=0
sa=0
sb=0
for y in "$src"/workloads/dlio/$pick.yaml; do
	wl=$(basename "$y" .yaml)
	for tier in $tiers; do
		read -r na ca <<<"$(one "$a" "$wl" "$tier" "$xa")"
		nb=- cb=0 same=-
		if [ "$b" != - ]; then
			read -r nb cb <<<"$(one "$b" "$wl" "$tier" "$xb")"
			case "$na $nb" in
			*timeout* | *failed*) same=- ;;
			*) if [ "$na" = "$nb" ]; then same=yes; else same=NO differ=1; fi ;;
			esac
		fi
		sa=$(awk -v s="$sa" -v c="$ca" 'BEGIN { print s + c }')
		sb=$(awk -v s="$sb" -v c="$cb" 'BEGIN { print s + c }')
		printf "%-16s %-18s %8s %8.2f %8s %8.2f %s\n" "$wl" "$tier" "$na" "$ca" "$nb" "$cb" "$same"
	done
done
printf "total CPU: A %.1f s, B %.1f s\n" "$sa" "$sb"
echo "load after: $(uptime)"
exit $differ
