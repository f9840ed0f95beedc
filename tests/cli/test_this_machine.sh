#!/usr/bin/env bash
# test_this_machine.sh — `tiersim hosts measure` and `tiersim dlio --host
# this-machine`: the measurement runs its script with the given venv's
# python, reads every set through a tierfs mount, and writes a profile
# whose numbers are labelled measured, naming the measurement; that
# profile is what --host this-machine charges, exactly as the same numbers
# under another host's name; without one, or with a venv that fails, one
# line says what to do and nothing stays mounted.
. "$(dirname "$0")/lib.sh"
"$tiersim" --help | grep -q '^  dlio ' || { echo "tiersim was built without dlio"; exit 77; }
export TIERSIM_HOST_FILE=$work/this-machine.lua

# No measurement: one line naming the file and the command that makes it.
"$tiersim" dlio resnet50_h100 --tier unlimited --virtual --host this-machine >/dev/null \
	2>"$work/err" && fail "--host this-machine ran without a measurement"
[ "$(wc -l <"$work/err")" -eq 1 ] || fail "no measurement: not one line: $(cat "$work/err")"
grep -q "no DLIO costs measured ($work/this-machine.lua): run 'tiersim hosts measure" "$work/err" ||
	fail "no measurement: $(cat "$work/err")"

# The same numbers as build-host's DLIO fields (pipeline/hosts.lua), under
# this machine's name: the same run to the last digit.
cat >"$TIERSIM_HOST_FILE" <<'L'
host "this-machine" {
  cpu = "test",
  dlio_sample_ns = { 1043000, "measured", "a copy of build-host's" },
  dlio_sample_ns_per_mib = { 1425000, "measured", "a copy of build-host's" },
  dlio_jpeg_ns_per_mpix = { 3245000, "measured", "a copy of build-host's" },
  dlio_step_ns = { 7560000, "measured", "a copy of build-host's" },
  dlio_workload_step_ns = {
    unet3d = { 3215000, "measured", "a copy of build-host's" },
    resnet50 = { 10664000, "measured", "a copy of build-host's" },
    ["resnet50/jpeg"] = { 11191000, "measured", "a copy of build-host's" },
  },
  dlio_request_ns = { 30300, "measured", "a copy of build-host's" },
  dlio_request_ns_per_mib = { 740000, "measured", "a copy of build-host's" },
  dlio_loader_start_ns = { 7767498, "measured", "a copy of build-host's" },
  dlio_loader_start_ns_per_worker = { 14868598, "measured", "a copy of build-host's" },
  dlio_loader_restart_ns = { 1152199, "measured", "a copy of build-host's" },
  dlio_loader_restart_ns_per_worker = { 1596475, "measured", "a copy of build-host's" },
  vcpus = { 2, "measured", "a copy of build-host's" },
}
L
r50="++workload.framework=pytorch ++workload.reader.data_loader=pytorch ++workload.dataset.format=npz
 ++workload.dataset.num_files_train=400 ++workload.dataset.num_samples_per_file=1 ++workload.dataset.record_length=114660
 ++workload.dataset.record_length_stdev=0 ++workload.train.computation_time=0.024
 ++workload.reader.batch_size=40 ++workload.reader.read_threads=8 ++workload.train.epochs=2"
for h in build-host this-machine; do
	# shellcheck disable=SC2086
	"$tiersim" dlio resnet50_h100 $r50 --tier essd-pl1 --virtual --host $h --quiet \
		--json "$work/$h.json" >/dev/null 2>"$work/err" || fail "--host $h: $(cat "$work/err")"
done
python3 - "$work/build-host.json" "$work/this-machine.json" <<'PY' || fail "this-machine is not build-host's numbers"
import json, sys
a, b = (json.load(open(p))["runs"][0] for p in sys.argv[1:3])
for k in ("au", "samples_per_s", "read_requests", "events"):
    if k in a:
        assert a[k] == b[k], (k, a[k], b[k])
PY
"$tiersim" hosts >"$work/list" || fail "hosts with this machine's profile"
grep -q "^this-machine .*(DLIO's costs only)" "$work/list" || fail "hosts: $(cat "$work/list")"

