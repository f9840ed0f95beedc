#!/usr/bin/env bash
# fsmissing.sh — a lookup of a name that is not there: ext4_lookup scans
# the folder for it (ext4_find_entry reads the folder's blocks) and reads
# no inode, as a block-mode trace shows (tier/fsmeta.h). tierfs charges
# the folder's blocks; a replay charges the same and does not number a
# path whose every op failed with ENOENT, nor count it in its folder.
. "$(dirname "$0")/lib.sh"
B=$TS_BUILD_ROOT/cli/tiersim

numbering_tree # tests/fs/fsmeta.sh's tree: b (519) holds 30 files
K=4096
tfs_mount "tier=ssd-cloud,mem=0,trace=$TMPD/run.trace"
stat "$MNT/b/nosuch" >/dev/null 2>&1 && fail "stat b/nosuch succeeded"
# the root folder's block and b's folder block, scanned for the name
# (before: not read); b's inode (519) is in table block 32, which the
# mount read with the root's inode (a mount's block trace: the root's
# table block and the 32 after it, before any lookup)
got=$(stat_get model.ops.read.device_bytes)
[ "$got" = $((K + K)) ] || fail "lookup of b/nosuch read $got bytes, expected $((2 * K))"
# a name in b now: its folder is read, its inode (520) in block 32, read
stat "$MNT/b/f000" >/dev/null || fail "stat b/f000"
got=$(stat_get model.ops.read.device_bytes)
[ "$got" = $((2 * K)) ] || fail "lookup of b/f000 after b/nosuch read $((got - 2 * K)) bytes, expected none"
# a/s4/nosuch: a's folder and s4's, scanned (a's inode 12 and s4's 417,
# in table blocks 0 and 26, read at mount)
stat "$MNT/a/s4/nosuch" >/dev/null 2>&1 && fail "stat a/s4/nosuch succeeded"
got=$(stat_get model.ops.read.device_bytes)
[ "$got" = $((2 * K + 2 * K)) ] ||
	fail "lookup of a/s4/nosuch read $((got - 2 * K)) more bytes, expected $((2 * K))"
# every path: fsmeta.sh's figure (the other folders of a/, table blocks
# 33-34)
find "$MNT" -mindepth 1 | xargs -d '\n' stat -c %i >/dev/null || fail "stat of every path"
live=$(stat_get model.ops.read.device_bytes)
[ "$live" = $((K + 7 * K + 2 * K)) ] || fail "every path looked up read $live bytes, expected $((10 * K))"
tfs_umount_traced
[ -x "$B" ] || exit 0

# The replay of the same trace: the failed lookups' names are not
# numbered (every other path keeps tierfs's number), the same bytes.
rep=$(replay_meta_bytes "$TMPD/run.trace") || exit 1
[ "$rep" = "$live" ] || fail "the replay read $rep bytes of metadata, tierfs $live"

# Only the trace's paths: /, /d, /d/f1-f3 are inodes 2 and 12-15, the
# last in use 15, so the inode table is read up to its block 0 (one
# block, at mount, with the root's inode); /d/nosuch, which every op
# failed to find, is no inode (before: inode 16, the last in use, and the
# table read up to block 1, 4 KiB more). The root's block, d's block:
# 8 KiB.
cat >"$TMPD/miss.txt" <<'X'
header version=1
path 1 "/d/f1"
path 2 "/d/f2"
path 3 "/d/f3"
path 4 "/d/nosuch"
0 1000 getattr 1 0 0 0 1 0 0 0
2000 3000 getattr 2 0 0 0 1 0 0 0
4000 5000 getattr 3 0 0 0 1 0 0 0
6000 7000 getattr 4 0 0 -2 1 0 0 0
X
"$B" trace undump "$TMPD/miss.txt" -o "$TMPD/miss.trace" || fail "undump"
rep=$(replay_meta_bytes "$TMPD/miss.trace") || exit 1
[ "$rep" = $((2 * K)) ] || fail "replay with a failed lookup read $rep bytes, expected $((2 * K))"
# A folder seen only in a failed lookup is read and scanned: /e/nosuch
# (e: inode 16; now the last in use, table blocks 0-1 read at mount with
# the root's inode; the root's block, d's block and e's folder block,
# and e/nosuch no inode)
sed -e 's|^path 4 "/d/nosuch"|path 4 "/e/nosuch"|' "$TMPD/miss.txt" >"$TMPD/miss2.txt"
"$B" trace undump "$TMPD/miss2.txt" -o "$TMPD/miss2.trace" || fail "undump 2"
rep=$(replay_meta_bytes "$TMPD/miss2.trace") || exit 1
[ "$rep" = $((3 * K)) ] || fail "replay with a failed lookup in an unseen folder read $rep bytes, expected $((3 * K))"
exit 0
