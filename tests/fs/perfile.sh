#!/usr/bin/env bash
# perfile.sh — the requests a file read whole costs, counted in the trace.
# With a page-cache model (mem > 0) a file no larger than the kernel's
# readahead window (128 KiB; kernel_cache=small, the default) is read
# through the kernel's page cache for the open: read whole with Python's
# read() (a read of its size + 1, then one at its end) it is one lookup
# (getattr), one open, one read and one release, as on a kernel file
# system, where the read at the end is answered from the file's size.
# Served direct_io (a larger file, kernel_cache=off, or mem=0) the read at
# the end is a round trip of its own: two reads per file. kernel_cache=all
# reads every file so: a larger file's read then goes out as two windows,
# and a reader of small records (RecordIO's 8-byte headers) sends the
# kernel's readahead windows, not one read per header. And what the page
# cache must keep: the model's evictions drop an open file's kernel pages
# (the second pass over a file larger than mem reaches the daemon again),
# a write through one descriptor shows through another open on the same
# file, and a shared mapping of any such file can be written.
. "$(dirname "$0")/lib.sh"
B=$TS_BUILD_ROOT/cli/tiersim
[ -x "$B" ] || { echo "SKIP: tiersim is not built"; exit 77; }

D=4 # folders
F=8 # files in each
for d in $(seq $D); do
	mkdir "$BACKING/c$d"
	for i in $(seq 0 $((F - 1))); do
		head -c $((i * 9000 + 100)) /dev/urandom >"$BACKING/c$d/f$i.jpg"
	done
	# larger than the readahead window, within two
	head -c 200000 /dev/urandom >"$BACKING/c$d/g.jpg"
done
N=$((D * F + D))
(cd "$BACKING" && find . -name '*.jpg' | sort) >"$TMPD/list"
head -c $((1 << 20)) /dev/urandom >"$BACKING/small.rec"
head -c $((4 << 20)) /dev/urandom >"$BACKING/big.dat"

# the trace's requests by op: "open 32 read 32 ..."
counts() { # TRACE
	"$B" trace dump "$1" >"$TMPD/run.txt" || fail "trace dump"
	# SUBMIT COMPLETE OP FILE OFFSET LENGTH RESULT TID SIZE AUX FLAGS
	awk 'NF == 11 && $1 ~ /^[0-9]+$/ { n[$3]++ } END { for (o in n) printf "%s %d\n", o, n[o] }' \
		"$TMPD/run.txt" | sort
}
op() { awk -v o="$1" '$1 == o { print $2 }' "$TMPD/counts"; }
unmount_clean() {
	tfs_umount
	grep -v "trace .* written" "$LOG" >"$LOG.rest"
	mv "$LOG.rest" "$LOG"
	check_log
}
# Reads every file of the list whole, as a PyTorch folder loader does
# (open(p, "rb").read()), and checks the bytes.
read_all() {
	python3 - "$MNT" "$BACKING" "$TMPD/list" <<'EOF' || fail "reading the folder"
import sys
mnt, back, lst = sys.argv[1:4]
for p in open(lst).read().split():
    with open(f"{mnt}/{p}", "rb") as f:
        got = f.read()
    assert got == open(f"{back}/{p}", "rb").read(), p + " read back differs"
EOF
}
# the kernel sends a release without waiting for its answer
released() { # COUNT
	for _ in $(seq 100); do [ "$(stat_get ops.release.count)" -ge "$1" ] && return 0; sleep 0.05; done
	fail "$(stat_get ops.release.count) releases, expected $1"
}
# Names stay cached for the whole test (entry_timeout), so that each is
# looked up once whatever the machine's speed.
T=attr_timeout=60,entry_timeout=60

