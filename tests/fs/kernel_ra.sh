#!/usr/bin/env bash
# kernel_ra.sh — a file opened kernel-cached (cached=) is read ahead by the
# kernel above the mount, and the page-cache model (mem > 0) adds no
# readahead window of its own to the kernel's requests: the device reads
# exactly what the kernel asked for, while a file served direct_io gets
# the model's readahead past what the reader asked. The trace marks the
# kernel-cached reads (flag 16), and a virtual replay of it reads the
# same bytes from the device.
. "$(dirname "$0")/lib.sh"
B=$TS_BUILD_ROOT/cli/tiersim

head -c $((4 << 20)) /dev/urandom >"$BACKING/f.dat"
# the file system's read at the file's first lookup (tier/fsmeta.h): the
# root folder's block; f.dat is inode 12, the first and last in use
# (tests/fs/fsmeta.sh), in the root's table block, which the mount read
# with the root's inode (a mount's block trace: the root's table block and
# the 32 after it, before any lookup)
META=4096

tfs_mount "tier=essd-pl3,mem=64MiB,cached=*.dat,trace=$TMPD/run.trace"
dd if="$MNT/f.dat" of=/dev/null bs=4k count=16 status=none || fail "read of the cached file"
dev=$(stat_get model.ops.read.device_bytes)
tfs_umount
grep -v "trace $TMPD/run.trace written" "$LOG" >"$LOG.rest"
mv "$LOG.rest" "$LOG"
check_log
[ -x "$B" ] || exit 0
"$B" trace dump "$TMPD/run.trace" >"$TMPD/run.txt" || fail "trace dump"
# SUBMIT COMPLETE OP FILE OFFSET LENGTH RESULT TID SIZE AUX FLAGS
asked=$(awk '$3 == "read" { s += $6 } END { print s + 0 }' "$TMPD/run.txt")
nk=$(awk '$3 == "read" && int($11 / 16) % 2 == 1' "$TMPD/run.txt" | wc -l)
nr=$(awk '$3 == "read"' "$TMPD/run.txt" | wc -l)
[ "$nr" -gt 0 ] && [ "$nk" = "$nr" ] || fail "$nk of $nr reads marked read ahead by the kernel (flag 16)"
# the kernel reads ahead of dd's 64 KiB itself
[ "$asked" -ge 65536 ] || fail "the kernel asked for $asked bytes, less than dd read"
[ "$dev" = $((asked + META)) ] ||
	fail "the device read $dev bytes; the kernel asked for $asked (+ $META of metadata): the model read ahead on top"
