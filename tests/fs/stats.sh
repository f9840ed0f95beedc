#!/usr/bin/env bash
# stats.sh — MOUNTPOINT/.tierfs/stats is JSON that counts what was done,
# .tierfs/control switches the tier at runtime and refuses bad commands
# without changing anything, and a bare mount keeps no counters.
. "$(dirname "$0")/lib.sh"

tfs_mount tier=unlimited
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$MNT/.tierfs/stats" ||
	fail "stats is not JSON"
[ "$(stat_get ops.write.count)" = 0 ] || fail "writes counted before any"
for i in 1 2 3; do
	head -c 4096 /dev/zero >"$MNT/f$i" || fail "write f$i"
done
cat "$MNT/f1" "$MNT/f2" "$MNT/f3" >/dev/null || fail "read back"
[ "$(stat_get ops.create.count)" = 3 ] || fail "create count $(stat_get ops.create.count), expected 3"
[ "$(stat_get ops.write.count)" = 3 ] || fail "write count $(stat_get ops.write.count), expected 3"
[ "$(stat_get ops.write.bytes)" = 12288 ] || fail "write bytes $(stat_get ops.write.bytes), expected 12288"
[ "$(stat_get ops.read.bytes)" = 12288 ] || fail "read bytes $(stat_get ops.read.bytes), expected 12288"
[ "$(stat_get ops.write.errors)" = 0 ] || fail "write errors counted"
cat "$MNT/nonexistent" 2>/dev/null
[ "$(stat_get ops.open.errors)" = 0 ] || fail "a failed lookup counted as an open error"
lat=$(stat_get ops.read.lat_ns.p50) && [ "$lat" -gt 0 ] || fail "reads recorded no latency (p50 $lat ns)"
[ "$(stat_get model)" != None ] || fail "no model stats"
[ "$(stat_get inflight)" = 0 ] || fail "requests in flight while idle"

# Runtime tier switch.
grep -qx 'tier=unlimited' "$MNT/.tierfs/control" || fail "control does not show the tier"
echo tier=aws-gp3 >"$MNT/.tierfs/control" || fail "tier switch refused"
[ "$(stat_get tier)" = aws-gp3 ] || fail "tier not switched: $(stat_get tier)"
grep -qx 'tier=aws-gp3' "$MNT/.tierfs/control" || fail "control does not show the new tier"
echo "tier=essd-pl1 capacity=2TiB" >"$MNT/.tierfs/control" || fail "tier+capacity refused"
grep -qx 'capacity=2.00 TiB' "$MNT/.tierfs/control" || fail "capacity not switched"
echo tier=no-such-tier 2>/dev/null >"$MNT/.tierfs/control" && fail "unknown tier accepted"
[ "$(stat_get tier)" = essd-pl1 ] || fail "a refused command changed the tier"
case "$(stat_get control_error)" in *no-such-tier*) ;; *) fail "control_error: $(stat_get control_error)" ;; esac
echo mem=1GiB 2>/dev/null >"$MNT/.tierfs/control" && fail "mem accepted at runtime"
case "$(stat_get control_error)" in *"'mem' cannot be changed"*) ;; *) fail "control_error: $(stat_get control_error)" ;; esac
echo bogus=1 2>/dev/null >"$MNT/.tierfs/control" && fail "unknown key accepted"
case "$(stat_get control_error)" in *"unknown key 'bogus'"*) ;; *) fail "control_error: $(stat_get control_error)" ;; esac
echo tier=unlimited >"$MNT/.tierfs/control" || fail "switch back"
[ "$(stat_get control_error)" = "" ] || fail "control_error not cleared"
cat "$MNT/f1" >/dev/null
tfs_umount
check_log

