#!/bin/bash
# bench/gpu_device.sh — bench/gpu_check.sh's checks on a GPU machine that
# cannot build tiersim (no Lua, jansson, FUSE ... development files there),
# from binaries built on a machine that can, plus PyTorch's own ResNet-50
# step times on the same GPU (bench/torch_resnet50.py).
#
#   bench/gpu_device.sh pack BUILD DIR
#       here: copies BUILD's test_gpu, tiersim and tiersim-cuda.so, the
#       shared libraries they need that are neither glibc, the C++ runtime
#       nor CUDA's (ldd), ts_config.h and a tarball of the source tree (for
#       the fallback module build) into DIR. BUILD: `meson setup BUILD
#       -Dcuda=enabled --buildtype=release` then
#       `ninja -C BUILD tests/engine/test_gpu cli/tiersim engine/tiersim-cuda.so`.
#   bench/gpu_device.sh run DIR OUT
#       there, from the unpacked source tree: in this order, so that a later
#       failure still leaves the earlier figures,
#         1. nvidia-smi, nvcc, python3's torch/cuDNN versions; a clock and
#            power trace every 5 s for the whole run (smi.csv);
#         2. bench/torch_resnet50.py (train fp32/tf32/bf16 at 64/128/256
#            and bf16 NHWC at 256,
#            inference fp32/bf16 at 256; 3 interleaved rounds);
#         3. the carried module's libraries (ldd); if one is missing, the
#            module is built there with nvcc and gcc against the CUDA
#            runtime, cuBLAS and cuDNN that PyTorch's pip packages carry
#            (also when the carried one does not load, or when
#            TS_GPU_BUILD_MODULE=1);
#         4. test_gpu --full --calibrate: kernels against their CPU
#            references, CIFAR-10/AlexNet/GoogLeNet conv and fc outputs
#            against a CPU reference, the backend's contract, ResNet-50
#            FP32 training at batch 64 and 128 written as a sim profile;
#         5. `tiersim calibrate engine --gpu` in FP32 and TF32 at batches
#            64, 128 and 256, rounds interleaved while time remains.
#       TS_GPU_TORCH_ARGS replaces step 2's arguments (a shorter run);
#       TS_GPU_CALIB_ROUNDS (default 3) sets step 5's rounds, 0 for none.
#       OUT gets at most 8 files: summary.txt, smi.csv, torch.log,
#       torch.json, test_gpu.log, engine.log, engine-calibration.lua,
#       calib.tar. Exit 0 when every check passed.
#   bench/gpu_device.sh variants DIR OUT
#       there: `test_gpu --variants "$TS_GPU_VARIANTS"` (engine/cuda.c's
#       TIERSIM_CUDA_OPTS, ';' between): the layer checks and the backend
#       smoke under each, ResNet-50 training at batch 128 in FP32 and TF32,
#       3 rounds interleaved, the step's time by kind of layer; then, while
#       time remains, PyTorch at batch 128 in FP32 and TF32 (3 rounds).
#       OUT: summary.txt, variants.log, torch.log, torch.json, smi.csv.
set -u
cmd=${1:-}
case "$cmd" in
pack)
	[ $# -eq 3 ] || { echo "usage: bench/gpu_device.sh pack BUILD DIR" >&2; exit 2; }
	build=$2 dir=$3
	src=$(cd "$(dirname "$0")/.." && pwd)
	for f in tests/engine/test_gpu cli/tiersim engine/tiersim-cuda.so ts_config.h; do
		[ -e "$build/$f" ] || { echo "gpu_device.sh pack: $build/$f is missing: build it first" >&2; exit 1; }
	done
	rm -rf "$dir" && mkdir -p "$dir/bin" "$dir/lib" || exit 1
	cp "$build/tests/engine/test_gpu" "$build/cli/tiersim" "$build/engine/tiersim-cuda.so" \
		"$build/ts_config.h" "$dir/bin/" || exit 1
	# glibc, the C++ runtime and CUDA's libraries are the device's own
	skip='^(linux-vdso|ld-linux|libc\.|libm\.|libdl\.|libpthread\.|librt\.|libresolv\.|libstdc\+\+|libgcc_s|libcuda|libcudart|libcublas|libcudnn|libnvrtc|libnvJitLink)'
	ldd "$dir"/bin/test_gpu "$dir"/bin/tiersim "$dir"/bin/tiersim-cuda.so |
		awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' | sort -u |
		while read -r name path; do
			[[ $name =~ $skip ]] || cp -L "$path" "$dir/lib/$name" || exit 1
		done || exit 1
	# the tree as committed (the fallback build and the data files)
	git -C "$src" archive --format=tar.gz -o "$dir/tree.tar.gz" HEAD || exit 1
	du -sh "$dir"; ls "$dir/lib"
	exit 0
	;;
run|variants)
	[ $# -eq 3 ] || { echo "usage: bench/gpu_device.sh $cmd DIR OUT" >&2; exit 2; }
	;;
*)
	echo "usage: bench/gpu_device.sh pack BUILD DIR | run DIR OUT | variants DIR OUT" >&2; exit 2
	;;
