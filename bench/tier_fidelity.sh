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
# Environment: TS_FIO_RUNTIME seconds per job (default 2), REPS rounds
# (default 3; each round runs every job and engine of a tier once, each
# round starting one further along the list, so that a load drifting
# during the run hits all of them alike): the figures are the medians over
# the rounds, and the IOPS ratio is shown with its min..max. TS_BENCH_CSV a
# file to write the rows (the medians) to as CSV.
# The target is the model's, in virtual time: deterministic, it is computed
# once, not run beside fio; what is repeated and interleaved is fio.
set -u

usage() { echo "usage: bench/tier_fidelity.sh BUILD_DIR [TIER...]" >&2; exit 2; }
[ $# -ge 1 ] || usage
BUILD=$(cd "$1" 2>/dev/null && pwd) || { echo "tier_fidelity: no build directory '$1'" >&2; exit 1; }
shift
SRC=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SRC/bench/lib.sh"
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
median() { local f=$1; shift; bench_stat -f "$f" "$@" | cut -d' ' -f1; } # FMT X...
REPS=${REPS:-3}
us() { awk -v n="$1" 'BEGIN { printf "%.0f", n / 1000 }'; }

echo "# $(bench_load) at the start"
printf '%-16s %-18s %-8s | %9s %9s %-20s | %8s %8s %6s | %8s %8s %6s | %8s %8s %6s | %s\n' \
	tier job engine "tgt-IOPS" "IOPS" "ratio (per round)" "tgt-MB/s" "MB/s" ratio "tgt-p50" "p50(us)" ratio \
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
	declare -A target=() v_iops=() v_mbps=() v_p50=() v_p99=() bad=()
	runs=()
	for job in "${JOBS[@]}"; do
		read -r name rw bs qd <<<"$job"
		target[$name]=$("$TARGET" "$tier" "$rw" "$bs" "$qd" "$RUNTIME" | sed 's/[a-z0-9_]*=//g')
		runs+=("$name,io_uring" "$name,psync")
	done
	for round in $(seq 1 "$REPS"); do
		while IFS=, read -r name engine; do
			[ -z "${bad[$name,$engine]:-}" ] || continue
			for job in "${JOBS[@]}"; do
				read -r n rw bs qd <<<"$job"
				[ "$n" = "$name" ] && break
			done
			if [ "$engine" = io_uring ]; then
				par=(--ioengine=io_uring --iodepth="$qd" --filename="$MNT/fio.dat" --size=256M)
			else
				par=(--ioengine=psync --numjobs="$qd" --thread --directory="$MNT"
					--filename_format='psync.$jobnum' --size=8M)
			fi
			out=$WORK/fio.json
			if ! fio --name="$name" --direct=1 \
				--rw="$rw" --bs="$bs" --runtime="$RUNTIME" --time_based \
				--group_reporting --output-format=json --output="$out" "${par[@]}" \
				>/dev/null 2>"$WORK/fio.err"; then
				echo "tier_fidelity: fio failed on $tier $name $engine: $(head -1 "$WORK/fio.err")" >&2
				bad[$name,$engine]=1
				continue
			fi
			read -r a_iops a_mbps a_p50 a_p99 < <(fio_summary "$out" "$rw")
			k=$name,$engine
			v_iops[$k]+="$a_iops " v_mbps[$k]+="$a_mbps " v_p50[$k]+="$a_p50 " v_p99[$k]+="$a_p99 "
		done < <(bench_order "$round" "${runs[@]}")
	done
	for k in "${runs[@]}"; do
		[ -z "${bad[$k]:-}" ] || continue
		IFS=, read -r name engine <<<"$k"
		read -r t_iops t_mbps t_p50 t_p99 <<<"${target[$name]}"
		# shellcheck disable=SC2086 # the rounds' figures, a word each
		{ a_iops=$(median %.1f ${v_iops[$k]}) a_mbps=$(median %.2f ${v_mbps[$k]})
		  a_p50=$(median %.0f ${v_p50[$k]}) a_p99=$(median %.0f ${v_p99[$k]}); }
		# achieved / target in each round: the target is the same in all
		ts=$(for _ in ${v_iops[$k]}; do printf '%s ' "$t_iops"; done)
		ri=$(ratio "$a_iops" "$t_iops")
		rr=$(bench_ratio "${v_iops[$k]}" "$ts")
		rp=$(ratio "$a_p50" "$t_p50")
		goal=$(awk -v ri="$ri" -v rp="$rp" -v t="$t_p50" -v f="$floor" 'BEGIN {
			ok = (ri >= 0.95 && ri <= 1.05)
			if (t > f) ok = ok && (rp >= 0.90 && rp <= 1.10)
			else { printf "%s (p50 below floor)", ok ? "met" : "MISSED"; exit }
			printf "%s", ok ? "met" : "MISSED" }')
		case "$goal" in met*) met=$((met + 1)) ;; *) missed=$((missed + 1)) ;; esac
		case "$goal" in *floor*) below=$((below + 1)) ;; esac
		printf '%-16s %-18s %-8s | %9.0f %9.0f %-20s | %8.1f %8.1f %6s | %8s %8s %6s | %8s %8s %6s | %s\n' \
			"$tier" "$name" "$engine" "$t_iops" "$a_iops" "$rr" "$t_mbps" "$a_mbps" \
			"$(ratio "$a_mbps" "$t_mbps")" "$(us "$t_p50")" "$(us "$a_p50")" "$rp" \
			"$(us "$t_p99")" "$(us "$a_p99")" "$(ratio "$a_p99" "$t_p99")" "$goal"
		[ -n "$CSV" ] && echo "$tier,$name,$engine,$floor,$t_iops,$a_iops,$t_mbps,$a_mbps,$t_p50,$a_p50,$t_p99,$a_p99,$goal" >>"$CSV"
	done
	unset target v_iops v_mbps v_p50 v_p99 bad
	fusermount3 -u "$MNT" || { echo "tier_fidelity: cannot unmount $MNT" >&2; exit 1; }
	# The daemon leaves once unmounted; wait so the next mount starts clean.
	for _ in $(seq 100); do
		awk -v m="$MNT" '$5 == m { f = 1 } END { exit !f }' /proc/self/mountinfo || break
		sleep 0.05
	done
done
echo "# goal met in $met of $((met + missed)) rows ($below with the target p50 below the FUSE floor, judged on IOPS only)"
echo "# $(bench_load) at the end (a loaded machine delays wake-ups and misses high rates)"
