#!/usr/bin/env bash
# trace_ab.sh BUILD_DIR — what tracing costs tierfs's IOPS, from short
# slices alternated between an untraced and traced mounts (bench/trace_ab.c):
#   unlimited      tierfs -o tier=unlimited, not traced (the base)
#   traced         the same with -o trace=FILE (CPU samples as by default)
#   traced-nocpu   the same with -o trace_cpu=false
#   traced-every   the same with -o trace_cpu_every=true (TS_EVERY=1)
# all over one 256 MiB file in one backing folder, for 4 KiB random
# O_DIRECT reads at QD1 and QD16. Per job, TS_ROUNDS rounds of one
# TS_SLICE_MS slice per mount (ABC CBA ...): each traced mount's IOPS and
# its daemon's CPU per read as a ratio of the untraced mount's in the same
# round, median, quartiles and min..max; then the traces' drop counts.
#
# bench/overhead.sh runs each configuration for seconds with fio; on this
# shared 2-CPU host its per-round ratios spread from 0.4 to 1.7, which says
# nothing at a 5% goal. Slices a few hundred milliseconds apart, many of
# them, put the same disturbances on both sides of each ratio.
#
# The load average is printed but says little here: every read blocked in
# FUSE is a task in state D, counted in it (QD16 adds 16). The CPU the
# host spent on anything but this bench during the run is printed instead.
# TS_CONTROL=1 mounts a second untraced tierfs of the same build,
# unlimited-aa, second in each round's order: its ratio to unlimited is the
# A/A control, what the slices' own spread gives a mount that costs the
# same; a traced ratio is resolved to a margin where the control's median
# interval (trace_ab.c: the order statistics that hold the median with at
# least 90%) is narrower than it and holds 1.
# Environment: TS_ROUNDS (default 60), TS_SLICE_MS (default 200), TS_QDS
# (default "1 16"), TS_BEFORE (another build: its tierfs mounted traced as
# traced-before, in the same rounds), TS_CONTROL, TS_NOCPU (0: no
# traced-nocpu mount), TS_EVERY (1: a traced-every mount, every clock
# read: beside traced-nocpu it says what the clock reads cost), TS_OPTS
# (options added to every mount's, e.g. ",max_threads=16").
set -u

[ $# -ge 1 ] || { echo "usage: bench/trace_ab.sh BUILD_DIR" >&2; exit 2; }
BUILD=$(cd "$1" 2>/dev/null && pwd) || { echo "trace_ab: no build directory '$1'" >&2; exit 1; }
SRC=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SRC/bench/lib.sh"
export TIERSIM_DATADIR=${TIERSIM_DATADIR:-$SRC}
TIERFS=$BUILD/fs/tierfs
CLI=$BUILD/cli/tiersim
AB=$BUILD/bench/trace_ab
ROUNDS=${TS_ROUNDS:-60}
SLICE=${TS_SLICE_MS:-200}
QDS=${TS_QDS:-"1 16"}
for x in "$TIERFS" "$AB"; do
	[ -x "$x" ] || { echo "trace_ab: $x is not built (ninja -C $BUILD)" >&2; exit 1; }
done

m=(unlimited)
[ "${TS_CONTROL:-0}" = 1 ] && m+=(unlimited-aa)
m+=(traced)
[ "${TS_NOCPU:-1}" = 0 ] || m+=(traced-nocpu)
[ "${TS_EVERY:-0}" = 1 ] && m+=(traced-every)
bench_mounts trace_ab "${m[@]}"

dd if=/dev/urandom of="$BACKING/f" bs=1M count=256 status=none || exit 1
cat "$BACKING/f" >/dev/null # tierfs reads its backing file through the page cache
mount_fs() { # NAME OPTIONS: in the foreground, so that $! is the daemon
	local bin=$TIERFS
	[ "$1" = traced-before ] && bin=$BEFORE/fs/tierfs
	"$bin" -f -o "$2${TS_OPTS:-}" "$BACKING" "$WORK/$1" 2>>"$WORK/$1.log" &
	PID[$1]=$!
	for _ in $(seq 600); do
		grep -q '"calibrated": true' "$WORK/$1/.tierfs/stats" 2>/dev/null && return 0
		kill -0 "${PID[$1]}" 2>/dev/null || break
		sleep 0.05
	done
	echo "trace_ab: $1 mount failed: $(tail -1 "$WORK/$1.log")" >&2
	exit 1
}
mount_fs unlimited tier=unlimited
[ "${TS_CONTROL:-0}" = 1 ] && mount_fs unlimited-aa tier=unlimited
mount_fs traced "tier=unlimited,trace=$WORK/traced.trace"
[ "${TS_NOCPU:-1}" = 0 ] || mount_fs traced-nocpu "tier=unlimited,trace=$WORK/traced-nocpu.trace,trace_cpu=false"
[ "${TS_EVERY:-0}" = 1 ] && mount_fs traced-every "tier=unlimited,trace=$WORK/traced-every.trace,trace_cpu_every=true"
[ -n "$BEFORE" ] && mount_fs traced-before "tier=unlimited,trace=$WORK/traced-before.trace"

# busy CPU time of the whole host so far, in clock ticks (/proc/stat)
busy() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }
# CPU time of process PID so far, ticks (utime + stime)
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
mine() { # the daemons', ticks
	local m s=0
	for m in $MOUNTS; do s=$((s + $(ticks "${PID[$m]}"))); done
	echo "$s"
}

args=()
for m in $MOUNTS; do args+=("$WORK/$m/f:${PID[$m]}"); done
k=0
for m in $MOUNTS; do echo "# file $k: $m"; k=$((k + 1)); done
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
for qd in $QDS; do
	b0=$(busy) d0=$(mine) s0=$(date +%s.%N)
	# the bench's own CPU from its rusage, below
	out=$( { /usr/bin/time -f '%U %S' "$AB" "$qd" "$SLICE" "$ROUNDS" "${args[@]}"; } 2>"$WORK/time") ||
		{ echo "trace_ab: trace_ab failed: $(tail -1 "$WORK/time")" >&2; exit 1; }
	b1=$(busy) d1=$(mine) s1=$(date +%s.%N)
	echo "$out"
	read -r u s < <(tail -1 "$WORK/time")
	hz=$(getconf CLK_TCK)
	awk -v b="$((b1 - b0))" -v d="$((d1 - d0))" -v u="$u" -v s="$s" -v hz="$hz" -v w0="$s0" -v w1="$s1" \
		'BEGIN { o = (b - d) / hz - u - s; printf "# QD%s: host CPU outside this bench %.1f s of %.1f s wall (%.0f%% of one CPU)\n", "'"$qd"'", o, w1 - w0, 100 * o / (w1 - w0) }'
	# each daemon's threads now (libfuse's workers and tierfs's own)
	th=
	for m in $MOUNTS; do t=(/proc/"${PID[$m]}"/task/*) && th+=" $m ${#t[@]},"; done
	echo "# QD$qd: threads after it:${th%,}"
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
for m in $MOUNTS; do
	case $m in traced*) ;; *) continue ;; esac
	fusermount3 -u "$WORK/$m" && wait "${PID[$m]}"
	PID[$m]=
	[ -x "$CLI" ] || continue
	echo "# $m's trace: $(bench_trace_counts "$CLI" "$WORK/$m.trace")"
done