# The file is read for --host this-machine only: a broken one leaves other
# hosts' runs alone, and 'tiersim hosts' lists the rest with one warning
# naming it; --host this-machine refuses it in one line naming it.
echo 'host "this-machine" { cpu = ' >"$TIERSIM_HOST_FILE"
# shellcheck disable=SC2086
"$tiersim" dlio resnet50_h100 $r50 --tier essd-pl1 --virtual --host build-host --quiet \
	--json "$work/broken.json" >/dev/null 2>"$work/err" ||
	fail "--host build-host with a broken this-machine file: $(cat "$work/err")"
cmp -s "$work/build-host.json" "$work/broken.json" ||
	python3 - "$work/build-host.json" "$work/broken.json" <<'PY' || fail "build-host's run moved with a broken this-machine file"
import json, sys
a, b = (json.load(open(p))["runs"][0] for p in sys.argv[1:3])
for k in ("au", "samples_per_s", "read_requests", "events"):
    if k in a:
        assert a[k] == b[k], (k, a[k], b[k])
PY
"$tiersim" hosts >"$work/list" 2>"$work/err" || fail "hosts with a broken this-machine file: $(cat "$work/err")"
grep -q "^build-host " "$work/list" || fail "hosts with a broken file: $(cat "$work/list")"
grep -q "^this-machine " "$work/list" && fail "hosts listed a broken this-machine file"
[ "$(wc -l <"$work/err")" -eq 1 ] && grep -q "warning: $TIERSIM_HOST_FILE" "$work/err" ||
	fail "hosts, broken file: not one warning naming it: $(cat "$work/err")"
"$tiersim" dlio resnet50_h100 --tier unlimited --virtual --host this-machine >/dev/null \
	2>"$work/err" && fail "--host this-machine ran a broken file"
[ "$(wc -l <"$work/err")" -eq 1 ] && grep -q "$TIERSIM_HOST_FILE" "$work/err" ||
	fail "--host this-machine, broken file: $(cat "$work/err")"
# Another host's name in it adds no host to any run, and is refused.
cat >"$TIERSIM_HOST_FILE" <<'L'
host "this-machine" { cpu = "test", dlio_sample_ns = { 1, "measured", "t" } }
host "stray-host" { cpu = "test", dlio_sample_ns = { 1, "measured", "t" } }
L
"$tiersim" dlio resnet50_h100 --tier unlimited --virtual --host stray-host >/dev/null \
	2>"$work/err" && fail "a host of the this-machine file reached --host stray-host"
grep -q "host 'stray-host' is not a host profile" "$work/err" || fail "stray-host: $(cat "$work/err")"
"$tiersim" dlio resnet50_h100 --tier unlimited --virtual --host this-machine >/dev/null \
	2>"$work/err" && fail "--host this-machine took a file with another host"
[ "$(wc -l <"$work/err")" -eq 1 ] && grep -q "$TIERSIM_HOST_FILE:2: host 'stray-host': this machine's file holds the host 'this-machine' only" "$work/err" ||
	fail "--host this-machine, another host in the file: $(cat "$work/err")"

# The measurement, with a venv whose python plays DLIO's script: its files
# (any bytes do for the requests), and DLIO's figures as the script prints
# them; tiersim's own chain and the daemon are measured for real.
fake=$work/venv
mkdir -p "$fake/bin"
cat >"$fake/bin/python" <<'S'
#!/bin/sh
# python SCRIPT gen|read DIR [SET] | rest DIR: read prints SET's line (a
# read without a set prints nothing: the measurement asks for each set),
# rest the steps, the starts and the collection; each call is logged
[ -z "${FAKE_CALLS:-}" ] || echo "$2 ${4:--}" >>"$FAKE_CALLS"
case $2 in
gen)
	for s in npz-s npz-l jpeg hdf5-s hdf5-l png-s png-l; do mkdir -p "$3/$s"; done
	for i in 0 1 2 3; do
		head -c 114742 /dev/zero >"$3/npz-s/img_$i.npz"
		head -c 1048576 /dev/zero >"$3/npz-l/img_$i.npz"
		head -c 65426 /dev/zero >"$3/jpeg/img_$i.jpeg"
		head -c 116300 /dev/zero >"$3/hdf5-s/img_$i.hdf5"
		head -c 1050624 /dev/zero >"$3/hdf5-l/img_$i.hdf5"
		head -c 114747 /dev/zero >"$3/png-s/img_$i.png"
		head -c 1051096 /dev/zero >"$3/png-l/img_$i.png"
	done ;;
