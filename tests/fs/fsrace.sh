#!/usr/bin/env bash
# fsrace.sh — tierfs numbers the backing tree as mkfs.ext4 -d does without
# the mount waiting for it (fs/timing.c): a lookup that comes before the
# walk has reached its folder numbers the folders on its path itself and
# gets the number the whole walk gives, so it is charged the same reads
# (tests/fs/fsmeta.sh has the same tree, numbered at mount). An op that
# makes a name waits for the walk; cache=warm numbers the tree in its own
# walk, before the mount is ready.
. "$(dirname "$0")/lib.sh"

numbering_tree
K=4096

# The walk held at its gate (TIERFS_NUMBER_GATE) while the lookups come:
# it starts only at a control write of numbering=walk, however long they
# take.
TIERFS_NUMBER_GATE=1 tfs_mount "tier=ssd-cloud,mem=0"
stat "$MNT/a-b" >/dev/null || fail "stat a-b"
state=$(stat_get model.numbering.state)
[ "$state" = walking ] || fail "numbering state $state after the first lookup, expected walking"
# the root folder's block, as after the whole walk: a-b's inode 518 is in
# table block 32, which the mount read with the root's inode (a mount's
# block trace: the root's table block and the 32 after it)
got=$(stat_get model.ops.read.device_bytes)
[ "$got" = $((K)) ] || fail "first lookup of a-b read $got bytes, expected $((K))"
# a file deep in a/ (517): a's and a/s4's folder blocks; a's inode (12),
# s4's (417) and its own are in table blocks 0-32, read at mount
stat "$MNT/a/s4/f099" >/dev/null || fail "stat a/s4/f099"
got=$(stat_get model.ops.read.device_bytes)
want=$((K + 2 * K))
[ "$got" = "$want" ] || fail "lookup of a/s4/f099 read $((got - K)) more bytes, expected $((want - K))"
looked=$(stat_get model.numbering.folders_by_lookup)
[ "$looked" = 3 ] || fail "$looked folders numbered by lookups (root, a, a/s4), expected 3"
# every path: the same bytes as fsmeta.sh's whole walk
find "$MNT" -mindepth 1 | xargs -d '\n' stat -c %i >/dev/null || fail "stat of every path"
live=$(stat_get model.ops.read.device_bytes)
want=$((K + 7 * K + 2 * K))
[ "$live" = "$want" ] || fail "every path looked up read $live bytes, expected $want"
state=$(stat_get model.numbering.state)
[ "$state" = walking ] || fail "numbering state $state before the walk, expected walking"
# a name made waits for the walk, then is numbered on from the last (550:
# the same window, nothing more): the create cannot finish while the walk
# is held (its reply waits on the charge)
: >"$MNT/new" &
maker=$!
sleep 0.5
kill -0 "$maker" 2>/dev/null || fail "a create finished before the walk"
state=$(stat_get model.numbering.state)
[ "$state" = walking ] || fail "numbering state $state with the walk held, expected walking"
echo numbering=walk >"$MNT/.tierfs/control" || fail "numbering=walk refused"
wait "$maker" || fail "create"
state=$(stat_get model.numbering.state)
[ "$state" = done ] || fail "numbering state $state after a create, expected done"
stat "$MNT/new" >/dev/null || fail "stat new"
got=$(stat_get model.ops.read.device_bytes)
[ "$got" = "$live" ] || fail "a new file's lookup read $((got - live)) bytes, expected none"
names=$(stat_get model.numbering.names)
[ "$names" = 539 ] || fail "$names names numbered, expected 538 and new"
tfs_umount
rm "$BACKING/new"

# numbering= takes only walk; a mount held at the gate unmounts cleanly
TIERFS_NUMBER_GATE=1 tfs_mount "tier=ssd-cloud,mem=0"
echo numbering=go >"$MNT/.tierfs/control" 2>/dev/null && fail "numbering=go accepted"
err=$(stat_get control_error)
case "$err" in *"expected walk"*) ;; *) fail "numbering=go: control_error '$err'" ;; esac
state=$(stat_get model.numbering.state)
[ "$state" = walking ] || fail "numbering state $state held, expected walking"
tfs_umount

# cache=warm walks the tree once, numbering it: done when the mount is
# ready, no folder numbered by a lookup, the same bytes.
tfs_mount "tier=ssd-cloud,mem=64MiB,cache=warm"
state=$(stat_get model.numbering.state)
[ "$state" = done ] || fail "numbering state $state at a warm mount, expected done"
stat "$MNT/a-b" >/dev/null || fail "stat a-b (warm)"
got=$(stat_get model.ops.read.device_bytes)
[ "$got" = $((K)) ] || fail "warm: first lookup of a-b read $got bytes, expected $((K))"
looked=$(stat_get model.numbering.folders_by_lookup)
[ "$looked" = 0 ] || fail "warm: $looked folders numbered by lookups, expected 0"
tfs_umount
check_log
exit 0
