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
#                   with the requesting thread's CPU sample (its /proc read
#                   left out within two round trips of the thread's
#                   previous reply: traces/FORMAT.md)
#   traced-nocpu    the same with -o trace_cpu=false: records without CPU
#                   samples (no /proc read at all)
# for 4 KiB random reads at QD1 and QD16 and 1 MiB sequential reads at QD16
# (fio, io_uring, direct=1 through the mounts). The six are run in turn,
# ROUNDS times over, so that a shared machine's load drifting during the run
# hits all of them alike (each round starting one further along the list).
# Each row prints the median round's IOPS, MB/s and
# mean completion latency, the daemon's CPU time per request (user + system
# of the whole tierfs process, all its threads and its trace writer, from
# the process CPU clock: far steadier than IOPS on a loaded host) as the
# median over the rounds, and its IOPS as a ratio of bare's and of
# native-cached's, each taken within each round: the median and min..max.
#
# Then, per job, tracing's cost as ratios taken within each round (traced
# and traced-nocpu against unlimited, each run in the same round) — median,
# and min..max over the rounds — for IOPS and for daemon CPU per request;
# and the traces' drop counts (tracing must lose nothing: the counts are
# read from the traces), their records per second of fio run, and their
# bytes per record (file size over records: a record, its CPU sample's item
# where it has one, request clocks, packs and the rest). The load average
# is printed before and after.
#
# Each tierfs run has a mount of its own, mounted (and calibrated) before it
# and unmounted after it: a mount kept over the rounds carries its history
# into the next run (libfuse's worker threads only grow, to 20-250 by the
# fifth 2 s run at QD16 on 2 CPUs, and a mount's cost per request moves
# with them; a trace's dirty pages went to disk during whichever run came
# next), so two mounts' ratios measured their histories as much as
# themselves. A fresh mount starts every run from the same state; the
# threads each run ended with are printed (median over the rounds), and a
# trace is written out at its unmount, outside the timed run.
# TS_KEEP_MOUNTS=1 keeps one mount per access for the whole run instead.
#
# Resolving a few percent. On a shared 2-CPU VM single rounds of the same
# build have ranged 0.6-1.3 of each other at QD1, so a ratio means
# something only beside the spread of a ratio that should be 1:
# TS_CONTROL=1 adds "unlimited-aa", a second untraced mount of the same
# build in the same rounds (an A/A control), and the traced accesses are
# then also taken against the mean of the two untraced runs of their round
# (a round's baseline from two places in its order). The daemon's CPU per
# request is its process CPU clock over the run divided by the requests the
# daemon itself counted (the ops' counts in its stats, read before and
# after the run; fio's count where there are no stats): the daemon's own
# time, which a neighbour's load moves less than it moves IOPS. For each
# ratio the control's summary gives the median, min..max and a
# distribution-free interval of the median (order statistics: the two
# ranks the binomial distribution puts at least 90% between); a ratio is
# resolved to a margin where the A/A control's interval is narrower than
# it. TS_PIN="DAEMON_CPUS FIO_CPUS" (e.g. "0 1") runs every tierfs under
# taskset and fio with --cpus_allowed: otherwise where the FUSE round
# trip's two ends run moves from run to run, and each run's IOPS with it.
# Short rounds (TS_FIO_RUNTIME=1), and more of them, narrow the interval
# more than long ones: the load drifts between rounds more than within one.
#
# Environment: TS_FIO_RUNTIME seconds per job (default 2), TS_ROUNDS
# (default 3), TS_CONTROL, TS_PIN, TS_WARMUP (0: no uncounted run
# first), TS_JOBS (a subset of the job names, space-separated),
# TS_BEFORE (another build directory: its tierfs is mounted traced too, as
# traced-before, and run in the same rounds, for a before/after of tracing
# side by side; TS_ACCESS (a subset of the access names) can then leave
# the native and bare runs out).
set -u