read)
	[ -n "${FAKE_FAIL:-}" ] && { echo "Traceback: no dlio_benchmark" >&2; exit 1; }
	[ -n "${FAKE_HANG:-}" ] && { echo $$ >"$FAKE_HANG"; exec sleep 120; }
	ls "$3/npz-s/img_0.npz" >/dev/null || exit 1 # through the mount
	ls "$3/${4:-}" >/dev/null || exit 1
	case ${4:-} in
	npz-s) echo "sample npz-s 400 800000000 114244 0" ;;
	npz-l) echo "sample npz-l 28 280000000 1048576 0" ;;
	jpeg) echo "sample jpeg 400 1000000000 65426 114244" ;;
	hdf5-s) echo "sample hdf5-s 400 600000000 114244 0 2048" ;;
	hdf5-l) echo "sample hdf5-l 28 140000000 1048576 0 2048" ;;
	png-s) echo "sample png-s 400 700000000 114747 114244" ;;
	png-l) echo "sample png-l 56 392000000 1051096 1048576" ;;
	esac ;;
rest)
	[ -n "${FAKE_FAIL:-}" ] && { echo "Traceback: no dlio_benchmark" >&2; exit 1; }
	ls "$3/npz-s/img_0.npz" >/dev/null || exit 1
	echo "step unet3d 7 2097152 10 30000000 (torch x)"
	echo "step resnet50 400 150528 10 110000000 (torch x)"
	echo "start 1 300000000 20000000"
	echo "start 2 400000000 22000000"
	echo "start 4 600000000 26000000"
	echo "start 8 1000000000 34000000"
	echo "gc 130000000 150000" ;;
esac
S
chmod +x "$fake/bin/python"
rm -f "$TIERSIM_HOST_FILE"
FAKE_CALLS=$work/calls "$tiersim" hosts measure --venv "$fake" --repeats 3 >"$work/out" 2>"$work/err" ||
	fail "hosts measure: $(cat "$work/err")"
# Each set read in a process of its own (as a probe reads its set), then
# the rest: per round 7 reads of one set each and one rest.
[ "$(grep -c '^read ' "$work/calls")" -eq 21 ] && [ "$(grep -c '^rest -$' "$work/calls")" -eq 3 ] &&
	[ "$(grep '^read ' "$work/calls" | sort | uniq -c | awk '$1 == 3' | wc -l)" -eq 7 ] &&
	! grep -q '^read -$' "$work/calls" || fail "hosts measure: not each set in a process of its own: $(cat "$work/calls")"
grep -q "^$TIERSIM_HOST_FILE: host \"this-machine\", $(nproc) vCPUs" "$work/out" ||
	fail "hosts measure: $(cat "$work/out")"
[ -z "$(mounts_under)" ] || fail "hosts measure left a mount"
ls -d "$work"/tiersim-measure-* 2>/dev/null && fail "hosts measure left its files"
"$tiersim" hosts --evidence >"$work/ev" || fail "hosts --evidence: the measured profile"
for f in dlio_sample_ns dlio_sample_ns_per_mib dlio_jpeg_ns_per_mpix dlio_request_ns \
	dlio_request_ns_per_mib dlio_request_daemon_ns dlio_request_daemon_ns_per_mib dlio_step_ns dlio_hdf5_sample_ns dlio_hdf5_sample_ns_per_mib \
	dlio_png_sample_ns dlio_png_sample_ns_per_mib dlio_loader_start_ns \
	dlio_loader_start_ns_per_worker dlio_loader_restart_ns dlio_loader_restart_ns_per_worker \
	dlio_worker_gc_ns vcpus; do
	grep -q "^this-machine *$f *measured .*tiersim hosts measure" "$work/ev" ||
		fail "$f: not measured by tiersim hosts measure: $(grep this-machine "$work/ev")"
