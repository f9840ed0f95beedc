#!/usr/bin/env bash
# ebs.sh — an instance's EBS limits on a real mount (-o ebs_*, as a
# scenario's mount{} and tiersim dlio --instance give them): on an aws-*
# tier the requests they hold count as instance-bound in the stats, not as
# held by the volume's caps; on any other tier, on a bare mount and in a
# switch to a tier that is not EBS they are refused in one line, exit 1,
# nothing mounted.
. "$(dirname "$0")/lib.sh"

expect_error "tier ssd-cloud is not one" -o tier=ssd-cloud,ebs_iops=20 "$BACKING" "$MNT"
expect_error "options 'ebs_*' need a tier model" -o bare,ebs_mbps=40 "$BACKING" "$MNT"
expect_error "ebs_iops" -o tier=aws-gp3,ebs_iops=-1 "$BACKING" "$MNT"

head -c $((64 * 4096)) /dev/urandom >"$BACKING/f"
reads() { # 12 direct 4 KiB reads 4 KiB apart: none merges with another (EBS
	# counts sequential small I/Os as one), so each is one I/O
	local i
	for i in $(seq 0 11); do
		dd if="$MNT/f" of=/dev/null bs=4k skip=$((i * 2)) count=1 iflag=direct status=none ||
			fail "direct read $i"
	done
}
# 2 IOPS on the instance, under the 16,000 of the volume: the 12 reads
# come 500 ms apart at the instance. The first passes (the rate layers'
# 10 ms tolerance); the others wait for the instance, unless dd itself took
# over 500 ms to come back with its next read (at 20 IOPS a loaded host's
# dd took over 50 ms, and reads went unheld).
tfs_mount "tier=aws-gp3-16k,ebs_iops=2,ebs_mbps=100"
reads
inst=$(stat_get model.bound_by.instance)
vol=$(($(stat_get model.bound_by.iops) + $(stat_get model.bound_by.bandwidth) + $(stat_get model.bound_by.burst)))
[ "$inst" -ge 10 ] || fail "$inst of 12 reads instance-bound at 2 IOPS, expected at least 10"
[ "$vol" -eq 0 ] || fail "$vol reads held by the volume's caps, which are far above 2 IOPS"
# The volume may change, to another EBS volume only.
echo tier=ssd-cloud >"$MNT/.tierfs/control" 2>/dev/null &&
	fail "a switch to ssd-cloud kept an instance's EBS limits on a volume that is not EBS"
echo tier=aws-io2 >"$MNT/.tierfs/control" || fail "switch to aws-io2 refused"
tfs_umount
check_log

# The same limits far above the volume's: the volume holds its requests.
tfs_mount "tier=aws-gp3,capacity=36GiB,ebs_iops=100000,ebs_mbps=10000"
reads
[ "$(stat_get model.bound_by.instance)" -eq 0 ] ||
	fail "$(stat_get model.bound_by.instance) reads instance-bound under limits 30x the volume's"
tfs_umount
check_log
echo "ok: $inst requests instance-bound (12 reads and their open) at 2 IOPS, none by the volume"
