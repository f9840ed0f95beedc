#!/usr/bin/env bash
# image.sh — the image option (block mode: BACKING holds the disk image a
# loop device reads, fs/timing.c): the image file's own path lookup and
# extent-tree leaf are not charged, as a block device has neither; its
# reads are, as the device's. Without the option the same reads of a 1 GiB
# file pay the file system's 2 metadata reads (tier/fsmeta.h: the root
# folder's block at its open, the file's inode 12, the last in use,
# sharing the root's table block, read at mount; and one
# extent leaf, the file having 8 extents of 128 MiB where the inode holds
# 4). The model's counts are exact: the model's reads against tierfs's.
# Both mounts are traced, and a virtual replay of each on the same tier
# charges what that tierfs charged (trace format 8's image bit, 0x400: a
# mount with image and no loop hop, as tiersim disk mount --loop-hop=false
# makes, replays without the extent leaf). A bare mount refuses the option
# in one line.
. "$(dirname "$0")/lib.sh"
B=$TS_BUILD_ROOT/cli/tiersim

expect_error "option 'image' needs a tier model" -o bare,image "$BACKING" "$MNT"

truncate -s 1GiB "$BACKING/disk.img"
read2() { # two 4 KiB direct reads of the image, at 0 and at 768 MiB
	dd if="$MNT/disk.img" of=/dev/null bs=4096 count=1 iflag=direct status=none &&
		dd if="$MNT/disk.img" of=/dev/null bs=4096 count=1 skip=196608 iflag=direct status=none
}

tfs_mount "tier=ssd-cloud,mem=0,calib=false,floor=10us,image,trace=$TMPD/image.trace"
read2 || fail "cannot read the image through the mount"
[ "$(stat_get ops.read.count)" = 2 ] || fail "tierfs saw $(stat_get ops.read.count) reads, not 2"
[ "$(stat_get model.ops.read.count)" = 2 ] ||
	fail "image: the model saw $(stat_get model.ops.read.count) reads, not the device's 2"
[ "$(stat_get model.ops.read.device_bytes)" = 8192 ] ||
	fail "image: the model read $(stat_get model.ops.read.device_bytes) bytes, not the device's 8192"
grep -qx 'image=true' "$MNT/.tierfs/control" || fail "control does not show image=true"
tfs_umount

# The same reads of the same file in FUSE mode: the file system's reads too.
tfs_mount "tier=ssd-cloud,mem=0,calib=false,floor=10us,trace=$TMPD/file.trace"
read2 || fail "cannot read the file through the mount"
[ "$(stat_get model.ops.read.count)" = 4 ] ||
	fail "file: the model saw $(stat_get model.ops.read.count) reads, not 2 + 2 metadata"
[ "$(stat_get model.ops.read.device_bytes)" = $((8192 + 4096 + 4096)) ] ||
	fail "file: the model read $(stat_get model.ops.read.device_bytes) bytes, not 8 KiB + 8 KiB of metadata"
grep -qx 'image=false' "$MNT/.tierfs/control" || fail "control does not show image=false"
tfs_umount

# Each trace replayed on its own tier: the device's reads as tierfs
# charged them, 2 of 8 KiB in all from the image's, 4 from the file's
# (their bytes differ there by design: a replay knows the inodes from
# the trace's paths, not the backing's, tier/fsmeta.h).
for x in image:2:8192 file:4; do
	n=${x%%:*} want=${x#*:}
	got=$("$B" replay "$TMPD/$n.trace" --virtual --tier ssd-cloud --json 2>"$TMPD/replay.err" |
		python3 -c 'import json, sys; r = json.load(sys.stdin)["results"][1]
print("%s:%s" % (r.get("device_reads", 0), r.get("device_read_bytes", 0)))') ||
		fail "$n: replay failed: $(cat "$TMPD/replay.err")"
	[ "${got%:*}" = "${want%:*}" ] && [ "$n" = file -o "$got" = "$want" ] ||
		fail "$n: the replay read $got (reads:bytes), tierfs $want"
done
"$B" trace dump "$TMPD/image.trace" | grep -q '^header version=12 .* model=1279 ' ||
	fail "the image mount's trace has no image bit: $("$B" trace dump "$TMPD/image.trace" | grep '^header')"
"$B" trace dump "$TMPD/file.trace" | grep -q '^header version=12 .* model=2303 ' ||
	fail "the file mount's trace has the image bit: $("$B" trace dump "$TMPD/file.trace" | grep '^header')"
grep -v "trace $TMPD/.*\.trace written" "$LOG" >"$LOG.rest"
mv "$LOG.rest" "$LOG"
check_log
exit 0
