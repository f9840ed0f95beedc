#!/usr/bin/env bash
# overhead.sh BUILD_DIR — what tierfs itself costs, measured side by side in
# one run on one 256 MiB file:
#   native-direct   fio on BACKING with O_DIRECT (the VM's disk)
#   native-cached   fio on BACKING, buffered, file already in the page cache
#                   (what tierfs's own reads of BACKING are)
#   bare            through `tierfs -o bare`: plain passthrough, no model,
#                   no counters
#   unlimited       through `tierfs -o tier=unlimited`: the model (which
#                   adds no latency) and the counters on the request path
#   traced          unlimited with -o trace=FILE: every request recorded,
#                   with the requesting thread's CPU sample
# for 4 KiB random reads at QD1 and QD16 and 1 MiB sequential reads at QD16
# (fio, io_uring, direct=1 through the mounts). The four are run in turn,
# ROUNDS times over, and each figure is the median of its rounds, so that a
# shared machine's load drifting during the run hits all four alike. Prints
# IOPS, MB/s and mean completion latency, and each row's IOPS as a ratio of
# bare's and of native-cached's.
#
# Environment: TS_FIO_RUNTIME seconds per job (default 2), TS_ROUNDS
# (default 3).
set -u

[ $# -ge 1 ] || { echo "usage: bench/overhead.sh BUILD_DIR" >&2; exit 2; }
BUILD=$(cd "$1" 2>/dev/null && pwd) || { echo "overhead: no build directory '$1'" >&2; exit 1; }
SRC=$(cd "$(dirname "$0")/.." && pwd)
export TIERSIM_DATADIR=${TIERSIM_DATADIR:-$SRC}
TIERFS=$BUILD/fs/tierfs
RUNTIME=${TS_FIO_RUNTIME:-2}
ROUNDS=${TS_ROUNDS:-3}
[ -x "$TIERFS" ] || { echo "overhead: $TIERFS is not built (ninja -C $BUILD)" >&2; exit 1; }
command -v fio >/dev/null || { echo "overhead: fio is not installed" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/tierfs-overhead.XXXXXX")
BACKING=$WORK/backing
mkdir -p "$BACKING" "$WORK/bare" "$WORK/unlimited" "$WORK/traced"
cleanup() {
	local m
	for m in "$WORK/bare" "$WORK/unlimited" "$WORK/traced"; do
		if awk -v m="$m" '$5 == m { f = 1 } END { exit !f }' /proc/self/mountinfo; then
			fusermount3 -u "$m" 2>/dev/null || umount -l "$m"
		fi
	done
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

dd if=/dev/urandom of="$BACKING/fio.dat" bs=1M count=256 status=none || exit 1
"$TIERFS" -o bare "$BACKING" "$WORK/bare" 2>/dev/null || { echo "overhead: bare mount failed" >&2; exit 1; }
"$TIERFS" -o tier=unlimited "$BACKING" "$WORK/unlimited" 2>/dev/null ||
	{ echo "overhead: unlimited mount failed" >&2; exit 1; }
"$TIERFS" -o "tier=unlimited,trace=$WORK/run.trace" "$BACKING" "$WORK/traced" 2>/dev/null ||
	{ echo "overhead: traced mount failed" >&2; exit 1; }

# fio's JSON -> "iops mbps mean_lat_ns"
run() { # FILE DIRECT RW BS QD
	fio --name=o --filename="$1" --size=256M --direct="$2" --invalidate=0 --rw="$3" --bs="$4" \
		--ioengine=io_uring --iodepth="$5" --runtime="$RUNTIME" --time_based \
		--output-format=json --output="$WORK/fio.json" >/dev/null 2>"$WORK/fio.err" ||
		{ echo "overhead: fio failed: $(head -1 "$WORK/fio.err")" >&2; exit 1; }
	python3 - "$WORK/fio.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))["jobs"][0]["read"]
print("%.1f %.2f %.0f" % (r["iops"], r["bw_bytes"] / 1e6, r["clat_ns"]["mean"]))
EOF
}

cat "$BACKING/fio.dat" >/dev/null # into the page cache for native-cached
printf '%-18s %-14s %10s %9s %10s %9s %9s\n' job access IOPS MB/s "mean(us)" "/bare" "/native-cached"
for job in "4k-randread-qd1 randread 4k 1" "4k-randread-qd16 randread 4k 16" "1m-read-qd16 read 1m 16"; do
	read -r name rw bs qd <<<"$job"
	declare -A iops=() mbps=() lat=() all=()
	for round in $(seq "$ROUNDS"); do
		for access in native-direct native-cached bare unlimited traced; do
			case $access in
			native-direct) r=$(run "$BACKING/fio.dat" 1 "$rw" "$bs" "$qd") ;;
			native-cached) r=$(run "$BACKING/fio.dat" 0 "$rw" "$bs" "$qd") ;;
			*) r=$(run "$WORK/$access/fio.dat" 1 "$rw" "$bs" "$qd") ;;
			esac
			all[$access]+="$r"$'\n'
		done
	done
	for access in native-direct native-cached bare unlimited traced; do
		# the round with the median IOPS
		read -r iops[$access] mbps[$access] lat[$access] < <(printf '%s' "${all[$access]}" |
			sort -n | awk '{ l[NR] = $0 } END { print l[int((NR + 1) / 2)] }')
	done
	for access in native-direct native-cached bare unlimited traced; do
		printf '%-18s %-14s %10.0f %9.1f %10.1f %9.3f %9.3f\n' "$name" "$access" \
			"${iops[$access]}" "${mbps[$access]}" "$(awk -v l="${lat[$access]}" 'BEGIN { print l / 1000 }')" \
			"$(awk -v a="${iops[$access]}" -v b="${iops[bare]}" 'BEGIN { print a / b }')" \
			"$(awk -v a="${iops[$access]}" -v b="${iops[native-cached]}" 'BEGIN { print a / b }')"
	done
	unset iops mbps lat all
done
echo "# load average during the run: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
