#!/bin/sh
# replay --fs-size: the file system laid out for a size of its own (a disk
# image's, below the tier's smallest disk), the tier model keeping its
# capacity; exact in virtual time.
. "${TS_SOURCE_ROOT:?run through meson test}/tests/traces/lib.sh"

# inode_numbers.sh's trace: two files read once each, /a/f (inode 13) and
# /z/g (inode 8000, its folder 4000) of a tree of 9,000 inodes.
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
kfs() { # ARGS: total_ns, metadata reads and device read bytes of --kernel-fs on ssd-cloud
	"$B" replay "$T/v11.trace" --virtual --kernel-fs --tier ssd-cloud --json "$@" 2>/dev/null |
		jq -r '.results[1] | "\(.total_ns) \(.metadata_reads // 0) \(.device_read_bytes)"'
}
# the tier's capacity by default (ssd-cloud's 500 GiB: inode_numbers.sh's
# pinned figures), and --fs-size of that size lays it out the same
check "fs size: the capacity's by default" test "$(kfs)" = "7268421 9 290816"
check "fs size: the same size, the same layout" test "$(kfs --fs-size 500GiB)" = "$(kfs)"
# a 2 GiB image's tables lie elsewhere (the same 9 reads and bytes, other
# blocks, so other draws of the device's time): pinned
check "fs size: a 2 GiB image" test "$(kfs --fs-size 2GiB)" = "7135111 9 290816"
# below 512 MiB mke2fs makes 1 KiB blocks: the same reads, a quarter of
# the bytes (and 78848 = 77 KiB: the windows in 1 KiB blocks)
check "fs size: 1 KiB blocks below 512 MiB" test "$(kfs --fs-size 256MiB | cut -d' ' -f2-)" = "9 78848"
# Version 12: a block-mode trace carries its image's geometry (its ext4
# superblock's), and the replay lays the file system out with it: the
# same trace with a 2 GiB image's (mkfs.ext4's defaults for 2 GiB) lays
# it out as --fs-size 2GiB does; one made otherwise (no flex_bg: each
# group's table after its own bitmaps) elsewhere; --fs-size still wins.
geo() { # MODEL FS_FLEX: the trace again with a geometry
	sed "s/^header version=11 mem=0 model=255 /header version=12 mem=0 model=$1 fs_blocks=524288 fs_block=4096 fs_bpg=32768 fs_ipg=8192 fs_inode=256 fs_rsv_gdt=255 fs_flex=$2 fs_desc=64 /" \
		"$T/v11.txt"
}
geo 4351 16 | mktrace g2
geo 4351 1 | mktrace g2flat
kfs_of() { # TRACE ARGS...
	t=$1
	shift
	"$B" replay "$T/$t.trace" --virtual --kernel-fs --tier ssd-cloud --json "$@" 2>/dev/null |
		jq -r '.results[1] | "\(.total_ns) \(.metadata_reads // 0) \(.device_read_bytes)"'
}
check "fs geometry: a 2 GiB image's, as --fs-size 2GiB" test "$(kfs_of g2)" = "$(kfs --fs-size 2GiB)"
check "fs geometry: in the dump" \
	test "$("$B" trace dump "$T/g2.trace" | grep -c ' fs_blocks=524288 fs_block=4096 fs_bpg=32768 fs_ipg=8192 fs_inode=256 fs_rsv_gdt=255 fs_flex=16 fs_desc=64$')" = 1
check "fs geometry: without flex_bg, another layout" test "$(kfs_of g2flat)" != "$(kfs_of g2)"
check "fs geometry: the same reads, elsewhere" \
	test "$(kfs_of g2flat | cut -d' ' -f2-)" = "9 290816"
check "fs geometry: --fs-size over the trace's" test "$(kfs_of g2flat --fs-size 500GiB)" = "$(kfs)"
# the geometry's bit in a version 11 header, a field without its bit, a
# field out of range: refused in one line
geo 255 16 > "$T/nobit.txt"
"$B" trace undump "$T/nobit.txt" -o "$T/nobit.trace" > "$T/nobit.out" 2>&1
check "fs geometry: a field without its bit refused" test "$(grep -c 'without its bit (0x1000)' "$T/nobit.out")" = 1
geo 4351 16 | sed 's/fs_bpg=32768/fs_bpg=12/' > "$T/bpg.txt"
"$B" trace undump "$T/bpg.txt" -o "$T/bpg.trace" > "$T/bpg.out" 2>&1
check "fs geometry: fs_bpg out of range refused" test "$(grep -c 'geometry field fs_bpg out of range' "$T/bpg.out")" = 1
geo 4351 16 | sed 's/^header version=12 /header version=11 /' > "$T/v11g.txt"
"$B" trace undump "$T/v11g.txt" -o "$T/v11g.trace" > "$T/v11g.out" 2>&1
check "fs geometry: not in version 11" test "$(grep -c "0x1000, the image's geometry, version 12's" "$T/v11g.out")" = 1

# the tier model keeps its capacity: --capacity 2GiB is below ssd-cloud's
# range and refused, --fs-size 2GiB is not
"$B" replay "$T/v11.trace" --virtual --kernel-fs --tier ssd-cloud --capacity 2GiB > "$T/c.out" 2>&1
check "fs size: --capacity 2GiB refused on ssd-cloud" test $? != 0
check "fs size: --capacity 2GiB, the tier's range named" \
	test "$(grep -c "capacity 2.00 GiB is outside its range" "$T/c.out")" = 1
"$B" replay "$T/v11.trace" --virtual --kernel-fs --tier ssd-cloud --fs-size 8MiB > "$T/f1.out" 2>&1
check "fs size: 8MiB refused" test $? = 2
check "fs size: one line naming it" test "$(grep -c -- "--fs-size 8MiB: expected a size" "$T/f1.out")" = 1
"$B" replay "$T/v11.trace" --fs-size 2GiB --target "$T" > "$T/f2.out" 2>&1
check "fs size: virtual time only" test $? = 2
# shellcheck disable=SC2154 # fail: set by lib.sh (check())
exit "$fail"
