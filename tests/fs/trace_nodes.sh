#!/usr/bin/env bash
# trace_nodes.sh — a job that reads part of a larger tree: tierfs writes
# each path's inode number on the emulated disk (and its folders') into
# the trace (version 11, traces/FORMAT.md "Inode numbers"), so that the
# virtual replay charges the inode-table blocks where the files really are
# and not where the trace's own paths alone would put them. The tree is
# fsmeta.sh's; only b/'s 30 files are read (inodes 520-549, past the root's
# readahead window of inodes 1-528), a/'s 500 files never.
. "$(dirname "$0")/lib.sh"
B=$TS_BUILD_ROOT/cli/tiersim

numbering_tree
tfs_mount "tier=ssd-cloud,mem=0,trace=$TMPD/run.trace"
for f in $(seq -w 0 29); do
	cat "$MNT/b/f0$f" || fail "read b/f0$f"
done
live=$(stat_get model.ops.read.device_bytes)
tfs_umount_traced
[ -x "$B" ] || exit 0

"$B" trace dump "$TMPD/run.trace" >"$TMPD/run.txt" || fail "trace dump"
grep -q '^header version=12 ' "$TMPD/run.txt" || fail "not a version 12 trace: $(grep ^header "$TMPD/run.txt")"
# the root, b/ and its files with their numbers, a folder's blocks, the
# backing file's own inode, and the inodes in use (549 the last: 550)
node() { awk -v p="\"$1\"" '$1 == "path" && $3 == p { $1 = $2 = $3 = ""; sub(/^ +/, ""); print }' "$TMPD/run.txt"; }
[ "$(node /)" = "ino=2 blocks=1 backing_ino=$(stat -c %i "$BACKING") inodes=550 flags=3" ] ||
	fail "the root's node: '$(node /)'"
[ "$(node /b)" = "ino=519 blocks=1 backing_ino=$(stat -c %i "$BACKING/b") inodes=550 flags=3" ] ||
	fail "b's node: '$(node /b)'"
[ "$(node /b/f017)" = "ino=537 blocks=0 backing_ino=$(stat -c %i "$BACKING/b/f017") inodes=550 flags=1" ] ||
	fail "b/f017's node: '$(node /b/f017)'"
[ -z "$(node /a)" ] || fail "a/, never looked up, has a path item"
# the replay charges what tierfs charged: the root's block, b's, and the
# inode-table blocks of inodes 520-549 past the mount's window (33-34)
rep=$(replay_meta_bytes "$TMPD/run.trace") || exit 1
[ "$rep" = "$live" ] || fail "the replay read $rep bytes, tierfs $live"
# the same trace without the numbers (as version 10 wrote it) numbers its
# own paths, all inside the root's window: less
sed 's/^header version=12 /header version=10 /; s/^\(path [0-9]* "[^"]*"\) ino=.*/\1/' \
	"$TMPD/run.txt" >"$TMPD/v10.txt"
"$B" trace undump "$TMPD/v10.txt" -o "$TMPD/v10.trace" || fail "undump of the version 10 form"
old=$(replay_meta_bytes "$TMPD/v10.trace") || exit 1
[ "$old" -lt "$rep" ] || fail "without the numbers the replay read $old bytes, with them $rep"
exit 0
