#!/usr/bin/env bash
# window_gap.sh — the whole path from one readahead window's completion to
# the next window's submit, for a scan through a memory map (as main.lua's
# LMDB cursor reads), split hop by hop, in these modes in turn:
#   block: block mode (`tiersim disk mount`: ext4 on a loop device over
#          tierfs, TIER's model below, each request charged from the loop
#          device's issue and its reply's hop to the completion taken off,
#          as at any mount: disk/issue.h); tierfs's stats at the end give
#          the requests timed so and the kernel's completion less the
#          model's (completion-model, median [p25-p75] and mean);
#   hop:   block mode with --loop-issue=watch: each request charged from
#          tierfs's receipt, less the FUSE round trip and the loop
#          device's hop measured at the mount (as before the request
#          clock), its completion compared with the model's counted from
#          the issue all the same (completion-model);
#   tmpfs: the same image copied to /dev/shm and attached by a loop device
#          of its own: a real block device with next to no latency and no
#          FUSE, so that the reader's own run through a window (its touches,
#          the faults, the fault that submits the next window) is timed
#          without waiting for the device.
#   sirq:  block mode with the softirq threads (ksoftirqd/N) raised to the
#          loop worker's priority: the loop device's completions, raised
#          from tierfs's reply, run there;
#   size:  block mode without a scan: 3 x 200 direct reads of the loop
#          device of 4 KiB and of 128 KiB in turn, the emulator's hops by
#          request size;
#   main:  (WINDOW_GAP_MAIN=1) scripts/main.lua's inference row alone in
#          block mode at the study's scaled-down size, its LMDB cursor the
#          reader (the tiersim thread that queues the most loop reads).
# Each RUN mounts each in turn (rotated across runs), scans a SIZE MiB
# file with bench/mapped_scan.c (every page touched once, in order) under
# chrt -f PRIO with the loop worker and tierfs above it (bench/rt_job.sh),
# and records, in a tracefs instance of its own (trace_clock mono): the
# scan thread's block_bio_queue, the loop device's block_rq_issue and
# block_rq_complete, and the scan thread's sched_wakeup and sched_switch;
# in block mode, the mount's own trace gives tierfs's receipt and reply
# of each request and its lateness. bench/window_gap.py ties them together
# (its help says what each column is). A wall-time measurement: run it
# under `q bench`.
#
# usage: bench/window_gap.sh BUILD [RUNS] [TIER] [SIZE_MIB] [PRIO]
#   Defaults: 3 ssd-cloud 48 10. Needs root, tracefs at
#   /sys/kernel/tracing and two free loop devices. WINDOW_GAP_KEEP=DIR keeps
#   the raw files (scan, events, device requests) of each run.
#   WINDOW_GAP_MODES="block tmpfs ..." runs only those of the five scan
#   modes (default: block tmpfs sirq size; "" none: with WINDOW_GAP_MAIN=1,
#   main.lua's row alone).
set -u
BUILD=${1:?usage: bench/window_gap.sh BUILD [RUNS] [TIER] [SIZE_MIB] [PRIO]}
RUNS=${2:-3}
TIER=${3:-ssd-cloud}
SIZE=${4:-48}
PRIO=${5:-10}
SRC=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SRC/bench/lib.sh"
bench_build window_gap.sh "$BUILD"
SCAN=$(cd "$BUILD" && pwd)/bench/mapped_scan
[ -x "$SCAN" ] || { echo "window_gap.sh: no $SCAN (ninja -C $BUILD)" >&2; exit 2; }
case $PRIO in '' | *[!0-9]*) echo "window_gap.sh: PRIO '$PRIO' is not a number 1-89" >&2; exit 2 ;; esac
LOOPDEV=
if [ -n "${WINDOW_GAP_INNER:-}" ]; then
	# the outer run's files; nothing of them to remove here
	W=$WINDOW_GAP_W S=$WINDOW_GAP_S SHM=$WINDOW_GAP_SHM TR=$WINDOW_GAP_TR MNT=$W/mnt
	export TIERSIM_DISK_STATE=$S
	inner_cleanup() {
		mountpoint -q "$MNT" && { umount "$MNT" 2>/dev/null || "$B" disk umount "$MNT" >/dev/null 2>&1; }
		[ -z "$LOOPDEV" ] || losetup -d "$LOOPDEV" 2>/dev/null
		echo 0 >"$TR/tracing_on" 2>/dev/null
		sirq_restore
	}
	trap inner_cleanup EXIT
	trap 'exit 1' INT TERM
