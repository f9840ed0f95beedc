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
# the root's block, big's inode (12; 2,012 the last in use: window 0, 33
# blocks), big's 9 blocks (2,000 names of 6 bytes: 24 + 2,000 x 11 +
# 12,000 bytes), read ahead 8 at a time; f00000 (13) in window 0
stat "$MNT/big/f00000" >/dev/null || fail "stat big/f00000"
got=$(stat_get model.ops.read.device_bytes)
[ "$got" = $((K + 33 * K + 9 * K)) ] || fail "first lookup in big/ read $got bytes, expected $((43 * K))"
# every file: the inode table up to block 125 (2,012 / 16), 126 blocks
find "$MNT/big" -mindepth 1 | xargs -d '\n' stat -c %i >/dev/null || fail "stat of every file"
live=$(stat_get model.ops.read.device_bytes)
[ "$live" = $((K + 126 * K + 9 * K)) ] || fail "every path looked up read $live bytes, expected $((136 * K))"
tfs_umount_traced
[ -x "$B" ] || exit 0
rep=$(replay_meta_bytes "$TMPD/run.trace") || exit 1
[ "$rep" = "$live" ] || fail "the replay read $rep bytes of metadata, tierfs $live"
exit 0
