#!/usr/bin/env bash
# fsmeta.sh — the metadata tierfs charges for a first lookup is what ext4
# reads on the emulated disk, and what a replay of the trace charges for
# the same files (tier/fsmeta.h). tierfs numbers the backing tree as
# mkfs.ext4 -d numbers the image it copies it into: the root 2, lost+found
# 11, then every name depth first, each folder's names in byte order, from
# 12; ext4 reads an inode with its inode-table window (32 blocks of 16
# inodes), no further than the last inode in use.
. "$(dirname "$0")/lib.sh"
B=$TS_BUILD_ROOT/cli/tiersim

numbering_tree
# every path, in the order mkfs.ext4 -d numbers them
python3 - "$BACKING" >"$TMPD/paths" <<'PY'
import os, sys
def walk(d, rel):
    for n in sorted(os.listdir(d), key=os.fsencode):
        print(rel + "/" + n)
        if os.path.isdir(os.path.join(d, n)):
            walk(os.path.join(d, n), rel + "/" + n)
walk(sys.argv[1], "")
PY
[ "$(wc -l <"$TMPD/paths")" = 538 ] || fail "$(wc -l <"$TMPD/paths") paths made, expected 538"
[ "$(grep -n '^/a-b$' "$TMPD/paths" | cut -d: -f1)" = 507 ] || fail "a-b is not inode 518"

K=4096
tfs_mount "tier=ssd-cloud,mem=0,trace=$TMPD/run.trace"
stat "$MNT/a-b" >/dev/null || fail "stat a-b"
# the root folder's block only: a-b's inode 518 is in table block 32,
# which the mount read with the root's inode (its window: blocks 0-32, as
# a mount's block trace shows it, the root's block and the 32 after it)
got=$(stat_get model.ops.read.device_bytes)
[ "$got" = $((K)) ] ||
	fail "first lookup of a-b read $got bytes of metadata, expected $((K))"
# every other path, each looked up once: the rest of the folders' blocks
# (a, a/s0-s4 and b, one block each) and table blocks 33-34 (inodes
# 529-549; blocks 0-32 read at mount)
sed 's|^|'"$MNT"'|' "$TMPD/paths" | xargs -d '\n' stat -c %i >/dev/null || fail "stat of every path"
live=$(stat_get model.ops.read.device_bytes)
want=$((K + 7 * K + 2 * K))
[ "$live" = "$want" ] || fail "every path looked up read $live bytes of metadata, expected $want"
# a name made now is numbered on from the last (550: the same window)
: >"$MNT/new" || fail "create"
stat "$MNT/new" >/dev/null || fail "stat new"
got=$(stat_get model.ops.read.device_bytes)
[ "$got" = "$live" ] || fail "a new file's lookup read $((got - live)) bytes, expected none"
tfs_umount_traced
[ -x "$B" ] || exit 0

# The replay of the same trace charges the same reads: it numbers the
# trace's paths (all of the tree here, and new) as tierfs numbered them.
rep=$(replay_meta_bytes "$TMPD/run.trace") || exit 1
[ "$rep" = "$live" ] || fail "the replay read $rep bytes of metadata, tierfs $live"
exit 0
