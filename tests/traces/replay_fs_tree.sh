#!/bin/sh
# replay --fs-tree: the files' data placed as tiersim disk make --from puts
# it (tier/fsmeta.h, the data-layout rule), and a readahead window over a
# gap in a file's disk blocks (here group 1's superblock backup and
# descriptors) sent as two requests; exact in virtual time.
. "${TS_SOURCE_ROOT:?run through meson test}/tests/traces/lib.sh"

# One thread reading /a/f (8 MiB) in 128 KiB reads the kernel read ahead,
# on a 512 MiB ext4 of 8,192-block groups (4 KiB blocks, 2,048 inodes a
# group, flex_bg 16: the first data block past 16 groups' tables, about
# block 2,150; group 1's backup at block 8,192).
{
	echo 'header version=12 mem=4294967296 model=4351 floor_ns=10000 fs_blocks=131072 fs_block=4096 fs_bpg=8192 fs_ipg=2048 fs_inode=256 fs_rsv_gdt=31 fs_flex=16 fs_desc=64'
	echo 'path 1 "/" ino=2 blocks=1 backing_ino=100 inodes=20 flags=3'
	echo 'path 2 "/a" ino=12 blocks=1 backing_ino=101 inodes=20 flags=3'
	echo 'path 3 "/a/f" ino=14 blocks=0 backing_ino=102 inodes=20 flags=1'
	echo '0 2000 open 3 0 0 0 1 8388608 0 8'
	t=10000
	off=0
	while [ "$off" -lt 8388608 ]; do
		echo "$t $((t + 50000)) read 3 $off 131072 131072 1 8388608 0 16"
		t=$((t + 60000))
		off=$((off + 131072))
	done
	echo "$t $((t + 2000)) close 3 0 0 0 1 8388608 0 4"
	echo "end drops=0 records=66 t=$((t + 2000))"
} | mktrace f
tree() { # E_MIB: the image's tree: /a/e of E_MIB MiB copied before /a/f
	rm -rf "$T/tree"
	mkdir -p "$T/tree/a"
	head -c $(($1 * 1048576)) /dev/zero >"$T/tree/a/e"
	head -c 8388608 /dev/zero >"$T/tree/a/f"
}
kfs() { # ARGS: device reads and their bytes of --kernel-fs on ssd-cloud
	"$B" replay "$T/f.trace" --virtual --kernel-fs --tier ssd-cloud --json "$@" 2>/dev/null |
		jq -r '.results[1] | "\(.device_reads) \(.device_read_bytes)"'
}
check "fs tree: without it, each file one run" test "$(kfs)" = "66 8396800"
# /a/e of 20 MiB ends before block 8,192 and /a/f runs over the backup:
# one window goes as two requests, the same bytes
tree 20
check "fs tree: a file over a superblock backup, one request more" \
	test "$(kfs --fs-tree "$T/tree")" = "67 8396800"
# /a/e of 1 MiB: /a/f lies whole before the backup
tree 1
check "fs tree: a file before the backup, as without" test "$(kfs --fs-tree "$T/tree")" = "66 8396800"
# bad input: one line naming the option or the folder, a non-zero exit
"$B" replay "$T/f.trace" --virtual --kernel-fs --tier ssd-cloud --fs-tree "$T/none" >/dev/null 2>"$T/err"
check "fs tree: a missing folder fails" test $? = 1
check "fs tree: the message names it" grep -q "file tree $T/none: No such file or directory" "$T/err"
"$B" replay "$T/f.trace" --virtual --tier ssd-cloud --fs-tree "$T/tree" >/dev/null 2>"$T/err"
check "fs tree: without --kernel-fs refused" test $? = 2
check "fs tree: the refusal names the option" grep -q -- "--fs-tree" "$T/err"
# shellcheck disable=SC2154 # fail: set by lib.sh (check())
exit "$fail"
