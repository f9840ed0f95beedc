#!/usr/bin/env bash
# pool_depth.sh BUILD_DIR — tierfs's worker pool against the queue depth:
# untraced 4 KiB random O_DIRECT reads (bench/trace_ab.c) at each depth of
# TS_QDS through several mounts of one backing folder, each mount with its
# own pool options, alternated in short slices (ABC CBA ...), so that every
# mount sees the same host. Per depth and mount: the median IOPS (and its
# min..max over the rounds) against the tier's expected QD / latency, the
# daemon's CPU per read, and the daemon's threads (/proc/PID/task) at most
# while the depth ran and after it ended: 0.5 s after (workers parked for
# less than idle_timeout still counted) and TS_SETTLE_S after (default 2 s,
# past the default idle_timeout of 1 s: the pool it keeps); then the IOPS
# of each mount as a ratio of the first mount's in the same round.
#
# A request sleeping in the model holds a worker thread while its latency
# passes, so a depth of N needs N workers; tierfs starts a worker whenever
# none is idle (up to max_threads) and ends one once it has been idle for
# idle_timeout (fs/README.md, "Worker threads"). Between its slices a mount
# is idle while the others run: an idle_timeout shorter than that gap ends
# and starts its threads at every slice.
# The tier here (TS_LATENCY, default 10ms, fixed, no cap) makes every depth
# up to 256 latency-bound: IOPS = QD / latency where the pool keeps up.
#
# Environment:
#   TS_POOLS   the mounts, "NAME=OPTIONS ..." (OPTIONS added to each
#              mount's -o; empty: the build's defaults); default
#              "default= idle8=max_idle_threads=8 t16=max_threads=16"
#   TS_BEFORE  another build: its tierfs mounted with its defaults, as
#              "before", last (TS_BEFORE_OPTS: options added to its -o,
#              e.g. max_idle_threads=-1)
#   TS_QDS     depths (default "1 16 32 64 128 256")
#   TS_TIER    "deep" (default: the fixed-latency tier above) or a built-in
#              tier's name (e.g. unlimited)
#   TS_LATENCY the deep tier's read latency (default 10ms)
#   TS_ROUNDS  rounds per depth (default 5), TS_SLICE_MS (default 300)
#   TS_SETTLE_S when the threads are counted again after a depth (default
#              2 s; set it past a longer idle_timeout given in TS_POOLS)
set -u

