#!/usr/bin/env bash
# noflush.sh — a file opened read-only is closed without a FUSE_FLUSH round
# trip (FOPEN_NOFLUSH), one opened for writing keeps its flush, and no
# write is lost for it: data written and closed, fsync'd, truncated at open
# (O_TRUNC, read-only and not), and a cached= file's shared mapping written
# and its descriptor closed are all in BACKING. The trace shows the
# requests: per file read, open, read and release, no flush.
. "$(dirname "$0")/lib.sh"
B=$TS_BUILD_ROOT/cli/tiersim

N=20
for i in $(seq $N); do
	head -c 5000 /dev/urandom >"$BACKING/r$i"
done
head -c 8192 /dev/urandom >"$BACKING/t1"
head -c 8192 /dev/urandom >"$BACKING/t2"
head -c 65536 /dev/zero >"$BACKING/map.mdb"

tfs_mount "tier=unlimited,trace=$TMPD/run.trace"
for i in $(seq $N); do
	cmp -s "$MNT/r$i" "$BACKING/r$i" || fail "r$i read back differs"
done
# the kernel sends a release without waiting for its answer
released() { [ "$(stat_get ops.release.count)" -ge "$1" ]; }
for _ in $(seq 100); do released $N && break; sleep 0.05; done
[ "$(stat_get ops.open.count)" = $N ] || fail "open count $(stat_get ops.open.count), expected $N"
[ "$(stat_get ops.release.count)" = $N ] || fail "release count $(stat_get ops.release.count), expected $N"
[ "$(stat_get ops.flush.count)" = 0 ] ||
	fail "$(stat_get ops.flush.count) flushes for $N files opened read-only, expected none"

# Written, closed: one flush per close, the bytes in BACKING.
# (a shell redirection would close two descriptors of each: one open and
# one close each here)
python3 - "$MNT" <<'EOF' || fail "writing w1-3"
import os, sys
for i in (1, 2, 3):
    fd = os.open(f"{sys.argv[1]}/w{i}", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.write(fd, b"written %d\n" % i)
    os.close(fd)
EOF
[ "$(stat_get ops.flush.count)" = 3 ] || fail "$(stat_get ops.flush.count) flushes for 3 files written, expected 3"
for i in 1 2 3; do
	[ "$(cat "$BACKING/w$i")" = "written $i" ] || fail "w$i in BACKING: '$(cat "$BACKING/w$i")'"
done
python3 - "$MNT" "$BACKING" <<'EOF' || fail "fsync, O_TRUNC or a mapped write lost data"
import mmap, os, sys
mnt, back = sys.argv[1], sys.argv[2]
# fsync'd, then seen in BACKING while the file is still open
fd = os.open(f"{mnt}/s", os.O_WRONLY | os.O_CREAT, 0o644)
os.write(fd, b"synced")
os.fsync(fd)
assert open(f"{back}/s", "rb").read() == b"synced", "fsync'd bytes not in BACKING"
os.close(fd)
# O_TRUNC, for writing and read-only (Linux truncates either way)
os.close(os.open(f"{mnt}/t1", os.O_WRONLY | os.O_TRUNC))
assert os.stat(f"{back}/t1").st_size == 0, "O_WRONLY|O_TRUNC did not truncate"
os.close(os.open(f"{mnt}/t2", os.O_RDONLY | os.O_TRUNC))
assert os.stat(f"{back}/t2").st_size == 0, "O_RDONLY|O_TRUNC did not truncate"
# a kernel-cached file (cached=, *.mdb) written through a shared mapping:
# closing its descriptor flushes the dirty pages before the flush request
fd = os.open(f"{mnt}/map.mdb", os.O_RDWR)
m = mmap.mmap(fd, 65536, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
m[4096:4104] = b"mapped!!"
os.close(fd)
got = open(f"{back}/map.mdb", "rb").read()[4096:4104]
assert got == b"mapped!!", f"mapped write not in BACKING at close: {got!r}"
m.close()
EOF
tfs_umount
grep -v "trace $TMPD/run.trace written" "$LOG" >"$LOG.rest"
mv "$LOG.rest" "$LOG"
check_log

# The trace: each of the N read-only files opened, read, released, never
# flushed (nor t2, opened read-only); the written ones flushed at each
# close: w1-3, s, t1 once, map.mdb twice (Python's mmap holds a duplicate
# of the descriptor and closes it with the map).
"$B" trace dump "$TMPD/run.trace" >"$TMPD/run.txt" || fail "trace dump"
# SUBMIT COMPLETE OP FILE ...
count() { awk -v op="$1" '$3 == op' "$TMPD/run.txt" | wc -l; }
echo "trace: $(count open) open, $(count read) read, $(count flush) flush, $(count close) close"
[ "$(count flush)" = 7 ] || fail "trace has $(count flush) flushes, expected 7 (the files written)"
[ "$(count close)" = $((N + 7)) ] || fail "trace has $(count close) releases, expected $((N + 7))"
exit 0
