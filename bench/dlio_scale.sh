#!/usr/bin/env bash
# dlio_scale.sh — how fast virtual time predicts a large DLIO run: 5 epochs
# of resnet50 (1,024 TFRecord files x 1,251 samples) with 115 simulated
# H100s on a drive capped at 10 GB/s, the host seconds, the peak memory,
# and the virtual engine's events per second. Then the same with 4x the
# files, to show memory grows with files (the per-sample tables), not
# with samples x epochs. The two sizes run side by side in RUNS rounds
# (default 3), the smaller first in odd rounds and the larger in even ones;
# each run's own report is printed, then per size the median and min..max
# over the rounds of the wall and CPU seconds and the peak RSS, the ratios
# 4x / 1x taken within each round (median and min..max), and the load.
# Usage: bench/dlio_scale.sh [TIERSIM] [RUNS]
set -u
prog=${1:-build/cli/tiersim}
runs=${2:-3}
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
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
echo "$(bench_load) before"
declare -A wall=() cpu=() rss=()
for ((i = 0; i < runs; i++)); do
	for files in $(bench_order "$i" 1024 4096); do
		/usr/bin/time -o "$tmp/t" -f "%e %U %S %M" "$prog" dlio resnet50_h100 \
			++workload.dataset.num_files_train=$files --tier bench-10gbs --profile "$tmp/drive.lua" \
			--accelerators 115 --virtual >"$tmp/out" 2>&1 || { cat "$tmp/out"; exit 1; }
		read -r w u sy m <<<"$(tail -1 "$tmp/t")"
		wall[$files]+="$w " cpu[$files]+="$(awk -v u="$u" -v s="$sy" 'BEGIN { print u + s }') "
		rss[$files]+="$(awk -v m="$m" 'BEGIN { printf "%.1f", m / 1024 }') "
		echo "round $((i + 1)), $files files: $w s host, $m KiB peak RSS"
		grep -v "^tiersim dlio: resnet50" "$tmp/out" | sed 's/^/  /'
	done
done
echo
echo "median (min..max) over $runs rounds:"
for files in 1024 4096; do
	# shellcheck disable=SC2086 # the rounds' figures, a word each
	printf "  %4s files: %s s host, %s s CPU, %s MiB peak RSS\n" "$files" "$(bench_stat -f %.2f ${wall[$files]})" \
		"$(bench_stat -f %.2f ${cpu[$files]})" "$(bench_stat -f %.1f ${rss[$files]})"
done
echo "  4096 / 1024 files within each round: host s $(bench_ratio -f %.2f "${wall[4096]}" "${wall[1024]}"), CPU s $(bench_ratio -f %.2f "${cpu[4096]}" "${cpu[1024]}"), peak RSS $(bench_ratio -f %.2f "${rss[4096]}" "${rss[1024]}")"
echo "$(bench_load) after"
