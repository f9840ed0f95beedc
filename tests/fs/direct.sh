#!/usr/bin/env bash
# direct.sh — O_DIRECT through a mount with a page-cache model (mem > 0)
# bypasses it: direct reads of a file are never cache hits however often
# they repeat (O_DIRECT set with fcntl too), while buffered reads of the
# same file hit; a direct write is not absorbed as dirty data and drops the
# cached pages it covers. The trace marks direct requests (flag 1), and a
# virtual replay of it serves none of them from memory.
. "$(dirname "$0")/lib.sh"
B=$TS_BUILD_ROOT/cli/tiersim

head -c $((1024 * 1024)) /dev/urandom >"$BACKING/f"

# Direct IO only, recorded.
tfs_mount "tier=essd-pl3,mem=64MiB,trace=$TMPD/run.trace"
for i in 1 2 3; do
	dd if="$MNT/f" of=/dev/null bs=64k count=16 iflag=direct status=none || fail "direct read $i"
done
# 48 data reads and the file system's metadata read (tier/fsmeta.h: the
# root folder's block) at f's first lookup; f's inode (12, the last in
# use) shares the root's table block, read at mount
[ "$(stat_get model.ops.read.count)" = 49 ] || fail "model saw $(stat_get model.ops.read.count) reads, expected 48 + 1 metadata"
[ "$(stat_get model.ops.read.cache_hit_bytes)" = 0 ] ||
	fail "O_DIRECT reads hit the page-cache model: $(stat_get model.ops.read.cache_hit_bytes) bytes"
[ "$(stat_get model.ops.read.device_bytes)" = $((3 * 1048576 + 4096)) ] ||
	fail "device bytes $(stat_get model.ops.read.device_bytes), expected all 3 MiB read and 4 KiB of metadata"
[ "$(stat_get model.cache.resident_bytes)" = 0 ] ||
	fail "O_DIRECT reads filled the cache: $(stat_get model.cache.resident_bytes) bytes"
dd if=/dev/zero of="$MNT/f" bs=64k count=4 oflag=direct conv=notrunc status=none || fail "direct write"
[ "$(stat_get model.cache.dirty_bytes)" = 0 ] || fail "an O_DIRECT write left dirty data"
[ "$(stat_get model.ops.write.cache_hit_bytes)" = 0 ] || fail "an O_DIRECT write was absorbed"
[ "$(stat_get model.ops.write.device_bytes)" = 262144 ] ||
	fail "O_DIRECT write device bytes $(stat_get model.ops.write.device_bytes), expected 262144"
tfs_umount
grep -v "trace $TMPD/run.trace written" "$LOG" >"$LOG.rest"
mv "$LOG.rest" "$LOG"
check_log

# The same file read buffered: the second pass is served from memory. A
# direct write then drops the pages it covers; a buffered one is absorbed.
tfs_mount "tier=essd-pl3,mem=64MiB"
dd if="$MNT/f" of=/dev/null bs=64k count=16 status=none || fail "buffered read 1"
dd if="$MNT/f" of=/dev/null bs=64k count=16 status=none || fail "buffered read 2"
hit=$(stat_get model.ops.read.cache_hit_bytes)
[ "$hit" -ge 1048576 ] || fail "buffered re-read hit $hit bytes, expected at least 1 MiB"
[ "$(stat_get model.cache.resident_bytes)" = 1048576 ] ||
	fail "resident $(stat_get model.cache.resident_bytes) after buffered reads, expected the file's 1 MiB"
# O_DIRECT set later with fcntl counts too: the kernel sends the file's
# flags with every read.
python3 - "$MNT/f" <<'EOF2' || fail "reads after fcntl(F_SETFL, O_DIRECT)"
import fcntl, mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_DIRECT)
buf = mmap.mmap(-1, 65536)
for i in range(4):
    assert os.preadv(fd, [buf], i * 65536) == 65536
EOF2
[ "$(stat_get model.ops.read.cache_hit_bytes)" = "$hit" ] ||
	fail "reads after fcntl(F_SETFL, O_DIRECT) hit the cache: $(stat_get model.ops.read.cache_hit_bytes) bytes, was $hit"
dd if=/dev/zero of="$MNT/f" bs=64k count=4 oflag=direct conv=notrunc status=none || fail "direct write"
[ "$(stat_get model.cache.dirty_bytes)" = 0 ] || fail "an O_DIRECT write left dirty data"
[ "$(stat_get model.cache.resident_bytes)" = $((1048576 - 262144)) ] ||
	fail "resident $(stat_get model.cache.resident_bytes) after a 256 KiB direct write, expected 768 KiB"
dd if=/dev/zero of="$MNT/f" bs=64k count=1 conv=notrunc status=none || fail "buffered write"
[ "$(stat_get model.cache.dirty_bytes)" = 65536 ] || fail "a buffered write was not absorbed"
tfs_umount
check_log

if [ -x "$B" ]; then
	"$B" trace dump "$TMPD/run.trace" >"$TMPD/run.txt" || fail "trace dump"
	# SUBMIT COMPLETE OP FILE OFFSET LENGTH RESULT TID SIZE AUX FLAGS
	nr=$(awk '$3 == "read" && $11 % 2 == 1' "$TMPD/run.txt" | wc -l)
	nw=$(awk '$3 == "write" && $11 % 2 == 1' "$TMPD/run.txt" | wc -l)
	[ "$nr" = 48 ] || fail "$nr reads marked direct in the trace, expected 48"
	[ "$nw" = 4 ] || fail "$nw writes marked direct in the trace, expected 4"
	# Replayed on the recorded model (mem=64MiB), nothing is served from
	# memory; were the flag lost, passes 2 and 3 would be.
	"$B" replay "$TMPD/run.trace" --virtual --tier essd-pl3 --json >"$TMPD/v.json" 2>"$TMPD/v.err" || fail "virtual replay: $(cat "$TMPD/v.err")"
	mem=$(python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
r = [x for x in d["results"] if x["what"] != "recorded"][0]
print(r["bound"].get("memory", 0))' "$TMPD/v.json") || fail "replay JSON: $(head -c 400 "$TMPD/v.json")"
	[ "$mem" = 0 ] || fail "the virtual replay served $mem direct requests from memory"
fi
exit 0