# Every charged request reaches the model, with its op, offset and length:
# the model's counts match tierfs's (a fast tier keeps this short). m is
# made before the mount: a create would start a journal transaction, whose
# commit (journal_commit_s after it) lands inside the checks below when
# the host is slow, and adds its writes and flushes to the model's counts.
head -c 262144 /dev/zero >"$BACKING/m" || fail "making m"
tfs_mount tier=essd-pl3
dd if=/dev/zero of="$MNT/m" bs=4k count=64 oflag=direct conv=notrunc status=none || fail "dd write"
dd if="$MNT/m" of=/dev/null bs=4k count=64 iflag=direct status=none || fail "dd read"
[ "$(stat_get ops.read.count)" = 64 ] || fail "tierfs counted $(stat_get ops.read.count) reads, expected 64"
# Besides the 64 data reads, the file system's metadata read (tier/fsmeta.h):
# the root folder's block at m's first lookup, once; m's inode (12, the last
# in use) shares the root's table block, read at mount.
[ "$(stat_get model.ops.read.count)" = 65 ] || fail "model saw $(stat_get model.ops.read.count) reads, expected 64 + 1 metadata"
[ "$(stat_get model.ops.read.bytes)" = $((262144 + 4096)) ] || fail "model read bytes $(stat_get model.ops.read.bytes)"
[ "$(stat_get model.ops.write.count)" = 64 ] || fail "model saw $(stat_get model.ops.write.count) writes"
[ "$(stat_get model.ops.write.bytes)" = 262144 ] || fail "model write bytes $(stat_get model.ops.write.bytes)"
[ "$(stat_get model.ops.meta.count)" = 0 ] || fail "model saw $(stat_get model.ops.meta.count) metadata ops, expected 0 (the open reads metadata blocks)"
[ "$(stat_get model.ops.fsync.count)" = 0 ] || fail "fsync counted without one"
tfs_umount
check_log

# A bare mount: plain passthrough, no counters, no model.
tfs_mount bare
head -c 4096 /dev/zero >"$MNT/g" && cat "$MNT/g" >/dev/null || fail "IO on the bare mount"
[ "$(stat_get ops.write.count)" = 0 ] || fail "bare mount counted writes"
[ "$(stat_get model)" = None ] || fail "bare mount has a model"
echo tier=aws-gp3 2>/dev/null >"$MNT/.tierfs/control" && fail "tier switch on a bare mount"
tfs_umount
check_log

# Page-cache state at mount: cold (the default) reads from the device;
# warm has the backing's files resident, so a first read hits; written
# has them resident and part of them dirty; a bad state is refused.
head -c 4194304 /dev/urandom >"$BACKING/warm1" || fail "backing file"
mkdir -p "$BACKING/sub" && head -c 1048576 /dev/urandom >"$BACKING/sub/warm2" || fail "backing file"
tfs_mount tier=ssd-cloud,mem=64MiB
[ "$(stat_get model.cache.resident_bytes)" = 0 ] || fail "cold mount has pages resident"
tfs_umount
check_log
tfs_mount tier=ssd-cloud,mem=64MiB,cache=warm
res=$(stat_get model.cache.resident_bytes)
[ "$res" -ge 5242880 ] || fail "warm mount: $res bytes resident, expected the 5 MiB of warm1 and sub/warm2"
[ "$(stat_get model.cache.dirty_bytes)" = 0 ] || fail "warm mount has dirty pages"
cat "$MNT/warm1" "$MNT/sub/warm2" >/dev/null || fail "read warm files"
[ "$(stat_get model.ops.read.cache_hit_bytes)" = 5242880 ] ||
	fail "warm files read $(stat_get model.ops.read.cache_hit_bytes) bytes from the cache, expected 5242880"
grep -q 'page-cache model warm: ' "$LOG" || fail "the warm-up is not reported"
tfs_umount
check_log
tfs_mount tier=ssd-cloud,mem=64MiB,cache=written
[ "$(stat_get model.cache.dirty_bytes)" -gt 0 ] || fail "written mount has nothing dirty"
tfs_umount
check_log
"$TIERFS" -o tier=ssd-cloud,cache=tepid "$BACKING" "$MNT" 2>"$TMPD/err" && fail "cache=tepid accepted"
grep -q "option 'cache': 'tepid' is not cold, warm or written" "$TMPD/err" || fail "cache=tepid: $(cat "$TMPD/err")"
# warm_path may not leave the backing; the mount is refused and not left behind.
"$TIERFS" -o tier=ssd-cloud,mem=64MiB,cache=warm,warm_path=../.. "$BACKING" "$MNT" 2>"$TMPD/err" &&
	fail "warm_path=../.. mounted"
grep -q "outside the backing directory" "$TMPD/err" || fail "warm_path=../..: $(cat "$TMPD/err")"
! mountpoint -q "$MNT" || fail "a mount left behind after a refused warm_path"
exit 0
