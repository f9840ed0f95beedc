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
# A burst: 20 IOPS and 100 MB/s baseline, 100,000 IOPS and 10,000 MB/s at
# most for an hour is the volume alone. Both figures burst: with the MB/s
# left at its 100 baseline, a run paced by its reads (as it is where the
# decode calibration, measured on the machine at the test's start, is fast)
# is held to 100 MB/s, as it should be, and differs from the volume alone.
gp3_b=$(sps aws-gp3-16k "${limits[@]}" mount.ebs_max_iops=100000 mount.ebs_max_mbps=10000 \
	mount.ebs_burst=3600s) || exit 1
[ "$gp3_b" = "$gp3" ] || fail "a burst the run never spends: $gp3_b samples/s, alone $gp3"
"$tiersim" run "$here/small.lua" --virtual mount.ebs_iops=-1 >/dev/null 2>"$work/err" &&
	fail "a negative EBS limit was taken"
echo "ok: aws-gp3-16k $gp3 -> $gp3_t samples/s at 20 IOPS; ssd-cloud $ssd unmoved"

# tiersim dlio --instance: the instance's limits on an aws-* tier in
# virtual time. resnet50 on 8 accelerators reads about 1 GB/s alone on the
# 16,000-IOPS gp3; on a t3.medium (260.57 MB/s at most, 30 minutes) it
# reads at the instance's maximum, every held request instance-bound.
ov=(++workload.dataset.num_files_train=24 ++workload.dataset.num_samples_per_file=200
	++workload.reader.batch_size=40 ++workload.reader.read_threads=4
	++workload.reader.transfer_size=1048576 ++workload.train.computation_time=0.02
	++workload.train.epochs=2)
dl() { # NAME TIER [ARGS...] -> $work/NAME.json
	local name=$1 tier=$2
	shift 2
	"$tiersim" dlio resnet50_h100 "${ov[@]}" --tier "$tier" --accelerators 8 --virtual \
		--json "$work/$name.json" "$@" >"$work/$name.out" 2>"$work/err" ||
		fail "dlio $tier $* exited $?: $(cat "$work/err")"
}
runs() { # NAME -> the runs, without the host's wall time
	python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))["runs"]
for x in r: x.pop("wall_s")
print(r)' "$work/$1.json"
}
dl g16 aws-gp3-16k && dl g16t aws-gp3-16k --instance t3.medium &&
	dl ssd ssd-cloud && dl ssdt ssd-cloud --instance t3.medium &&
	dl g3 aws-gp3 && dl g3t aws-gp3 --instance t3.medium || exit 1
python3 - "$work" <<'PY' || fail "dlio --instance on aws-gp3-16k: $(cat "$work/g16t.out")"
import json, sys
w = sys.argv[1]
alone = json.load(open(w + "/g16.json"))["runs"][0]
on = json.load(open(w + "/g16t.json"))
r, cap = on["runs"][0], 260.57e6 / 1048576
assert on["ebs"] == {"iops": 2000, "max_iops": 11800, "mbps": 43.43, "max_mbps": 260.57,
                     "burst_s": 1800}, on["ebs"]
assert alone["mib_per_s"] > 3 * cap, alone
# the instance's maximum, less the epochs' first steps (the loader filling)
assert 0.99 * cap <= r["mib_per_s"] <= cap, (r["mib_per_s"], cap)
assert r["instance_bound"] > 0 and alone["instance_bound"] == 0, (r, alone)
PY
grep -q "requests held by the instance's limits (instance-bound): [1-9][0-9]*; by the volume's caps (iops, bandwidth, burst): 0" "$work/g16t.out" ||
	fail "the report does not say the instance held the requests: $(cat "$work/g16t.out")"
# Not an EBS volume: the same run, said so. Limits above the volume's (the
# 3,000-IOPS, 125 MiB/s gp3): the same run too, none instance-bound.
[ "$(runs ssd)" = "$(runs ssdt)" ] || fail "the instance's limits moved ssd-cloud"
grep -q "instance t3.medium: its EBS limits do not apply (the tier is not an EBS volume)" "$work/ssdt.out" ||
	fail "ssd-cloud with --instance: $(cat "$work/ssdt.out")"
[ "$(runs g3)" = "$(runs g3t)" ] || fail "limits above aws-gp3's own moved it: $(runs g3) vs $(runs g3t)"
"$tiersim" dlio resnet50_h100 "${ov[@]}" --tier aws-gp3 --accelerators 8 --virtual \
	--instance nosuch >/dev/null 2>"$work/err"
[ $? -eq 2 ] && [ "$(wc -l <"$work/err")" -eq 1 ] && grep -q "instance 'nosuch'" "$work/err" ||
	fail "an unknown --instance: $(cat "$work/err")"
"$tiersim" dlio resnet50_h100 "${ov[@]}" --tier aws-gp3 --accelerators 8 --fs ext4 \
	--instance t3.medium >/dev/null 2>"$work/err"
[ $? -eq 2 ] && grep -q "does not carry the instance's EBS limits" "$work/err" ||
	fail "block mode with an instance's limits: $(cat "$work/err")"
echo "ok: dlio on aws-gp3-16k $(runs g16 | grep -o "'mib_per_s': [0-9.]*") alone, $(runs g16t | grep -o "'mib_per_s': [0-9.]*") on a t3.medium"
