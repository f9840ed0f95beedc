#!/bin/sh
# wake_cost.sh — bench/wake_cost.py's fit, exactly, on two recordings of one
# job made by hand.
#
# The reader of wakes.sh's wake-up rule (thread 10) sleeps in the two reads
# the loop worker sends (both move to it); the gap after the first runs to
# its second. On the fast tier ("nvme-local", rt 20us) each read took 100us
# and the gap was 100us; on the slow one ("ultra-cloud") 280us, and the gap
# 100us + 30us * ln((280 + 20) / (100 + 20)) = 127489ns: one pair, whose fit
# through the origin is 30us (30000 ns, to the rounding of the gap). A
# second slow run whose gap did not grow fits 0; the figure is their median
# (15000), and a run whose gap shrank fits below 0, which the figure, a
# cost, does not go (0).
. "${TS_SOURCE_ROOT:?}/tests/traces/lib.sh"
P=${TS_SOURCE_ROOT}/bench/wake_cost.py
[ -x /usr/bin/python3 ] || { echo "no /usr/bin/python3" >&2; exit 77; }
D=$T/runs
mkdir -p "$D"

# run NAME READ_NS GAP_NS: the reader's two reads, each READ_NS at tierfs,
# GAP_NS from the first's completion to the second's issue
run() {
	a=210000
	ad=$((a + $2))
	b=$((ad + $3))
	bd=$((b + $2))
	cat > "$T/$1.txt" <<X
header version=3 start_mono_ns=1000000 model=8 floor_ns=20000
path 1 "/data.ext4"
$a $ad read 1 0 4096 4096 33 4194304 0 0
cpu 33 pid=33 ppid=2 on_ns=1000 runq_ns=0
$b $bd read 1 8192 4096 4096 33 4194304 0 0
cpu 33 pid=33 ppid=2 on_ns=2000 runq_ns=0
end drops=0 records=2 t=$bd
X
	"$B" trace undump "$T/$1.txt" -o "$D/$1.trace"
	cat > "$D/$1.trace.wakes" <<X
tiersim-wakes 1
span 1200000 $((1000000 + bd + 90000))
T 10 10 0 1200000 $((1000000 + bd + 90000)) 0 0 reader
S $((1000000 + ad + 5000)) 1205000 10 0
S $((1000000 + bd + 5000)) $((1000000 + b - 5000)) 10 0
X
}
fit() { /usr/bin/python3 "$P" "${TS_BUILD_ROOT}" "$D" nvme-local "$@"; }

run nvme-local.r1 100000 100000
run ultra-cloud.r1 280000 127489
fit ultra-cloud > "$T/one.out" 2>&1
check "one pair: the run's fit" grep -Eq '^ultra-cloud\.r1\.trace +1 +30\.0 ' "$T/one.out"
check "one pair: the figure" grep -q '^replay_wake_cost_ns: 30000 (low 30000, high 30000)' "$T/one.out"
run ultra-cloud.r2 280000 100000
fit ultra-cloud > "$T/two.out" 2>&1
check "two runs: the median" grep -q '^replay_wake_cost_ns: 15000 (low 0, high 30000)' "$T/two.out"
rm "$D"/ultra-cloud.*
run ultra-cloud.r1 280000 80000
fit ultra-cloud > "$T/neg.out" 2>&1
check "a shrinking gap: below 0" grep -q "^median of 1 runs' fits -21827 ns" "$T/neg.out"
check "a shrinking gap: the cost 0" grep -q '^replay_wake_cost_ns: 0 (low 0, high 0)' "$T/neg.out"
# shellcheck disable=SC2154 # fail: set by lib.sh (check())
[ "$fail" = 0 ] || { cat "$T"/*.out >&2; }
exit "$fail"
