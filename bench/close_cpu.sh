#!/usr/bin/env bash
# close_cpu.sh — the reading thread's own CPU in open() and close() of a
# file it read whole, through FUSE (tierfs, as tiersim record mounts it)
# and through ext4 in block mode (tiersim disk mount, the job in its
# memory cgroup, cache cold): the evidence for which FUSE requests the
# kernel-fs replay takes the FUSE CPU off (traces/README.md, the in-kernel
# rule). A FUSE open is a request the thread sleeps in until tierfs
# replies; the release at the last close is sent in the background
# (fs/fuse/file.c: synchronous on fuseblk mounts only), so the thread
# queues it and goes on, with no sleep or wake-up of its own.
#
# The job is bench/fs_fidelity.sh's JPEG folder (FS_FIDELITY_DATA's jpeg/,
# 1,058 files): each file opened, read whole and closed by one Python
# thread, the thread's CPU clock (CLOCK_THREAD_CPUTIME_ID) read around the
# open and around the close. Per run: the median and mean of each, in us;
# FUSE and block mode interleaved, REPS rounds.
#
# usage: bench/close_cpu.sh BUILD DATA IMAGE [REPS] [TIER]
#   DATA: bench/fs_fidelity.sh's FS_FIDELITY_DATA (jpeg/ in it), IMAGE its
#   FS_FIDELITY_IMAGE (the same tree in ext4). Needs root (loop devices,
#   cgroups). CPU figures of one thread: run under the quiet lock and say
#   the load.
set -u
BUILD=${1:?usage: bench/close_cpu.sh BUILD DATA IMAGE [REPS] [TIER]}
DATA=${2:?usage: bench/close_cpu.sh BUILD DATA IMAGE [REPS] [TIER]}
IMG=${3:?usage: bench/close_cpu.sh BUILD DATA IMAGE [REPS] [TIER]}
REPS=${4:-3}
TIER=${5:-ssd-cloud}
SRC=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SRC/bench/lib.sh"
bench_build close_cpu.sh "$BUILD"
if [ ! -d "$DATA/jpeg" ] || [ ! -s "$IMG" ]; then
	echo "close_cpu.sh: needs $DATA/jpeg and $IMG" >&2
	exit 2
fi
W=$(mktemp -d /tmp/close_cpu.XXXXXX)
export TIERSIM_DISK_STATE=$W/state
MNT=$W/mnt
mkdir -p "$MNT"
is_mounted() { awk -v m="$1" '$5 == m { f = 1 } END { exit !f }' /proc/self/mountinfo; }
cleanup() {
	is_mounted "$MNT" && "$B" disk umount "$MNT" >/dev/null 2>&1
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
die() { echo "close_cpu.sh: $*" >&2; exit 1; }
(cd "$DATA/jpeg" && find train -type f | sort) >"$W/list"
cat >"$W/job.py" <<'PYEOF'
import json, os, sys, time
root, out = sys.argv[1], sys.argv[2]
tc = time.thread_time_ns
op, cl = [], []
for rel in open(sys.argv[3]).read().split():
    t0 = tc()
    fd = os.open(os.path.join(root, rel), os.O_RDONLY)
    t1 = tc()
    while os.read(fd, 1 << 20):
        pass
    t2 = tc()
    os.close(fd)
    t3 = tc()
    op.append(t1 - t0)
    cl.append(t3 - t2)
json.dump({"open": op, "close": cl}, open(out, "w"))
PYEOF
summ() { # MODE JSON
	$PY - "$1" "$2" <<'PYEOF'
import json, statistics as st, sys
d = json.load(open(sys.argv[2]))
print(f"  {sys.argv[1]:6} " + "  ".join(f"{k} median {st.median(v) / 1e3:6.2f} us mean {st.mean(v) / 1e3:6.2f} us"
                                        for k, v in d.items()) + f"  ({len(d['open'])} files)")
PYEOF
}
echo "== close_cpu.sh on $TIER, $REPS rounds ($(date -u +%T), $(bench_load))"
for rep in $(seq "$REPS"); do
	echo "== round $rep ($(date -u +%T))"
	for mode in $(bench_order $((rep - 1)) fuse block); do
		if [ "$mode" = fuse ]; then
			"$B" record --data "$DATA" --tier "$TIER" --mem 4GiB --out "$W/fuse.trace" --no-wakes \
				-- $PY "$W/job.py" '{}/jpeg' "$W/out.json" "$W/list" >/dev/null 2>"$W/err" ||
				die "record: $(tail -1 "$W/err")"
		else
			"$B" disk mount "$IMG" "$MNT" --tier "$TIER" --mem 4GiB 2>/dev/null || die "disk mount"
			"$B" disk run "$MNT" --cache cold -- $PY "$W/job.py" "$MNT/jpeg" "$W/out.json" "$W/list" \
				>/dev/null 2>"$W/err" || die "disk run: $(tail -1 "$W/err")"
			"$B" disk umount "$MNT" || die "disk umount"
		fi
		summ "$mode" "$W/out.json"
	done
done
echo "== done ($(date -u +%T), $(bench_load))"
