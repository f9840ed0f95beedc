#!/bin/sh
# The reader's posix_fadvise in the virtual replay (traces/README.md, "The
# reader's advice"; tier/cache.c): a FUSE recording (direct reads, no
# page cache) of one thread reading /f, its path item carrying its node
# (backing_ino 4242), and a wake file whose A line advises that inode.
# Exact in virtual time: the device's requests and bytes the page-cache
# model sends.
. "${TS_SOURCE_ROOT:?run through meson test}/tests/traces/lib.sh"

seq_trace() { # seq_trace NAME LEN N: N reads of LEN bytes of /f in turn,
	# one at a time (each 100us, 10us apart), the file as long as the reads
	_n=$1 _l=$2 _c=$3
	{
		echo "header version=12 start_mono_ns=1000000 mem=0 model=255 floor_ns=10000"
		echo 'path 1 "/f" ino=12 blocks=0 backing_ino=4242 inodes=13 flags=1'
		_k=0
		while [ "$_k" -lt "$_c" ]; do
			_s=$((10000 + _k * 110000))
			echo "$_s $((_s + 100000)) read 1 $((_k * _l)) $_l $_l 7 $((_c * _l)) 0 0"
			_k=$((_k + 1))
		done
		echo "end drops=0 records=$_c t=$((_s + 100000))"
	} | mktrace "$_n"
}
wake_lines() { # wake_lines NAME [ADVICE INO]: thread 7's wake file, with an
	# A line 5us before the first read when ADVICE is given
	{
		echo "span 1000000 200000000"
		echo "T 7 7 0 1000000 200000000 0 0 cat"
		[ $# -gt 1 ] && echo "A 1005000 7 3 $3 0 0 $2"
	} | wakes_file "$1"
}
reqs() { # reqs NAME: the device's reads and their bytes, replayed on ssd-cloud
	"$B" replay "$T/$1.trace" --virtual --tier ssd-cloud --mem 64MiB --json > "$T/$1.json" &&
		jq -r '[.results[1].device_reads, .results[1].device_read_bytes] | map(tostring) | join(" ")' \
			"$T/$1.json"
}

# cat's 128 KiB reads of a 4 MiB file: 128 KiB windows (32 requests),
# 256 KiB after POSIX_FADV_SEQUENTIAL (16: mm/fadvise.c doubles the
# file's ra_pages), as without an advice after NORMAL, and after an
# advice on another inode
for n in none seq normal other; do seq_trace "$n" 131072 32; done
wake_lines none
wake_lines seq 2 4242
wake_lines normal 0 4242
wake_lines other 2 999
check "advice: none, 128 KiB windows" test "$(reqs none)" = "32 4194304"
check "advice: SEQUENTIAL, 256 KiB windows" test "$(reqs seq)" = "16 4194304"
check "advice: NORMAL, the device's max" test "$(reqs normal)" = "32 4194304"
check "advice: another inode's, not this file's" test "$(reqs other)" = "32 4194304"
# without the wake file (--no-wakes) no advice either
"$B" replay "$T/seq.trace" --virtual --tier ssd-cloud --mem 64MiB --no-wakes --json > "$T/nw.json"
check "advice: --no-wakes reads none" test "$(j "$T/nw.json" '.results[1].device_reads')" = 32

# 4 KiB reads of 64 KiB: readahead's windows (16, 32, then the last 16
# KiB: 3 requests), none after POSIX_FADV_RANDOM (each read its own: 16)
for n in rnone rand; do seq_trace "$n" 4096 16; done
wake_lines rnone
wake_lines rand 1 4242
check "advice: 4 KiB reads read ahead" test "$(reqs rnone)" = "3 65536"
check "advice: RANDOM, no readahead" test "$(reqs rand)" = "16 65536"

# an advice after the reads started applies from its time on: SEQUENTIAL
# 5us before the 17th read's start, the windows to 2 MiB + 128 KiB
# issued by then in 128 KiB (17: the window after the 16th read's came
# with it), the rest in 256 KiB (7.5: 8)
seq_trace late 131072 32
{
	echo "span 1000000 200000000"
	echo "T 7 7 0 1000000 200000000 0 0 cat"
	echo "A $((1000000 + 10000 + 16 * 110000 - 5000)) 7 3 4242 0 0 2"
} | wakes_file late
check "advice: from its time on" test "$(reqs late)" = "25 4194304"

# a malformed A line: one line naming the file and line
seq_trace bad 131072 2
{
	echo "span 1000000 200000000"
	echo "T 7 7 0 1000000 200000000 0 0 cat"
	echo "A 1005000 7 3 4242 0 0 9"
} | wakes_file bad
"$B" replay "$T/bad.trace" --virtual --tier ssd-cloud --mem 64MiB > "$T/bad.out" 2>&1
check "advice: a bad line refused" test $? != 0
check "advice: naming its line" grep -q "bad.trace.wakes:4: an advice line" "$T/bad.out"
# shellcheck disable=SC2154 # fail: set by lib.sh (check())
exit "$fail"