else
	W=$(mktemp -d /tmp/window_gap.XXXXXX)
	S=$(mktemp -d /tmp/window_gap_state.XXXXXX)
	SHM=$(mktemp -d /dev/shm/window_gap.XXXXXX)
	export TIERSIM_DISK_STATE=$S
	MNT=$W/mnt
	TR=/sys/kernel/tracing/instances/window_gap.$$
	export WINDOW_GAP_W=$W WINDOW_GAP_S=$S WINDOW_GAP_SHM=$SHM WINDOW_GAP_TR=$TR
	cleanup() {
		if [ -d "$TR" ]; then
			echo 0 >"$TR/tracing_on" 2>/dev/null
			echo 0 >"$TR/events/enable" 2>/dev/null
			rmdir "$TR" 2>/dev/null
		fi
		mountpoint -q "$MNT" && { umount "$MNT" 2>/dev/null || "$B" disk umount "$MNT" >/dev/null 2>&1; }
		[ -z "$LOOPDEV" ] || losetup -d "$LOOPDEV" 2>/dev/null
		rm -rf "$W" "$S" "$SHM"
	}
	trap cleanup EXIT
	trap 'exit 1' INT TERM
	KEEP=${WINDOW_GAP_KEEP:-}
	[ -z "$KEEP" ] || mkdir -p "$KEEP" || { echo "window_gap.sh: cannot make $KEEP" >&2; exit 1; }
	mkdir -p "$W/data" "$W/vol" "$MNT"
	head -c "$((SIZE * 1048576))" /dev/urandom >"$W/data/scan.bin"
	"$B" disk make "$W/vol/img" --size "$((SIZE + 1024))MiB" --fs ext4 --from "$W/data" >/dev/null || exit 1
	cp --sparse=always "$W/vol/img" "$SHM/img" || exit 1
	mkdir "$TR" || { echo "window_gap.sh: cannot make a tracefs instance at $TR" >&2; exit 1; }
	echo mono >"$TR/trace_clock"
	echo 8192 >"$TR/buffer_size_kb"
	if [ -n "${WINDOW_GAP_MAIN:-}" ]; then
		# main.lua's inference row alone, its dataset made here, untimed
		sed -n '1,/label = "inference"/p' "$SRC/scripts/main.lua" >"$W/main_inference.lua"
		export TIERSIM_WORKDIR=${TIERSIM_WORKDIR:-$W/work}
		"$B" compare "$W/main_inference.lua" --tiers "$TIER" iterations=1 --quiet >/dev/null ||
			{ echo "window_gap.sh: main.lua's inference (making its dataset) failed" >&2; exit 1; }
	fi
fi

