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
# the root folder's block, b's inode window (inodes 512-549 in use, 3
# blocks) and b's folder block, scanned for the name (before: not read)
got=$(stat_get model.ops.read.device_bytes)
[ "$got" = $((K + 3 * K + K)) ] || fail "lookup of b/nosuch read $got bytes, expected $((5 * K))"
# a name in b now: its folder is read, its inode (520) in the window read
stat "$MNT/b/f000" >/dev/null || fail "stat b/f000"
got=$(stat_get model.ops.read.device_bytes)
[ "$got" = $((5 * K)) ] || fail "lookup of b/f000 after b/nosuch read $((got - 5 * K)) bytes, expected none"
# a/s4/nosuch: a's inode window 0 (32 blocks: the 33rd, 32, read with
# b's), a's folder and s4's, scanned
stat "$MNT/a/s4/nosuch" >/dev/null 2>&1 && fail "stat a/s4/nosuch succeeded"
got=$(stat_get model.ops.read.device_bytes)
[ "$got" = $((5 * K + 32 * K + 2 * K)) ] ||
	fail "lookup of a/s4/nosuch read $((got - 5 * K)) more bytes, expected $((34 * K))"
# every path: fsmeta.sh's figure (the other folders of a/)
find "$MNT" -mindepth 1 | xargs -d '\n' stat -c %i >/dev/null || fail "stat of every path"
live=$(stat_get model.ops.read.device_bytes)
[ "$live" = $((K + 3 * K + 7 * K + 32 * K)) ] || fail "every path looked up read $live bytes, expected $((43 * K))"
tfs_umount_traced
[ -x "$B" ] || exit 0

# The replay of the same trace: the failed lookups' names are not
# numbered (every other path keeps tierfs's number), the same bytes.
rep=$(replay_meta_bytes "$TMPD/run.trace") || exit 1
[ "$rep" = "$live" ] || fail "the replay read $rep bytes of metadata, tierfs $live"

# Only the trace's paths: /, /d, /d/f1-f3 are inodes 2 and 12-15, the
# last in use 15, so the inode table is read up to its block 0 (one
# block); /d/nosuch, which every op failed to find, is no inode (before:
# inode 16, the last in use, and the table read up to block 1, 4 KiB
# more). The root's block, d's inode block, d's block: 12 KiB.
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
[ "$rep" = $((3 * K)) ] || fail "replay with a failed lookup read $rep bytes, expected $((3 * K))"
# A folder seen only in a failed lookup is read and scanned: /e/nosuch
# (e: inode 16; now the last in use, table block 1 read with block 0's
# window, e's inode block 0 read already; the root's block read; e's
# folder block: 4 KiB more, and e/nosuch no inode)
sed -e 's|^path 4 "/d/nosuch"|path 4 "/e/nosuch"|' "$TMPD/miss.txt" >"$TMPD/miss2.txt"
"$B" trace undump "$TMPD/miss2.txt" -o "$TMPD/miss2.trace" || fail "undump 2"
rep=$(replay_meta_bytes "$TMPD/miss2.trace") || exit 1
[ "$rep" = $((5 * K)) ] || fail "replay with a failed lookup in an unseen folder read $rep bytes, expected $((5 * K))"
exit 0