esac

carry=$(cd "$2" && pwd) out=$3
cd "$(dirname "$0")/.." || exit 1
mkdir -p "$out" || exit 1
export TIERSIM_DATADIR=$PWD PYTHONUNBUFFERED=1
export PATH=/usr/local/cuda/bin:$PATH
start=$(date +%s)
elapsed() { echo $(( $(date +%s) - start )); }
log() { echo "[$(elapsed) s] $*" | tee -a "$out/summary.txt"; }
fails=0
tmp=$(mktemp -d) || exit 1

# 1. the machine
{
	nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem,power.limit,compute_cap --format=csv
	nvidia-smi
	nvcc --version | tail -2
	python3 -c 'import torch, torchvision; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(), "torchvision", torchvision.__version__)'
	python3 -m pip list 2>/dev/null | grep -i -E '^(nvidia-(cudnn|cublas|cuda-runtime)|torch|meson|ninja) '
	uname -r; ldd --version | head -1; nproc
} >> "$out/summary.txt" 2>&1
log "GPU: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -1)"
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,utilization.gpu,memory.used \
	--format=csv -l 5 > "$out/smi.csv" 2>&1 &
smi_pid=$!
trap 'kill $smi_pid 2>/dev/null; rm -rf "$tmp"' EXIT

if [ "$cmd" = variants ]; then
	site=$(python3 -c 'import nvidia, os; print(os.path.dirname(nvidia.__path__[0]))' 2>/dev/null)
	libs=$(find "$site/nvidia" -name 'lib*.so*' -printf '%h\n' 2>/dev/null | sort -u | paste -sd:)
	export LD_LIBRARY_PATH=$carry/lib:$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export TIERSIM_CUDA_MODULE=$carry/bin/tiersim-cuda.so
	timeout "${TS_GPU_VARIANTS_TIMEOUT:-215}" "$carry/bin/test_gpu" \
		--variants "${TS_GPU_VARIANTS:?TS_GPU_VARIANTS names the variants}" \
		--batch 128 --rounds 3 --steps 8 > "$out/variants.log" 2>&1
	rc=$?
	log "test_gpu --variants: exit $rc"
	grep -E '^(result|cuda profile|==)|FAIL|fail' "$out/variants.log" | tee -a "$out/summary.txt"
	left=$(( ${TS_GPU_BUDGET:-255} - $(elapsed) ))
	if [ $left -gt 45 ]; then
		timeout $left python3 bench/torch_resnet50.py --rounds 3 --steps 10 --warmup 3 \
			--batches 128 --precisions fp32,tf32 --infer "" --nhwc "" \
			--json "$out/torch.json" > "$out/torch.log" 2>&1
		log "bench/torch_resnet50.py b128: exit $?"
		sed -n '/^row /,$p' "$out/torch.log" | tee -a "$out/summary.txt"
	else
		log "bench/torch_resnet50.py skipped: $left s left"
	fi
	exit $rc
fi

# 2. PyTorch's own step times
read -r -a targs <<< "${TS_GPU_TORCH_ARGS:---rounds 3 --steps 10 --warmup 3}"
timeout 200 python3 bench/torch_resnet50.py "${targs[@]}" --json "$out/torch.json" \
	> "$out/torch.log" 2>&1
rc=$?
log "bench/torch_resnet50.py: exit $rc"
sed -n '/^row /,$p' "$out/torch.log" | tee -a "$out/summary.txt"
[ $rc -eq 0 ] || { fails=$((fails + 1)); tail -5 "$out/torch.log"; }

# 3. the libraries: the pip packages' CUDA, the carried rest
site=$(python3 -c 'import nvidia, os; print(os.path.dirname(nvidia.__path__[0]))' 2>/dev/null)
libs=$(find "$site/nvidia" -name 'lib*.so*' -printf '%h\n' 2>/dev/null | sort -u | paste -sd:)
for d in /usr/local/cuda/lib64 /usr/local/nvidia/lib64; do
	[ -d "$d" ] && libs=$libs:$d