# Replayed, the flag keeps the model's readahead off too: the same trace
# with the flag cleared reads more from the device. The kernel sends a
# window's reads concurrently, and the daemon takes them in whatever order
# its threads come; the model's stream follows the windows, not the order
# of reads in flight together (tier/cache.c, readahead), so every order
# the kernel may send reads ahead alike. Three replays of each, flag kept
# and cleared: the reads in the order the kernel sent them, all in flight
# together (submitted 1 us apart, each as long as recorded); the same in
# offset order, one after the other; and the trace as recorded, when its
# reads that came before a lower one were still in flight when it came
# (what the kernel meant; a daemon thread that took a read so late that
# the one after it in the file had completed by then recorded two reads
# that did not overlap, which the model rightly sees as a reader going
# back).
rewrite() { # TEXT-TRACE OUT FLAG(keep|clear) ORDER(kernel|reverse|serial|asis|none)
	python3 - "$@" <<'PY' || fail "rewriting the trace"
import sys
src, out, mode, order = sys.argv[1:5]
# an IO line and the cpu lines that follow it travel together
groups = []
for l in open(src).read().splitlines():
    f = l.split()
    if l.startswith("cpu ") and groups:
        groups[-1][1].append(l)
    else:
        groups.append([f if len(f) == 11 and f[0].isdigit() else l, []])
isread = lambda g: isinstance(g[0], list) and g[0][2] == "read"
reads = [g for g in groups if isread(g)]
if order == "none":  # the metadata alone: what a replay reads besides the reads
    reads = []
elif order != "asis":
    reads.sort(key=lambda g: int(g[0][4] if order == "serial" else g[0][0]))
    if order == "reverse":
        reads.sort(key=lambda g: -int(g[0][4]))
    t = min(int(g[0][0]) for g in reads)
    for g in reads:
        f = g[0]
        d = int(f[1]) - int(f[0])
        f[0], f[1] = str(t), str(t + d)
        t += d + 1000 if order == "serial" else 1000
    t = max(int(g[0][1]) for g in reads) + 1000
    for g in groups:  # the close after the last read
        if isinstance(g[0], list) and g[0][2] == "close":
            d = int(g[0][1]) - int(g[0][0])
            g[0][0], g[0][1] = str(t), str(t + d)
for g in reads:
    f = g[0]
    if mode == "clear" and (int(f[10]) // 16) % 2 == 1:
        f[10] = str(int(f[10]) - 16)
rest = [g for g in groups if not isread(g)]
end = [g for g in rest if isinstance(g[0], str) and g[0].startswith("end ")]
body = [g for g in rest if g not in end]
with open(out, "w") as o:
    for g in body + reads + end:
        o.write((" ".join(g[0]) if isinstance(g[0], list) else g[0]) + "\n")
        o.writelines(c + "\n" for c in g[1])
PY
}
vdev() { # TRACE
	"$B" replay "$1" --virtual --tier essd-pl3 --json >"$TMPD/v.json" 2>"$TMPD/v.err" ||
		fail "virtual replay: $(cat "$TMPD/v.err")"
	python3 -c 'import json,sys
r = [x for x in json.load(open(sys.argv[1]))["results"] if x["what"] != "recorded"][0]
print(r.get("device_read_bytes", 0))' "$TMPD/v.json" || fail "replay JSON: $(head -c 400 "$TMPD/v.json")"
}
# Did each read that came before one lower in the file overlap it?
overlapped=$(awk '$3 == "read" { n++; s[n] = $1; c[n] = $2; o[n] = $5 }
	END { ok = 1
	      for (i = 1; i <= n; i++) for (j = 1; j <= n; j++)
		if (o[i] > o[j] && s[i] < s[j] && c[i] <= s[j]) ok = 0
	      print ok }' "$TMPD/run.txt")
# With the flag the device reads exactly what the kernel asked, besides
# the replay's own metadata reads (the same trace without its reads), in
# every order. Without it the model reads ahead of the kernel in the three
# orders made here, whose reads are in flight together or one after the
# other in offset order whatever the recording's timing. As recorded it
# may not: the replay times the reads at the model's latency, not at the
# recorded one, and under load a daemon thread may take a read (16 KiB)
# before a lower one (0) and hold it for milliseconds, so that the two
# overlapped in the recording but not in the replay, which then sees a
# reader going back and opens no stream (the device read 253952 bytes
# both ways, 245760 asked, in a run at load 13). There, the flag only
# never reads more than without it.
rewrite "$TMPD/run.txt" "$TMPD/meta.txt" keep none
"$B" trace undump "$TMPD/meta.txt" -o "$TMPD/meta.trace" || fail "trace undump"
meta=$(vdev "$TMPD/meta.trace")
orders="kernel reverse serial"
[ "$overlapped" = 1 ] && orders="$orders asis"
for order in $orders; do
	rewrite "$TMPD/run.txt" "$TMPD/flag.txt" keep "$order"
	rewrite "$TMPD/run.txt" "$TMPD/noflag.txt" clear "$order"
	"$B" trace undump "$TMPD/flag.txt" -o "$TMPD/flag.trace" || fail "trace undump"
	"$B" trace undump "$TMPD/noflag.txt" -o "$TMPD/noflag.trace" || fail "trace undump"
	v1=$(vdev "$TMPD/flag.trace")
	v0=$(vdev "$TMPD/noflag.trace")
	[ "$v1" = $((asked + meta)) ] ||
		fail "replayed ($order order) with the flag, the device read $v1 bytes; the kernel asked for $asked (+ $meta of metadata)"
	if [ "$order" = asis ]; then
		[ "$v0" -ge "$v1" ] ||
			fail "replayed as recorded, the device read $v1 bytes with the flag, $v0 without"
	else
		[ "$v1" -lt "$v0" ] ||
			fail "replayed ($order order), the device read $v1 bytes with the flag, $v0 without (the kernel asked for $asked)"
	fi
done
[ "$overlapped" = 1 ] || echo "the recorded reads did not all overlap the lower ones they came before: no replay as recorded"

# The same file served direct_io (not cached=; kernel_cache=off, though a
# file of 4 MiB is direct_io by default too): dd's own 4 KiB reads, and
# the model reads ahead of them.
tfs_mount "tier=essd-pl3,mem=64MiB,cached=,kernel_cache=off"
dd if="$MNT/f.dat" of=/dev/null bs=4k count=16 status=none || fail "read of the direct_io file"
dev=$(stat_get model.ops.read.device_bytes)
[ "$(stat_get ops.read.count)" = 16 ] || fail "$(stat_get ops.read.count) reads of a direct_io file, dd made 16"
[ "$dev" -gt $((65536 + META)) ] || fail "no readahead by the model for a direct_io file: $dev device bytes"
tfs_umount
check_log
exit 0
