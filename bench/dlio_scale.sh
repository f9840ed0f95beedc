#!/usr/bin/env bash
# dlio_scale.sh — how fast virtual time predicts a large DLIO run: 5 epochs
# of resnet50 (1,024 TFRecord files x 1,251 samples) with 115 simulated
# H100s on a drive capped at 10 GB/s, the host seconds, the peak memory,
# and the virtual engine's events per second. Then the same with 4x the
# files, to show memory grows with files (the per-sample tables), not
# with samples x epochs.
# Usage: bench/dlio_scale.sh [TIERSIM]
set -u
prog=${1:-build/cli/tiersim}
tmp=$(mktemp -d /tmp/dlio-scale-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# A drive of 10 GB/s read and 2M IOPS, 60 us: a Gen5 NVMe class device (the
# figures are the benchmark's parameters, not a product's).
cat >"$tmp/drive.lua" <<'LUA'
tier "bench-10gbs" {
	desc = "a 10 GB/s read, 2M IOPS drive (benchmark parameters)",
	source = "bench/dlio_scale.sh",
	capacity = { min = "1GiB", max = "16TiB", default = "8TiB" },
	read_iops = 2000000, write_iops = 1000000,
	read_mibps = 10000 * 1e6 / (1024 * 1024), write_mibps = 5000,
	latency = { read = { p50 = "57us", p99 = "112us" }, write = { p50 = "57us", p99 = "112us" },
		    meta = { p50 = "57us", p99 = "112us" }, sync = { p50 = "57us", p99 = "112us" } },
}
LUA
for files in 1024 4096; do
	/usr/bin/time -f "%e s host, %M KiB peak RSS" "$prog" dlio resnet50_h100 \
		++workload.dataset.num_files_train=$files --tier bench-10gbs --profile "$tmp/drive.lua" \
		--accelerators 115 --virtual 2>&1 | grep -v "^tiersim dlio: resnet50"
done
