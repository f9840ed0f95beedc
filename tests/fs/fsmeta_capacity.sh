#!/usr/bin/env bash
# fsmeta_capacity.sh — a capacity changed through the control file lays
# ext4's inode tables out again for the new size (tier/fsmeta.h,
# ts_fsmeta_set_capacity): before any lookup as if mounted at that size;
# after one, the inodes read stay in memory. The tree is tests/fs/
# fsmeta.sh's (a-b is inode 518, block 32 of the table; 549 the last in
# use). dumpe2fs of mkfs.ext4's images: the first table starts at block
# 1,060 at 20 GiB and 1,065 at 64 GiB, so a-b's block is 1,092 or 1,097,
# read with the window from 1,088 (the block rounded down to 32) to the
# table's block of the last inode in use (1,094 or 1,099).
. "$(dirname "$0")/lib.sh"

numbering_tree
K=4096
meta() { stat_get model.ops.read.device_bytes; }
# the root folder's block and a-b's window: 20 GiB, 1088-1094; 64 GiB,
# 1088-1099
at20=$((K + 7 * K)) at64=$((K + 12 * K))

tfs_mount "tier=ssd-cloud,mem=0,capacity=20GiB"
stat "$MNT/a-b" >/dev/null || fail "stat a-b"
[ "$(meta)" = "$at20" ] || fail "at 20 GiB a-b's lookup read $(meta) bytes, expected $at20"
tfs_umount

tfs_mount "tier=ssd-cloud,mem=0,capacity=64GiB"
stat "$MNT/a-b" >/dev/null || fail "stat a-b"
[ "$(meta)" = "$at64" ] || fail "at 64 GiB a-b's lookup read $(meta) bytes, expected $at64"
tfs_umount

# mounted at 20 GiB, 64 GiB before any lookup: as if mounted at 64 GiB
tfs_mount "tier=ssd-cloud,mem=0,capacity=20GiB"
echo "capacity=64GiB" >"$MNT/.tierfs/control" || fail "capacity switch refused"
stat "$MNT/a-b" >/dev/null || fail "stat a-b"
[ "$(meta)" = "$at64" ] ||
	fail "switched to 64 GiB before a lookup, a-b's read $(meta) bytes, expected $at64 (64 GiB's)"
tfs_umount

# a-b looked up at 20 GiB (blocks 1088-1094: inodes 449-560), then 64
# GiB: those inodes are still in memory, in blocks 1093-1099 there, so
# b/f000 (inode 520, block 1097) reads b's folder block alone (the old
# blocks kept as they were: 1095-1099 too)
tfs_mount "tier=ssd-cloud,mem=0,capacity=20GiB"
stat "$MNT/a-b" >/dev/null || fail "stat a-b"
echo "capacity=64GiB" >"$MNT/.tierfs/control" || fail "capacity switch refused"
stat "$MNT/b/f000" >/dev/null || fail "stat b/f000"
[ "$(meta)" = $((at20 + K)) ] ||
	fail "b/f000 after the switch read $(($(meta) - at20)) bytes, expected $K (b's block)"
tfs_umount
check_log
