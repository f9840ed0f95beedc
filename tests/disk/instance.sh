#!/usr/bin/env bash
# instance.sh — block mode on an instance: tiersim disk mount --instance
# hands the instance's EBS limits (cost/prices.lua) to tierfs's tier model,
# as a tierfs mount's ebs_* options; the device's trace carries them and a
# replay of it on the tier runs under them. An instance on a tier that is
# not an EBS volume, or an unknown one, is refused in one line with nothing
# left behind.
. "$(dirname "$0")/lib.sh"

head -c $((4 << 20)) /dev/urandom >"$TMPD/data/f"
img=$TMPD/images/img.ext4
"$TIERSIM" disk make "$img" --size 64MiB --fs ext4 --from "$TMPD/data" || fail "make failed"

"$TIERSIM" disk mount "$img" "$MNT" --tier aws-gp3 --instance t3.medium --trace "$TMPD/i.trace" ||
	fail "mount --instance failed"
cmp -s "$TMPD/data/f" "$MNT/f" || fail "the file read back differs"
"$TIERSIM" disk umount "$MNT" || fail "umount failed"
check_clean "mount --instance"
# t3.medium (AWS's EBS-optimized table): 2,000 IOPS and 43.43 MB/s, at
# most 11,800 and 260.57 MB/s for 30 minutes
"$TIERSIM" trace dump "$TMPD/i.trace" | grep -q '^header .* ebs_iops=2000 ebs_max_iops=11800 ebs_bps=43430000 ebs_max_bps=260570000 ebs_burst_s=1800 loop_hop_ns=[0-9]* loop_size_ns=[0-9]* loop_window_ns=[0-9]* fs_blocks=65536 fs_block=1024 fs_bpg=8192 fs_ipg=2048 fs_inode=256 fs_rsv_gdt=256 fs_flex=16 fs_desc=64$' ||
	fail "the device's trace lacks the instance's limits: $("$TIERSIM" trace dump "$TMPD/i.trace" | grep '^header')"
"$TIERSIM" replay "$TMPD/i.trace" --virtual --tier aws-gp3 --no-wakes >"$TMPD/r.out" 2>&1 ||
	fail "replay failed: $(tail -2 "$TMPD/r.out")"
grep -q "EBS limits (the recording's) on the aws-\* tiers: 2000 IOPS, 43.43 MB/s" "$TMPD/r.out" ||
	fail "the replay did not run under the recorded limits: $(head -4 "$TMPD/r.out")"

out=$("$TIERSIM" disk mount "$img" "$MNT" --tier ssd-cloud --instance t3.medium 2>&1) &&
	fail "--instance on ssd-cloud was mounted"
[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && case "$out" in *"ebs_*"*ssd-cloud*) ;; *) false ;; esac ||
	fail "--instance on ssd-cloud: $out"
check_clean "--instance on ssd-cloud"
echo "ok: $out"
out=$("$TIERSIM" disk mount "$img" "$MNT" --tier aws-gp3 --instance no.such 2>&1)
rc=$?
[ $rc -eq 2 ] || fail "--instance no.such: exit status $rc, expected 2 (usage)"
case "$out" in *"--instance"*"no.such"*) ;; *) fail "--instance no.such: $out" ;; esac
check_clean "--instance no.such"
echo "ok: $(printf '%s\n' "$out" | head -1)"
exit 0