[ $# -ge 1 ] || { echo "usage: bench/overhead.sh BUILD_DIR" >&2; exit 2; }
BUILD=$(cd "$1" 2>/dev/null && pwd) || { echo "overhead: no build directory '$1'" >&2; exit 1; }
SRC=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SRC/bench/lib.sh"
export TIERSIM_DATADIR=${TIERSIM_DATADIR:-$SRC}
TIERFS=$BUILD/fs/tierfs
CLI=$BUILD/cli/tiersim
RUNTIME=${TS_FIO_RUNTIME:-2}
ROUNDS=${TS_ROUNDS:-3}
JOBS=${TS_JOBS:-"4k-randread-qd1 4k-randread-qd16 1m-read-qd16"}
[ -x "$TIERFS" ] || { echo "overhead: $TIERFS is not built (ninja -C $BUILD)" >&2; exit 1; }
command -v fio >/dev/null || { echo "overhead: fio is not installed" >&2; exit 1; }

bench_mounts overhead bare unlimited unlimited-aa traced traced-nocpu
CONTROL=${TS_CONTROL:-0}
PIN_FS=() PIN_FIO=()
if [ -n "${TS_PIN:-}" ]; then
	read -r pd pf <<<"$TS_PIN"
	if [ -z "${pf:-}" ] || ! command -v taskset >/dev/null; then
		echo "overhead: TS_PIN needs \"DAEMON_CPUS FIO_CPUS\" and taskset" >&2
		exit 2
	fi
	PIN_FS=(taskset -c "$pd") PIN_FIO=(--cpus_allowed="$pf")
fi

dd if=/dev/urandom of="$BACKING/fio.dat" bs=1M count=256 status=none || exit 1
# each access's mount options
declare -A OPTS=([bare]=bare [unlimited]=tier=unlimited [unlimited-aa]=tier=unlimited
	[traced]="tier=unlimited,trace=$WORK/traced.trace"
	[traced-nocpu]="tier=unlimited,trace=$WORK/traced-nocpu.trace,trace_cpu=false"
	[traced-before]="tier=unlimited,trace=$WORK/traced-before.trace")
mount_fs() { # NAME: in the foreground, so that $! is the daemon
	local bin=$TIERFS
	[ "$1" = traced-before ] && bin=$BEFORE/fs/tierfs
	"${PIN_FS[@]}" "$bin" -f -o "${OPTS[$1]}" "$BACKING" "$WORK/$1" 2>>"$WORK/$1.log" &
	PID[$1]=$!
	for _ in $(seq 600); do
		if [ "$1" = bare ]; then
			bench_mounted "$WORK/$1" && return 0
		elif grep -q '"calibrated": true' "$WORK/$1/.tierfs/stats" 2>/dev/null; then
			return 0
		fi
		kill -0 "${PID[$1]}" 2>/dev/null || break
		sleep 0.05
	done
	echo "overhead: $1 mount failed: $(tail -1 "$WORK/$1.log")" >&2
	exit 1
}
KEEP=${TS_KEEP_MOUNTS:-0}
# records and drops of each traced access, summed over its traces
declare -A RECS=() DROPS=() NOTES=() BYTES=() RUNS=()
umount_fs() { # NAME: unmounted, its daemon gone (its trace written out)
	fusermount3 -u "$WORK/$1" && wait "${PID[$1]}"
	PID[$1]=
	case $1 in traced*) ;; *) return 0 ;; esac
	[ -x "$CLI" ] || return 0
	local n d
	read -r n d < <("$CLI" trace stats "$WORK/$1.trace" --json 2>"$WORK/stats.err" |
		python3 -c 'import json, sys
try:
    s = json.load(sys.stdin)
    print(s.get("records", "?"), s.get("dropped", "?"))
except Exception:
    print("? ?")')
	RECS[$1]=$((${RECS[$1]:-0} + ${n/\?/0})) DROPS[$1]=$((${DROPS[$1]:-0} + ${d/\?/0}))
	BYTES[$1]=$((${BYTES[$1]:-0} + $(stat -c %s "$WORK/$1.trace"))) RUNS[$1]=$((${RUNS[$1]:-0} + 1))
	[ "$n" = "?" ] && NOTES[$1]+="; a trace unreadable"
	[ -s "$WORK/stats.err" ] && NOTES[$1]+="; $(head -1 "$WORK/stats.err")"
	rm -f "$WORK/$1.trace"
}

# The requests daemon NAME has counted so far (every op's count in its
# stats); "-" where it has none (bare)
reqs() {
	python3 -c 'import json, sys
try:
    print(sum(o.get("count", 0) for o in json.load(open(sys.argv[1]))["ops"].values()))
except Exception:
    print("-")' "$WORK/$1/.tierfs/stats"
}

# The CPU time of process PID so far, ns: its process CPU clock
# (clock_getcpuclockid's encoding: every thread, dead ones included).
cpu_ns() {
	python3 -c 'import sys, time; p = int(sys.argv[1]); print(time.clock_gettime_ns(((~p) << 3) | 2))' "$1"
}

# fio's JSON -> "iops mbps mean_lat_ns ios"
run() { # FILE DIRECT RW BS QD
	fio "${PIN_FIO[@]}" --name=o --filename="$1" --size=256M --direct="$2" --invalidate=0 --rw="$3" --bs="$4" \
		--ioengine=io_uring --iodepth="$5" --runtime="$RUNTIME" --time_based \
		--output-format=json --output="$WORK/fio.json" >/dev/null 2>"$WORK/fio.err" ||
		{ echo "overhead: fio failed: $(head -1 "$WORK/fio.err")" >&2; exit 1; }
	python3 - "$WORK/fio.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))["jobs"][0]["read"]
print("%.1f %.2f %.0f %d" % (r["iops"], r["bw_bytes"] / 1e6, r["clat_ns"]["mean"], r["total_ios"]))
EOF
}

