#!/usr/bin/env bash
# test_dlio_tf_cores.sh — DLIO 2.0.0's TensorFlow loader on a host's cores,
# in virtual time, where its figures are exact (workloads/dlio_loader.c):
# read_threads readers whose requests' CPU waits for a core; the parse of
# each batch and each step's CPU under the rank's one Python lock. On a
# tier that costs nothing every figure follows from the CPU alone:
#  - readers' requests, q each, one record a request: a batch is read in
#    B q / min(R, vcpus) (the readers take the records in turn), so two
#    readers on one vCPU read as one; AU = ct / that, samples/s = n B /
#    (n that + ct) for an epoch of n steps;
#  - parse P = B x sample_ns and step s share the lock whatever the cores
#    (ct < P): the first step's CPU waits for the second batch's parse (asked
#    first), its compute ends at 2P + s + ct; then a step every P + s, each
#    step's CPU after the next batch's parse, but the last, which has none
#    to wait for: the epoch lasts nP + ns + 2ct, AU = (n - 1) ct / that
#    less the first step, samples/s = n B / that.
. "$(dirname "$0")/lib.sh"
"$tiersim" --help | grep -q '^  dlio ' || { echo "tiersim was built without dlio"; exit 77; }
export TIERSIM_HOST_FILE=$work/this-machine.lua
tf="++workload.dataset.num_files_train=24 ++workload.dataset.num_samples_per_file=1
 ++workload.dataset.record_length=4096 ++workload.dataset.record_length_stdev=0
 ++workload.reader.batch_size=4 ++workload.reader.prefetch_size=1
 ++workload.reader.computation_threads=1 ++workload.train.epochs=2"
# run FIELDS READERS CT: the JSON's first run, against a profile of FIELDS
run() {
	printf 'host "this-machine" { cpu = "test", %s }\n' "$1" >"$TIERSIM_HOST_FILE"
	# shellcheck disable=SC2086
	"$tiersim" dlio cosmoflow_h100 $tf ++workload.reader.read_threads="$2" \
		++workload.train.computation_time="$3" --tier unlimited --virtual --host this-machine \
		--json "$work/r.json" >/dev/null 2>"$work/err" || fail "$1 R=$2: $(cat "$work/err")"
	grep -q "steps on [0-9]* vCPU" "$work/err" || fail "$1: not on the host's cores: $(cat "$work/err")"
}
# check AU SAMPLES_PER_S
check() {
	python3 - "$work/r.json" "$1" "$2" <<'PY' || fail "$(cat "$work/r.json")"
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
au, sps = float(sys.argv[2]), float(sys.argv[3])
assert r["steps_per_epoch"] == 6, r
assert abs(r["au"] / au - 1) < 1e-6 and abs(r["samples_per_s"] / sps - 1) < 1e-5, (r, au, sps)
PY
}
n=6 B=4 q=0.002 ct=0.001
for c in "1 1 1" "2 1 1" "1 2 1" "2 2 2" "4 2 2"; do
	set -- $c # vcpus readers parallel-readers
	run "dlio_request_ns = { 2000000, \"measured\", \"t\" }, vcpus = { $1, \"measured\", \"t\" }" "$2" $ct
	check "$(python3 -c "print($ct / ($B * $q / $3))")" \
		"$(python3 -c "print($n * $B / ($n * $B * $q / $3 + $ct))")"
done
P=0.004 s=0.003 ct=0.002
for v in 1 2 4; do
	run "dlio_sample_ns = { 1000000, \"measured\", \"t\" }, dlio_step_ns = { 3000000, \"measured\", \"t\" }, vcpus = { $v, \"measured\", \"t\" }" 1 $ct
	check "$(python3 -c "E = $n * ($P + $s) + 2 * $ct; print(($n - 1) * $ct / (E - (2 * $P + $s + $ct)))")" \
		"$(python3 -c "print($n * $B / ($n * ($P + $s) + 2 * $ct))")"
done
exit 0
