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
# the file system's reads at the file's first lookup (tier/fsmeta.h): the
# root folder's block and the file's inode-table window
META=$((4096 + 131072))

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
# with the flag cleared reads more from the device. The kernel sends its
# reads concurrently and in an order that varies from run to run, which
# decides whether the model sees them as sequential; both replays take
# the same reads made serial in offset order, so only the flag differs.
serial() { # TEXT-TRACE OUT FLAG(keep|clear)
	python3 - "$@" <<'PY' || fail "rewriting the trace"
import sys
src, out, mode = sys.argv[1:4]
# an IO line and the cpu lines that follow it travel together
groups = []
for l in open(src).read().splitlines():
    f = l.split()
    if l.startswith("cpu ") and groups:
        groups[-1][1].append(l)
    else:
        groups.append([f if len(f) == 11 and f[0].isdigit() else l, []])
reads = sorted((g for g in groups if isinstance(g[0], list) and g[0][2] == "read"),
               key=lambda g: int(g[0][4]))
t = min(int(g[0][0]) for g in reads)
for g in reads:
    f = g[0]
    d = int(f[1]) - int(f[0])
    f[0], f[1] = str(t), str(t + d)
    t += d + 1000
    if mode == "clear" and (int(f[10]) // 16) % 2 == 1:
        f[10] = str(int(f[10]) - 16)
for g in groups:  # the close after the last read
    if isinstance(g[0], list) and g[0][2] == "close":
        d = int(g[0][1]) - int(g[0][0])
        g[0][0], g[0][1] = str(t), str(t + d)
rest = [g for g in groups if not (isinstance(g[0], list) and g[0][2] == "read")]
end = [g for g in rest if isinstance(g[0], str) and g[0].startswith("end ")]
body = [g for g in rest if g not in end]
with open(out, "w") as o:
    for g in body + reads + end:
        o.write((" ".join(g[0]) if isinstance(g[0], list) else g[0]) + "\n")
        o.writelines(c + "\n" for c in g[1])
PY
}
serial "$TMPD/run.txt" "$TMPD/flag.txt" keep
serial "$TMPD/run.txt" "$TMPD/noflag.txt" clear
"$B" trace undump "$TMPD/flag.txt" -o "$TMPD/flag.trace" || fail "trace undump"
"$B" trace undump "$TMPD/noflag.txt" -o "$TMPD/noflag.trace" || fail "trace undump"
vdev() { # TRACE
	"$B" replay "$1" --virtual --tier essd-pl3 --json >"$TMPD/v.json" 2>"$TMPD/v.err" ||
		fail "virtual replay: $(cat "$TMPD/v.err")"
	python3 -c 'import json,sys
r = [x for x in json.load(open(sys.argv[1]))["results"] if x["what"] != "recorded"][0]
print(r.get("device_read_bytes", 0))' "$TMPD/v.json" || fail "replay JSON: $(head -c 400 "$TMPD/v.json")"
}
v1=$(vdev "$TMPD/flag.trace")
v0=$(vdev "$TMPD/noflag.trace")
[ "$v1" -ge "$asked" ] && [ "$v1" -lt "$v0" ] ||
	fail "replayed, the device read $v1 bytes with the flag, $v0 without (the kernel asked for $asked)"

# The same file served direct_io (not cached=): dd's own 4 KiB reads, and
# the model reads ahead of them.
tfs_mount "tier=essd-pl3,mem=64MiB,cached="
dd if="$MNT/f.dat" of=/dev/null bs=4k count=16 status=none || fail "read of the direct_io file"
dev=$(stat_get model.ops.read.device_bytes)
[ "$dev" -gt $((65536 + META)) ] || fail "no readahead by the model for a direct_io file: $dev device bytes"
tfs_umount
check_log
exit 0