# 1. Kernel-cached per open, the small files (the default with mem > 0):
# one read each; the larger ones (g.jpg) direct IO, two reads each.
tfs_mount "tier=ssd-cloud,mem=64MiB,$T,trace=$TMPD/k.trace"
[ "$(grep -c '^kernel_cache=small$' "$MNT/.tierfs/control")" = 1 ] || fail "kernel_cache not small in control"
read_all
released $N
unmount_clean
counts "$TMPD/k.trace" >"$TMPD/counts"
echo "kernel_cache=small, $N files in $D folders: $(tr '\n' ' ' <"$TMPD/counts")"
[ "$(op open)" = $N ] || fail "$(op open) opens for $N files"
[ "$(op read)" = $((N + D)) ] ||
	fail "$(op read) reads for $N files read whole, expected $((N + D)): one per small file (the read at the end answered by the kernel), two per larger one"
[ "$(op close)" = $N ] || fail "$(op close) releases for $N files"
[ "$(op getattr)" = $((N + D)) ] || fail "$(op getattr) getattrs, expected $((N + D)): one lookup per file and folder"
[ -z "$(op flush)" ] || fail "$(op flush) flushes for files opened read-only"
# every read of a small file is the kernel's (flag 16), of the whole
# file's pages; the larger files' are not
bad=$(awk 'NF == 11 && $3 == "read" && $9 < 131072 && (int($11 / 16) % 2 != 1 || $7 != $9)' "$TMPD/run.txt" | head -1)
[ -z "$bad" ] || fail "a read of a small file not marked read ahead by the kernel, or short of the file: $bad"
bad=$(awk 'NF == 11 && $3 == "read" && $9 > 131072 && int($11 / 16) % 2 == 1' "$TMPD/run.txt" | head -1)
[ -z "$bad" ] || fail "a read of a larger file marked read ahead by the kernel: $bad"

# kernel_cache=all: the larger files too, in two windows, none at the end
tfs_mount "tier=ssd-cloud,mem=64MiB,kernel_cache=all,$T,trace=$TMPD/a.trace"
read_all
released $N
unmount_clean
counts "$TMPD/a.trace" >"$TMPD/counts"
echo "kernel_cache=all: $(tr '\n' ' ' <"$TMPD/counts")"
[ "$(op read)" = $((N + D)) ] || fail "kernel_cache=all: $(op read) reads, expected $((N + D))"
ends=$(awk 'NF == 11 && $3 == "read" && $7 == 0' "$TMPD/run.txt" | wc -l)
[ "$ends" = 0 ] || fail "kernel_cache=all: $ends reads at a file's end reached the daemon"

# 2. Direct IO as before: kernel_cache=off, and mem=0 (no page-cache model).
for o in "mem=64MiB,kernel_cache=off" "mem=0"; do
	tfs_mount "tier=ssd-cloud,$o,$T,trace=$TMPD/d.trace"
	read_all
	released $N
	unmount_clean
	counts "$TMPD/d.trace" >"$TMPD/counts"
	echo "$o: $(tr '\n' ' ' <"$TMPD/counts")"
	[ "$(op read)" = $((2 * N)) ] || fail "$o: $(op read) reads for $N files, expected two each (direct IO)"
	[ "$(op open)" = $N ] || fail "$o: $(op open) opens for $N files"
	[ "$(op getattr)" = $((N + D)) ] || fail "$o: $(op getattr) getattrs, expected $((N + D))"
	ends=$(awk 'NF == 11 && $3 == "read" && $7 == 0' "$TMPD/run.txt" | wc -l)
	[ "$ends" = $N ] || fail "$o: $ends reads at a file's end, expected $N"
done

