#!/bin/sh
# The BPF wake capture records a job's posix_fadvise (traces/wakes.h, the
# A line): `tiersim record` of GNU cat, which advises POSIX_FADV_SEQUENTIAL
# on the file before reading it (coreutils' fdadvise), finds the advice in
# the wake file with the file's inode number, the one the trace's path
# item carries as backing_ino (tierfs mounts with use_ino). Needs
# /dev/fuse, root, a build with BPF and a kernel that lets it run, and a
# cat that advises (else SKIP).
. "${TS_SOURCE_ROOT:?}/tests/traces/lib.sh"
if [ ! -c /dev/fuse ] || [ "$(id -u)" != 0 ]; then
	echo "SKIP: needs /dev/fuse and root"
	exit 77
fi
CAT=$(command -v cat)
if ! command -v strace > /dev/null ||
	! strace -f -e trace=fadvise64 "$CAT" /dev/null 2>&1 | grep -q 'POSIX_FADV_SEQUENTIAL'; then
	echo "SKIP: no strace, or this cat does not advise"
	exit 77
fi
mkdir -p "$T/data" "$T/tmp"
head -c 1048576 /dev/urandom > "$T/data/f"
ino=$(stat -c %i "$T/data/f")
XDG_CACHE_HOME="$T/cache" TMPDIR="$T/tmp" "$B" record --data "$T/data" --tier ssd-cloud \
	--out "$T/c.trace" -- env R='{}' sh -c "$CAT \$R/f > /dev/null" > /dev/null 2> "$T/err"
check "record: exit 0" test $? = 0
if grep -q "notice: no wake\|no BPF wake capture" "$T/err"; then
	echo "SKIP: no BPF wake capture here: $(cat "$T/err")"
	exit 77
fi
W="$T/c.trace.wakes"
check "record: a wake file" test -s "$W"
# A T_NS TID FD INO OFFSET LEN ADVICE: cat's one advice, on f's inode,
# the whole file (0 0), SEQUENTIAL (2), by a listed thread
check "record: one advice" test "$(grep -c '^A ' "$W")" = 1
check "record: on f's inode, the whole file, SEQUENTIAL" \
	test "$(awk '$1 == "A" { print $5, $6, $7, $8 }' "$W")" = "$ino 0 0 2"
tid=$(awk '$1 == "A" { print $3 }' "$W")
check "record: by a thread of the tree" grep -q "^T $tid " "$W"
"$B" trace dump "$T/c.trace" > "$T/c.txt"
check "record: the trace's path names the same inode" grep -q "\"/f\" .*backing_ino=$ino " "$T/c.txt"
# what the replay makes of it: f read in 256 KiB windows (4), where
# without the advice 128 KiB ones (8); the file system's own reads (its
# inode's table block) the same either way
n=$("$B" replay "$T/c.trace" --virtual --tier ssd-cloud --mem 64MiB --json |
	jq -r '.results[1].device_reads')
grep -v '^A ' "$W" > "$T/plain.wakes"
m=$("$B" replay "$T/c.trace" --virtual --tier ssd-cloud --mem 64MiB --wakes "$T/plain.wakes" \
	--json | jq -r '.results[1].device_reads')
check "record: the replay reads f in 4 fewer requests ($n for $m)" test "$((m - n))" = 4
# shellcheck disable=SC2154 # fail: set by lib.sh (check())
exit "$fail"
