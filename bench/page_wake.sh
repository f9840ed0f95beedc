#!/usr/bin/env bash
# page_wake.sh — block mode's sleeps on a page in flight and the wake-up
# after each: the figure the kernel-fs replay charges after a read that
# waited on the device (pipeline/hosts.lua's replay_page_wake_ns, the
# page-lock wake-up, traces/README.md).
#
# The job is bench/fs_fidelity.sh's RecordIO reader (a 75 MB file read
# record by record: an 8-byte header, then the record, through Python's
# buffered reader), run in block mode (tiersim disk mount, the job in its
# memory cgroup, cache cold) with the kernel's own view recorded in a
# tracefs instance of its own: sched_switch and sched_wakeup of the job's
# threads (with the kernel's stack at each switch out) and the block
# layer's issues and completions. Per run it prints the job's sleeps in D
# state by where they slept (a page in flight: folio_wait_bit_common /
# filemap_get_pages in the stack), and for those the time from the loop
# device's latest completion before the wake-up to the thread back on a
# CPU (the wake-up the page lock costs: the completion unlocks the page and
# wakes the thread; replay_page_wake_ns), the wake-up to running alone, and
# the thread's time on a CPU; then the pooled mean and median over the
# runs. Each run goes once untraced first, cold and then warm (every page
# in the cache), for its epoch beside the traced one (the tracing's own
# cost) and the thread's CPU (getrusage) cold less warm over the device's
# reads: the CPU the reads cost the thread (replay_dev_read_cpu_ns).
#
# usage: bench/page_wake.sh BUILD [REPS] [TIER]
#   PAGE_WAKE_DATA=DIR keeps the dataset (tiersim dataset make imagenet-rec,
#   1,000 records) and PAGE_WAKE_IMAGE=FILE its ext4 image between runs
#   (made if missing; the image not inside DIR). PAGE_WAKE_CHRT=PRIO runs
#   the job under chrt -f PRIO (run the bench under bench/rt_job.sh PRIO,
#   as bench/fs_fidelity.sh's FS_FIDELITY_CHRT). PAGE_WAKE_KEEP=DIR keeps
#   the tracefs outputs there.
# Needs root (loop devices, cgroups, tracefs at /sys/kernel/tracing).
# Wall-clock figures: run under the quiet lock and say the load.
set -u
BUILD=${1:?usage: bench/page_wake.sh BUILD [REPS] [TIER]}
REPS=${2:-3}
TIER=${3:-ssd-cloud}
SRC=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SRC/bench/lib.sh"
bench_build page_wake.sh "$BUILD"
TR=/sys/kernel/tracing
[ -d "$TR/instances" ] || { echo "page_wake.sh: no tracefs at $TR" >&2; exit 2; }
RT=()
if [ -n "${PAGE_WAKE_CHRT:-}" ]; then
	case $PAGE_WAKE_CHRT in *[!0-9]*) echo "page_wake.sh: PAGE_WAKE_CHRT '$PAGE_WAKE_CHRT' is not a priority 1-89" >&2; exit 2 ;; esac
	RT=(chrt -f "$PAGE_WAKE_CHRT")