done
export LD_LIBRARY_PATH=$carry/lib:$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export TIERSIM_CUDA_MODULE=$carry/bin/tiersim-cuda.so
bin=$carry/bin
{
	echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
	ldd "$bin/test_gpu" "$bin/tiersim" "$bin/tiersim-cuda.so"
} > "$out/engine.log" 2>&1
if grep -q "not found" "$out/engine.log"; then
	log "carried binaries: missing libraries: $(grep 'not found' "$out/engine.log" | sort -u | tr -s ' \t' ' ' | paste -sd,)"
fi
# the module built here: nvcc for kernels/, gcc for the backend, against
# the headers and libraries of PyTorch's pip packages
build_module() {
	local inc libdirs ver rc
	inc=$(find "$site/nvidia" -maxdepth 3 -name include -type d -printf '-I%p ' 2>/dev/null)
	libdirs=$(echo "$libs" | tr ':' '\n' | sed '/^$/d; s/^/-L/' | paste -sd' ')
	ver=$(sed -n "s/^ *version *: *'\([^']*\)'.*/\1/p" meson.build | head -1)
	mkdir -p "$tmp/mod" && cp "$bin/ts_config.h" $tmp/mod/ || return 1
	{
		nvcc -O3 -std=c++17 -Xcompiler -fPIC -gencode arch=compute_90,code=sm_90 \
			-I. $inc -c kernels/kernels.cu -o $tmp/mod/kernels.o &&
		gcc -O2 -std=gnu11 -D_GNU_SOURCE -DTS_VERSION="\"$ver\"" -shared -fPIC \
			-fvisibility=hidden -I$tmp/mod -I. -I/usr/local/cuda/include $inc \
			engine/cuda.c engine/netdef.c kernels/ref.c $tmp/mod/kernels.o \
			-o $tmp/mod/tiersim-cuda.so $libdirs -lcudnn -lcublas -lcudart -lstdc++ -lm
	} >> "$out/engine.log" 2>&1
	rc=$?
	log "module built here with nvcc and gcc: exit $rc"
	[ $rc -eq 0 ] && export TIERSIM_CUDA_MODULE=$tmp/mod/tiersim-cuda.so
	return $rc
}
built=0
# TS_GPU_BUILD_MODULE=1 builds it even when the carried one links
if [ "${TS_GPU_BUILD_MODULE:-0}" = 1 ] || ldd "$bin/tiersim-cuda.so" 2>&1 | grep -q "not found"; then
	build_module
	built=1
fi

# 4. kernels, layers, the backend, ResNet-50 FP32 calibration
gpu_checks() {
	timeout 180 "$bin/test_gpu" --full --calibrate "$out/engine-calibration.lua" \
		> "$out/test_gpu.log" 2>&1
}
gpu_checks
rc=$?
# the carried module did not load: build it here and check again
if [ $rc -eq 77 ] && [ $built = 0 ] && grep -q -E "cannot load|not this tiersim's" "$out/test_gpu.log"; then
	log "carried module: $(grep -m1 '^skip' "$out/test_gpu.log")"
	build_module && { gpu_checks; rc=$?; }
fi
log "test_gpu --full --calibrate: exit $rc"
grep -E '^(GPU|kernel|cifar10|alexnet|googlenet|cuda backend|calibrating|  batch|sim with|skip)|FAIL|fail' \
	"$out/test_gpu.log" | tee -a "$out/summary.txt"
if [ $rc -eq 77 ]; then
	log "SKIP: no usable GPU for the cuda backend; nothing of it measured"
	exit 77
fi
[ $rc -eq 0 ] || fails=$((fails + 1))

# 5. tiersim calibrate engine --gpu, FP32 and TF32, interleaved rounds
mkdir -p $tmp/cal
for round in $(seq 1 "${TS_GPU_CALIB_ROUNDS:-3}"); do
	for prec in fp32 tf32; do
		if [ "$(elapsed)" -gt 330 ]; then
			log "tiersim calibrate: round $round $prec skipped (no time left)"; continue
		fi
		timeout 60 "$bin/tiersim" calibrate engine --gpu --precision "$prec" \
			--batches 64,128,256 --warmup 3 --steps 12 --seed "$round" \
			--out "$tmp/cal/calib-$prec-r$round.lua" > $tmp/cal/log 2>&1
		rc=$?
		{ echo "== round $round $prec: exit $rc"; cat $tmp/cal/log; } >> "$out/engine.log"
		log "tiersim calibrate engine --gpu --precision $prec (round $round): exit $rc"
		grep '  batch' $tmp/cal/log | tee -a "$out/summary.txt"
		[ $rc -eq 0 ] || fails=$((fails + 1))
		tar cf "$out/calib.tar" -C $tmp/cal . 2>/dev/null
	done
done
log "done: $fails failed step(s)"
[ $fails -eq 0 ]
