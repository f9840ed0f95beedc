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
# Environment: TS_ROUNDS (default 5), TS_IOS (default 12288).
set -u

[ $# -ge 1 ] || { echo "usage: bench/wake_capture.sh BUILD_DIR" >&2; exit 2; }
BUILD=$(cd "$1" 2>/dev/null && pwd) || { echo "wake_capture: no build directory '$1'" >&2; exit 1; }
SRC=$(cd "$(dirname "$0")/.." && pwd)
export TIERSIM_DATADIR=${TIERSIM_DATADIR:-$SRC}
CLI=$BUILD/cli/tiersim
ROUNDS=${TS_ROUNDS:-5}
IOS=${TS_IOS:-12288}
[ -x "$CLI" ] || { echo "wake_capture: $CLI is not built (ninja -C $BUILD)" >&2; exit 1; }
command -v fio >/dev/null || { echo "wake_capture: fio is not installed" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/wake-capture.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
trap 'exit 1' INT TERM
mkdir -p "$WORK/data"
dd if=/dev/urandom of="$WORK/data/f" bs=1M count=32 status=none || exit 1

# one recording -> "cpu_us_per_io iops"
one() { # wakes|nowakes
	local extra=()
	[ "$1" = nowakes ] && extra=(--no-wakes)
	python3 - "$CLI" "$WORK" "$IOS" "$1" "${extra[@]}" <<'EOF'
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

printf '%-6s %-8s %14s %9s\n' round capture "cpu(us/io)" IOPS
cpu_ratio= iops_ratio= cpu_delta=
for round in $(seq "$ROUNDS"); do
	order="nowakes wakes"
	[ $((round % 2)) = 0 ] && order="wakes nowakes"
	declare -A c=() i=()
	for m in $order; do
		out=$(one "$m")
		rc=$?
		[ "$rc" = 0 ] || exit "$rc"
		read -r c[$m] i[$m] <<<"$out"
		printf '%-6s %-8s %14s %9s\n' "$round" "$m" "${c[$m]}" "${i[$m]}"
	done
	cpu_ratio+="$(awk -v a="${c[wakes]}" -v b="${c[nowakes]}" 'BEGIN { print a / b }')"$'\n'
	cpu_delta+="$(awk -v a="${c[wakes]}" -v b="${c[nowakes]}" 'BEGIN { print a - b }')"$'\n'
	iops_ratio+="$(awk -v a="${i[wakes]}" -v b="${i[nowakes]}" 'BEGIN { print a / b }')"$'\n'
	unset c i
done
echo
echo "# with wake capture / without, per round (median (min..max) over $ROUNDS rounds):"
echo "cpu/io $(printf '%s' "$cpu_ratio" | spread)  cpu +us/io $(printf '%s' "$cpu_delta" | spread)  IOPS $(printf '%s' "$iops_ratio" | spread)"
echo "# load average during the run: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
