#!/bin/sh
# replay --ra-kernel: the Linux whose readahead the kernel-fs prediction
# models. From 6.17 an async window's end is rounded down to its folios'
# size (tier/cache.c, ra_window); before, windows follow one another at
# their ramped sizes. Exact in virtual time.
. "${TS_SOURCE_ROOT:?run through meson test}/tests/traces/lib.sh"

# one 2 MiB file read from its start in 16 KiB reads, a 1 GiB page cache
{
	echo 'header version=11 mem=1073741824 model=255 floor_ns=10000'
	echo 'path 1 "/" ino=2 blocks=1 backing_ino=100 inodes=100 flags=3'
	echo 'path 2 "/f" ino=12 blocks=0 backing_ino=101 inodes=100 flags=1'
	echo '0 2000 open 2 0 0 0 1 2097152 0 8'
	n=1 off=0 t=10000
	while [ $off -lt 2097152 ]; do
		echo "$t $((t + 20000)) read 2 $off 16384 16384 1 2097152 0 0"
		off=$((off + 16384)) t=$((t + 30000)) n=$((n + 1))
	done
	echo "$t $((t + 2000)) close 2 0 0 0 1 2097152 0 4"
	echo "end drops=0 records=$((n + 1)) t=$((t + 2000))"
} | mktrace seq
kfs() { # ARGS: total_ns, device reads and bytes, the kernel named
	"$B" replay "$T/seq.trace" --virtual --kernel-fs --tier ssd-cloud --json "$@" 2>/dev/null |
		jq -r '"\(.results[1].total_ns) \(.results[1].device_reads) \(.results[1].device_read_bytes) \(.ra_kernel)"'
}
check "ra kernel: 6.1 by default" test "$(kfs)" = "11284094 19 2101248 6.1"
check "ra kernel: 6.16 places windows as 6.1" test "$(kfs --ra-kernel 6.16 | cut -d' ' -f1-3)" = "$(kfs | cut -d' ' -f1-3)"
# the same bytes in the same number of windows, placed otherwise: pinned
check "ra kernel: 6.17 aligns them" test "$(kfs --ra-kernel 6.17)" = "14039776 19 2101248 6.17"
check "ra kernel: 6.18 as 6.17" test "$(kfs --ra-kernel 6.18 | cut -d' ' -f1-3)" = "14039776 19 2101248"
"$B" replay "$T/seq.trace" --virtual --kernel-fs --tier ssd-cloud --ra-kernel 6.18 > "$T/t.out" 2>&1
check "ra kernel: named in the text" test "$(grep -c "readahead as Linux 6.18's (--ra-kernel)" "$T/t.out")" = 1
"$B" replay "$T/seq.trace" --virtual --kernel-fs --tier ssd-cloud --ra-kernel 6.x > "$T/bad.out" 2>&1
check "ra kernel: 6.x refused" test $? = 2
check "ra kernel: one line naming it" test "$(grep -c -- "--ra-kernel 6.x: expected a Linux version" "$T/bad.out")" = 1
# shellcheck disable=SC2154 # fail: set by lib.sh (check())
exit "$fail"
