#!/bin/sh
# The kernel-fs replay's page-cache read's stretch (traces/README.md,
# "The page-cache read's stretch"): what is left of the gap after a read
# the kernel's page cache sent, once --fuse-ra and the size part are off,
# is divided by --fuse-stretch; exact in virtual time on small hand-made
# traces.
. "${TS_SOURCE_ROOT:?run through meson test}/tests/traces/lib.sh"

fixed_tiers "$T/fx.lua"
# A FUSE recording (floor 10us) of two 128 KiB reads of one thread, the
# second 30us after the first completed: read ahead by the kernel's page
# cache (flag 16) or direct (0). On ext4 (--kernel-fs) each read pays the
# model's 60us; with --fuse-ra 10us the gap after a page-cache read keeps
# 20us (140us in all). --fuse-stretch 2 halves that (130us), 1.5 leaves
# 13.333us (133.333us, rounded to the ns); with a 6us size part the 14us
# left is halved (127us). A direct read's gap (the floor), and a
# page-cache read's without --fuse-ra, keep theirs (140us).
two_reads ra 131072 16
two_reads direct 131072 0
# Only before another page-cache read of the same file (the cursor's over
# its mapped database; not a folder loader's gap from one file's read to
# the next file's): the second read of another file, or a direct one,
# keeps the 20us (140us).
mktrace other <<X
header version=5 mem=0 model=255 floor_ns=10000
path 1 "/f"
path 2 "/g"
0 50000 read 1 0 131072 131072 1 1048576 0 16
80000 130000 read 2 0 131072 131072 1 1048576 0 16
end drops=0 records=2 t=130000
X
mktrace then_direct <<X
header version=5 mem=0 model=255 floor_ns=10000
path 1 "/f"
0 50000 read 1 0 131072 131072 1 1048576 0 16
80000 130000 read 1 131072 131072 131072 1 1048576 0 0
end drops=0 records=2 t=130000
X
kfs() { # kfs NAME ARGS...: the kernel-fs replay's total_ns on fixed60
	_n=$1; shift
	"$B" replay "$T/$_n.trace" --virtual --kernel-fs --fuse-cpu 0 --page-wake 0 \
		--dev-read-cpu 0 --tier fixed60 --profile "$T/fx.lua" --json "$@" |
		jq -r '.results[1].total_ns'
}
check "page-cache stretch: 1 is none" \
	test "$(kfs ra --fuse-size 0 --fuse-ra 10us --fuse-stretch 1)" = 140000
check "page-cache stretch: 2 halves the rest" \
	test "$(kfs ra --fuse-size 0 --fuse-ra 10us --fuse-stretch 2)" = 130000
check "page-cache stretch: 1.5" \
	test "$(kfs ra --fuse-size 0 --fuse-ra 10us --fuse-stretch 1.5)" = 133333
check "page-cache stretch: after the size part" \
	test "$(kfs ra --fuse-size 6us --fuse-ra 10us --fuse-stretch 2)" = 127000
check "page-cache stretch: not after a direct read" \
	test "$(kfs direct --fuse-size 0 --fuse-ra 10us --fuse-stretch 2)" = 140000
check "page-cache stretch: not before another file's read" \
	test "$(kfs other --fuse-size 0 --fuse-ra 10us --fuse-stretch 2)" = 140000
check "page-cache stretch: not before a direct read" \
	test "$(kfs then_direct --fuse-size 0 --fuse-ra 10us --fuse-stretch 2)" = 140000
check "page-cache stretch: not without the FUSE part" \
	test "$(kfs ra --fuse-size 0 --fuse-ra 0 --fuse-stretch 2)" = 140000
# build-host has none measured: none, not a refusal
check "page-cache stretch: none where the host has none" \
	test "$(kfs ra --fuse-size 0 --fuse-ra 10us --host build-host)" = 140000
check "page-cache stretch: the Zen 3 guest's is measured" \
	test "$(kfs ra --fuse-size 0 --fuse-ra 10us --host epyc-zen3-kvm-2vcpu)" -lt 140000
for bad in 0.5 5 x 1.2x ""; do
	"$B" replay "$T/ra.trace" --virtual --kernel-fs --tier fixed60 --profile "$T/fx.lua" \
		--fuse-stretch "$bad" > "$T/o.out" 2>&1
	check "page-cache stretch: '$bad' refused" test $? = 2
	check "page-cache stretch: '$bad' in one line" \
		test "$(grep -c -- "--fuse-stretch $bad: expected a ratio from 1" "$T/o.out")" = 1
done
"$B" replay "$T/ra.trace" --virtual --tier fixed60 --profile "$T/fx.lua" --fuse-stretch 2 \
	> "$T/o1.out" 2>&1
check "page-cache stretch: refused without --kernel-fs" test $? = 2
check "page-cache stretch: one line naming it" \
	test "$(grep -c -- "--fuse-stretch 2 is --kernel-fs's" "$T/o1.out")" = 1

# Reads in flight together (the in-flight rule), read ahead by the page
# cache, as tests/traces/replay_fuse_ra.sh's: with --fuse-ra 20us each
# distance after a completion that released the next pair keeps 30us
# (460us in all); --fuse-stretch 2 halves each: 15us, 430us in all.
read_pairs pairs 16
check "page-cache stretch: in flight, none" test "$(kfi_pairs --fuse-ra 20us --fuse-stretch 1)" = 460000
check "page-cache stretch: in flight" test "$(kfi_pairs --fuse-ra 20us --fuse-stretch 2)" = 430000
# shellcheck disable=SC2154 # fail: set by lib.sh (check())
exit "$fail"
