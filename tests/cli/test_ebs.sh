#!/usr/bin/env bash
# mount{ ebs_* }: the instance's EBS limits (instance{} sets them from its
# price profile) cap an aws-* tier above its own caps in virtual time, and
# no other tier. small.lua's 64 JPEGs read cold on a 16,000-IOPS gp3: with
# the instance held to 20 IOPS the run is paced by the instance; on
# ssd-cloud the same keys change nothing.
. "$(dirname "$0")/lib.sh"

sps() { # TIER [KEY=VALUE...] -> samples/s of the row
	local tier=$1
	shift
	"$tiersim" run "$here/small.lua" --virtual --json "$work/o.json" iterations=7 tier="$tier" \
		"$@" >"$work/o.out" 2>"$work/err" || fail "$tier $* exited $?: $(cat "$work/err")"
	python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))["rows"][0]
print(repr(r["throughput"]["value"]))' "$work/o.json" || fail "no throughput in the JSON"
}
limits=(mount.ebs_iops=20 mount.ebs_mbps=100)
gp3=$(sps aws-gp3-16k) && gp3_t=$(sps aws-gp3-16k "${limits[@]}") && ssd=$(sps ssd-cloud) &&
	ssd_t=$(sps ssd-cloud "${limits[@]}") || exit 1
awk -v a="$gp3" -v b="$gp3_t" 'BEGIN { exit !(b < a / 2) }' ||
	fail "aws-gp3-16k: $gp3 samples/s alone, $gp3_t held to 20 IOPS (want under half)"
[ "$ssd" = "$ssd_t" ] || fail "ssd-cloud is no EBS volume, yet the limits moved it: $ssd -> $ssd_t"
# A burst: 20 IOPS baseline, 100,000 at most for an hour is the volume alone.
gp3_b=$(sps aws-gp3-16k "${limits[@]}" mount.ebs_max_iops=100000 mount.ebs_burst=3600s) || exit 1
[ "$gp3_b" = "$gp3" ] || fail "a burst the run never spends: $gp3_b samples/s, alone $gp3"
"$tiersim" run "$here/small.lua" --virtual mount.ebs_iops=-1 >/dev/null 2>"$work/err" &&
	fail "a negative EBS limit was taken"
echo "ok: aws-gp3-16k $gp3 -> $gp3_t samples/s at 20 IOPS; ssd-cloud $ssd unmoved"