cat "$BACKING/fio.dat" >/dev/null # into the page cache for native-cached
ACCESS=${TS_ACCESS:-"native-direct native-cached bare unlimited traced traced-nocpu"}
[ -n "$BEFORE" ] && [ -z "${TS_ACCESS:-}" ] && ACCESS+=" traced-before"
[ "$CONTROL" = 1 ] && case " $ACCESS " in *" unlimited-aa "*) ;; *) ACCESS+=" unlimited-aa" ;; esac
if [ "$KEEP" = 1 ]; then
	for m in $ACCESS; do
		case $m in native-*) ;; *) mount_fs "$m" ;; esac
	done
fi
case " $ACCESS " in *" unlimited "*) ;; *) echo "overhead: TS_ACCESS needs unlimited (the ratios' base)" >&2; exit 2 ;; esac
TRACED=
for t in traced traced-nocpu traced-before; do
	case " $ACCESS " in *" $t "*) TRACED+=" $t" ;; esac
done
# one untraced run first, not counted: the first run after the bench's
# quiet gap finds the binaries and the caches cold
if [ "${TS_WARMUP:-1}" = 1 ]; then
	[ "$KEEP" = 1 ] || mount_fs unlimited
	run "$WORK/unlimited/fio.dat" 1 randread 4k 1 >/dev/null
	[ "$KEEP" = 1 ] || umount_fs unlimited
fi
echo "# $(bench_load) before the run"
printf '%-18s %-14s %10s %9s %10s %11s %7s %-23s %-23s\n' job access IOPS MB/s "mean(us)" "cpu(us/req)" \
	threads "/bare" "/native-cached"
