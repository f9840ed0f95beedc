#!/bin/sh
# inode_numbers.sh — a trace whose paths carry their inode numbers on the
# emulated disk (version 11, traces/FORMAT.md "Inode numbers") replays
# with the inode-table reads of those numbers; the same trace without them
# (version 10) replays exactly as before the numbers existed; the text form
# round-trips them and the readers refuse them where they do not belong.
. "${TS_SOURCE_ROOT:?}/tests/traces/lib.sh"

# Two files read once each, 4 KiB: /a/f (inode 13, in the root's inode-
# table window, which the mount reads) and /z/g, whose folder and inode
# (4000, 8000) lie in windows of their own, of a tree of 9,000 inodes.
mktrace v10 <<'X'
header version=10 mem=0 model=255 floor_ns=10000
path 1 "/a/f"
path 2 "/z/g"
0 2000 open 1 0 0 0 1 4096 0 8
10000 70000 read 1 0 4096 4096 1 4096 0 0
80000 82000 close 1 0 0 0 1 4096 0 4
90000 92000 open 2 0 0 0 1 4096 0 8
100000 160000 read 2 0 4096 4096 1 4096 0 0
170000 172000 close 2 0 0 0 1 4096 0 4
end drops=0 records=6 t=172000
X
mktrace v11 <<'X'
header version=11 mem=0 model=255 floor_ns=10000
path 1 "/" ino=2 blocks=1 backing_ino=100 inodes=9000 flags=3
path 2 "/a" ino=12 blocks=1 backing_ino=101 inodes=9000 flags=3
path 3 "/a/f" ino=13 blocks=0 backing_ino=102 inodes=9000 flags=1
path 4 "/z" ino=4000 blocks=1 backing_ino=103 inodes=9000 flags=3
path 5 "/z/g" ino=8000 blocks=0 backing_ino=104 inodes=9000 flags=1
0 2000 open 3 0 0 0 1 4096 0 8
10000 70000 read 3 0 4096 4096 1 4096 0 0
80000 82000 close 3 0 0 0 1 4096 0 4
90000 92000 open 5 0 0 0 1 4096 0 8
100000 160000 read 5 0 4096 4096 1 4096 0 0
170000 172000 close 5 0 0 0 1 4096 0 4
end drops=0 records=6 t=172000
X
kfs() { # TRACE: total_ns, metadata reads and device read bytes of --kernel-fs on ssd-cloud
	"$B" replay "$1" --virtual --kernel-fs --tier ssd-cloud --json 2>/dev/null |
		jq -r '.results[1] | "\(.total_ns) \(.metadata_reads // 0) \(.device_read_bytes)"'
}
# version 10: the paths numbered by their rank (12, 13, 14, 15), all in the
# root's window: the three folders' blocks, no inode-table read; the same
# figures the build before version 11 gave (pinned)
check "version 10 replays as before" test "$(kfs "$T/v10.trace")" = "3728658 3 20480"
# version 11: also /z's and /z/g's inode-table windows (33 blocks each,
# aligned on the table, sent with the inode's own block) and the reads
# they wait for
check "version 11: the recorded numbers' reads" test "$(kfs "$T/v11.trace")" = "7268421 9 290816"
# without --kernel-fs the same rule charges the same metadata
check "version 11: FUSE replay's metadata" test "$("$B" replay "$T/v11.trace" --virtual --tier ssd-cloud \
	--json 2>/dev/null | jq -r '.results[1].metadata_reads')" = 9
# a path the trace holds without a number (tierfs met it before it was
# made) takes the next free one, 9000, and is the last inode in use: its
# window is read up to it (19 blocks, not 33)
sed 's/^path 5 "\/z\/g" .*/path 5 "\/z\/g"/' "$T/v11.txt" | mktrace v11new
check "version 11: an unnumbered path takes the next number" test "$(kfs "$T/v11new.trace")" = "7097899 8 233472"

# the text form round-trips the nodes, and the binary writes back as read
"$B" trace dump "$T/v11.trace" > "$T/d.txt"
check "dump shows the nodes" grep -q '^path 4 "/z" ino=4000 blocks=1 backing_ino=103 inodes=9000 flags=3$' "$T/d.txt"
"$B" trace undump "$T/d.txt" -o "$T/d.trace"
check "undump of the dump gives the bytes back" cmp -s "$T/v11.trace" "$T/d.trace"

# refused: a node before version 11, a folder's blocks on a file, no
# number, an unknown flag, a node cut short
bad() { # DESCRIPTION HEADER PATHLINE WORDS: undump refuses it, naming WORDS
	printf '%s\n%s\nend drops=0 records=0 t=0\n' "$2" "$3" > "$T/bad.txt"
	if "$B" trace undump "$T/bad.txt" -o "$T/bad.trace" 2> "$T/bad.err"; then
		echo "FAIL: $1: accepted" >&2
		fail=1
	else
		check "$1: message" grep -q "$4" "$T/bad.err"
	fi
}
bad "a node in version 10" "header version=10" 'path 1 "/f" ino=12 blocks=0 backing_ino=1 inodes=20 flags=1' "version 11's"
bad "blocks on a file" "header version=11" 'path 1 "/f" ino=12 blocks=3 backing_ino=1 inodes=20 flags=1' "flags=1 (a file, blocks=0)"
bad "no number" "header version=11" 'path 1 "/f" ino=0 blocks=0 backing_ino=1 inodes=20 flags=1' "ino > 0"
bad "an unknown flag" "header version=11" 'path 1 "/f" ino=12 blocks=0 backing_ino=1 inodes=20 flags=5' "version 11's"
bad "a node cut short" "header version=11" 'path 1 "/f" ino=12 blocks=0' "none"
# the binary reader refuses a node in a version 10 file: v11.trace's
# version byte set to 10
cp "$T/v11.trace" "$T/b10.trace"
printf '\n' | dd of="$T/b10.trace" bs=1 seek=8 conv=notrunc 2>/dev/null
check "binary: a node in version 10 refused" sh -c '! "$0" trace dump "$1" > /dev/null 2> "$2" && grep -q "path item with stray fields (a node is version 11.s)" "$2"' \
	"$B" "$T/b10.trace" "$T/b10.err"
exit "$fail"