done
# The workers' collection is the script's to the digit; the sample it
# comes with is DLIO's and Python's, as found in DLIO's own run.
grep -q '^this-machine *dlio_worker_gc_ns *measured *1.3e+08  tiersim' "$work/ev" ||
	fail "the workers' collection: $(grep 'this-machine.*dlio_worker_gc' "$work/ev")"
grep -q '^this-machine *dlio_worker_gc_samples *measured *463 .*dlio_worker_split' "$work/ev" ||
	fail "the collection's sample: $(grep 'this-machine.*dlio_worker_gc' "$work/ev")"
grep -q '^this-machine *dlio_worker_spread *measured *0.0093 .*dlio_rank_spread' "$work/ev" ||
	fail "the workers' spread: $(grep 'this-machine.*dlio_worker_spread' "$work/ev")"
# The step figures are the script's to the digit: 30 ms / 10 and 110 ms / 10.
grep -q '^this-machine *dlio_workload_step_ns\[unet3d\] *measured *3e+06  tiersim' "$work/ev" ||
	fail "unet3d's step: $(grep 'this-machine.*unet3d' "$work/ev")"
grep -q '^this-machine *dlio_workload_step_ns\[resnet50\] *measured *1.1e+07  tiersim' "$work/ev" ||
	fail "resnet50's step: $(grep 'this-machine.*resnet50' "$work/ev")"
# shellcheck disable=SC2086
"$tiersim" dlio resnet50_h100 $r50 --tier essd-pl1 --virtual --host this-machine \
	>/dev/null 2>"$work/err" || fail "--host this-machine, measured: $(cat "$work/err")"
grep -q "host this-machine: 11000.0 us per step (this workload's)" "$work/err" ||
	fail "--host this-machine: $(cat "$work/err")"
# The loader's start: the lines through the script's (1, 2, 4, 8 workers:
# 300, 400, 600, 1,000 ms forked, 20, 22, 26, 34 ms resumed) are 200 ms +
# 100 ms a worker and 18 ms + 2 ms a worker; resnet50 has 8 workers.
grep -q "host this-machine: the DataLoader's start, 1000.0 ms the first epoch (8 workers forked), 34.0 ms a later one" "$work/err" ||
	fail "--host this-machine, the loader's start: $(cat "$work/err")"

# Which host each run charged: its JSON says the costs (host_costs) and
# this-machine's file.
# shellcheck disable=SC2086
"$tiersim" dlio resnet50_h100 $r50 --tier essd-pl1 --virtual --host this-machine --quiet \
	--json "$work/tm.json" >/dev/null 2>"$work/err" || fail "--host this-machine --json: $(cat "$work/err")"
python3 - "$work/tm.json" "$TIERSIM_HOST_FILE" <<'PY' || fail "host_costs of this-machine's run: $(cat "$work/tm.json")"
import json, sys
j = json.load(open(sys.argv[1]))
c = j["host_costs"]
assert j["host"] == "this-machine" and c["file"] == sys.argv[2], (j["host"], c["file"])
assert c["step_us"] == 11000.0 and c["start_ms"] == 1000.0 and c["restart_ms"] == 34.0, c
assert c["wait_us"] == 0 and c["run_request_us"] == 0, c  # not measured, not carried
PY

# Carried from a host (--from): what is not measured comes from it, each
# cost over the speed, which is that host's npz line at the small sample's
# size over this measurement's (one round: the written line's); but
# dlio_run_request_ns is written as that host's, not over the speed.
"$tiersim" hosts measure --venv "$fake" --repeats 1 --from epyc-kvm-2vcpu >"$work/out" \
	2>"$work/err" || fail "hosts measure --from: $(cat "$work/err")"
