#!/usr/bin/env bash
# wake_capture.sh BUILD_DIR — what wake capture adds to `tiersim record`,
# through BPF and through tracefs, side by side.
#
# The loader does nothing but IO: fio, one thread, 4 KiB random reads with
# psync and O_DIRECT through the mount (tier=unlimited), a fixed number of
# them. Each round records it three times, in a rotating order: without
# wake capture (--no-wakes), with it through tracefs
# (TIERSIM_WAKE_CAPTURE=tracefs) and with it through BPF (the default
# where built); each run reports the CPU time of the whole recording —
# tiersim (its reader of the scheduler events), tierfs and fio, user and
# system, the kernel's tracepoints and BPF programs included (they run in
# the traced threads) — per IO, and the loader's own IOPS. Then, within
# each round, what each capture adds per IO over none, and the BPF
# capture's addition over tracefs's: median and min..max over the rounds.
# CPU per IO is the steady figure on a loaded host; IOPS is printed for
# the record.
#
# Needs root and tracefs (as wake capture does), and a build with BPF;
# without them the script says so and exits 77.
# Environment: TS_ROUNDS (default 5), TS_IOS (default 12288).
set -u

[ $# -ge 1 ] || { echo "usage: bench/wake_capture.sh BUILD_DIR" >&2; exit 2; }
BUILD=$(cd "$1" 2>/dev/null && pwd) || { echo "wake_capture: no build directory '$1'" >&2; exit 1; }
SRC=$(cd "$(dirname "$0")/.." && pwd)
export TIERSIM_DATADIR=${TIERSIM_DATADIR:-$SRC}
ROUNDS=${TS_ROUNDS:-5}
IOS=${TS_IOS:-12288}
[ -x "$BUILD/cli/tiersim" ] || { echo "wake_capture: $BUILD/cli/tiersim is not built (ninja -C $BUILD)" >&2; exit 1; }
command -v fio >/dev/null || { echo "wake_capture: fio is not installed" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/wake-capture.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
trap 'exit 1' INT TERM
mkdir -p "$WORK/data"
dd if=/dev/urandom of="$WORK/data/f" bs=1M count=32 status=none || exit 1

# one recording -> "cpu_us_per_io iops"
one() { # nowakes|tracefs|bpf
	local extra=() how=bpf
	case $1 in
	nowakes) extra=(--no-wakes) ;;
	tracefs) how=tracefs ;;
	esac
	TIERSIM_WAKE_CAPTURE=$how python3 - "$BUILD/cli/tiersim" "$WORK" "$IOS" "$1" "${extra[@]}" <<'PY'
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
if mode != "nowakes" and (not os.path.exists(work + "/r.trace.wakes") or
                          (mode == "bpf" and "no BPF wake capture" in r.stderr)):
    print("wake_capture: no %s wake file: %s" % (mode, r.stderr.strip()), file=sys.stderr)
    sys.exit(77)
cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
j = json.load(open(work + "/fio.json"))["jobs"][0]["read"]
print("%.2f %.0f" % (cpu / j["total_ios"] * 1e6, j["iops"]))
PY
}

# median and min..max of a column of numbers
spread() { sort -g | awk '{ v[NR] = $1 } END { printf "%.3f (%.3f..%.3f)", v[int((NR + 1) / 2)], v[1], v[NR] }'; }

printf '%-6s %-8s %14s %9s\n' round capture "cpu(us/io)" IOPS
modes=(nowakes tracefs bpf)
declare -A add=() ratio=() iops=()
share=
for round in $(seq "$ROUNDS"); do
	declare -A c=() i=()
	for k in 0 1 2; do # rotated each round: each mode in each place
		m=${modes[$(((k + round) % 3))]}
		out=$(one "$m")
		rc=$?
		[ "$rc" = 0 ] || exit "$rc"
		read -r "c[$m]" "i[$m]" <<<"$out"
		printf '%-6s %-8s %14s %9s\n' "$round" "$m" "${c[$m]}" "${i[$m]}"
	done
	for m in tracefs bpf; do
		add[$m]+="$(awk -v a="${c[$m]}" -v b="${c[nowakes]}" 'BEGIN { print a - b }')"$'\n'
		ratio[$m]+="$(awk -v a="${c[$m]}" -v b="${c[nowakes]}" 'BEGIN { print a / b }')"$'\n'
		iops[$m]+="$(awk -v a="${i[$m]}" -v b="${i[nowakes]}" 'BEGIN { print a / b }')"$'\n'
	done
	share+="$(awk -v a="${c[bpf]}" -v b="${c[tracefs]}" -v n="${c[nowakes]}" \
		'BEGIN { print (b > n ? (a - n) / (b - n) : "nan") }')"$'\n'
	unset c i
done
echo
echo "# with wake capture / without, per round (median (min..max) over $ROUNDS rounds):"
for m in tracefs bpf; do
	echo "$m: cpu/io $(printf '%s' "${ratio[$m]}" | spread)  cpu +us/io $(printf '%s' "${add[$m]}" | spread)  IOPS $(printf '%s' "${iops[$m]}" | spread)"
done
echo "# cpu +us/io, bpf / tracefs, per round: $(printf '%s' "$share" | grep -v nan | spread)"
echo "# load average during the run: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
