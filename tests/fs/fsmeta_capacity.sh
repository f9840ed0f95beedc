#!/usr/bin/env bash
# fsmeta_capacity.sh — a capacity changed through the control file lays
# ext4's inode tables out again for the new size (tier/fsmeta.h,
# ts_fsmeta_set_capacity): before any lookup as if mounted at that size;
# after one, the inodes read stay in memory. dumpe2fs of mkfs.ext4's
# images: the first table starts at block 1,060 at 20 GiB and 1,065 at
# 64 GiB. The mount reads the root's inode with its window, the table's
# first block and the 32 after it (a mount's block trace: t..t+32, before
# any lookup): table blocks 0-32, inodes 1-528, at either size. The tree
# is tests/fs/fsmeta.sh's (b is inode 519, in table block 32; b/f029 549,
# in block 34) and two folders more past it, c (550) with 225 files
# (551-775) and d (776) with 225 (777-1001: 1,001 the last inode in use,
# in table block 62), so that the windows past the mount's differ: b/f029's
# block is 1,094 at 20 GiB, 1,099 at 64, read with the window from 1,088
# (the block rounded down to 32) to 1,120, less the blocks the mount read:
# 1,093-1,120 at 20 GiB (table blocks 33-60, 28 blocks), 1,098-1,120 at
# 64 (33-55, 23 blocks).
. "$(dirname "$0")/lib.sh"

numbering_tree
for d in c d; do
	mkdir "$BACKING/$d"
	for f in $(seq -w 0 224); do : >"$BACKING/$d/f$f"; done
done
K=4096
meta() { stat_get model.ops.read.device_bytes; }
# the root folder's block, b's folder block and b/f029's window
at20=$((K + K + 28 * K)) at64=$((K + K + 23 * K))

tfs_mount "tier=ssd-cloud,mem=0,capacity=20GiB"
stat "$MNT/b/f029" >/dev/null || fail "stat b/f029"
[ "$(meta)" = "$at20" ] || fail "at 20 GiB b/f029's lookup read $(meta) bytes, expected $at20"
# d/f120 (inode 897, table block 56, 1,116): in the window read; d's
# inode (776, block 48) too: d's folder block alone
stat "$MNT/d/f120" >/dev/null || fail "stat d/f120"
[ "$(meta)" = $((at20 + K)) ] ||
	fail "at 20 GiB d/f120 after b/f029 read $(($(meta) - at20)) bytes, expected $K (d's block)"
tfs_umount

tfs_mount "tier=ssd-cloud,mem=0,capacity=64GiB"
stat "$MNT/b/f029" >/dev/null || fail "stat b/f029"
[ "$(meta)" = "$at64" ] || fail "at 64 GiB b/f029's lookup read $(meta) bytes, expected $at64"
# d/f120's block is 1,121 at 64 GiB, past the window read: its own block
# and the readahead to the last in use's, 1,122-1,127 (d's inode, block
# 48, 1,113, read); d's folder block: 8 blocks
stat "$MNT/d/f120" >/dev/null || fail "stat d/f120"
[ "$(meta)" = $((at64 + 8 * K)) ] ||
	fail "at 64 GiB d/f120 after b/f029 read $(($(meta) - at64)) bytes, expected $((8 * K))"
tfs_umount

# mounted at 20 GiB, 64 GiB before any lookup: as if mounted at 64 GiB
# (the mount's window too)
tfs_mount "tier=ssd-cloud,mem=0,capacity=20GiB"
echo "capacity=64GiB" >"$MNT/.tierfs/control" || fail "capacity switch refused"
stat "$MNT/b/f029" >/dev/null || fail "stat b/f029"
[ "$(meta)" = "$at64" ] ||
	fail "switched to 64 GiB before a lookup, b/f029's read $(meta) bytes, expected $at64 (64 GiB's)"
tfs_umount

# b/f029 looked up at 20 GiB (blocks 1,060-1,120: inodes 1-976), then 64
# GiB: those inodes are still in memory, in blocks 1,065-1,125 there, so
# d/f120 (inode 897, block 1,121) reads d's folder block alone, not the
# 7 blocks of the table a mount at 64 GiB reads for it
tfs_mount "tier=ssd-cloud,mem=0,capacity=20GiB"
stat "$MNT/b/f029" >/dev/null || fail "stat b/f029"
echo "capacity=64GiB" >"$MNT/.tierfs/control" || fail "capacity switch refused"
stat "$MNT/d/f120" >/dev/null || fail "stat d/f120"
[ "$(meta)" = $((at20 + K)) ] ||
	fail "d/f120 after the switch read $(($(meta) - at20)) bytes, expected $K (d's block)"
tfs_umount
check_log
