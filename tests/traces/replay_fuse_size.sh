#!/bin/sh
# The kernel-fs replay's reply size part (traces/README.md, "The reply's
# size part") and its IO path's CPU after a read the kernel's page cache
# sent, exact in virtual time on small hand-made traces.
. "${TS_SOURCE_ROOT:?run through meson test}/tests/traces/lib.sh"

fixed_tiers "$T/fx.lua"
# A FUSE recording (floor 10us) of two 128 KiB direct reads of one
# thread, the second 30us after the first completed. On ext4 (--kernel-fs)
# each read pays the model's whole 60us and the gap loses the floor (20us
# left): 140us. The first read's reply carried 124 KiB past the floor's
# 4 KiB, which FUSE took longer to deliver: with --fuse-size 12400ns (a
# 128 KiB read's) the gap loses 12.4us more, 7.6us left: 127.6us; a size
# part longer than the gap leaves it at 0 (120us). A 66 KiB first read
# (62 KiB past 4 KiB, half) loses 6.2us: 133.8us; a 4 KiB one none.
two_reads big 131072 0
two_reads half 67584 0
two_reads small 4096 0
two_reads ra 131072 16
kfz() { # kfz NAME ARGS...: the kernel-fs replay's total_ns on fixed60
	_k=$1
	shift
	"$B" replay "$T/$_k.trace" --virtual --kernel-fs --fuse-cpu 0 --page-wake 0 --tier fixed60 \
		--profile "$T/fx.lua" --json "$@" 2>/dev/null | jq -r '.results[1].total_ns'
}
kfs() { # kfs NAME ARGS...: kfz without the IO path's CPU
	_n=$1
	shift
	kfz "$_n" --dev-read-cpu 0 "$@"
}
check "reply size part: off" test "$(kfs big --fuse-size 0)" = 140000
check "reply size part: a 128 KiB read's" test "$(kfs big --fuse-size 12400ns)" = 127600
check "reply size part: never below 0" test "$(kfs big --fuse-size 31us)" = 120000
check "reply size part: in proportion" test "$(kfs half --fuse-size 12400ns)" = 133800
check "reply size part: none for 4 KiB" test "$(kfs small --fuse-size 12400ns)" = 140000
check "reply size part: a page-cache read's too" test "$(kfs ra --fuse-size 12400ns)" = 127600
check "reply size part: the host's by default" \
	test "$(kfs big)" = "$(kfs big --host build-host)"
check "reply size part: the host's is not 0" test "$(kfs big)" != 140000
# Without --kernel-fs the gaps keep the whole reply (FUSE mode predicted):
# the reads pay 60us less the floor, the gap its recorded 30us: 130us.
check "reply size part: not without --kernel-fs" test "$("$B" replay "$T/big.trace" --virtual \
	--tier fixed60 --profile "$T/fx.lua" --json 2>/dev/null | jq -r '.results[1].total_ns')" = 130000
"$B" replay "$T/big.trace" --virtual --tier fixed60 --profile "$T/fx.lua" --fuse-size 5us \
	> "$T/fz1.out" 2>&1
check "reply size part: refused without --kernel-fs" test $? = 2
check "reply size part: one line naming it" \
	test "$(grep -c -- "--fuse-size 5us is --kernel-fs's" "$T/fz1.out")" = 1
"$B" replay "$T/big.trace" --virtual --kernel-fs --tier fixed60 --profile "$T/fx.lua" \
	--fuse-size 2ms > "$T/fz2.out" 2>&1
check "reply size part: 2ms refused" test $? = 2

# With the loop rule (--loop-issue=off: block mode charged from tierfs's
# receipt, whose loop device's reply crossed FUSE as well) the gap after a
# device read keeps the round trip and the size part alike. Two 128 KiB
# reads on a floor of 30us, each followed by a 40us gap (open and close
# free): issue-timed, each such gap keeps 10us less the size part, 0 with
# 12.4us: 145us where 165us without it; from the receipt 225us either way.
mktrace kfl <<'X'
header version=5 mem=0 model=255 floor_ns=30000
path 1 "/a"
path 2 "/b"
0 2000 open 1 0 0 0 1 131072 0 4
40000 130000 read 1 0 131072 131072 1 131072 0 0
170000 171000 close 1 0 0 0 1 131072 0 4
210000 212000 open 2 0 0 0 1 131072 0 4
250000 340000 read 2 0 131072 131072 1 131072 0 0
380000 381000 close 2 0 0 0 1 131072 0 4
end drops=0 records=6 t=381000
X
check "reply size part: issue-timed block mode" test "$(kfs kfl --fuse-size 12400ns)" = 145000
check "reply size part: kept by the loop rule" \
	test "$(kfs kfl --fuse-size 12400ns --loop-issue=off)" = 225000
# Reads in flight together (the in-flight rule): 128 KiB reads in pairs,
# the second of a pair 100us after the first, the next pair 50us after
# the first of the last completed (floor 5us). On a 100us tier the pair's
# spacing stays and the distance after the completion that released the
# next pair loses the floor, 45us (490us in all), and with --fuse-size
# 12400ns the first read's size part too: 32.6us, 465.2us in all.
read_pairs pairs 0
kfi() { "$B" replay "$T/pairs.trace" --virtual --kernel-fs --tier fixed100 --profile "$T/fx.lua" \
	--json "$@" 2>/dev/null | jq -r '.results[1].total_ns'; }
check "reply size part: in flight, off" test "$(kfi --fuse-size 0)" = 490000
check "reply size part: in flight" test "$(kfi --fuse-size 12400ns)" = 465200

# The IO path's CPU (--dev-read-cpu) after a read the kernel's page cache
# sent through FUSE (flag 16, a cached or mapped file): that readahead ran
# on the thread when recorded, its CPU is in the gap already, so the gap
# does not grow; after a direct read it grows by 5us a device read.
check "IO path CPU: after a direct read" \
	test "$(kfz big --fuse-size 0 --dev-read-cpu 5us)" = 145000
check "IO path CPU: none after a page-cache read" \
	test "$(kfz ra --fuse-size 0 --dev-read-cpu 5us)" = 140000
# shellcheck disable=SC2154 # fail: set by lib.sh (check())
exit "$fail"
