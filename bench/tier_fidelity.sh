#!/usr/bin/env bash
# tier_fidelity.sh BUILD_DIR [TIER...] — does a tierfs mount behave like the
# disk tier it emulates?
#
# For every built-in tier (or the ones named), at its default capacity and
# without a page-cache model (direct IO measures the device), this mounts a
# scratch BACKING with tierfs and runs fio through the mount with direct=1,
# once with io_uring (iodepth = QD, one 256 MiB file) and once with psync
# (numjobs = QD threads, each on its own 8 MiB file: FUSE in libfuse 3.14
# serializes synchronous direct writes to one file on the inode lock, as it
# cannot ask for FOPEN_PARALLEL_DIRECT_WRITES, so QD threads writing one
# file would measure that lock rather than the tier):
#   4 KiB random read QD1 and QD32, 1 MiB sequential read QD8,
#   4 KiB random write QD32, 1 MiB sequential write QD8.
# Each row prints the target — what the same tier model predicts for the
# same closed-loop job in virtual time (bench/tier_target) — against what
# fio achieved: IOPS, MB/s, p50 and p99 completion latency, and the ratio
# achieved/target. The goal: IOPS and MB/s within 5% of the target, p50
# within 10% where the target p50 is above the FUSE round trip tierfs
# measured at mount ("floor", printed per tier; below it a latency cannot be
# emulated and the p50 is not judged).
#
# Environment: TS_FIO_RUNTIME seconds per job (default 2), REPS runs of
# each job (default 3: the figures are the medians, the IOPS spread is
# printed), TS_BENCH_CSV a file to write the rows to as CSV.
set -u

