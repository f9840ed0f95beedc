#!/usr/bin/env bash
# basic.sh — block mode end to end, for ext4 and xfs: an image made from a
# tree, mounted on a tier (the loop device with direct I/O and the tier's
# queue limits), read back byte for byte, listed, its device requests in
# the trace as reads of the image, and unmounted with nothing left behind.
. "$(dirname "$0")/lib.sh"

for i in $(seq 40); do
	head -c $((i * 3001)) /dev/urandom >"$TMPD/data/f$i"
done
mkdir -p "$TMPD/data/sub/deeper"
echo hello >"$TMPD/data/sub/deeper/note"

for fs in ext4 xfs; do
	command -v "mkfs.$fs" >/dev/null || { echo "mkfs.$fs missing: $fs skipped"; continue; }
	size=64MiB
	[ "$fs" = xfs ] && size=320MiB
	img=$TMPD/images/img.$fs
	"$TIERSIM" disk make "$img" --size $size --fs $fs --from "$TMPD/data" || fail "$fs: make failed"
	# Sparse: far less on disk than its size.
	[ $(($(stat -c %b "$img") * 512 * 2)) -lt "$(stat -c %s "$img")" ] || fail "$fs: the image is not sparse"
	"$TIERSIM" disk mount "$img" "$MNT" --tier aws-gp3 --mem 64MiB --trace "$TMPD/$fs.trace" ||
		fail "$fs: mount failed"
	is_mounted "$MNT" || fail "$fs: $MNT is not mounted"
	dev=$(awk -v m="$MNT" '$5 == m { for (i = 7; $i != "-"; i++); print $(i + 2) }' /proc/self/mountinfo)
	case "$dev" in /dev/loop*) ;; *) fail "$fs: mounted from '$dev', not a loop device" ;; esac
	q=/sys/block/${dev#/dev/}
	[ "$(cat "$q/loop/dio")" = 1 ] || fail "$fs: the loop device is not in direct I/O mode"
	[ "$(cat "$q/ro")" = 1 ] || fail "$fs: the loop device is writable without --rw"
	# aws-gp3's queue in tier/tiers.lua.
	[ "$(cat "$q/queue/read_ahead_kb")" = 128 ] || fail "$fs: read_ahead_kb $(cat "$q/queue/read_ahead_kb")"
	[ "$(cat "$q/queue/max_sectors_kb")" = 256 ] || fail "$fs: max_sectors_kb $(cat "$q/queue/max_sectors_kb")"
	[ "$(cat "$q/queue/logical_block_size")" = 512 ] || fail "$fs: logical block $(cat "$q/queue/logical_block_size")"
	[ "$(cat "$q/queue/rotational")" = 0 ] || fail "$fs: rotational"
	awk -v m="$MNT" '$5 == m && $6 ~ /^ro/ { ok = 1 } END { exit !ok }' /proc/self/mountinfo ||
		fail "$fs: mounted read-write without --rw"
	diff -r "$TMPD/data" "$MNT" >/dev/null 2>&1 || {
		# lost+found is ext4's own
		diff -r -x lost+found "$TMPD/data" "$MNT" || fail "$fs: the mounted tree differs from the source"
	}
	"$TIERSIM" disk list | grep -q "^$MNT .*$fs .*aws-gp3" || fail "$fs: disk list does not show the mount"
	# A mount point in use is refused with one line, and the mount stays.
	"$TIERSIM" disk mount "$img" "$MNT" --tier aws-gp3 2>"$TMPD/err" && fail "$fs: mounted twice"
	grep -q "busy" "$TMPD/err" || fail "$fs: second mount: $(cat "$TMPD/err")"
	"$TIERSIM" disk umount "$MNT" || fail "$fs: umount failed"
	check_clean "$fs"
	# The trace: the device's requests, reads of the image at device
	# offsets, at least the bytes of the tree that was read.
	bytes=$(trace_read_bytes "$TMPD/$fs.trace") || fail "$fs: trace stats failed"
	[ "$bytes" -ge $((40 * 41 / 2 * 3001)) ] || fail "$fs: the trace has $bytes bytes read, fewer than the files"
	"$TIERSIM" trace stats --json "$TMPD/$fs.trace" | /usr/bin/python3 -c '
import json, sys
f = json.load(sys.stdin)["files"]
assert f[0]["path"] == "/img.'$fs'", f' || fail "$fs: the trace's reads are not of the image"
	rm -f "$img"
done
"$TIERSIM" disk list | grep -q "$TMPD" && fail "disk list shows a disk after umount"
exit 0
