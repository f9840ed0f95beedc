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
# With TS_BEFORE=OLD_BUILD_DIR a fourth recording per round, through BPF
# with that build's tiersim (its tierfs too), and the two BPF captures'
# additions side by side. With TS_CONTROL=1 one more recording per round
# without wake capture ("again"): its "addition" over the first is the
# host's noise alone, the spread any capture's rounds would show if it
# cost nothing; the captures are then measured against the mean of the
# two (two places in the round's order, where one was the baseline: a
# recording right after a capture's often costs more). TS_TRACEFS=0
# leaves the tracefs recording out. With TS_BPF_STATS=1,
# kernel.bpf_stats_enabled is 1 for the run (put back after) and each
# BPF recording also reports
# the kernel's time in the capture's programs per IO, the programs' runs
# per IO (every scheduler event on the host while it records, so it grows
# with the load) and the time per run (TIERSIM_WAKE_BPF_STATS; a build
# without it prints "-").
#
# TS_PIN="RECORDER_CPUS FIO_CPUS" (e.g. "0 1") runs tiersim record (and
# so tierfs) under taskset and fio with --cpus_allowed, each recording
# alike: otherwise where the FUSE round trip's two ends run changes from
# one recording to the next, and the CPU per IO with it (a wake-up on the
# other CPU costs an interrupt, one on the same CPU a switch), which is
# most of the spread of a control round.
#
# Needs root and tracefs (as wake capture does), and a build with BPF;
# without them the script says so and exits 77.
# Environment: TS_ROUNDS (default 5), TS_IOS (default 49152), TS_BEFORE,
# TS_BPF_STATS, TS_CONTROL, TS_TRACEFS, TS_PIN, TS_NOHANDOFFS (1: one
# more recording per round, through BPF with --no-handoffs: no pipe
# hand-offs, the system call program unattached), TS_WARMUP (0: no
# uncounted recording first). A recording's fixed CPU (tiersim,
# the mount, fio's start: about 0.17 s) was half of a 12288-IO
# recording's, so the figure per IO was as much the start-up's; 49152
# IOs take about 1 s a recording on an idle 2-CPU host.
set -u

[ $# -ge 1 ] || { echo "usage: bench/wake_capture.sh BUILD_DIR" >&2; exit 2; }
BUILD=$(cd "$1" 2>/dev/null && pwd) || { echo "wake_capture: no build directory '$1'" >&2; exit 1; }
SRC=$(cd "$(dirname "$0")/.." && pwd)
export TIERSIM_DATADIR=${TIERSIM_DATADIR:-$SRC}
ROUNDS=${TS_ROUNDS:-5}
IOS=${TS_IOS:-49152}
[ -x "$BUILD/cli/tiersim" ] || { echo "wake_capture: $BUILD/cli/tiersim is not built (ninja -C $BUILD)" >&2; exit 1; }
BEFORE=
if [ -n "${TS_BEFORE:-}" ]; then
	BEFORE=$(cd "$TS_BEFORE" 2>/dev/null && pwd) && [ -x "$BEFORE/cli/tiersim" ] ||
		{ echo "wake_capture: TS_BEFORE: no cli/tiersim under '$TS_BEFORE'" >&2; exit 1; }
fi
command -v fio >/dev/null || { echo "wake_capture: fio is not installed" >&2; exit 1; }
PIN=() PIN_FIO=
if [ -n "${TS_PIN:-}" ]; then
	read -r pr pf <<<"$TS_PIN"
	if [ -z "${pf:-}" ] || ! command -v taskset >/dev/null; then
		echo "wake_capture: TS_PIN needs \"RECORDER_CPUS FIO_CPUS\" and taskset" >&2
		exit 2
	fi
	PIN=(taskset -c "$pr") PIN_FIO=--cpus_allowed=$pf
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/wake-capture.XXXXXX")
STATS_WAS=
if [ "${TS_BPF_STATS:-0}" = 1 ]; then
	STATS_WAS=$(cat /proc/sys/kernel/bpf_stats_enabled) &&
		echo 1 > /proc/sys/kernel/bpf_stats_enabled ||
		{ echo "wake_capture: cannot set kernel.bpf_stats_enabled" >&2; exit 1; }
fi
trap 'rm -rf "$WORK"; [ -z "$STATS_WAS" ] || echo "$STATS_WAS" > /proc/sys/kernel/bpf_stats_enabled' EXIT
trap 'exit 1' INT TERM
mkdir -p "$WORK/data"
dd if=/dev/urandom of="$WORK/data/f" bs=1M count=32 status=none || exit 1

# one recording -> "cpu_us_per_io iops bpf_ns_per_io bpf_runs_per_io"
one() { # nowakes|tracefs|bpf|before
	local extra=() how=bpf cli=$BUILD/cli/tiersim
	case $1 in
	nowakes | again) extra=(--no-wakes) ;;
	tracefs) how=tracefs ;;
	nohandoffs) extra=(--no-handoffs) ;;
	before) cli=$BEFORE/cli/tiersim ;;
	esac
	TIERSIM_WAKE_BPF_STATS=${TS_BPF_STATS:-} TIERSIM_WAKE_CAPTURE=$how python3 - "$cli" "$WORK" "$IOS" "$1" "$PIN_FIO" "${PIN[@]}" -- "${extra[@]}" <<'PY'