fi
W=$(mktemp -d /tmp/page_wake.XXXXXX)
export TIERSIM_DISK_STATE=$W/state
MNT=$W/mnt
T=$TR/instances/page_wake.$$
mkdir -p "$MNT"
is_mounted() { awk -v m="$1" '$5 == m { f = 1 } END { exit !f }' /proc/self/mountinfo; }
cleanup() {
	bench_tracefs_stop "$T" sched/sched_switch stacktrace
	is_mounted "$MNT" && "$B" disk umount "$MNT" >/dev/null 2>&1
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
die() { echo "page_wake.sh: $*" >&2; exit 1; }

DATA=${PAGE_WAKE_DATA:-$W/data}
[ -e "$DATA/rec/dataset.json" ] || "$B" dataset make imagenet-rec --count 1000 --out "$DATA/rec" >/dev/null 2>&1 ||
	die "dataset make imagenet-rec"
IMG=${PAGE_WAKE_IMAGE:-$W/ds.ext4}
if [ ! -s "$IMG" ]; then
	"$B" disk make "$IMG.tmp" --size 512MiB --fs ext4 --from "$DATA" && mv "$IMG.tmp" "$IMG" ||
		{ rm -f "$IMG.tmp"; die "disk make"; }
fi
bench_tracefs_start "$T" 16384 || die "cannot make the tracefs instance $T"
bench_tracefs_event "$T" sched/sched_switch 'prev_comm == "python3" || next_comm == "python3"' ||
	die "cannot enable sched/sched_switch"
bench_tracefs_event "$T" sched/sched_wakeup 'comm == "python3"' || die "cannot enable sched/sched_wakeup"
for e in block/block_rq_issue block/block_rq_complete; do
	bench_tracefs_event "$T" "$e" || die "cannot enable $e"
done
echo 'stacktrace if prev_comm == "python3"' >"$T/events/sched/sched_switch/trigger"
epoch() { $PY -c 'import json, sys; print(json.load(open(sys.argv[1]))["epoch_s"])' "$1"; }
cpu() { $PY -c 'import json, sys; print(json.load(open(sys.argv[1]))["cpu_s"])' "$1"; }
job() { "${RT[@]}" "$B" disk run "$MNT" --cache "${1:-cold}" -- $PY "$SRC/bench/rec_reader.py" "$MNT/rec/train.rec" "$W/out.json"; }
echo "== $TIER, $REPS runs, ${RT[*]:-no chrt}; $(date -u +%T), $(bench_load)"
"$B" disk mount "$IMG" "$MNT" --tier "$TIER" --mem 4GiB >/dev/null || die "disk mount"
dcpu=()
for rep in $(seq "$REPS"); do
	# untraced: cold, then warm (every page in the cache): the thread's
	# CPU the device's reads cost it (pipeline/hosts.lua's
	# replay_dev_read_cpu_ns), cold less warm over the device's reads
	job >"$W/run.txt" 2>&1 || die "disk run: $(tail -1 "$W/run.txt")"
	plain=$(epoch "$W/out.json")
	cold=$(cpu "$W/out.json")
	reads=$(sed -n 's/.*dev_reads=\([0-9]*\).*/\1/p' "$W/run.txt")
	job warm >"$W/run.txt" 2>&1 || die "disk run (warm): $(tail -1 "$W/run.txt")"
	warm=$(cpu "$W/out.json")
	dcpu+=("$(awk -v c="$cold" -v w="$warm" -v n="${reads:-0}" 'BEGIN { printf "%.0f", n ? (c - w) * 1e9 / n : 0 }')")
	echo "  run $rep: CPU cold $cold s ($reads device reads), warm $warm s: ${dcpu[-1]} ns a device read"
	bench_tracefs_on "$T"
	job >"$W/run.txt" 2>&1
	rc=$?
	bench_tracefs_off "$T" "$W/trace.$rep"
	[ $rc -eq 0 ] || die "disk run (traced): $(tail -1 "$W/run.txt")"
	[ -z "${PAGE_WAKE_KEEP:-}" ] || { mkdir -p "$PAGE_WAKE_KEEP" && cp "$W/trace.$rep" "$PAGE_WAKE_KEEP/"; }
	echo "  run $rep: epoch $plain s, traced $(epoch "$W/out.json") s ($(date -u +%T))"
done
"$B" disk umount "$MNT" || die "disk umount"
loopdev=$(awk '$1 == "loop" { print $2 }' /proc/devices)
$PY "$SRC/bench/page_wake.py" --major "${loopdev:-7}" "$W"/trace.*
echo "the thread's CPU a device read, cold less warm: median $(printf '%s\n' "${dcpu[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }') ns [$(printf '%s\n' "${dcpu[@]}" | sort -n | sed -n '1p;$p' | paste -sd-)]"
echo "$(bench_load) at the end ($(date -u +%T))"
