#!/usr/bin/env bash
# wake_capture.sh BUILD_DIR — what wake capture adds to `tiersim record`.
#
# The loader does nothing but IO: fio, one thread, 4 KiB random reads with
# psync and O_DIRECT through the mount (tier=unlimited), a fixed number of
# them. Each round records it twice, with and without wake capture
# (--no-wakes), in alternating order; each run reports the CPU time of the
# whole recording — tiersim (its reader of the scheduler events), tierfs
# and fio, user and system, the kernel's tracepoints included (they run in
# the traced threads) — per IO, and the loader's own IOPS. Then the ratios
# within each round, with wakes over without: median and min..max. CPU per
# IO is the steady figure on a loaded host; IOPS is printed for the record.
#
# Needs root and tracefs (as wake capture does); without them every run
# says so and the script exits 77.
# Environment: TS_ROUNDS (default 5), TS_IOS (default 12288), TS_BEFORE
# (another build directory: its recordings run in the same rounds, each
# build's pair in turn, and the script also prints, per round, the cost
# wake capture adds with BUILD_DIR over the cost it adds with TS_BEFORE;
# each build reads the tier files of the source tree its build directory
# sits in, when it sits in one).
set -u

[ $# -ge 1 ] || { echo "usage: bench/wake_capture.sh BUILD_DIR" >&2; exit 2; }
BUILD=$(cd "$1" 2>/dev/null && pwd) || { echo "wake_capture: no build directory '$1'" >&2; exit 1; }
SRC=$(cd "$(dirname "$0")/.." && pwd)
export TIERSIM_DATADIR=${TIERSIM_DATADIR:-$SRC}
ROUNDS=${TS_ROUNDS:-5}
IOS=${TS_IOS:-12288}
BUILDS=("$BUILD")
if [ -n "${TS_BEFORE:-}" ]; then
	BEFORE=$(cd "$TS_BEFORE" 2>/dev/null && pwd) || { echo "wake_capture: no build directory '$TS_BEFORE'" >&2; exit 1; }
	BUILDS+=("$BEFORE")
fi
for b in "${BUILDS[@]}"; do
	[ -x "$b/cli/tiersim" ] || { echo "wake_capture: $b/cli/tiersim is not built (ninja -C $b)" >&2; exit 1; }
done
command -v fio >/dev/null || { echo "wake_capture: fio is not installed" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/wake-capture.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
trap 'exit 1' INT TERM
mkdir -p "$WORK/data"
dd if=/dev/urandom of="$WORK/data/f" bs=1M count=32 status=none || exit 1

# one recording -> "cpu_us_per_io iops"
one() { # BUILD wakes|nowakes
	local extra=() data=$SRC
	[ "$2" = nowakes ] && extra=(--no-wakes)
	[ -f "$1/../meson.build" ] && data=$(cd "$1/.." && pwd)
	TIERSIM_DATADIR=$data python3 - "$1/cli/tiersim" "$WORK" "$IOS" "$2" "${extra[@]}" <<'EOF'
import json, os, resource, subprocess, sys
cli, work, ios, mode, extra = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5:]
before = resource.getrusage(resource.RUSAGE_CHILDREN)
r = subprocess.run([cli, "record", "--data", work + "/data", "--tier", "unlimited",
                    "--out", work + "/r.trace"] + extra +
                   ["--", "fio", "--name=l", "--filename={}/f", "--rw=randread", "--bs=4k",
                    "--size=32m", "--io_size=%d" % (ios * 4096), "--ioengine=psync", "--direct=1",
                    "--output-format=json", "--output=" + work + "/fio.json"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
after = resource.getrusage(resource.RUSAGE_CHILDREN)
if r.returncode:
    sys.exit("wake_capture: tiersim record failed: " + r.stderr.strip().splitlines()[-1])
if mode == "wakes" and not os.path.exists(work + "/r.trace.wakes"):
    print("wake_capture: no wake file: " + r.stderr.strip(), file=sys.stderr)
    sys.exit(77)
cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
j = json.load(open(work + "/fio.json"))["jobs"][0]["read"]
print("%.2f %.0f" % (cpu / j["total_ios"] * 1e6, j["iops"]))
EOF
}

# median and min..max of a column of numbers
spread() { sort -g | awk '{ v[NR] = $1 } END { printf "%.3f (%.3f..%.3f)", v[int((NR + 1) / 2)], v[1], v[NR] }'; }

# the build's name in the table: after (BUILD_DIR) or before (TS_BEFORE)
name() { [ "$1" = "$BUILD" ] && echo after || echo before; }
printf '%-6s %-7s %-8s %14s %9s\n' round build capture "cpu(us/io)" IOPS
declare -A cpu_ratio=() iops_ratio=() cpu_delta=()
share=
for round in $(seq "$ROUNDS"); do
	order="nowakes wakes"
	[ $((round % 2)) = 0 ] && order="wakes nowakes"
	builds=("${BUILDS[@]}")
	[ $((round % 2)) = 0 ] && [ ${#BUILDS[@]} = 2 ] && builds=("${BUILDS[1]}" "${BUILDS[0]}")
	declare -A delta=()
	for b in "${builds[@]}"; do
		n=$(name "$b")
		declare -A c=() i=()
		for m in $order; do
			out=$(one "$b" "$m")
			rc=$?
			[ "$rc" = 0 ] || exit "$rc"
			read -r "c[$m]" "i[$m]" <<<"$out"
			printf '%-6s %-7s %-8s %14s %9s\n' "$round" "$n" "$m" "${c[$m]}" "${i[$m]}"
		done
		cpu_ratio[$n]+="$(awk -v a="${c[wakes]}" -v b="${c[nowakes]}" 'BEGIN { print a / b }')"$'\n'
		delta[$n]=$(awk -v a="${c[wakes]}" -v b="${c[nowakes]}" 'BEGIN { print a - b }')
		cpu_delta[$n]+="${delta[$n]}"$'\n'
		iops_ratio[$n]+="$(awk -v a="${i[wakes]}" -v b="${i[nowakes]}" 'BEGIN { print a / b }')"$'\n'
		unset c i
	done
	[ ${#BUILDS[@]} = 2 ] &&
		share+="$(awk -v a="${delta[after]}" -v b="${delta[before]}" 'BEGIN { print (b > 0 ? a / b : "nan") }')"$'\n'
	unset delta
done
echo
echo "# with wake capture / without, per round (median (min..max) over $ROUNDS rounds):"
for b in "${BUILDS[@]}"; do
	n=$(name "$b")
	echo "$n: cpu/io $(printf '%s' "${cpu_ratio[$n]}" | spread)  cpu +us/io $(printf '%s' "${cpu_delta[$n]}" | spread)  IOPS $(printf '%s' "${iops_ratio[$n]}" | spread)"
done
[ -n "$share" ] && echo "# cpu +us/io after / before, per round: $(printf '%s' "$share" | grep -v nan | spread)"
echo "# load average during the run: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