import json, os, resource, subprocess, sys
cli, work, ios, mode, pin_fio = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
rest = sys.argv[6:]
pin, extra = rest[:rest.index("--")], rest[rest.index("--") + 1:]
before = resource.getrusage(resource.RUSAGE_CHILDREN)
r = subprocess.run(pin + [cli, "record", "--data", work + "/data", "--tier", "unlimited",
                    "--out", work + "/r.trace"] + extra +
                   ["--", "fio"] + ([pin_fio] if pin_fio else []) + ["--name=l", "--filename={}/f", "--rw=randread", "--bs=4k",
                    "--size=32m", "--io_size=%d" % (ios * 4096), "--ioengine=psync", "--direct=1",
                    "--output-format=json", "--output=" + work + "/fio.json"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
after = resource.getrusage(resource.RUSAGE_CHILDREN)
if r.returncode:
    sys.exit("wake_capture: tiersim record failed: " + r.stderr.strip().splitlines()[-1])
if mode not in ("nowakes", "again") and (not os.path.exists(work + "/r.trace.wakes") or
                          (mode in ("bpf", "before", "nohandoffs") and "no BPF wake capture" in r.stderr)):
    print("wake_capture: no %s wake file: %s" % (mode, r.stderr.strip()), file=sys.stderr)
    sys.exit(77)
cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
j = json.load(open(work + "/fio.json"))["jobs"][0]["read"]
# "wake capture BPF: PROG RUNS runs NS ns" (TIERSIM_WAKE_BPF_STATS)
st = [l.split() for l in r.stderr.splitlines() if l.startswith("wake capture BPF: ")]
ns = "%.0f" % (sum(int(w[6]) for w in st) / j["total_ios"]) if st else "-"
runs = "%.2f" % (sum(int(w[4]) for w in st) / j["total_ios"]) if st else "-"
print("%.2f %.0f %s %s" % (cpu / j["total_ios"] * 1e6, j["iops"], ns, runs))
PY
}

# median and min..max of a column of numbers
spread() { sort -g | awk '{ v[NR] = $1 } END { if (!NR) printf "none"; else printf "%.3f (%.3f..%.3f)", v[int((NR + 1) / 2)], v[1], v[NR] }'; }

printf '%-6s %-8s %14s %9s %14s %12s\n' round capture "cpu(us/io)" IOPS "bpf(ns/io)" "bpf runs/io"
modes=(nowakes)
[ "${TS_CONTROL:-0}" != 1 ] || modes+=(again)
[ "${TS_TRACEFS:-1}" = 0 ] || modes+=(tracefs)
modes+=(bpf)
[ "${TS_NOHANDOFFS:-0}" != 1 ] || modes+=(nohandoffs)
[ -z "$BEFORE" ] || modes+=(before)
nm=${#modes[@]}
# one recording first, not counted: the first of a run, after the bench's
# quiet gap, found the binaries, the data and the CPUs' caches cold and
# took up to twice the CPU per IO of the next (a round over +12% that
# said nothing of what it measured)
if [ "${TS_WARMUP:-1}" = 1 ]; then
	one nowakes >/dev/null || exit $?
fi
declare -A add=() ratio=() iops=() bns=() bnr=()
share= vs=
for round in $(seq "$ROUNDS"); do
	declare -A c=() i=() b=() r=()
	# rotated each round, each mode in each place, and every other round
	# in the reverse order: a recording costs more right after some
	# others (a capture's), so each mode follows two different ones
	for k in $(seq 0 $((nm - 1))); do
		m=${modes[$(((round + nm * nm + (round % 2 ? k : -k)) % nm))]}
		out=$(one "$m")
		rc=$?
		[ "$rc" = 0 ] || exit "$rc"
		read -r "c[$m]" "i[$m]" "b[$m]" "r[$m]" <<<"$out"
		printf '%-6s %-8s %14s %9s %14s %12s\n' "$round" "$m" "${c[$m]}" "${i[$m]}" "${b[$m]}" "${r[$m]}"
		if [ "${b[$m]}" != - ]; then
			bns[$m]+="${b[$m]}"$'\n'
			bnr[$m]+="$(awk -v a="${b[$m]}" -v b="${r[$m]}" 'BEGIN { print a / b }')"$'\n'
		fi
	done
	# the round's baseline: no capture, or the mean of the two such
	# recordings with TS_CONTROL=1 (the control itself against the first)
	c[base]=${c[nowakes]} i[base]=${i[nowakes]}
	if [ -n "${c[again]:-}" ]; then
		c[base]=$(awk -v a="${c[nowakes]}" -v b="${c[again]}" 'BEGIN { print (a + b) / 2 }')
		i[base]=$(awk -v a="${i[nowakes]}" -v b="${i[again]}" 'BEGIN { print (a + b) / 2 }')
	fi
	[ -z "$BEFORE" ] || vs+="$(awk -v a="${c[bpf]}" -v b="${c[before]}" -v n="${c[base]}" \
		'BEGIN { print (b > n ? (a - n) / (b - n) : "nan") }')"$'\n'
	for m in "${modes[@]:1}"; do
		bm=base
		[ "$m" != again ] || bm=nowakes
		add[$m]+="$(awk -v a="${c[$m]}" -v b="${c[$bm]}" 'BEGIN { print a - b }')"$'\n'
		ratio[$m]+="$(awk -v a="${c[$m]}" -v b="${c[$bm]}" 'BEGIN { print a / b }')"$'\n'
		iops[$m]+="$(awk -v a="${i[$m]}" -v b="${i[$bm]}" 'BEGIN { print a / b }')"$'\n'
	done
	[ -z "${c[tracefs]:-}" ] || share+="$(awk -v a="${c[bpf]}" -v b="${c[tracefs]}" -v n="${c[base]}" \
		'BEGIN { print (b > n ? (a - n) / (b - n) : "nan") }')"$'\n'
	unset c i b r
done
echo
echo "# with wake capture / without, per round (median (min..max) over $ROUNDS rounds):"
[ "${TS_CONTROL:-0}" != 1 ] || echo "# (without: the mean of nowakes and again; again: against nowakes)"
for m in "${modes[@]:1}"; do
	echo "$m: cpu/io $(printf '%s' "${ratio[$m]}" | spread)  cpu +us/io $(printf '%s' "${add[$m]}" | spread)  IOPS $(printf '%s' "${iops[$m]}" | spread)  rounds over +12%: $(printf '%s' "${ratio[$m]}" | awk '$1 > 1.12 { k++ } END { printf "%d of %d", k, NR }')"
done
[ -z "$share" ] || echo "# cpu +us/io, bpf / tracefs, per round: $(printf '%s' "$share" | grep -v nan | spread)"
[ -z "$BEFORE" ] || echo "# cpu +us/io, bpf / before's bpf, per round: $(printf '%s' "$vs" | grep -v nan | spread)"
for m in bpf nohandoffs before; do
	[ -z "${bns[$m]:-}" ] || echo "# $m: kernel time in the BPF programs, ns/io: $(printf '%s' "${bns[$m]}" | spread)  ns/run: $(printf '%s' "${bnr[$m]}" | spread)"
done
echo "# load average during the run: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
