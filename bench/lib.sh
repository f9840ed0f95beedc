# lib.sh — sourced by the bash scripts of bench/: the order of a round's
# runs, and their figures over the rounds (bench/benchstat.py computes
# them; its header says what they are).
# shellcheck shell=bash
# BENCH_DIR: exported, for the scripts' inline Python to import benchstat from
export BENCH_DIR
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# bench_order ROUND ITEM...: the items, one a line, rotated by ROUND (round
# 0 as given, round 1 from the second, ...): over rounds each item runs in
# each place, and two items alternate which runs first.
bench_order() {
	local r=$1 i
	shift
	local items=("$@")
	for ((i = 0; i < ${#items[@]}; i++)); do
		echo "${items[$(((i + r) % ${#items[@]}))]}"
	done
}

# bench_stat [-r] [-f FMT] [X...]: "median (min..max)" of X (or stdin's words);
# -r: "median min max"
bench_stat() { /usr/bin/python3 "$BENCH_DIR/benchstat.py" stat "$@"; }
# bench_ratio [-r] [-f FMT] "A1 A2 .." "B1 B2 ..": of A[i] / B[i], round by round
bench_ratio() { /usr/bin/python3 "$BENCH_DIR/benchstat.py" ratio "$@"; }
# bench_diff [-r] [-f FMT] "A1 A2 .." "B1 B2 ..": of A[i] - B[i], round by round
bench_diff() { /usr/bin/python3 "$BENCH_DIR/benchstat.py" diff "$@"; }
# bench_load: the load average now and the CPUs it is shared by
bench_load() { echo "load $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"; }