# 3. Small records: 8-byte headers, then the record, through Python's
# buffered reader (1 MiB, 1 KiB records: 1,024 headers).
rec_read() {
	python3 - "$MNT/small.rec" "$BACKING/small.rec" <<'EOF' || fail "reading small.rec"
import sys
b = b""
with open(sys.argv[1], "rb") as f:
    while True:
        h = f.read(8)
        if not h:
            break
        b += h + f.read(1016)
assert b == open(sys.argv[2], "rb").read(), "small.rec read back differs"
EOF
}
for o in "mem=64MiB,kernel_cache=all" "mem=64MiB"; do
	tfs_mount "tier=ssd-cloud,$o,$T,trace=$TMPD/r.trace"
	rec_read
	released 1
	unmount_clean
	counts "$TMPD/r.trace" >"$TMPD/counts"
	echo "$o, 1 MiB in 1,024 records: $(tr '\n' ' ' <"$TMPD/counts")"
	case $o in
	# 1 MiB in the kernel's readahead windows (128 KiB), a few more where
	# the reader catches up with a window in flight
	*all) [ "$(op read)" -le 32 ] || fail "$o: $(op read) reads of 1 MiB in records, expected the kernel's readahead windows" ;;
	# larger than the window: direct IO, one read per 4 KiB buffer
	*) [ "$(op read)" -ge 256 ] || fail "$o: $(op read) reads of 1 MiB in records, expected one per 4 KiB buffer" ;;
	esac
done

# 4. What the page cache must keep.
tfs_mount "tier=ssd-cloud,mem=1MiB,kernel_cache=all,$T"
# the model (1 MiB) evicts the file's first pages while it is read (4 MiB):
# their kernel pages go too, and the second pass reads from the daemon
python3 - "$MNT/big.dat" "$BACKING/big.dat" <<'EOF' || fail "reading big.dat twice"
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
want = open(sys.argv[2], "rb").read()
for _ in range(2):
    got = b""
    while len(got) < len(want):
        b = os.pread(fd, 65536, len(got))
        assert b, "short file"
        got += b
    assert got == want, "big.dat read back differs"
os.close(fd)
EOF
rb=$(stat_get ops.read.bytes)
inv=$(stat_get invalidations)
echo "big.dat (4 MiB) read twice with mem=1MiB: $rb bytes read from the daemon, $inv invalidations"
[ "$inv" -gt 0 ] || fail "the model evicted pages of an open file and no kernel page was dropped"
[ "$rb" -ge $((6 << 20)) ] || fail "$rb bytes from the daemon for 8 MiB read over 1 MiB of page cache: the kernel held what the model evicted"
# a write through one descriptor shows through another open on the file,
# and a shared mapping of a file that is not cached= can be written
python3 - "$MNT" "$BACKING" <<'EOF' || fail "coherence or a shared mapping"
import mmap, os, sys
mnt, back = sys.argv[1:3]
r = os.open(f"{mnt}/c1/f3.jpg", os.O_RDONLY)
os.pread(r, 4096, 0)
w = os.open(f"{mnt}/c1/f3.jpg", os.O_WRONLY)
os.pwrite(w, b"written!", 100)
os.close(w)
assert os.pread(r, 8, 100) == b"written!", "a read through another descriptor missed a write"
os.close(r)
fd = os.open(f"{mnt}/c2/f4.jpg", os.O_RDWR)
m = mmap.mmap(fd, 4096, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
m[8:16] = b"mapped!!"
m.flush()
m.close()
os.close(fd)
assert open(f"{back}/c2/f4.jpg", "rb").read()[8:16] == b"mapped!!", "mapped write not in BACKING"
EOF
unmount_clean

# 5. carry=: the round trips no modeled latency absorbed (each file's open
# of an inode its lookup read) come off the thread's next waited reply
# (the file's read, from the device: mem=0), never more than 8 round trips
# at a time; carry=false moves none.
for o in carry=true carry=false; do
	tfs_mount "tier=ssd-cloud,mem=0,$o,$T"
	read_all
	n=$(stat_get carried)
	ns=$(stat_get carried_ns)
	floor=$(stat_get floor_ns)
	echo "$o: $n replies moved earlier by $ns ns in all (round trip $floor ns)"
	case $o in
	*true)
		[ "$n" -ge $N ] || fail "$o: $n replies carried a round trip, expected one per file at least ($N)"
		[ "$ns" -le $((n * 8 * floor)) ] || fail "$o: $ns ns carried over $n replies, more than 8 round trips each"
		;;
	*) [ "$n" = 0 ] && [ "$ns" = 0 ] || fail "$o: $n replies moved earlier by $ns ns" ;;
	esac
	unmount_clean
done
exit 0