grep -q "carried from     epyc-kvm-2vcpu at speed" "$work/out" || fail "hosts measure --from: $(cat "$work/out")"
"$tiersim" hosts --evidence >"$work/ev" || fail "hosts --evidence: the carried profile"
grep -q '^this-machine *speed *measured .*epyc-kvm-2vcpu.s DLIO npz work per sample at 114244 B' "$work/ev" ||
	fail "--from: the speed: $(grep '^this-machine *speed' "$work/ev")"
# shellcheck disable=SC2086
"$tiersim" dlio resnet50_h100 $r50 --tier essd-pl1 --virtual --host this-machine --quiet \
	--json "$work/tm.json" >/dev/null 2>"$work/err" || fail "--host this-machine, carried: $(cat "$work/err")"
python3 - "$work/tm.json" "$TIERSIM_HOST_FILE" <<'PY' || fail "--from: the carried costs: $(cat "$work/tm.json")"
import json, re, sys
c = json.load(open(sys.argv[1]))["host_costs"]
t = open(sys.argv[2]).read()
num = lambda k: float(re.search(r"\b%s = \{ ([0-9.e+-]+)," % k, t).group(1))
mib = 114244 / 1048576
# epyc-kvm-2vcpu's (pipeline/hosts.lua): its npz line, its wait and its run's per request
base = 905261 + 1124400 * mib
speed = num("speed")
want = base / (num("dlio_sample_ns") + num("dlio_sample_ns_per_mib") * mib)
assert abs(speed - want) <= 1e-4 * want + 5e-5, (speed, want)
assert abs(c["wait_us"] - 74.2 / speed) <= 1e-3, (c["wait_us"], 74.2 / speed)
# DLIO's run's daemon per request: the host's as it is (not over the speed)
assert c["run_request_us"] == 13.228, c["run_request_us"]
assert c["step_us"] == 11000.0, c  # measured here: not carried
PY
# A host that is not one: one line, nothing measured.
"$tiersim" hosts measure --venv "$fake" --from no-such-host >/dev/null 2>"$work/err" &&
	fail "--from no-such-host measured"
[ "$(wc -l <"$work/err")" -eq 1 ] && grep -q "host 'no-such-host' is not a host profile" "$work/err" ||
	fail "--from no-such-host: $(cat "$work/err")"

# A probe: one set alone (the script is asked for it), DLIO's workers per
# sample (the script's 1e9 ns over 400 files) less tiersim's chain of the
# same requests, measured for real; nothing else measured, no profile
# written, nothing left mounted or on disk.
cp "$TIERSIM_HOST_FILE" "$work/before-probe.lua"
"$tiersim" hosts measure --venv "$fake" --probe jpeg --repeats 2 --quiet >"$work/out" 2>"$work/err" ||
	fail "hosts measure --probe: $(cat "$work/err")"
[ "$(wc -l <"$work/out")" -eq 1 ] || fail "--probe: not one line: $(cat "$work/out")"
python3 - "$work/out" <<'PY' || fail "--probe: $(cat "$work/out")"
import re, sys
m = re.fullmatch(r"probe jpeg: DLIO own ([0-9.]+) us \[([0-9.]+)\.\.([0-9.]+)\] a sample of 65426 B "
                 r"\(DLIO's workers 2500\.0 us, tiersim's chain ([0-9.]+) us\), 2 round\(s\) on nvme-local\n",
                 open(sys.argv[1]).read())
own, low, high, chain = map(float, m.groups())
assert 0 < chain < 2500 and low <= own <= high, m.groups()
# two rounds: the median is their mean, each round DLIO's 2500 us less its chain
assert abs(own - (2500 - chain)) <= 0.1 and abs((low + high) / 2 - own) <= 0.1, m.groups()
PY
cmp -s "$TIERSIM_HOST_FILE" "$work/before-probe.lua" || fail "--probe wrote a profile"
[ -z "$(mounts_under)" ] || fail "hosts measure --probe left a mount"
ls -d "$work"/tiersim-measure-* 2>/dev/null && fail "hosts measure --probe left its files"
# --chain-readers: the chains of a set read by N processes at once (1: one
# at a time), a number the option table knows by name; out of 0..64 one line.
"$tiersim" hosts measure --venv "$fake" --probe jpeg --repeats 1 --chain-readers 1 --quiet \
	>"$work/out" 2>"$work/err" || fail "--chain-readers 1: $(cat "$work/err")"
