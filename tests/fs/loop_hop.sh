#!/usr/bin/env bash
# loop_hop.sh — tierfs's loop_hop option (block mode's loop-device hop,
# fs/calib.c): bad values and a bare mount refused in one line; a given
# hop handed to the tier model beside the floor (the model's floor is
# their sum: what it takes off every modeled latency), shown in the stats,
# in control and in a trace's header beside the FUSE round trip; off by
# default. The measured hop needs root and a loop device: tests/disk/hop.sh.
. "$(dirname "$0")/lib.sh"
B=$TS_BUILD_ROOT/cli/tiersim

expect_error "option 'loop_hop': 'soon' is not measure, off or a duration" \
	-o tier=ssd-cloud,loop_hop=soon "$BACKING" "$MNT"
expect_error "option 'loop_hop': '-5us' is not" -o tier=ssd-cloud,loop_hop=-5us "$BACKING" "$MNT"
expect_error "option 'loop_hop': '2s' is not" -o tier=ssd-cloud,loop_hop=2s "$BACKING" "$MNT"
expect_error "option 'loop_hop' needs a tier model" -o bare,loop_hop=40us "$BACKING" "$MNT"

head -c 65536 /dev/urandom >"$BACKING/f"

# Off by default: the model's floor is the FUSE round trip alone.
tfs_mount "tier=ssd-cloud,calib=false,floor=10us"
[ "$(stat_get loop_hop)" = off ] || fail "loop_hop is $(stat_get loop_hop) by default, not off"
[ "$(stat_get loop_hop_ns)" = 0 ] || fail "loop_hop_ns $(stat_get loop_hop_ns) by default"
[ "$(stat_get model.floor_ns)" = 10000 ] || fail "model floor $(stat_get model.floor_ns), not 10 us"
tfs_umount

# Given: 10 us of FUSE and 50 us of loop device, 60 us off the model.
tfs_mount "tier=ssd-cloud,calib=false,floor=10us,loop_hop=50us,trace=$TMPD/t.trace"
[ "$(stat_get loop_hop)" = given ] || fail "loop_hop is '$(stat_get loop_hop)', not given"
[ "$(stat_get loop_hop_ns)" = 50000 ] || fail "loop_hop_ns $(stat_get loop_hop_ns), not 50000"
[ "$(stat_get floor_ns)" = 10000 ] || fail "floor_ns $(stat_get floor_ns), not FUSE's 10000"
[ "$(stat_get model.floor_ns)" = 60000 ] ||
	fail "the model takes $(stat_get model.floor_ns) ns off, not floor + hop = 60000"
grep -qx 'loop_hop=50.00 us (given)' "$MNT/.tierfs/control" ||
	fail "control does not show the hop: $(grep loop_hop "$MNT/.tierfs/control")"
dd if="$MNT/f" of=/dev/null bs=4096 iflag=direct status=none || fail "cannot read through the mount"
tfs_umount
grep -q 'loop device hop 50.00 us (given)' "$LOG" || fail "the daemon did not say the hop"
# The trace's header: floor_ns stays FUSE's round trip, the hop beside it.
hdr=$("$B" trace dump "$TMPD/t.trace" | grep -m1 'mount_opts=') || fail "no header in the dump"
case "$hdr" in
*"floor=10000ns,"*"loop_hop=50000ns(given)"*) ;;
*) fail "the trace header does not record the hop beside the floor: $hdr" ;;
esac
case "$hdr" in *" floor_ns=10000"*) ;; *) fail "the header's floor_ns is not FUSE's 10 us: $hdr" ;; esac
# and as the header's own field (version 6, bit 0x100), which a replay reads
case "$hdr" in *" model=2559 "*" loop_hop_ns=50000") ;; *) fail "the header has no loop_hop_ns field: $hdr" ;; esac
exit 0
