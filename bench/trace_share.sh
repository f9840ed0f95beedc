#!/usr/bin/env bash
# trace_share.sh BUILD_DIR [BUILD_DIR...] — the share of a traced tierfs's
# CPU that tracing takes, from perf's samples of the daemon, for several
# builds side by side (the first one, then each other, in alternating order
# per round, so that a shared host's load drifting hits them alike).
#
# Each build mounts tier=unlimited with -o trace=FILE, once; per round and
# build, fio runs 4 KiB random reads at QD1 and QD16 (io_uring, O_DIRECT)
# for TS_FIO_RUNTIME seconds while `perf record -g` samples the daemon's
# threads. A sample is tracing's when its call chain passes through the
# trace hook (ts_fs_trace_put) or the trace writer's thread (writer_main);
# the share is those samples over all of the daemon's. Per build and job
# it prints each round's share, then the median and min..max over rounds.
#
# The call chains need frame pointers: build for it with
#   meson setup build-fp -Dc_args=-fno-omit-frame-pointer && ninja -C build-fp fs/tierfs
# A build without them loses frames and undercounts; the script checks
# that the hook is seen at all. Needs perf with permission to sample the
# daemon (root, or perf_event_paranoid <= 1 for one's own processes).
# Environment: TS_FIO_RUNTIME (default 3), TS_ROUNDS (default 3),
# TS_TRACE_OPTS (more tierfs options for every traced mount, e.g.
# trace_cpu=false), TS_FREQ (perf's sampling rate, default 4999 Hz).
set -u

[ $# -ge 1 ] || { echo "usage: bench/trace_share.sh BUILD_DIR [BUILD_DIR...]" >&2; exit 2; }
SRC=$(cd "$(dirname "$0")/.." && pwd)
export TIERSIM_DATADIR=${TIERSIM_DATADIR:-$SRC}
RUNTIME=${TS_FIO_RUNTIME:-3}
ROUNDS=${TS_ROUNDS:-3}
FREQ=${TS_FREQ:-4999}
EXTRA=${TS_TRACE_OPTS:+,$TS_TRACE_OPTS}
command -v fio >/dev/null || { echo "trace_share: fio is not installed" >&2; exit 1; }
command -v perf >/dev/null || { echo "trace_share: perf is not installed" >&2; exit 1; }
declare -a BUILDS=()
for b in "$@"; do
	d=$(cd "$b" 2>/dev/null && pwd) || { echo "trace_share: no build directory '$b'" >&2; exit 1; }
	[ -x "$d/fs/tierfs" ] || { echo "trace_share: $d/fs/tierfs is not built" >&2; exit 1; }
	BUILDS+=("$d")
done
NB=${#BUILDS[@]}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/trace-share.XXXXXX")
declare -A PID=()
mkdir -p "$WORK/backing"
mounted() { awk -v m="$1" '$5 == m { f = 1 } END { exit !f }' /proc/self/mountinfo; }
cleanup() {
	local k
	for k in $(seq 0 $((NB - 1))); do
		if mounted "$WORK/m$k"; then
			fusermount3 -u "$WORK/m$k" 2>/dev/null || umount -l "$WORK/m$k"
		fi
		[ -n "${PID[$k]:-}" ] && wait "${PID[$k]}" 2>/dev/null
	done
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

dd if=/dev/urandom of="$WORK/backing/fio.dat" bs=1M count=128 status=none || exit 1
for k in $(seq 0 $((NB - 1))); do
	mkdir -p "$WORK/m$k"
	"${BUILDS[$k]}/fs/tierfs" -f -o "tier=unlimited,trace=$WORK/m$k.trace$EXTRA" \
		"$WORK/backing" "$WORK/m$k" 2>>"$WORK/m$k.log" &
	PID[$k]=$!
	for _ in $(seq 600); do
		grep -q '"calibrated": true' "$WORK/m$k/.tierfs/stats" 2>/dev/null && break
		kill -0 "${PID[$k]}" 2>/dev/null || { echo "trace_share: mount failed: $(tail -1 "$WORK/m$k.log")" >&2; exit 1; }
		sleep 0.05
	done
done

fio_run() { # MOUNT QD SECONDS
	fio --name=s --filename="$1/fio.dat" --size=128M --direct=1 --rw=randread --bs=4k \
		--ioengine=io_uring --iodepth="$2" --runtime="$3" --time_based \
		--output-format=json --output="$WORK/fio.json" >/dev/null 2>"$WORK/fio.err" ||
		{ echo "trace_share: fio failed: $(head -1 "$WORK/fio.err")" >&2; exit 1; }
}

# perf.data -> tracing's share of the samples, and the sample count
share() {
	perf script -i "$1" -F tid,ip,sym 2>/dev/null | python3 -c '
import sys
n = hit = 0
cur = None
def done():
    global n, hit
    if cur is not None:
        n += 1
        hit += cur
for line in sys.stdin:
    if not line.strip():
        done(); cur = None; continue
    if cur is None:
        cur = 0
        continue
    s = line.split()
    if s and s[-1] in ("ts_fs_trace_put", "writer_main"):
        cur = 1
done()
print("%.4f %d" % (hit / n if n else 0, n))'
}

# the workers exist before perf attaches
for k in $(seq 0 $((NB - 1))); do fio_run "$WORK/m$k" 16 1; done

declare -A RES=()
printf '%-5s %-6s %-40s %8s %8s\n' round job build share samples
for round in $(seq "$ROUNDS"); do
	order=$(seq 0 $((NB - 1)))
	[ $((round % 2)) = 0 ] && order=$(seq $((NB - 1)) -1 0)
	for qd in 1 16; do
		for k in $order; do
			fio_run "$WORK/m$k" "$qd" "$RUNTIME" &
			fpid=$!
			sleep 0.5
			perf record -q -g -F "$FREQ" -p "${PID[$k]}" -o "$WORK/perf.data" \
				-- sleep "$(awk -v r="$RUNTIME" 'BEGIN { print r - 1 }')" 2>"$WORK/perf.err" ||
				{ echo "trace_share: perf failed: $(head -1 "$WORK/perf.err")" >&2; exit 1; }
			wait "$fpid" || exit 1
			read -r s n <<<"$(share "$WORK/perf.data")"
			RES[$k.$qd]+="$s"$'\n'
			printf '%-5s %-6s %-40s %8.4f %8s\n' "$round" "qd$qd" "${BUILDS[$k]}" "$s" "$n"
		done
	done
done

spread() { sort -g | awk '{ v[NR] = $1 } END { printf "%.4f (%.4f..%.4f)", v[int((NR + 1) / 2)], v[1], v[NR] }'; }
echo
echo "# tracing's share of the traced daemon's CPU samples, median (min..max) over $ROUNDS rounds:"
for k in $(seq 0 $((NB - 1))); do
	for qd in 1 16; do
		printf '%-40s qd%-3s %s\n' "${BUILDS[$k]}" "$qd" "$(printf '%s' "${RES[$k.$qd]}" | spread)"
	done
done
for k in $(seq 0 $((NB - 1))); do
	fusermount3 -u "$WORK/m$k" && wait "${PID[$k]}"
	PID[$k]=
done
echo "# load average during the run: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
