#!/bin/sh
# The kernel-fs replay's page-cache read's FUSE part (traces/README.md,
# "The page-cache read's FUSE part"): the gap after a read the kernel's
# page cache sent loses --fuse-ra in place of the recording's floor,
# exact in virtual time on small hand-made traces.
. "${TS_SOURCE_ROOT:?run through meson test}/tests/traces/lib.sh"

fixed_tiers "$T/fx.lua"
# A FUSE recording (floor 10us) of two 128 KiB reads of one thread, the
# second 30us after the first completed: read ahead by the kernel's page
# cache (flag 16) or direct (0). On ext4 (--kernel-fs) each read pays the
# model's 60us and the gap loses the floor: 140us. With --fuse-ra 25us
# a page-cache read's gap loses 25us instead (125us), a direct read's
# still the floor; below the floor it loses less (5us: 145us); with the
# size part on top (12.4us) nothing is left (120us).
two_reads ra 131072 16
two_reads direct 131072 0
kfs() { # kfs NAME ARGS...: the kernel-fs replay's total_ns on fixed60
	_n=$1; shift
	"$B" replay "$T/$_n.trace" --virtual --kernel-fs --fuse-cpu 0 --page-wake 0 \
		--dev-read-cpu 0 --tier fixed60 --profile "$T/fx.lua" --json "$@" |
		jq -r '.results[1].total_ns'
}
check "page-cache FUSE part: 0 is the floor" test "$(kfs ra --fuse-size 0 --fuse-ra 0)" = 140000
check "page-cache FUSE part: in place of the floor" \
	test "$(kfs ra --fuse-size 0 --fuse-ra 25us)" = 125000
check "page-cache FUSE part: below the floor" \
	test "$(kfs ra --fuse-size 0 --fuse-ra 5us)" = 145000
check "page-cache FUSE part: the size part on top" \
	test "$(kfs ra --fuse-size 12400ns --fuse-ra 25us)" = 120000
check "page-cache FUSE part: not after a direct read" \
	test "$(kfs direct --fuse-size 0 --fuse-ra 25us)" = 140000
# build-host has none measured: the floor, not a refusal
check "page-cache FUSE part: the floor where the host has none" \
	test "$(kfs ra --fuse-size 0 --host build-host)" = 140000
check "page-cache FUSE part: the Zen 3 guest's is measured" \
	test "$(kfs ra --fuse-size 0 --host epyc-zen3-kvm-2vcpu)" -lt 140000
"$B" replay "$T/ra.trace" --virtual --tier fixed60 --profile "$T/fx.lua" --fuse-ra 5us \
	> "$T/o1.out" 2>&1
check "page-cache FUSE part: refused without --kernel-fs" test $? = 2
check "page-cache FUSE part: one line naming it" \
	test "$(grep -c -- "--fuse-ra 5us is --kernel-fs's" "$T/o1.out")" = 1
"$B" replay "$T/ra.trace" --virtual --kernel-fs --tier fixed60 --profile "$T/fx.lua" \
	--fuse-ra 2ms > "$T/o2.out" 2>&1
check "page-cache FUSE part: 2ms refused" test $? = 2

# Reads in flight together (the in-flight rule), read ahead by the page
# cache: 128 KiB reads in pairs, the second of a pair 100us after the
# first, the next pair 50us after the first of the last completed (floor
# 5us). On a 100us tier the distance after the completion that released
# the next pair loses the floor, 45us (490us in all); with --fuse-ra
# 20us it loses 20us, 30us left (460us in all).
read_pairs pairs 16
check "page-cache FUSE part: in flight, the floor" test "$(kfi_pairs --fuse-ra 0)" = 490000
check "page-cache FUSE part: in flight" test "$(kfi_pairs --fuse-ra 20us)" = 460000
# shellcheck disable=SC2154 # fail: set by lib.sh (check())
exit "$fail"