# trace DEV [COMM]: the loop device's requests only (its major:minor; DEV
# "loop": any loop device's), the reader's (COMM, default mapped_scan)
# bios, wake-ups and switches
trace_on() { # DEV [COMM]
	local mm f c=${2:-mapped_scan}
	if [ "$1" = loop ]; then
		f="dev >= $((7 << 20)) && dev < $((8 << 20))"
	else
		mm=$(stat -L -c '%t %T' "$1") || return 1
		f="dev == $(( (0x${mm% *} << 20) | 0x${mm#* } ))"
	fi
	echo "$f" >"$TR/events/block/block_rq_issue/filter"
	echo "$f" >"$TR/events/block/block_rq_complete/filter"
	echo "comm == \"$c\"" >"$TR/events/block/block_bio_queue/filter"
	echo "comm == \"$c\"" >"$TR/events/sched/sched_wakeup/filter"
	echo "prev_comm == \"$c\" || next_comm == \"$c\"" >"$TR/events/sched/sched_switch/filter"
	: >"$TR/trace"
	for e in block/block_bio_queue block/block_rq_issue block/block_rq_complete sched/sched_wakeup \
		sched/sched_switch; do
		echo 1 >"$TR/events/$e/enable"
	done
	echo 1 >"$TR/tracing_on"
}
trace_off() { # OUT
	echo 0 >"$TR/tracing_on"
	echo 0 >"$TR/events/enable"
	cp "$TR/trace" "$1"
}
scan() { # OUT
	chrt -f "$PRIO" "$SCAN" "$MNT/scan.bin" 0 >"$1" 2>>"$W/rt.log"
}
# tierfs's request clock, from its stats: how many requests it timed from
# their issue, and the kernel's completion less the model's
issue_stats() { # R MODE
	/usr/bin/python3 - "$(sed -n 's/^fuse=//p' "$S"/*.state)/.tierfs/stats" "$1" "$2" <<'X' || true
import json, sys
s = json.load(open(sys.argv[1]))
i = s.get("loop_issue_stats")
if i:
    r = i.get("completion_less_model_ns") or {}
    us = lambda k: "%.1f" % (r[k] / 1000) if k in r else "-"
    print("  run %s %s: clock %s: %d requests' issue found, %d timed from it, %d missed; "
          "completion-model %s [%s-%s] us, mean %s (n %d); reply hop %s, lateness %s ns"
          % (sys.argv[2], sys.argv[3], s["loop_issue"], i["found"], i["used"], i["missed"],
             us("median"), us("p25"), us("p75"), us("mean"), r.get("n", 0), i["reply_hop_ns"],
             i["late_ns"]))
else:
    print("  run %s %s: clock %s" % (sys.argv[2], sys.argv[3], s.get("loop_issue", "off")))
X
}
run_hop() { # R
	run_block "$1" hop
}
run_block() { # R [MODE]
	local m=${2:-block} dev clock=()
	[ "$m" != hop ] || clock=(--loop-issue=watch)
	"$B" disk mount "$W/vol/img" "$MNT" --tier "$TIER" --trace "$W/dev.$m.$1.trace" "${clock[@]}" \
		>/dev/null 2>"$W/mount.$m.$1.txt" || { cat "$W/mount.$m.$1.txt" >&2; return 1; }
	grep -o 'taken off.*' "$W/mount.$m.$1.txt" | sed "s/^/  run $1 $m: /"
	dev=$(findmnt -n -o SOURCE "$MNT") || return 1
	filefrag -v "$MNT/scan.bin" >"$W/frag.$m.$1.txt" || return 1
	trace_on "$dev" || return 1
	scan "$W/scan.$m.$1.txt" || { trace_off /dev/null; return 1; }
	trace_off "$W/ev.$m.$1.txt"
	issue_stats "$1" "$m"
	"$B" disk umount "$MNT" >/dev/null || return 1
	"$B" trace dump "$W/dev.$m.$1.trace" >"$W/dev.$m.$1.txt" || return 1
}
# block mode with the softirq threads (ksoftirqd/N, which run the loop
# device's completions raised from tierfs's reply) at the loop worker's
# priority for the scan, back to SCHED_OTHER after
SIRQ=
sirq_restore() {
	local t
	for t in $SIRQ; do chrt -o -p 0 "$t" 2>/dev/null; done
	SIRQ=
}
run_sirq() { # R
	local t
	for t in $(pgrep -x 'ksoftirqd/[0-9]+'); do
		chrt -f -p "$((PRIO + 10))" "$t" && SIRQ="$SIRQ $t"
	done
	run_block "$1" sirq
	local rc=$?
	sirq_restore
	return $rc
}
# block mode, no scan: 4 KiB and 128 KiB direct reads of the loop device
# itself, 3 x 200 of each in turn, so that the emulator's hops (tierfs's
# reply to the loop device's completion, its request to tierfs's receipt)
# are seen by request size
run_size() { # R
	local m=size dev i
	"$B" disk mount "$W/vol/img" "$MNT" --tier "$TIER" --trace "$W/dev.$m.$1.trace" \
		>/dev/null 2>"$W/mount.$m.$1.txt" || { cat "$W/mount.$m.$1.txt" >&2; return 1; }
	dev=$(findmnt -n -o SOURCE "$MNT") || return 1
	trace_on "$dev" || return 1
	for i in 1 2 3; do
		chrt -f "$PRIO" dd if="$dev" of=/dev/null bs=4k count=200 skip=$((i * 1000)) iflag=direct \
			2>/dev/null || { trace_off /dev/null; return 1; }
		chrt -f "$PRIO" dd if="$dev" of=/dev/null bs=128k count=200 skip=$((i * 300 + 2000)) \
			iflag=direct 2>/dev/null || { trace_off /dev/null; return 1; }
	done
	trace_off "$W/ev.$m.$1.txt"
	: >"$W/scan.$m.$1.txt"
	"$B" disk umount "$MNT" >/dev/null || return 1
	"$B" trace dump "$W/dev.$m.$1.trace" >"$W/dev.$m.$1.txt" || return 1
}
# main.lua's inference row (WINDOW_GAP_MAIN=1) in block mode, its LMDB
# cursor the reader (tiersim's thread that queues the bios)
run_main() { # R
	trace_on loop tiersim || return 1
	chrt -f "$PRIO" "$B" compare "$W/main_inference.lua" --tiers "$TIER" mount.fs=ext4 \
		mount.trace="$W/dev.main.$1.trace" count=2000 val=2000 iterations=30 --quiet \
		--json "$W/main.$1.json" >/dev/null 2>>"$W/rt.log" || { trace_off /dev/null; return 1; }
	trace_off "$W/ev.main.$1.txt"
	/usr/bin/python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print("  run", sys.argv[2], "main.lua inference, block mode:",
      ", ".join("%.1f samples/s" % w["throughput"]["value"] for w in r["rows"]))' \
		"$W/main.$1.json" "$1" || true
	: >"$W/scan.main.$1.txt"
	"$B" trace dump "$W/dev.main.$1.trace" >"$W/dev.main.$1.txt" || return 1
}
run_tmpfs() { # R
	LOOPDEV=$(losetup -f --show --read-only --direct-io=on "$SHM/img" 2>/dev/null ||
		losetup -f --show --read-only "$SHM/img") || return 1
	echo 128 >"/sys/block/${LOOPDEV#/dev/}/queue/read_ahead_kb"
	mount -t ext4 -o ro,noload "$LOOPDEV" "$MNT" || return 1
	echo "  run $1 tmpfs: $LOOPDEV, direct I/O $(cat "/sys/block/${LOOPDEV#/dev/}/loop/dio")"
	filefrag -v "$MNT/scan.bin" >"$W/frag.tmpfs.$1.txt" || return 1
	trace_on "$LOOPDEV" || return 1
	scan "$W/scan.tmpfs.$1.txt" || { trace_off /dev/null; return 1; }
	trace_off "$W/ev.tmpfs.$1.txt"
	umount "$MNT" || return 1
	losetup -d "$LOOPDEV" || return 1
	LOOPDEV=
	: >"$W/dev.tmpfs.$1.txt"
}
if [ -n "${WINDOW_GAP_INNER:-}" ]; then
	# one run, inside rt_job.sh (tierfs inherits its tag and is raised)
	"run_${WINDOW_GAP_INNER% *}" "${WINDOW_GAP_INNER#* }"
	exit
fi
FAILED=
for r in $(seq "$RUNS"); do
	# shellcheck disable=SC2206 # a list of words, split on purpose
	modes=(${WINDOW_GAP_MODES-block tmpfs sirq size})
	[ -z "${WINDOW_GAP_MAIN:-}" ] || modes+=(main)
	for mode in $(bench_order $((r - 1)) "${modes[@]}"); do
		echo "== run $r, $mode ($(date -u +%T), $(bench_load))"
		if ! WINDOW_GAP_INNER="$mode $r" "$SRC/bench/rt_job.sh" "$PRIO" "$0" "$@" 2>>"$W/rt.log"; then
			tail -5 "$W/rt.log" >&2
			echo "window_gap.sh: run $r ($mode) failed" >&2
			[ "$mode" = main ] || exit 1
			FAILED="$FAILED main.$r"
			continue
		fi
		[ -z "$KEEP" ] || for f in scan ev dev frag; do
			[ ! -e "$W/$f.$mode.$r.txt" ] || cp "$W/$f.$mode.$r.txt" "$KEEP/"
		done
	done
done
echo "== done ($(date -u +%T), $(bench_load))"
args=()
for r in $(seq "$RUNS"); do
	for mode in block hop sirq tmpfs size ${WINDOW_GAP_MAIN:+main}; do
		case " ${WINDOW_GAP_MODES-block tmpfs sirq size} main " in *" $mode "*) ;; *) continue ;; esac
		case " $FAILED " in *" $mode.$r "*) continue ;; esac
		args+=("$mode.$r" "$W/scan.$mode.$r.txt" "$W/ev.$mode.$r.txt" "$W/dev.$mode.$r.txt")
	done
done
/usr/bin/python3 "$SRC/bench/window_gap.py" "${args[@]}"