usage() { echo "usage: bench/tier_fidelity.sh BUILD_DIR [TIER...]" >&2; exit 2; }
[ $# -ge 1 ] || usage
BUILD=$(cd "$1" 2>/dev/null && pwd) || { echo "tier_fidelity: no build directory '$1'" >&2; exit 1; }
shift
SRC=$(cd "$(dirname "$0")/.." && pwd)
export TIERSIM_DATADIR=${TIERSIM_DATADIR:-$SRC}
TIERFS=$BUILD/fs/tierfs
TARGET=$BUILD/bench/tier_target
RUNTIME=${TS_FIO_RUNTIME:-2}
CSV=${TS_BENCH_CSV:-}
for p in "$TIERFS" "$TARGET"; do
	[ -x "$p" ] || { echo "tier_fidelity: $p is not built (ninja -C $BUILD)" >&2; exit 1; }
done
command -v fio >/dev/null || { echo "tier_fidelity: fio is not installed" >&2; exit 1; }
[ -c /dev/fuse ] || { echo "tier_fidelity: /dev/fuse is missing" >&2; exit 1; }

if [ $# -gt 0 ]; then
	TIERS=("$@")
else
	mapfile -t TIERS < <("$TIERFS" --list-tiers | awk 'NR > 1 && $1 != "unlimited" { print $1 }')
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/tier-fidelity.XXXXXX")
BACKING=$WORK/backing
MNT=$WORK/mnt
mkdir -p "$BACKING" "$MNT"
cleanup() {
	if awk -v m="$MNT" '$5 == m { f = 1 } END { exit !f }' /proc/self/mountinfo; then
		fusermount3 -u "$MNT" 2>/dev/null || umount -l "$MNT"
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# The files, written in BACKING directly (not through a slow tier).
dd if=/dev/zero of="$BACKING/fio.dat" bs=1M count=256 status=none || exit 1
for i in $(seq 0 31); do
	dd if=/dev/zero of="$BACKING/psync.$i" bs=1M count=8 status=none || exit 1
done

# name rw bs qd
JOBS=(
	"4k-randread-qd1 randread 4k 1"
	"4k-randread-qd32 randread 4k 32"
	"1m-read-qd8 read 1m 8"
	"4k-randwrite-qd32 randwrite 4k 32"
	"1m-write-qd8 write 1m 8"
)

# fio's JSON -> "iops mbps p50_ns p99_ns" of the read or write side.
fio_summary() { # JSONFILE rw
	python3 - "$1" "$2" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
side = j["write" if "write" in sys.argv[2] else "read"]
pct = side["clat_ns"].get("percentile", {})
print("%.1f %.2f %d %d" % (side["iops"], side["bw_bytes"] / 1e6,
      pct.get("50.000000", 0), pct.get("99.000000", 0)))
EOF
}

ratio() { awk -v a="$1" -v t="$2" 'BEGIN { if (t > 0) printf "%.3f", a / t; else printf "-" }'; }
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
REPS=${REPS:-3}
us() { awk -v n="$1" 'BEGIN { printf "%.0f", n / 1000 }'; }

printf '%-16s %-18s %-8s | %9s %9s %6s %6s | %8s %8s %6s | %8s %8s %6s | %8s %8s %6s | %s\n' \
	tier job engine "tgt-IOPS" "IOPS" ratio spread "tgt-MB/s" "MB/s" ratio "tgt-p50" "p50(us)" ratio \
	"tgt-p99" "p99(us)" ratio goal
[ -n "$CSV" ] && echo "tier,job,engine,floor_ns,target_iops,iops,target_mbps,mbps,target_p50_ns,p50_ns,target_p99_ns,p99_ns,goal" >"$CSV"
met=0
missed=0
below=0
for tier in "${TIERS[@]}"; do
	if ! "$TIERFS" -o "tier=$tier" "$BACKING" "$MNT"; then
		echo "tier_fidelity: cannot mount tier $tier" >&2
		exit 1
	fi
	floor=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["floor_ns"])' "$MNT/.tierfs/stats")
	echo "# $tier: FUSE round trip (floor) $(us "$floor") us"
	for job in "${JOBS[@]}"; do
		read -r name rw bs qd <<<"$job"
		read -r t_iops t_mbps t_p50 t_p99 < <("$TARGET" "$tier" "$rw" "$bs" "$qd" "$RUNTIME" |
			sed 's/[a-z0-9_]*=//g')
		for engine in io_uring psync; do
			if [ "$engine" = io_uring ]; then
				par=(--ioengine=io_uring --iodepth="$qd" --filename="$MNT/fio.dat" --size=256M)
			else
				par=(--ioengine=psync --numjobs="$qd" --thread --directory="$MNT"
					--filename_format='psync.$jobnum' --size=8M)
			fi
			out=$WORK/fio.json
			# REPS runs (default 3) back to back: each figure the median,
			# and the IOPS spread ((max - min) / median) beside it
			v_iops=() v_mbps=() v_p50=() v_p99=()
			for _ in $(seq 1 "$REPS"); do
				if ! fio --name="$name" --direct=1 \
					--rw="$rw" --bs="$bs" --runtime="$RUNTIME" --time_based \
					--group_reporting --output-format=json --output="$out" "${par[@]}" \
					>/dev/null 2>"$WORK/fio.err"; then
					echo "tier_fidelity: fio failed on $tier $name $engine: $(head -1 "$WORK/fio.err")" >&2
					continue 2
				fi
				read -r a_iops a_mbps a_p50 a_p99 < <(fio_summary "$out" "$rw")
				v_iops+=("$a_iops") v_mbps+=("$a_mbps") v_p50+=("$a_p50") v_p99+=("$a_p99")
			done
			a_iops=$(median "${v_iops[@]}") a_mbps=$(median "${v_mbps[@]}")
			a_p50=$(median "${v_p50[@]}") a_p99=$(median "${v_p99[@]}")
			sp=$(printf '%s\n' "${v_iops[@]}" | sort -g | awk -v m="$a_iops" '{ v[NR] = $1 } END { x = m > 0 ? 100 * (v[NR] - v[1]) / m : 0; printf "%.1f%%", x }')
			ri=$(ratio "$a_iops" "$t_iops")
			rp=$(ratio "$a_p50" "$t_p50")
			goal=$(awk -v ri="$ri" -v rp="$rp" -v t="$t_p50" -v f="$floor" 'BEGIN {
				ok = (ri >= 0.95 && ri <= 1.05)
				if (t > f) ok = ok && (rp >= 0.90 && rp <= 1.10)
				else { printf "%s (p50 below floor)", ok ? "met" : "MISSED"; exit }
				printf "%s", ok ? "met" : "MISSED" }')
			case "$goal" in met*) met=$((met + 1)) ;; *) missed=$((missed + 1)) ;; esac
			case "$goal" in *floor*) below=$((below + 1)) ;; esac
			printf '%-16s %-18s %-8s | %9.0f %9.0f %6s %6s | %8.1f %8.1f %6s | %8s %8s %6s | %8s %8s %6s | %s\n' \
				"$tier" "$name" "$engine" "$t_iops" "$a_iops" "$ri" "$sp" "$t_mbps" "$a_mbps" \
				"$(ratio "$a_mbps" "$t_mbps")" "$(us "$t_p50")" "$(us "$a_p50")" "$rp" \
				"$(us "$t_p99")" "$(us "$a_p99")" "$(ratio "$a_p99" "$t_p99")" "$goal"
			[ -n "$CSV" ] && echo "$tier,$name,$engine,$floor,$t_iops,$a_iops,$t_mbps,$a_mbps,$t_p50,$a_p50,$t_p99,$a_p99,$goal" >>"$CSV"
		done
	done
	fusermount3 -u "$MNT" || { echo "tier_fidelity: cannot unmount $MNT" >&2; exit 1; }
	# The daemon leaves once unmounted; wait so the next mount starts clean.
	for _ in $(seq 100); do
		awk -v m="$MNT" '$5 == m { f = 1 } END { exit !f }' /proc/self/mountinfo || break
		sleep 0.05
	done
done
echo "# goal met in $met of $((met + missed)) rows ($below with the target p50 below the FUSE floor, judged on IOPS only)"
echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs (a loaded machine delays wake-ups and misses high rates)"
