#!/usr/bin/env bash
# mapped_scan.sh — which windows the kernel reads for a scan through a
# memory map in block mode, and which touch issues each: a SIZE MiB file
# (random bytes) in an ext4 image made by `tiersim disk make --from` (SIZE
# + 1 GiB, so that mkfs.ext4 makes 4 KiB blocks as on a volume, not the
# 1 KiB of its "small" type below 512 MiB), mounted on TIER (a fresh
# mount: nothing of the file cached), scanned by bench/mapped_scan.c
# (every page touched in order, each touch timed) while a tracefs
# instance of its own records the bios the scan's thread queues
# (block:block_bio_queue, trace_clock mono): the readahead a fault starts
# is queued by the faulting thread, inside the touch that issued it, so
# each window is tied to its touch (bench/mapped_scan.py), with the
# device's requests from the mount's trace. mincore(2) cannot show this:
# it counts a page only once it is up to date, not while it is read. RUNS
# fresh mounts, PRE bytes pread(2) first in each (LMDB reads its meta
# pages so at open; 0: none). The request pattern does not depend on
# load: run it under `q cpu`; its times are this host's.
#
# usage: bench/mapped_scan.sh BUILD [RUNS] [TIER] [SIZE_MIB] [PRE]
#   Defaults: 3 ssd-cloud 48 0. Needs root and tracefs at
#   /sys/kernel/tracing. MAPPED_SCAN_KEEP=DIR keeps each run's touches
#   (scan.N.txt), bios (bio.N.txt), extents (frag.N.txt) and the device's
#   requests (dev.N.txt: `tiersim trace dump`).
set -u
BUILD=${1:?usage: bench/mapped_scan.sh BUILD [RUNS] [TIER] [SIZE_MIB] [PRE]}
RUNS=${2:-3}
TIER=${3:-ssd-cloud}
SIZE=${4:-48}
PRE=${5:-0}
SRC=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SRC/bench/lib.sh"
bench_build mapped_scan.sh "$BUILD"
W=$(mktemp -d /tmp/mapped_scan.XXXXXX)
S=$(mktemp -d /tmp/mapped_scan_state.XXXXXX)
export TIERSIM_DISK_STATE=$S
MNT=$W/mnt
cleanup() {
	mountpoint -q "$MNT" && "$B" disk umount "$MNT" >/dev/null 2>&1
	rm -rf "$W" "$S"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
KEEP=${MAPPED_SCAN_KEEP:-}
[ -z "$KEEP" ] || mkdir -p "$KEEP" || { echo "mapped_scan.sh: cannot make $KEEP" >&2; exit 1; }
SCAN=$(cd "$BUILD" && pwd)/bench/mapped_scan
[ -x "$SCAN" ] || { echo "mapped_scan.sh: no $SCAN (ninja -C $BUILD)" >&2; exit 2; }
mkdir -p "$W/data" "$MNT"
head -c "$((SIZE * 1048576))" /dev/urandom >"$W/data/scan.bin"
mkdir -p "$W/vol"
"$B" disk make "$W/vol/img" --size "$((SIZE + 1024))MiB" --fs ext4 --from "$W/data" >/dev/null || exit 1
TR=/sys/kernel/tracing/instances/mapped_scan.$$
mkdir "$TR" || { echo "mapped_scan.sh: cannot make a tracefs instance at $TR" >&2; exit 1; }
cleanup_tr() { echo 0 >"$TR/events/block/block_bio_queue/enable" 2>/dev/null; rmdir "$TR" 2>/dev/null; }
trap 'cleanup_tr; cleanup' EXIT
echo mono >"$TR/trace_clock"
echo 'comm == "mapped_scan"' >"$TR/events/block/block_bio_queue/filter"
for r in $(seq "$RUNS"); do
	"$B" disk mount "$W/vol/img" "$MNT" --tier "$TIER" --trace "$W/dev.$r.trace" >/dev/null || exit 1
	filefrag -v "$MNT/scan.bin" >"$W/frag.$r.txt" || exit 1
	: >"$TR/trace"
	echo 1 >"$TR/events/block/block_bio_queue/enable"
	"$SCAN" "$MNT/scan.bin" "$PRE" >"$W/scan.$r.txt" || exit 1
	echo 0 >"$TR/events/block/block_bio_queue/enable"
	cp "$TR/trace" "$W/bio.$r.txt"
	"$B" disk umount "$MNT" >/dev/null || exit 1
	"$B" trace dump "$W/dev.$r.trace" >"$W/dev.$r.txt" || exit 1
	[ -z "$KEEP" ] || cp "$W/scan.$r.txt" "$W/dev.$r.txt" "$W/bio.$r.txt" "$W/frag.$r.txt" "$KEEP/"
	/usr/bin/python3 "$SRC/bench/mapped_scan.py" "$W/scan.$r.txt" "$W/bio.$r.txt" "$W/frag.$r.txt" \
		"$W/dev.$r.txt" "run $r" || exit 1
done
