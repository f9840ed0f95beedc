#!/usr/bin/env bash
# dlio_findmax_load.sh — `tiersim dlio --find-max --virtual` of one workload
# with two builds side by side, on a quiet machine and then with one busy
# loop of this script's own holding a CPU (the machine under load), in
# ROUNDS interleaved rounds (the builds' order alternating) on each TIER:
# each build's wall seconds and CPU seconds (user + sys) as median
# (min..max), the ratio B / A within each round, and the load. It also
# checks both builds name the same count.
# Usage: bench/dlio_findmax_load.sh A_TIERSIM B_TIERSIM [ROUNDS] [WORKLOAD] [TIER...]
# e.g.   bench/dlio_findmax_load.sh old/cli/tiersim build/cli/tiersim 3 bert_v100 \
#            aws-gp3-16000 aws-io2-16000
set -u
[ $# -ge 2 ] || { sed -n '2,11p' "$0" >&2; exit 2; }
a=$1 b=$2 rounds=${3:-3} wl=${4:-bert_v100}
shift $(($# < 4 ? $# : 4))
tiers=("$@")
[ ${#tiers[@]} -gt 0 ] || tiers=(aws-gp3-16000 aws-io2-16000)
src=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$src/bench/lib.sh"
tmp=$(mktemp -d /tmp/dlio-findmax-load-XXXXXX)
hog=
trap '[ -n "$hog" ] && kill "$hog" 2>/dev/null; rm -rf "$tmp"' EXIT
echo "$(bench_load) before, $(date -u +%T) UTC"
for mode in quiet loaded; do
	if [ $mode = loaded ]; then
		(while :; do :; done) &
		hog=$!
		sleep 2
	fi
	for t in "${tiers[@]}"; do
		declare -A wall=() cpu=() ans=()
		for ((i = 0; i < rounds; i++)); do
			for p in $(bench_order "$i" A B); do
				prog=$a
				[ "$p" = B ] && prog=$b
				/usr/bin/time -o "$tmp/t" -f "%e %U %S" "$prog" dlio "$wl" \
					--profile "$src/validation/tiers.lua" --tier "$t" --virtual --find-max \
					--quiet >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
				read -r w u s <"$tmp/t"
				wall[$p]+="$w "
				cpu[$p]+="$(echo "$u + $s" | bc) "
				ans[$p]+="$(grep -o 'max [0-9]* accelerators' "$tmp/out" | tr -dc 0-9) "
			done
		done
		same=yes
		[ -n "${ans[A]// /}" ] && [ -n "${ans[B]// /}" ] ||
			{ echo "dlio_findmax_load: $t: no \"max N accelerators\" line (A '${ans[A]}', B '${ans[B]}')" >&2; exit 1; }
		[ "${ans[A]}" = "${ans[B]}" ] || same="NO (A ${ans[A]}, B ${ans[B]})"
		# shellcheck disable=SC2086 # the rounds as words
		printf '%-7s %-20s wall A %s B %s ratio %s; cpu A %s B %s; same count: %s\n' "$mode" "$t" \
			"$(bench_stat ${wall[A]})" "$(bench_stat ${wall[B]})" \
			"$(bench_ratio "${wall[B]}" "${wall[A]}")" \
			"$(bench_stat ${cpu[A]})" "$(bench_stat ${cpu[B]})" "$same"
	done
	[ $mode = loaded ] && { kill "$hog"; hog=; }
done
echo "$(bench_load) after, $(date -u +%T) UTC"