declare -a SUMMARY=() CI=()
# JOB ACCESS "IOPS a round" "unlimited's" "unlimited-aa's" "cpu/req a round"
# "unlimited's" "unlimited-aa's": ACCESS against the mean of the two
# untraced runs of each round (the A/A control against unlimited), IOPS and
# the daemon's CPU per request: median (min..max) [the median's interval,
# its coverage]
control() {
	/usr/bin/python3 - "$BENCH_DIR" "$@" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import benchstat as bs  # noqa: E402
job, acc = sys.argv[2], sys.argv[3]
v = [[float(x) for x in a.split()] for a in sys.argv[4:]]


def show(a, b, c):
    if acc == "unlimited-aa":  # the control, against the first untraced run
        r = [x / y for x, y in zip(a, b) if x > 0 and y > 0]
    else:
        r = [x / ((y + z) / 2) for x, y, z in zip(a, b, c) if x > 0 and y > 0 and z > 0]
    if not r:
        return "-"
    ci = bs.median_interval(r, 0.90)
    return "%s %s" % (bs.show(r), "[%.3f..%.3f, %.0f%%]" % (ci[0], ci[1], 100 * ci[2])
                      if ci else "[too few rounds]")


print("%-18s %-13s IOPS %s  cpu/req %s" % (job, acc, show(*v[0:3]), show(*v[3:6])))
PY
}
# ACCESS's IOPS against BASE's within each round (riops: the job's figures
# round by round), "-" when BASE did not run
against() { [ -n "${riops[$2]:-}" ] && bench_ratio "${riops[$1]}" "${riops[$2]}" || echo -; }
for job in "4k-randread-qd1 randread 4k 1" "4k-randread-qd16 randread 4k 16" "1m-read-qd16 read 1m 16"; do
	read -r name rw bs qd <<<"$job"
	case " $JOBS " in *" $name "*) ;; *) continue ;; esac
	declare -A all=() iops=() mbps=() lat=() cpu=() riops=() rcpu=() rthreads=()
	for round in $(seq "$ROUNDS"); do
		# each round starts one further along the list, so that no run
		# always follows the same one (a fixed order gave QD1 ratios of
		# 0.53 to tracing without CPU samples at load 12)
		# shellcheck disable=SC2086 # ACCESS: names, a word each
		for access in $(bench_order "$round" $ACCESS); do
			c0=
			case $access in
			native-direct) r=$(run "$BACKING/fio.dat" 1 "$rw" "$bs" "$qd") ;;
			native-cached) r=$(run "$BACKING/fio.dat" 0 "$rw" "$bs" "$qd") ;;
			*)
				[ "$KEEP" = 1 ] || mount_fs "$access"
				q0=$(reqs "$access")
				c0=$(cpu_ns "${PID[$access]}")
				r=$(run "$WORK/$access/fio.dat" 1 "$rw" "$bs" "$qd")
				c1=$(cpu_ns "${PID[$access]}")
				q1=$(reqs "$access")
				tasks=("/proc/${PID[$access]}/task/"*)
				rthreads[$access]+="${#tasks[@]} "
				[ "$KEEP" = 1 ] || umount_fs "$access"
				;;
			esac
			read -r i m l n <<<"$r"
			# the daemon's own count of requests, where it has one
			[ -n "$c0" ] && [ "$q0" != - ] && [ "$q1" != - ] && [ "$q1" -gt "$q0" ] &&
				n=$((q1 - q0))
			# daemon CPU per request, us
			c=-1
			[ -n "$c0" ] && c=$(awk -v a="$c0" -v b="$c1" -v n="$n" 'BEGIN { printf "%.2f", (b - a) / n / 1000 }')
			all[$access]+="$i $m $l $c"$'\n'
			# this round's figures, in round order: ratios are taken
			# within each round
			riops[$access]+="$i " rcpu[$access]+="$c "
		done
	done
	for access in $ACCESS; do
		# the round with the median IOPS; the median CPU per request
		read -r iops[$access] mbps[$access] lat[$access] _ < <(printf '%s' "${all[$access]}" |
			sort -g | awk '{ l[NR] = $0 } END { print l[int((NR + 1) / 2)] }')
		cpu[$access]=$(printf '%s' "${all[$access]}" | awk '{ print $4 }' | sort -g |
			awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	done
	for access in $ACCESS; do
		c=${cpu[$access]}
		[ "$c" = -1 ] && c=-
		# the daemon's threads at each run's end, median over the rounds
		th=-
		# shellcheck disable=SC2086 # rthreads: numbers, a word each
		[ -n "${rthreads[$access]:-}" ] && th=$(bench_stat -r -f %.0f ${rthreads[$access]} | awk '{ print $1 }')
		printf '%-18s %-14s %10.0f %9.1f %10.1f %11s %7s %-23s %-23s\n' "$name" "$access" \
			"${iops[$access]}" "${mbps[$access]}" "$(awk -v l="${lat[$access]}" 'BEGIN { print l / 1000 }')" \
			"$c" "$th" "$(against "$access" bare)" "$(against "$access" native-cached)"
	done
	for t in $TRACED; do
		SUMMARY+=("$(printf '%-18s %-13s IOPS %s  cpu/req %s  cpu +us/req %s' "$name" "$t" \
			"$(against "$t" unlimited)" "$(bench_ratio "${rcpu[$t]}" "${rcpu[unlimited]}")" \
			"$(bench_diff "${rcpu[$t]}" "${rcpu[unlimited]}")")")
	done
	if [ -n "${riops[unlimited-aa]:-}" ]; then
		for t in unlimited-aa $TRACED; do
			CI+=("$(control "$name" "$t" "${riops[$t]}" "${riops[unlimited]}" \
				"${riops[unlimited-aa]}" "${rcpu[$t]}" "${rcpu[unlimited]}" \
				"${rcpu[unlimited-aa]}")")
		done
	fi
	unset all iops mbps lat cpu riops rcpu rthreads
done
echo
echo "# traced / unlimited, per round (median (min..max) over $ROUNDS rounds):"
for s in "${SUMMARY[@]}"; do echo "$s"; done
if [ "${#CI[@]}" -gt 0 ]; then
	echo
	echo "# against the mean of unlimited and unlimited-aa in each round (unlimited-aa, the"
	echo "# A/A control: against unlimited): median (min..max) [the median's interval, coverage]"
	for s in "${CI[@]}"; do echo "$s"; done
fi
if [ "$KEEP" = 1 ]; then
	for t in $TRACED; do
		fusermount3 -u "$WORK/$t" && wait "${PID[$t]}"
		PID[$t]=
		[ -x "$CLI" ] || continue
		echo "# $t's trace: $(bench_trace_counts "$CLI" "$WORK/$t.trace")"
	done
else
	for t in $TRACED; do
		[ -x "$CLI" ] || continue
		echo "# $t's traces (one a run): ${RECS[$t]:-0} records, ${DROPS[$t]:-0} dropped," \
			"$(awk -v r="${RECS[$t]:-0}" -v n="${RUNS[$t]:-0}" -v s="$RUNTIME" \
				'BEGIN { printf "%.0f", n ? r / n / s : 0 }') records/s of fio run," \
			"${BYTES[$t]:-0} bytes, $(awk -v b="${BYTES[$t]:-0}" -v r="${RECS[$t]:-0}" \
				'BEGIN { printf "%.1f", r ? b / r : 0 }') bytes a record${NOTES[$t]:-}"
	done
fi
echo "# $(bench_load) after the run"
