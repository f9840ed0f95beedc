#!/usr/bin/env bash
# image.sh — the image option (block mode: BACKING holds the disk image a
# loop device reads, fs/timing.c): the image file's own path lookup and
# extent-tree leaf are not charged, as a block device has neither; its
# reads are, as the device's. Without the option the same reads of a 1 GiB
# file pay the file system's 3 metadata reads (tier/fsmeta.h: the root
# folder's block and the file's inode-table window at its open, and one
# extent leaf, the file having 8 extents of 128 MiB where the inode holds
# 4). The model's counts are exact: the model's reads against tierfs's.
# A bare mount refuses the option in one line.
. "$(dirname "$0")/lib.sh"

expect_error "option 'image' needs a tier model" -o bare,image "$BACKING" "$MNT"

truncate -s 1GiB "$BACKING/disk.img"
read2() { # two 4 KiB direct reads of the image, at 0 and at 768 MiB
	dd if="$MNT/disk.img" of=/dev/null bs=4096 count=1 iflag=direct status=none &&
		dd if="$MNT/disk.img" of=/dev/null bs=4096 count=1 skip=196608 iflag=direct status=none
}

tfs_mount "tier=ssd-cloud,mem=0,calib=false,floor=10us,image"
read2 || fail "cannot read the image through the mount"
[ "$(stat_get ops.read.count)" = 2 ] || fail "tierfs saw $(stat_get ops.read.count) reads, not 2"
[ "$(stat_get model.ops.read.count)" = 2 ] ||
	fail "image: the model saw $(stat_get model.ops.read.count) reads, not the device's 2"
[ "$(stat_get model.ops.read.device_bytes)" = 8192 ] ||
	fail "image: the model read $(stat_get model.ops.read.device_bytes) bytes, not the device's 8192"
grep -qx 'image=true' "$MNT/.tierfs/control" || fail "control does not show image=true"
tfs_umount

# The same reads of the same file in FUSE mode: the file system's reads too.
tfs_mount "tier=ssd-cloud,mem=0,calib=false,floor=10us"
read2 || fail "cannot read the file through the mount"
[ "$(stat_get model.ops.read.count)" = 5 ] ||
	fail "file: the model saw $(stat_get model.ops.read.count) reads, not 2 + 3 metadata"
[ "$(stat_get model.ops.read.device_bytes)" = $((8192 + 4096 + 131072 + 4096)) ] ||
	fail "file: the model read $(stat_get model.ops.read.device_bytes) bytes, not 8 KiB + 136 KiB of metadata"
grep -qx 'image=false' "$MNT/.tierfs/control" || fail "control does not show image=false"
tfs_umount
check_log
exit 0
