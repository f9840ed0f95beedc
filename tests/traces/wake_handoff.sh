#!/bin/sh
# wake_handoff.sh — the BPF wake capture records a pipe hand-off where the
# reader never slept: a subshell writes "hello" into a pipe and exits; the
# process on the pipe's other end waits 0.3 s (sleep, not the pipe) and
# then reads it with cat, the bytes already there. The wake file holds an
# H line with cat as the reader and the writing subshell (a thread named
# sh forked by the command) as the writer, the write before the read.
# The same through writev and readv, beside a readv of a regular file.
# With --no-handoffs the same command's wake file holds no H line.
# Needs /dev/fuse, root, and a build and a kernel with BPF (else SKIP).
. "${TS_SOURCE_ROOT:?}/tests/traces/lib.sh"
if [ ! -c /dev/fuse ] || [ "$(id -u)" != 0 ]; then
	echo "SKIP: needs /dev/fuse and root"
	exit 77
fi
mkdir -p "$T/data" "$T/tmp"
echo a > "$T/data/a"
XDG_CACHE_HOME="$T/cache" TMPDIR="$T/tmp" "$B" record --data "$T/data" --out "$T/h.trace" \
	-- sh -c '(printf hello) | (sleep 0.3; exec cat > /dev/null)' > /dev/null 2> "$T/h.err"
check "exit 0" test $? = 0
if grep -q "notice: no wake\|no BPF wake capture" "$T/h.err"; then
	echo "SKIP: no BPF wake capture here: $(cat "$T/h.err")"
	exit 77
fi
W="$T/h.trace.wakes"
# "READER-COMM WRITER-COMM WRITER-PARENT-IS-ROOT ORDERED" per H line
awk '$1 == "T" { comm[$2] = $9; parent[$2] = $4; if ($4 == 0) root = $2 }
     $1 == "H" { print comm[$4], comm[$5], (parent[$5] == root), ($3 <= $2) }' "$W" > "$T/h.lines"
check "one hand-off, cat reading what the subshell wrote" test "$(cat "$T/h.lines")" = "cat sh 1 1"
check "the read 0.25 s or more after the write" \
	awk '$1 == "H" { n++; ok = $2 - $3 >= 250000000 } END { exit !(n == 1 && ok) }' "$W"
# writev and readv: a forked child writes "hello" in two pieces with one
# writev and exits; the command waits for it, sleeps 0.3 s, reads a
# regular file with readv (bytes moved, no pipe: no tie) and then the pipe
# with readv. One H line: the command reading what its child wrote.
XDG_CACHE_HOME="$T/cache" TMPDIR="$T/tmp" "$B" record --data "$T/data" --out "$T/v.trace" \
	-- python3 -c 'import os, sys, time
r, w = os.pipe()
if os.fork() == 0:
    os.close(r)
    os.writev(w, [b"hel", b"lo"])
    os._exit(0)
os.close(w)
os.wait()
time.sleep(0.3)
f = os.open(sys.argv[1], os.O_RDONLY)
os.readv(f, [bytearray(2)])
b = bytearray(5)
sys.exit(os.readv(r, [b]) != 5 or b != b"hello")' "$T/data/a" > /dev/null 2> "$T/v.err"
check "writev/readv: exit 0" test $? = 0
# "READER-IS-ROOT WRITER-PARENT-IS-ROOT ORDERED READ-0.25-S-LATER" per H
# line whose writer is a python3 thread (a python3 that is a launcher
# script has ties of its own, between its shells, before the exec)
awk '$1 == "T" { comm[$2] = $9; parent[$2] = $4; if ($4 == 0) root = $2 }
     $1 == "H" && comm[$5] == "python3" {
	print ($4 == root), (parent[$5] == root), ($3 <= $2), ($2 - $3 >= 250000000) }' \
	"$T/v.trace.wakes" > "$T/v.lines"
check "writev/readv: one hand-off, the command reading what its child wrote 0.25 s before" \
	test "$(cat "$T/v.lines")" = "1 1 1 1"
# --no-handoffs: the same command, a wake file without H lines
XDG_CACHE_HOME="$T/cache" TMPDIR="$T/tmp" "$B" record --data "$T/data" --out "$T/n.trace" \
	--no-handoffs -- sh -c '(printf hello) | (sleep 0.3; exec cat > /dev/null)' > /dev/null 2> "$T/n.err"
check "--no-handoffs: exit 0" test $? = 0
check "--no-handoffs: a wake file" test -s "$T/n.trace.wakes"
check "--no-handoffs: its threads" grep -q "^T " "$T/n.trace.wakes"
check "--no-handoffs: no H line" sh -c '! grep -q "^H " "$1"' sh "$T/n.trace.wakes"
# shellcheck disable=SC2154 # fail: set by lib.sh (check())
exit "$fail"