grep -q "^probe jpeg: DLIO own .*, 1 round(s) on nvme-local$" "$work/out" ||
	fail "--chain-readers 1: $(cat "$work/out")"
"$tiersim" hosts measure --venv "$fake" --probe jpeg --chain-readers 65 >/dev/null 2>"$work/err" &&
	fail "--chain-readers 65 measured"
[ "$(wc -l <"$work/err")" -eq 1 ] && grep -q -- "--chain-readers 65: expected 0 to 64" "$work/err" ||
	fail "--chain-readers 65: $(cat "$work/err")"
# A set that is not one, a profile asked of a probe: one line each.
"$tiersim" hosts measure --venv "$fake" --probe npz >/dev/null 2>"$work/err" && fail "--probe npz measured"
[ "$(wc -l <"$work/err")" -eq 1 ] && grep -q -- "--probe npz: not a set (npz-s, npz-l, jpeg" "$work/err" ||
	fail "--probe npz: $(cat "$work/err")"
"$tiersim" hosts measure --venv "$fake" --probe jpeg --out "$work/p.lua" >/dev/null 2>"$work/err" &&
	fail "--probe --out measured"
[ "$(wc -l <"$work/err")" -eq 1 ] && grep -q -- "--probe writes no profile: drop --out" "$work/err" ||
	fail "--probe --out: $(cat "$work/err")"
"$tiersim" hosts measure --venv "$fake" --probe jpeg --from epyc-kvm-2vcpu >/dev/null 2>"$work/err" &&
	fail "--probe --from measured"
[ "$(wc -l <"$work/err")" -eq 1 ] && grep -q -- "--probe writes no profile: --from" "$work/err" ||
	fail "--probe --from: $(cat "$work/err")"

# A venv without python, and one whose script fails: one line each.
"$tiersim" hosts measure --venv "$work/none" >/dev/null 2>"$work/err" && fail "no venv measured"
[ "$(wc -l <"$work/err")" -eq 1 ] && grep -q "venv $work/none: no bin/python" "$work/err" ||
	fail "no venv: $(cat "$work/err")"
FAKE_FAIL=1 "$tiersim" hosts measure --venv "$fake" --quiet >/dev/null 2>"$work/err" &&
	fail "a failing script measured"
[ "$(wc -l <"$work/err")" -eq 1 ] && grep -q "read failed .*Traceback: no dlio_benchmark" "$work/err" ||
	fail "failing script: $(cat "$work/err")"
[ -z "$(mounts_under)" ] || fail "a failed measurement left a mount"

# A stop (kill(1) to tiersim alone) while the script reads through the
# mount: the script is ended and waited for, then the mount and the files
# go (the folder keeps the script's log, as a failure's does), and one
# line says so.
FAKE_HANG=$work/py.pid "$tiersim" hosts measure --venv "$fake" --quiet >/dev/null 2>"$work/err" &
bg=$!
for _ in $(seq 300); do [ -s "$work/py.pid" ] && break; sleep 0.1; done
[ -s "$work/py.pid" ] || fail "the script never read: $(cat "$work/err")"
kill -TERM "$bg"
wait "$bg"
rc=$?
py=$(cat "$work/py.pid")
if kill -0 "$py" 2>/dev/null; then
	kill "$py"
	fail "stopped measurement left its script running (exit $rc: $(cat "$work/err"))"
fi
[ "$rc" -eq 130 ] && [ "$(wc -l <"$work/err")" -eq 1 ] && grep -q "interrupted" "$work/err" ||
	fail "stopped measurement: exit $rc: $(cat "$work/err")"
[ -z "$(mounts_under)" ] || fail "a stopped measurement left a mount"
ls -d "$work"/tiersim-measure-*/data 2>/dev/null && fail "a stopped measurement left its files"
exit 0
