#!/usr/bin/env bash
# test_interrupt_jobs.sh — one interrupt path (core/interrupt.h): SIGINT in
# the middle of a scenario's dlio{} (either DLIO loader), of `tiersim record`, of
# `tiersim compare` in real time and of `tiersim validate --real` ends with
# exit 130 and leaves nothing mounted and no daemon running. (dlio{} used to install a handler of its
# own over the runner's and end with 1.)
. "$(dirname "$0")/lib.sh"
"$tiersim" --help | grep -q '^  dlio ' || { echo "tiersim was built without dlio"; exit 77; }

# dlio{} in real time, long enough to be stepping when the signal comes
# (100 epochs of 0.5 s steps).
cat >"$work/dlio.lua" <<'L'
dlio{ workload = "resnet50_h100", tier = "essd-pl1", accelerators = 1,
	overrides = { "dataset.num_files_train=12", "dataset.num_samples_per_file=20",
		"dataset.record_length=50000", "reader.batch_size=10",
		"reader.transfer_size=16384", "train.computation_time=0.5", "train.epochs=100" } }
L
"$tiersim" run "$work/dlio.lua" --quiet >/dev/null 2>"$work/err" &
bg=$!
stop_mounted "dlio{}"
grep -q "interrupted" "$work/err" || fail "dlio{}: the stop is not said: $(cat "$work/err")"
# The same with DLIO's PyTorch loader (unet3d: npz files, two ranks taking
# their batches under a barrier).
cat >"$work/dlio_torch.lua" <<'L'
dlio{ workload = "unet3d_h100", tier = "essd-pl1", accelerators = 2,
	overrides = { "dataset.num_files_train=16", "dataset.record_length_bytes=50000",
		"dataset.record_length_bytes_stdev=0", "reader.batch_size=2",
		"train.computation_time=0.5", "train.epochs=100" } }
L
"$tiersim" run "$work/dlio_torch.lua" --quiet >/dev/null 2>"$work/err" &
bg=$!
stop_mounted "dlio{} (PyTorch loader)"
grep -q "interrupted" "$work/err" || fail "dlio{} (PyTorch loader): the stop is not said: $(cat "$work/err")"

# record: the command runs on the mount until the signal (sent to tiersim
# alone, which passes it on to the command).
mkdir -p "$work/rec"
echo data >"$work/rec/f"
TMPDIR=$work "$tiersim" record --data "$work/rec" --tier ssd-cloud --out "$work/r.trace" \
	--no-wakes -- sleep 100 >/dev/null 2>"$work/err" &
bg=$!
stop_mounted "record"

# compare in real time: a scenario on two tiers, stopped in its first.
"$tiersim" compare "$here/small.lua" --tiers ssd-cloud,ultra-cloud iterations=100000000 \
	--quiet >/dev/null 2>"$work/err" &
bg=$!
stop_mounted "compare"

# validate --real: a disk case's fio on its tierfs mount (under TMPDIR),
# stopped while fio runs; the signal goes to tiersim alone, which passes it
# on to fio.
if command -v fio >/dev/null; then
	TMPDIR=$work "$tiersim" validate --real --real-runtime 60s ebs-gp2-8g-randwrite-4k-qd4 \
		>/dev/null 2>"$work/err" &
	bg=$!
	stop_mounted "validate --real"
	grep -q "interrupted" "$work/err" || fail "validate --real: the stop is not said: $(cat "$work/err")"
	ls -d "$work"/tiersim-validate.* >/dev/null 2>&1 && fail "validate --real: its scratch folder is left"
else
	echo "no fio: validate --real not checked"
fi
exit 0
