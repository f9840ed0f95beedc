#!/usr/bin/env bash
# test_cuda_module.sh — the CUDA libraries are mapped only when the cuda
# backend runs (engine/cuda.h): neither `tiersim --version` nor a virtual
# run loads libcudart, cuDNN or cuBLAS (the dynamic loader's own record,
# LD_DEBUG=files, names every object it maps); in a build with the cuda
# backend, asking for it loads the module, and a missing or broken module
# is refused in one line naming the file.
set -u
build=${TS_BUILD_ROOT:?run through meson test}
tiersim=$build/cli/tiersim
work=$(mktemp -d /tmp/tiersim-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# cuda_loaded ARGS...: whether tiersim ARGS maps a CUDA library (any status)
cuda_loaded() {
	LD_DEBUG=files LD_DEBUG_OUTPUT=$work/ld "$tiersim" "$@" >"$work/out" 2>"$work/err"
	grep -qE 'file=lib(cudart|cudnn|cublas)' "$work"/ld.* 2>/dev/null
	local found=$?
	rm -f "$work"/ld.*
	return $found
}
# one_line PATTERN ARGS...: non-zero exit, one stderr line matching PATTERN
one_line() {
	local pat=$1
	shift
	"$tiersim" "$@" >"$work/out" 2>"$work/err" && fail "$*: succeeded"
	[ "$(wc -l <"$work/err")" -eq 1 ] || { cat "$work/err" >&2; fail "$*: not one line"; }
	grep -q -- "$pat" "$work/err" || { cat "$work/err" >&2; fail "$*: no '$pat'"; }
}

cuda_loaded --version && fail "tiersim --version maps a CUDA library"
run=(dlio resnet50_h100 ++workload.dataset.num_files_train=64 ++workload.train.epochs=1
	++workload.reader.batch_size=4 --tier nvme-local --virtual --quiet)
cuda_loaded "${run[@]}" && fail "a virtual run maps a CUDA library"
grep -q "AU [0-9.]*%" "$work/out" || fail "the virtual run: no AU in '$(cat "$work/out")'"

if ! "$tiersim" --version | grep -q "cuda backend built"; then
	echo "no cuda backend in this build: the module checks skip"
	exit 0
fi
# Asked for, the backend loads its module (which maps the CUDA runtime):
# it either runs (a GPU) or says in one line that there is none.
cal=(calibrate engine --gpu --batches 1 --steps 1 --warmup 0 --out "$work/cal.lua")
cuda_loaded "${cal[@]}" || fail "calibrate engine --gpu did not map the CUDA runtime: $(cat "$work/err")"
if [ ! -s "$work/cal.lua" ]; then
	[ "$(wc -l <"$work/err")" -eq 1 ] && grep -q "no CUDA GPU" "$work/err" ||
		fail "calibrate engine --gpu without a GPU: '$(cat "$work/err")'"
fi
# A missing or broken module: one line naming the file.
TIERSIM_CUDA_MODULE=$work/none.so one_line "$work/none.so" calibrate engine --gpu
echo "not a module" >"$work/bad.so"
TIERSIM_CUDA_MODULE=$work/bad.so one_line "cannot load $work/bad.so" calibrate engine --gpu
# A name without a '/' is a file in the working directory, not a library
# to look up on the loader's path.
(cd "$work" && TIERSIM_CUDA_MODULE=bad.so one_line "cannot load ./bad.so" calibrate engine --gpu) || exit 1
# The program alone, without the module beside it or under ../engine.
mkdir -p "$work/bin" && cp "$tiersim" "$work/bin/tiersim"
tiersim=$work/bin/tiersim
one_line "$work/bin/tiersim-cuda.so" calibrate engine --gpu
exit 0
