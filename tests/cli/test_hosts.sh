#!/usr/bin/env bash
# Host profiles from the command line, in virtual time where figures are
# exact: `tiersim hosts` lists every host of pipeline/hosts.lua and labels
# every number; a raw-LMDB run on one vCPU of a profiled host goes as fast
# as that host transforms a Datum and more vCPUs lift it; an unknown host
# lists the known ones; decode=real on another CPU, and a profile number
# without its source, are refused naming the option or the file and line.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "no python3 to read the JSON"; exit 77; }

# The listing: every declared host and library, every number labelled.
"$tiersim" hosts >"$work/list" 2>"$work/err" || fail "hosts exits $?: $(cat "$work/err")"
for h in $(sed -n 's/^host "\([^"]*\)".*/\1/p; s/^library "\([^"]*\)".*/\1/p' \
	"$src/pipeline/hosts.lua"); do
	grep -q "^$h " "$work/list" || fail "'tiersim hosts' does not list $h"
done
"$tiersim" hosts --evidence >"$work/ev" || fail "hosts --evidence"
awk 'NR > 1 && $3 != "measured" && $3 != "spec" && $3 != "assumed" { print; bad = 1 }
     NR > 1 && $3 == "assumed" && $0 !~ /\[/ { print; bad = 1 } END { exit bad }' \
	"$work/ev" || fail "an unlabelled number, or an assumed one without its range"
grep -q '^xeon-e5-2682v4 *speed *assumed' "$work/ev" || fail "the 2017 Xeon's speed is not listed"
# The build host's Xeon carries DLIO's costs measured on it, every format's
# reader and the requests, not the Zen 4's TensorFlow figures over its speed.
for f in dlio_sample_ns dlio_sample_ns_per_mib dlio_jpeg_ns_per_mpix dlio_hdf5_sample_ns \
	dlio_png_sample_ns_per_mib dlio_request_ns dlio_request_daemon_ns dlio_step_ns \
	'dlio_workload_step_ns\[resnet50\]' dlio_loader_start_ns dlio_worker_gc_ns; do
	grep -q "^xeon-kvm-2vcpu *$f *measured .*on this Xeon\|^xeon-kvm-2vcpu *$f *measured .*build-host's" \
		"$work/ev" || fail "xeon-kvm-2vcpu: $f is not its own measurement"
done
# The Xeon model 167 guest's workers' spread and their CPU a sample alone
# are its own DLIO runs' (bench/dlio_rank_spread.py, bench/dlio_tail_cpu.py
# on this guest), not the earlier guests' carried figures.
for f in dlio_worker_spread dlio_worker_cpu_alone; do
	grep -q "^xeon-m167-kvm-2vcpu *$f *measured .*on this guest" "$work/ev" ||
		fail "xeon-m167-kvm-2vcpu: $f is not its own measurement"
done

# One vCPU of the 2017 Xeon on a disk fast enough: the loader delivers a
# Datum per transform, what 'tiersim hosts' says one costs.
datum_us=$(awk '$1 == "xeon-e5-2682v4" { print $7 }' "$work/list")
[ -n "$datum_us" ] || fail "no Datum cost for xeon-e5-2682v4"
for v in 1 8; do
	"$tiersim" compare "$src/scripts/tier_inference.lua" --tiers nvme-local --virtual \
		count=4000 iterations=40 vcpus=$v --json "$work/v$v.json" >/dev/null 2>"$work/err" ||
		fail "tier_inference vcpus=$v: $(cat "$work/err")"
done
python3 - "$work/v1.json" "$work/v8.json" "$datum_us" <<'PY' || fail "vCPU dependence"
import json, sys
one, eight = (json.load(open(p))["rows"][0] for p in sys.argv[1:3])
want = 1e6 / float(sys.argv[3])
got = one["throughput"]["value"]
assert abs(got - want) <= 0.01 * want, (got, want)
assert "xeon-e5-2682v4" in one["parts"], one["parts"]
assert eight["throughput"]["value"] > 1.5 * got, (eight["throughput"]["value"], got)
PY

# The conversion pays the host's decode and put: the 2017 Xeon is slower.
for h in xeon-e5-2682v4 epyc-zen4; do
	"$tiersim" run "$src/scripts/preprocess.lua" --virtual count=500 host=$h \
		--json "$work/p-$h.json" >/dev/null 2>"$work/err" || fail "preprocess host=$h: $(cat "$work/err")"
done
python3 - "$work/p-xeon-e5-2682v4.json" "$work/p-epyc-zen4.json" <<'PY' || fail "preprocess host"
import json, sys
x, z = (json.load(open(p))["rows"][0] for p in sys.argv[1:3])
assert x["time"]["value"] > z["time"]["value"], (x["time"], z["time"])
assert "put 1" in x["parts"] and "host xeon-e5-2682v4" in x["parts"], x["parts"]
PY

# Bad input: one message naming what is wrong.
"$tiersim" run "$src/scripts/tier_inference.lua" --virtual count=100 iterations=1 host=nope \
	>/dev/null 2>"$work/err" && fail "an unknown host ran"
grep -q "host 'nope' is not a host profile (known: this-machine, .*xeon-e5-2682v4" "$work/err" ||
	fail "unknown host: $(cat "$work/err")"
"$tiersim" run "$src/tests/cli/small.lua" --virtual pipeline.host=xeon-e5-2682v4 \
	pipeline.decode=real >/dev/null 2>"$work/err" && fail "decode=real ran on another CPU"
grep -q "option 'host': 'xeon-e5-2682v4' is another CPU" "$work/err" ||
	fail "decode=real: $(cat "$work/err")"
printf 'host "h" { cpu = "H", from = "epyc-zen4",\n  speed = { 0.5, "spec" } }\n' >"$work/bad.lua"
"$tiersim" hosts --profile "$work/bad.lua" >/dev/null 2>"$work/err" && fail "a bad profile loaded"
[ "$(wc -l <"$work/err")" -eq 1 ] || fail "bad profile: expected one line: $(cat "$work/err")"
grep -q "bad.lua:1: host 'h': speed: missing its source" "$work/err" ||
	fail "bad profile: $(cat "$work/err")"
# hosts at: a host's DLIO figures written as this-machine. At their values
# the file charges exactly what the host does (the same run to the last
# event); at the slow end a CPU-bound run is slower, at the fast end
# faster; --only moves the figures it names and no other.
if "$tiersim" --help | grep -q '^  dlio '; then
	h=xeon-emr-kvm-2vcpu
	r50="++workload.framework=pytorch ++workload.reader.data_loader=pytorch
 ++workload.dataset.format=npz ++workload.dataset.num_files_train=400
 ++workload.dataset.num_samples_per_file=1 ++workload.dataset.record_length=114660
 ++workload.dataset.record_length_stdev=0 ++workload.train.computation_time=0.024
 ++workload.reader.batch_size=40 ++workload.reader.read_threads=8 ++workload.train.epochs=2"
	for e in value slow fast; do
		"$tiersim" hosts at $h --end $e --out "$work/at-$e.lua" 2>"$work/err" ||
			fail "hosts at --end $e: $(cat "$work/err")"
		# shellcheck disable=SC2086
		TIERSIM_HOST_FILE=$work/at-$e.lua "$tiersim" dlio resnet50_h100 $r50 --tier essd-pl1 \
			--virtual --host this-machine --quiet --json "$work/at-$e.json" >/dev/null \
			2>"$work/err" || fail "dlio at --end $e: $(cat "$work/err")"
	done
	# shellcheck disable=SC2086
	"$tiersim" dlio resnet50_h100 $r50 --tier essd-pl1 --virtual --host $h --quiet \
		--json "$work/at-host.json" >/dev/null 2>"$work/err" || fail "dlio --host $h: $(cat "$work/err")"
	python3 - "$work"/at-host.json "$work"/at-value.json "$work"/at-slow.json "$work"/at-fast.json <<'PY' ||
import json, sys
h, v, s, f = (json.load(open(p))["runs"][0] for p in sys.argv[1:5])
for k in ("au", "samples_per_s", "read_requests", "events"):
    if k in h:
        assert h[k] == v[k], (k, h[k], v[k])
assert s["samples_per_s"] < v["samples_per_s"] < f["samples_per_s"], (s["samples_per_s"], v["samples_per_s"], f["samples_per_s"])
PY
		fail "hosts at: the ends do not bracket the value, or the value is not the host's"
	"$tiersim" hosts at $h --end slow --only dlio_step_ns,dlio_collate_ns --out "$work/at-one.lua" \
		2>"$work/err" || fail "hosts at --only: $(cat "$work/err")"
	diff "$work/at-value.lua" "$work/at-one.lua" | grep '^>   [a-z]' | cut -d= -f1 | sort >"$work/moved"
	printf '>   dlio_collate_ns \n>   dlio_step_ns \n' | diff - "$work/moved" ||
		fail "hosts at --only moved other figures: $(cat "$work/moved")"
	# A host that leaves figures unset (epyc-zen3-kvm-2vcpu: no
	# dlio_worker_cpu_alone): its file leaves them out (a 0 there was
	# refused: the factor must be above 0), loads without a warning and
	# charges what the host does.
	z=epyc-zen3-kvm-2vcpu
	"$tiersim" hosts at $z --end value --out "$work/at-z.lua" 2>"$work/err" || fail "hosts at $z: $(cat "$work/err")"
	! grep -q dlio_worker_cpu_alone "$work/at-z.lua" || fail "hosts at $z wrote an unset figure"
	# shellcheck disable=SC2086
	TIERSIM_HOST_FILE=$work/at-z.lua "$tiersim" dlio resnet50_h100 $r50 --tier essd-pl1 \
		--virtual --host this-machine --quiet --json "$work/at-z.json" >/dev/null \
		2>"$work/err" || fail "dlio at $z's file: $(cat "$work/err")"
	[ ! -s "$work/err" ] || fail "dlio at $z's file: $(cat "$work/err")"
	# shellcheck disable=SC2086
	"$tiersim" dlio resnet50_h100 $r50 --tier essd-pl1 --virtual --host $z --quiet \
		--json "$work/at-zhost.json" >/dev/null 2>"$work/err" || fail "dlio --host $z: $(cat "$work/err")"
	python3 - "$work"/at-zhost.json "$work"/at-z.json <<'PY' || fail "hosts at $z: the file does not charge what the host does"
import json, sys
h, v = (json.load(open(p))["runs"][0] for p in sys.argv[1:3])
for k in ("au", "samples_per_s", "read_requests", "events"):
    assert h[k] == v[k], (k, h[k], v[k])
PY
	"$tiersim" hosts at $h --only dlio_nope >/dev/null 2>"$work/err" && fail "--only took no figure"
	grep -q "'dlio_nope' is no DLIO figure" "$work/err" || fail "--only: $(cat "$work/err")"
fi
# --this: the profile whose cpu line names a machine, from a cpuinfo file
# and a vCPU count (bench/dlio_peer.sh's default host): the Zen 3 guest of
# 2 vCPUs is epyc-zen3-kvm-2vcpu; model 17 is not model 1 (the model's
# digits whole), nor 4 vCPUs 2, nor an unknown family any; none exits 1
# naming what it looked for; a profile file's host that matches as well,
# the last in the set, wins.
cpuinfo() { printf 'processor\t: 0\nvendor_id\t: %s\ncpu family\t: %s\nmodel\t\t: %s\nmodel name\t: x\n\nprocessor\t: 1\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\n' "$@"; }
cpuinfo AuthenticAMD 25 1 >"$work/zen3"
got=$("$tiersim" hosts --this --cpuinfo "$work/zen3" --vcpus 2 2>"$work/err") ||
	fail "hosts --this (Zen 3 guest): $(cat "$work/err")"
[ "$got" = epyc-zen3-kvm-2vcpu ] || fail "hosts --this named '$got' for the Zen 3 guest"
# the Intel Xeon guest of family 6 model 167 and 2 vCPUs: its own DLIO
# profile of 2026-12-07 (xeon-m167-kvm-2vcpu), the last of the file's two
# that name it (xeon-kvm-2vcpu, of 2026-12-03, has no collation line)
cpuinfo GenuineIntel 6 167 >"$work/m167"
got=$("$tiersim" hosts --this --cpuinfo "$work/m167" --vcpus 2 2>"$work/err") ||
	fail "hosts --this (Xeon model 167 guest): $(cat "$work/err")"
[ "$got" = xeon-m167-kvm-2vcpu ] || fail "hosts --this named '$got' for the Xeon model 167 guest"
for c in "AuthenticAMD 25 17 2" "AuthenticAMD 25 1 4" "AuthenticAMD 99 1 2" "GenuineIntel 25 1 2"; do
	set -- $c
	cpuinfo "$1" "$2" "$3" >"$work/cpu-x"
	"$tiersim" hosts --this --cpuinfo "$work/cpu-x" --vcpus "$4" >"$work/out" 2>"$work/err"
	[ $? -eq 1 ] && [ ! -s "$work/out" ] || fail "hosts --this matched $c: $(cat "$work/out")"
	grep -q "no host profile names this machine (.*family $2 model $3, $4 vCPUs" "$work/err" ||
		fail "hosts --this ($c): $(cat "$work/err")"
done
cat >"$work/zen3b.lua" <<'LUA'
host "zen3-twin" {
  desc = "a second profile of the same guest",
  cpu = "AMD EPYC (KVM guest; family 25 model 1), 2 vCPUs",
  from = "epyc-zen3-kvm-2vcpu",
  speed = { 1, "assumed", "a test's figure", low = 1, high = 1 },
  dlio_sample_ns = { 900000, "measured", "a test's figure" },
}
LUA
got=$("$tiersim" hosts --this --profile "$work/zen3b.lua" --cpuinfo "$work/zen3" --vcpus 2 2>"$work/err") ||
	fail "hosts --this --profile: $(cat "$work/err")"
[ "$got" = zen3-twin ] || fail "hosts --this --profile named '$got', not the last match"
"$tiersim" hosts --this --cpuinfo "$work/none" >/dev/null 2>"$work/err" && fail "--this read a missing file"
# this machine's own: whatever it is, a name 'tiersim hosts' lists, or none
if got=$("$tiersim" hosts --this 2>"$work/err"); then
	grep -q "^$got " "$work/list" || fail "hosts --this named '$got', which hosts does not list"
else
	grep -q "no host profile names this machine" "$work/err" || fail "hosts --this: $(cat "$work/err")"
fi
exit 0
