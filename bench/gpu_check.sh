#!/bin/bash
# bench/gpu_check.sh — every engine check that needs a GPU, in one run that
# finishes well inside 8 minutes on one data-center GPU:
#   1. builds the CUDA parts (kernels/, the cuda engine backend, test_gpu);
#   2. checks each kernel (preprocessing, SGD momentum, fill) against its CPU
#      reference;
#   3. checks every convolution / fully connected output of the CIFAR-10
#      network, AlexNet and GoogLeNet against a CPU reference;
#   4. times ResNet-50 training (FP32) at batch 64 and 128 with CUDA events
#      and writes the figures as a sim profile, then reads it back through
#      the sim backend;
#   5. if the tiersim program links, runs `tiersim calibrate engine --gpu`
#      too while time remains.
# Usage: bench/gpu_check.sh [OUTDIR]   (default $OUT, else /tmp/tiersim-gpu-check)
# Everything it prints also lands in OUTDIR; exit 0 = all checks passed.
set -u
cd "$(dirname "$0")/.."
out=${1:-${OUT:-/tmp/tiersim-gpu-check}}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
export TIERSIM_DATADIR=$PWD
b=build-gpu
start=$(date +%s)
elapsed() { echo $(( $(date +%s) - start )); }
log() { echo "[$(elapsed) s] $*" | tee -a "$out/summary.txt"; }

{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1 || true; } \
	> "$out/gpu.txt"
log "GPU: $(tail -n +2 "$out/gpu.txt" | head -1)"

if ! meson setup "$b" -Dcuda=enabled --buildtype=release > "$out/setup.log" 2>&1 &&
   ! meson setup --reconfigure "$b" -Dcuda=enabled --buildtype=release > "$out/setup.log" 2>&1; then
	log "FAIL: meson setup (see $out/setup.log)"; tail -20 "$out/setup.log"; exit 1
fi
if ! ninja -C "$b" tests/engine/test_gpu tests/engine/test_engine > "$out/build.log" 2>&1; then
	log "FAIL: build (see $out/build.log)"; tail -30 "$out/build.log"; exit 1
fi
log "built kernels, cuda backend and tests"

"$b/tests/engine/test_engine" > "$out/test_engine.log" 2>&1
rc_sim=$?
log "sim/core tests (test_engine): exit $rc_sim"

timeout 360 "$b/tests/engine/test_gpu" --full --calibrate "$out/engine-calibration.lua" \
	2>&1 | tee "$out/test_gpu.log"
rc_gpu=${PIPESTATUS[0]}
log "GPU checks and calibration (test_gpu --full --calibrate): exit $rc_gpu"
if [ "$rc_gpu" -eq 77 ]; then
	log "SKIP: no usable GPU here; nothing measured"; exit 77
fi

if [ "$(elapsed)" -lt 300 ] && timeout 60 ninja -C "$b" cli/tiersim > "$out/build-tiersim.log" 2>&1; then
	timeout 120 "$b/cli/tiersim" calibrate engine --gpu --steps 10 \
		--out "$out/engine-calibration-cli.lua" 2>&1 | tee "$out/tiersim-calibrate.log"
	log "tiersim calibrate engine --gpu: exit ${PIPESTATUS[0]}"
else
	log "tiersim calibrate engine: skipped (tiersim did not build or no time left)"
fi
log "done"
[ "$rc_sim" -eq 0 ] && [ "$rc_gpu" -eq 0 ]
