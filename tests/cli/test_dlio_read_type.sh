#!/usr/bin/env bash
# test_dlio_read_type.sh — reader.read_type as DLIO 2.0.0 runs it: given
# (memory, or on_demand: config.py stores the string and reader_handler.py
# compares it with ReadType.ON_DEMAND by identity), each PyTorch worker
# keeps every file it read open for the run, so an unshuffled second
# epoch, whose batches go to the same workers, makes no request; in both
# clocks (real time counts the system calls its workers make through the
# tierfs mount). Not given, each sample opens its file. A value DLIO does
# not know, and read_type under DALI's loader, are refused in one line
# naming the key; under TensorFlow's it has no effect (DLIO's iterator
# readers ignore it).
. "$(dirname "$0")/lib.sh"
"$tiersim" --help | grep -q '^  dlio ' || { echo "tiersim was built without dlio"; exit 77; }
w="++workload.dataset.num_files_train=24 ++workload.dataset.record_length_bytes=100000
 ++workload.dataset.record_length_bytes_stdev=0 ++workload.reader.batch_size=2
 ++workload.reader.read_threads=2 ++workload.reader.file_shuffle=off
 ++workload.reader.sample_shuffle=off ++workload.train.computation_time=0.002
 ++workload.train.epochs=2"
# run NAME CLOCK-FLAGS [OVERRIDE]: unet3d_h100 (npz, PyTorch) scaled down, its JSON as NAME.json
run() {
	local name=$1 flags=$2
	shift 2
	# shellcheck disable=SC2086
	"$tiersim" dlio unet3d_h100 $w "$@" --tier ssd-cloud $flags --quiet \
		--json "$work/$name.json" >/dev/null 2>"$work/err" || fail "$name: $(cat "$work/err")"
}
run v "--virtual"
run vm "--virtual" ++workload.reader.read_type=memory
run vo "--virtual" ++workload.reader.read_type=on_demand
run r "--dir $work/d"
run rm "--dir $work/d" ++workload.reader.read_type=memory
/usr/bin/python3 - "$work" <<'PY' || fail "read_type"
import json, sys
r = {n: json.load(open("%s/%s.json" % (sys.argv[1], n)))["runs"][0] for n in ("v", "vm", "vo", "r", "rm")}
for n in r:
    assert r[n]["epochs"] == 2 and r[n]["read_requests"] > 0, (n, r[n])
# kept open: epoch 1 reads as before, epoch 2 nothing
for a, b in (("v", "vm"), ("r", "rm")):
    assert r[b]["read_requests"] * 2 == r[a]["read_requests"], (a, r[a], b, r[b])
    assert r[b]["read_bytes"] * 2 == r[a]["read_bytes"], (a, r[a], b, r[b])
# on_demand given is memory in DLIO 2.0.0
assert r["vo"]["read_requests"] == r["vm"]["read_requests"] and r["vo"]["au"] == r["vm"]["au"]
# both clocks issue the same requests
assert r["r"]["read_requests"] == r["v"]["read_requests"], (r["r"], r["v"])
assert r["rm"]["read_requests"] == r["vm"]["read_requests"], (r["rm"], r["vm"])
# epoch 2 waits for no storage: the run is faster and AU higher
assert r["vm"]["au"] > r["v"]["au"] and r["vm"]["samples_per_s"] > r["v"]["samples_per_s"]
PY
expect_dlio 2 "reader.read_type 'memroy': DLIO's are memory and on_demand" unet3d_h100 \
	++workload.reader.read_type=memroy --tier ssd-cloud --virtual
printf 'dataset:\n  format: npz\n  num_files_train: 8\nreader:\n  data_loader: dali\n  read_type: memory\n' \
	>"$work/dali.yaml"
expect_dlio 2 "dali.yaml: reader.read_type memory: DLIO 2.0.0's DALI loader" "$work/dali.yaml" \
	--tier ssd-cloud --virtual
# TensorFlow: no effect
tfw="++workload.dataset.num_files_train=8 ++workload.dataset.num_samples_per_file=20 ++workload.reader.batch_size=10 ++workload.train.epochs=2"
for rt in "" ++workload.reader.read_type=memory; do
	# shellcheck disable=SC2086
	"$tiersim" dlio resnet50_h100 $tfw $rt --tier ssd-cloud --virtual --quiet \
		--json "$work/tf${rt:+m}.json" >/dev/null 2>"$work/err" || fail "tf $rt: $(cat "$work/err")"
done
/usr/bin/python3 - "$work/tf.json" "$work/tfm.json" <<'PY' || fail "read_type moved TensorFlow's run"
import json, sys
a, b = (json.load(open(p))["runs"][0] for p in sys.argv[1:])
for k in ("au", "samples_per_s", "read_requests", "read_bytes"):
    assert a[k] == b[k], (k, a, b)
PY
exit 0
