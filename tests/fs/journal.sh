#!/usr/bin/env bash
# journal.sh — names made through the mount wait on no write; the journal
# writes the blocks they changed at its commit (tier/fsmeta.h), which an
# fsync makes and waits for: the model's write bytes are 0 after the
# creates, the journal's after an fsync, and a second fsync adds none.
. "$(dirname "$0")/lib.sh"

tfs_mount "tier=essd-pl3,mem=0"
for i in $(seq 100); do
	: >"$MNT/f$i" || fail "create f$i"
done
[ "$(stat_get model.ops.write.device_bytes)" = 0 ] ||
	fail "creates wrote $(stat_get model.ops.write.device_bytes) bytes before any commit"
python3 -c 'import os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); os.fsync(fd)' "$MNT/f1" ||
	fail "fsync"
w=$(stat_get model.ops.write.device_bytes)
# 100 inodes over 7-8 inode-table blocks, a folder block, the folder's
# inode block, 4 allocation blocks, a descriptor and the commit block
[ "$w" -ge $((13 * 4096)) ] && [ "$w" -le $((16 * 4096)) ] ||
	fail "the fsync's commit wrote $w bytes, expected 13-16 blocks"
python3 -c 'import os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); os.fsync(fd)' "$MNT/f1" ||
	fail "fsync 2"
[ "$(stat_get model.ops.write.device_bytes)" = "$w" ] ||
	fail "a second fsync wrote $(( $(stat_get model.ops.write.device_bytes) - w )) more bytes"
tfs_umount
check_log
exit 0
