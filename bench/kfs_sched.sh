#!/usr/bin/env bash
# kfs_sched.sh — where the LMDB cursor's job thread spends its epoch through
# FUSE (tiersim record) and in block mode (tiersim disk mount), from the
# kernel's scheduler events: what makes its gaps longer through FUSE than
# on ext4 (the kernel-fs replay's stretch rule, traces/README.md).
#
#   bench/q bench bench/kfs_sched.sh DATA IMAGE BUILD [ROUNDS [TIER [WORKLOAD]]]
#
# DATA and IMAGE as bench/kfs_check.sh's (bench/fs_fidelity.sh's datasets
# and an ext4 image of them). Each round, in an order alternating with the
# round: the cursor recorded through tierfs (--mem 4GiB, as kfs_check.sh),
# and run in block mode (cache cold), with sched_switch and sched_wakeup
# captured in a tracefs instance of its own; the cursor marks its epoch's
# start and end there. bench/kfs_sched.py splits the job thread's epoch
# into its sleeps (blocked) and the gaps between them (from a wake-up to
# the next sleep), and each gap into time on a CPU and time runnable
# (woken or preempted, waiting for a CPU), and says which threads held the
# CPUs while it waited. WORKLOAD: lmdb (the cursor, the default) or folder
# (bench/kfs_check.sh's PyTorch folder loader, 2 worker processes, marked
# around its main); for the folder, kfs_sched.py --procs follows every
# thread of the job (its workers too) and splits the gaps by the sleep
# before them (D: a page or a FUSE reply; S: a queue or a pipe).
# Before each mode's run of a round, outside the capture, the files tierfs
# serves from (the workload's folder of DATA through FUSE, IMAGE in block
# mode) are read through the host's page cache, as kfs_check.sh does
# (bench_warm in lib.sh; KFS_SCHED_WARM=0: not): an uncached backing file
# makes tierfs wait on the host's disk inside a request.
# KFS_SCHED_KEEP=DIR keeps the traces and recordings. KFS_SCHED_EMUL=1
# also captures workqueue_execute_start/end and runs bench/kfs_sched_emul.py
# on each capture: the CPU time of tierfs and of the loop device's worker
# (the kworkers that ran a loop work item) in the epoch, and what the CPUs
# ran while the job's workers waited for one, in all and between two files
# (the job's openat calls captured too).
# Needs root (loop devices, tracefs at /sys/kernel/tracing).
set -u
[ $# -ge 3 ] || { echo "usage: kfs_sched.sh DATA IMAGE BUILD [ROUNDS [TIER [WORKLOAD]]]" >&2; exit 2; }
bad() { echo "kfs_sched.sh: $*" >&2; exit 2; }
WL=${6:-lmdb}
case $WL in lmdb) WD=lmdb/train_lmdb ;; folder) WD=jpeg ;; *) bad "WORKLOAD '$WL': lmdb or folder" ;; esac
[ -d "$1/$WD" ] || bad "DATA '$1': no folder $WD in it (the $WL workload's data)"
[ -f "$2" ] || bad "IMAGE '$2': no such file"
[ -x "$3/cli/tiersim" ] && [ -x "$3/fs/tierfs" ] || bad "BUILD '$3': no cli/tiersim and fs/tierfs built in it"
DATA=$(cd "$1" && pwd) IMG=$2 B=$(cd "$3" && pwd)/cli/tiersim
export TIERSIM_TIERFS
TIERSIM_TIERFS=$(cd "$3" && pwd)/fs/tierfs
ROUNDS=${4:-3} TIER=${5:-ssd-cloud}
case $ROUNDS in '' | *[!0-9]* | 0) bad "ROUNDS '$ROUNDS': a count of 1 or more" ;; esac
SRC=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SRC/bench/lib.sh"
PY=/usr/bin/python3
TR=/sys/kernel/tracing
[ -d "$TR/instances" ] || { echo "kfs_sched.sh: no tracefs at $TR" >&2; exit 2; }
W=$(mktemp -d -t kfs_sched.XXXXXX)
export TIERSIM_DISK_STATE=$W/state
MNT=$W/mnt
T=$TR/instances/kfs_sched.$$
mkdir -p "$MNT"
is_mounted() { awk -v m="$1" '$5 == m { f = 1 } END { exit !f }' /proc/self/mountinfo; }
cleanup() {
	bench_tracefs_stop "$T"
	is_mounted "$MNT" && "$B" disk umount "$MNT" >/dev/null 2>&1
	rm -rf "$W"
}
trap cleanup EXIT
die() { echo "kfs_sched.sh: $*" >&2; exit 1; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
bench_tracefs_start "$T" 32768 || die "cannot make tracefs instance $T"
bench_tracefs_event "$T" sched/sched_switch
bench_tracefs_event "$T" sched/sched_wakeup
if [ -n "${KFS_SCHED_EMUL:-}" ]; then
	bench_tracefs_event "$T" workqueue/workqueue_execute_start
	bench_tracefs_event "$T" workqueue/workqueue_execute_end
	bench_tracefs_event "$T" syscalls/sys_enter_openat 'comm == "python3"'
fi
cat >"$W/cursor.py" <<'PY'
import json, sys, time, lmdb
env = lmdb.open(sys.argv[1], readonly=True, lock=False, readahead=True)
mark = open(sys.argv[3], "w")
mark.write("kfs_sched epoch start\n"); mark.flush()
t0 = time.monotonic(); n = b = 0
with env.begin() as txn:
    for _, v in txn.cursor():
        n += 1; b += len(v)
t1 = time.monotonic()
mark.write("kfs_sched epoch end\n"); mark.flush()
print(json.dumps({"epoch_s": t1 - t0, "samples": n, "bytes": b}), file=open(sys.argv[2], "w"))
PY
cat >"$W/folder.py" <<'PY'
import runpy, sys
mark = open(sys.argv[1], "w")
sys.argv = [sys.argv[2]] + sys.argv[3:]
mark.write("kfs_sched epoch start\n"); mark.flush()
runpy.run_path(sys.argv[0], run_name="__main__")
mark.write("kfs_sched epoch end\n"); mark.flush()
PY
[ "$WL" != folder ] || (cd "$DATA/jpeg" && find train -type f | sort) >"$W/jpeg.list"
job() { # ROOT: the workload's command, marking its epoch
	case $WL in
	lmdb) echo "$PY $W/cursor.py $1/lmdb/train_lmdb $W/out.json $T/trace_marker" ;;
	folder) echo "$PY $W/folder.py $T/trace_marker $SRC/bench/pytorch_loader.py --root $1/jpeg --list $W/jpeg.list" \
		"--mode bytes --workers 2 --batch 32 --step 0 --out $W/out.json" ;;
	esac
}
warm() { # MODE: tierfs's backing files through the host's page cache (lib.sh)
	[ "${KFS_SCHED_WARM:-1}" = 1 ] || return 0
	if [ "$1" = block ]; then
		bench_warm "$IMG"
	else
		bench_warm "$DATA/${WD%%/*}"
	fi
}
epoch() { $PY -c 'import json, sys; print(json.load(open(sys.argv[1]))["epoch_s"])' "$1"; }
traced() { # OUT CMD...: run CMD with the instance on, its events in OUT
	bench_tracefs_on "$T"
	"${@:2}"
	local rc=$?
	bench_tracefs_off "$T" "$1"
	return $rc
}
echo "== kfs_sched $TIER $WL, $ROUNDS rounds: start $(date -u +%T), load $(load)"
for r in $(seq "$ROUNDS"); do
	order="fuse block"
	[ $((r % 2)) = 0 ] && order="block fuse"
	for mode in $order; do
		warm "$mode"
		if [ "$mode" = fuse ]; then
			# shellcheck disable=SC2046 # job's words are the command
			traced "$W/fuse.$r.sched" "$B" record --data "$DATA" --tier "$TIER" --mem 4GiB --out "$W/fuse.$r.trace" \
				--no-wakes -- $(job '{}') >"$W/rec.out" 2>&1 || die "record: $(tail -1 "$W/rec.out")"
		else
			"$B" disk mount "$IMG" "$MNT" --tier "$TIER" --mem 4GiB >"$W/mount.out" 2>&1 ||
				die "disk mount: $(tail -1 "$W/mount.out")"
			# shellcheck disable=SC2046 # job's words are the command
			traced "$W/block.$r.sched" "$B" disk run "$MNT" --cache cold -- $(job "$MNT") >"$W/run.out" 2>&1 ||
				die "disk run: $(tail -1 "$W/run.out")"
			"$B" disk umount "$MNT" || die "disk umount"
		fi
		echo "round $r $mode epoch_s $(epoch "$W/out.json")"
		[ -z "${KFS_SCHED_KEEP:-}" ] || cp "$W/$mode.$r."* "$KFS_SCHED_KEEP/"
	done
done
echo "== end $(date -u +%T), load $(load)"
for r in $(seq "$ROUNDS"); do
	for mode in fuse block; do
		echo "-- round $r $mode"
		if [ "$WL" = lmdb ]; then
			$PY "$SRC/bench/kfs_sched.py" "$W/$mode.$r.sched" || die "kfs_sched.py on $mode.$r"
		else
			$PY "$SRC/bench/kfs_sched.py" "$W/$mode.$r.sched" --procs || die "kfs_sched.py on $mode.$r"
		fi
		[ -z "${KFS_SCHED_EMUL:-}" ] ||
			$PY "$SRC/bench/kfs_sched_emul.py" "$W/$mode.$r.sched" || die "kfs_sched_emul.py on $mode.$r"
	done
done
