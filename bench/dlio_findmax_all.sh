#!/usr/bin/env bash
# dlio_findmax_all.sh — `tiersim dlio --find-max --virtual` on every shipped
# workload (workloads/dlio/*.yaml) x every drive of validation/tiers.lua,
# with two tiersim builds A and B side by side: per pair RUNS rounds
# (default 3), each running A and B, A first in odd rounds and B first in
# even ones; per pair the count each names (the same in every round, else
# "varies"; "timeout" or "failed" where any round was), the CPU seconds
# (user + sys: the machine may be shared) of each as the median over the
# rounds, whether the counts agree, and B's CPU over A's taken within each
# round as its median and min..max. A run past LIMIT seconds of CPU time
# (ulimit -t: wall time means nothing on a shared machine) is killed and
# shows as "timeout" (its pair is not compared, its round has no ratio).
# Exits 1 when a pair's counts differ. The load average is printed before
# and after. "B runs" is how many counts B's search ran whole and how many it
# stopped (its last round), from its --json: a run stopped once it could
# not pass, or once it could not miss (dlio_run.c's early pass). "B/A events" is the
# events B's runs simulated over A's (all runs of the search, from the
# --json): the work each did, the same on any machine at any load.
# With B "-", A alone, once (RUNS to repeat it). EXTRA_A and EXTRA_B
# (optional) go to A's and B's command lines, e.g. EXTRA_A "--search
# doubling" holds B against the search that runs every count whole.
# WORKLOADS (a glob, default *) picks workloads by name; TIERS (a
# space-separated list, default every drive of validation/tiers.lua) picks
# drives.
# Usage: bench/dlio_findmax_all.sh A_TIERSIM [B_TIERSIM|-] [LIMIT] [EXTRA_A] [EXTRA_B] [WORKLOADS]
# e.g.   bench/dlio_findmax_all.sh /tmp/old/tiersim build/cli/tiersim 300 "" "" "unet3d_*"
set -u
a=${1:?usage: bench/dlio_findmax_all.sh A_TIERSIM [B_TIERSIM|-] [LIMIT] [EXTRA_A] [EXTRA_B] [WORKLOADS]}
b=${2:--}
limit=${3:-600}
xa=${4:-}
xb=${5:-}
pick=${6:-*}
runs=${RUNS:-3}
[ "$b" = - ] && runs=${RUNS:-1}
src=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$src/bench/lib.sh"
tmp=$(mktemp -d /tmp/dlio-findmax-all-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
tiers=$(grep -oE '^(tier "[^"]+"|(gp3|micron)\("[^"]+")' "$src/validation/tiers.lua" |
	grep -oE '"[^"]+"' | tr -d '"')
tiers=${TIERS:-$tiers}

# One find-max: prints "COUNT CPU RUNS EVENTS" (COUNT: none, timeout or
# failed; RUNS: the counts run whole + those stopped, EVENTS: the events
# its runs simulated; both - where it did not end).
one() {
	local prog=$1 wl=$2 tier=$3 extra=$4
	# shellcheck disable=SC2086
	/usr/bin/time -o "$tmp/t" -f "%U %S" bash -c 'ulimit -t "$0" && exec "$@"' "$limit" \
		"$prog" dlio "$wl" --profile "$src/validation/tiers.lua" --tier "$tier" --virtual \
		--find-max --quiet --json "$tmp/json" $extra >"$tmp/out" 2>"$tmp/err"
	local rc=$? n runs=- events=-
	if [ $rc -eq 152 ] || [ $rc -eq 137 ]; then # SIGXCPU, then SIGKILL past the limit
		n=timeout
	elif [ $rc -ne 0 ]; then
		n=failed
	else
		n=$(grep -oE 'max [0-9]+ accelerators' "$tmp/out" | grep -oE '[0-9]+' || echo none)
		local all stopped
		all=$(grep -c '"accelerators":' "$tmp/json")
		stopped=$(grep -cE '"(stopped|passed)": true' "$tmp/json")
		runs="$((all - stopped))+$stopped"
		events=$(grep -oE '"events": [0-9]+' "$tmp/json" | awk '{ s += $2 } END { print s + 0 }')
	fi
	rm -f "$tmp/json"
	echo "$n $(tail -1 "$tmp/t" | awk '{ print $1 + $2 }') $runs $events"
}

echo "load before: $(uptime)"
printf "%-16s %-18s %8s %8s %8s %8s %-6s %-7s %-10s %s\n" workload tier "A count" "A CPU s" "B count" "B CPU s" \
	same "B runs" "B/A events" "B/A CPU per round ($runs)"
differ=0
sa=0
sb=0
# one side's count over the rounds: "timeout" or "failed" where a round was,
# else the count, or "varies" where the rounds named different ones
counts() {
	tr ' ' '\n' | grep . | sort -u | awk '$0 == "timeout" || $0 == "failed" { bad = $0 } { n++; c = $0 }
		END { print bad != "" ? bad : n == 1 ? c : "varies" }'
}
for y in "$src"/workloads/dlio/$pick.yaml; do
	wl=$(basename "$y" .yaml)
	for tier in $tiers; do
		declare -A n=() c=()
		ratios_a="" ratios_b="" runs_b=- ev_a=- ev_b=-
		for ((i = 0; i < runs; i++)); do
			sides=(a)
			[ "$b" != - ] && mapfile -t sides < <(bench_order "$i" a b)
			declare -A this=()
			for w in "${sides[@]}"; do
				if [ "$w" = a ]; then prog=$a extra=$xa; else prog=$b extra=$xb; fi
				read -r cnt cpu ran ev <<<"$(one "$prog" "$wl" "$tier" "$extra")"
				if [ "$w" = a ]; then ev_a=$ev; else ev_b=$ev; fi
				[ "$w" = b ] || [ "$b" = - ] && runs_b=$ran
				n[$w]+="$cnt " c[$w]+="$cpu "
				this[$w]=$cpu
				case $cnt in timeout | failed) this[$w]=- ;; esac
			done
			ratios_a+="${this[a]} " ratios_b+="${this[b]:--} "
			unset this
		done
		na=$(echo "${n[a]}" | counts)
		# shellcheck disable=SC2086 # the rounds' figures, a word each
		ca=$(bench_stat -f %.2f ${c[a]} | cut -d' ' -f1)
		nb=- cb=0 same=- r=-
		if [ "$b" != - ]; then
			nb=$(echo "${n[b]}" | counts)
			# shellcheck disable=SC2086
			cb=$(bench_stat -f %.2f ${c[b]} | cut -d' ' -f1)
			r=$(bench_ratio "$ratios_b" "$ratios_a")
			case "$na $nb" in
			*timeout* | *failed* | *varies*) same=- ;;
			*) if [ "$na" = "$nb" ]; then same=yes; else same=NO differ=1; fi ;;
			esac
		fi
		unset n c
		sa=$(awk -v s="$sa" -v c="$ca" 'BEGIN { print s + c }')
		sb=$(awk -v s="$sb" -v c="$cb" 'BEGIN { print s + c }')
		er=$(awk -v a="$ev_a" -v b="$ev_b" 'BEGIN { print ((a ~ /^[0-9]+$/ && b ~ /^[0-9]+$/ && a > 0) ? sprintf("%.3f", b / a) : "-") }')
		printf "%-16s %-18s %8s %8.2f %8s %8.2f %-6s %-7s %-10s %s\n" "$wl" "$tier" "$na" "$ca" "$nb" "$cb" \
			"$same" "$runs_b" "$er" "$r"
	done
done
printf "total CPU (the medians): A %.1f s, B %.1f s\n" "$sa" "$sb"
echo "load after: $(uptime)"
exit $differ