[ $# -ge 1 ] || { echo "usage: bench/pool_depth.sh BUILD_DIR" >&2; exit 2; }
BUILD=$(cd "$1" 2>/dev/null && pwd) || { echo "pool_depth: no build directory '$1'" >&2; exit 1; }
SRC=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SRC/bench/lib.sh"
export TIERSIM_DATADIR=${TIERSIM_DATADIR:-$SRC}
TIERFS=$BUILD/fs/tierfs
AB=$BUILD/bench/trace_ab
ROUNDS=${TS_ROUNDS:-5}
SLICE=${TS_SLICE_MS:-300}
QDS=${TS_QDS:-"1 16 32 64 128 256"}
TIER=${TS_TIER:-deep}
LAT=${TS_LATENCY:-10ms}
POOLS=${TS_POOLS:-"default= idle8=max_idle_threads=8 t16=max_threads=16"}
SETTLE=${TS_SETTLE_S:-2}
for x in "$TIERFS" "$AB"; do
	[ -x "$x" ] || { echo "pool_depth: $x is not built (ninja -C $BUILD)" >&2; exit 1; }
done

declare -A OPTS=()
names=()
for p in $POOLS; do
	names+=("${p%%=*}")
	OPTS[${p%%=*}]=${p#*=}
done
bench_mounts pool_depth "${names[@]}"
[ -n "$BEFORE" ] && OPTS[traced-before]=${TS_BEFORE_OPTS:-}
dd if=/dev/urandom of="$BACKING/f" bs=1M count=256 status=none || exit 1
cat "$BACKING/f" >/dev/null # tierfs reads its backing file through the page cache

tieropt=tier=$TIER
if [ "$TIER" = deep ]; then
	cat >"$WORK/deep.lua" <<X
tier "deep" { desc = "pool_depth.sh: fixed latency, no cap", source = "bench/pool_depth.sh",
	latency = { read = { fixed = "$LAT" }, write = { fixed = "$LAT" } } }
X
	tieropt="tier=deep,profile=$WORK/deep.lua"
fi

mount_fs() { # NAME: in the foreground, so that $! is the daemon
	local bin=$TIERFS o=${OPTS[$1]}
	[ "$1" = traced-before ] && bin=$BEFORE/fs/tierfs
	"$bin" -f -o "$tieropt${o:+,$o}" "$BACKING" "$WORK/$1" 2>>"$WORK/$1.log" &
	PID[$1]=$!
	for _ in $(seq 600); do
		grep -q '"calibrated": true' "$WORK/$1/.tierfs/stats" 2>/dev/null && return 0
		kill -0 "${PID[$1]}" 2>/dev/null || break
		sleep 0.05
	done
	echo "pool_depth: $1 mount failed: $(tail -1 "$WORK/$1.log")" >&2
	exit 1
}
for m in $MOUNTS; do mount_fs "$m"; done

threads() { # PID: its threads now
	local t=(/proc/"$1"/task/*)
	echo "${#t[@]}"
}
args=()
k=0
for m in $MOUNTS; do
	args+=("$WORK/$m/f:${PID[$m]}")
	echo "# file $k: ${m/traced-before/before} (-o $tieropt${OPTS[$m]:+,${OPTS[$m]}}), $(threads "${PID[$m]}") threads at mount"
	k=$((k + 1))
done
echo "# tier $TIER${LAT:+ (read latency $LAT)}; $ROUNDS rounds of $SLICE ms per mount per depth; $(bench_load), $(date -u +%T) UTC"
for qd in $QDS; do
	# the most threads each daemon had while this depth ran, sampled every 20 ms
	(
		declare -A hi=()
		# it ends with the script too: an orphan would hold the files the
		# script's caller holds open (bench/q's lock) until it is killed
		while [ ! -e "$WORK/stop" ] && kill -0 "$$" 2>/dev/null; do
			for m in $MOUNTS; do
				n=$(threads "${PID[$m]}")
				[ "$n" -gt "${hi[$m]:-0}" ] && hi[$m]=$n
			done
			sleep 0.02
		done
		for m in $MOUNTS; do echo "$m ${hi[$m]}"; done >"$WORK/hi"
	) &
	sampler=$!
	out=$("$AB" "$qd" "$SLICE" "$ROUNDS" "${args[@]}") || { touch "$WORK/stop"; echo "pool_depth: trace_ab failed" >&2; exit 1; }
	touch "$WORK/stop"
	wait "$sampler"
	rm -f "$WORK/stop"
	# "after": 0.5 s after the depth (the last requests end; workers parked
	# for less than idle_timeout still count), then again TS_SETTLE_S after
	# it, past the default idle_timeout (1 s), when such workers have ended
	sleep 0.5
	declare -A after0=()
	for m in $MOUNTS; do after0[$m]=$(threads "${PID[$m]}"); done
	sleep "$(awk -v s="$SETTLE" 'BEGIN { print (s > 0.5 ? s - 0.5 : 0) }')"
	echo "$out" | sed 's/^/  /'
	k=0
	for m in $MOUNTS; do
		exp=
		[ "$TIER" = deep ] && exp=$(awk -v q="$qd" -v l="$LAT" 'BEGIN {
			v = l + 0; u = substr(l, length(v "") + 1)
			s = u == "ms" ? v / 1e3 : u == "us" ? v / 1e6 : u == "s" ? v : 0
			if (s > 0) printf ", expected %d IOPS (QD / latency)", q / s }')
		echo "QD$qd file $k ${m/traced-before/before}: threads at most $(awk -v m="$m" '$1 == m { print $2 }' "$WORK/hi"), after ${after0[$m]} (0.5 s), $(threads "${PID[$m]}") (${SETTLE} s)$exp"
		k=$((k + 1))
	done
done
echo "# $(bench_load), $(date -u +%T) UTC"
