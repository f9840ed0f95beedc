#!/usr/bin/env bash
# fsdirs.sh — tierfs sizes a folder as mkfs.ext4 -d (tiersim disk make)
# makes it, linear, from the names the backing folder lists
# (ts_fsmeta_dir_blocks), as a replay does: not from the backing folder's
# own size and form (on a host ext4, a folder of 2,000 names is a hashed
# htree of 12 blocks; on the image, 8 linear ones), so tierfs and the
# replay of its trace charge the same.
. "$(dirname "$0")/lib.sh"
B=$TS_BUILD_ROOT/cli/tiersim

mkdir "$BACKING/big"
(cd "$BACKING/big" && seq -f 'f%05g' 0 1999 | xargs touch) || fail "making big/"
K=4096
tfs_mount "tier=ssd-cloud,mem=0,trace=$TMPD/run.trace"
# the root's block and big's 9 blocks (2,000 names of 6 bytes: 24 +
# 2,000 x 11 + 12,000 bytes), read ahead 8 at a time; big's inode (12;
# 2,012 the last in use) and f00000 (13) are in window 0, table blocks
# 0-32, which the mount read with the root's inode (a mount's block
# trace: the root's table block and the 32 after it, before any lookup)
stat "$MNT/big/f00000" >/dev/null || fail "stat big/f00000"
got=$(stat_get model.ops.read.device_bytes)
[ "$got" = $((K + 9 * K)) ] || fail "first lookup in big/ read $got bytes, expected $((10 * K))"
# every file: the inode table up to block 125 (2,012 / 16), 126 blocks,
# less the 33 read at mount
find "$MNT/big" -mindepth 1 | xargs -d '\n' stat -c %i >/dev/null || fail "stat of every file"
live=$(stat_get model.ops.read.device_bytes)
[ "$live" = $((K + 93 * K + 9 * K)) ] || fail "every path looked up read $live bytes, expected $((103 * K))"
tfs_umount_traced
[ -x "$B" ] || exit 0
rep=$(replay_meta_bytes "$TMPD/run.trace") || exit 1
[ "$rep" = "$live" ] || fail "the replay read $rep bytes of metadata, tierfs $live"
exit 0
