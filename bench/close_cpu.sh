#!/usr/bin/env bash
# close_cpu.sh — the reading thread's own CPU in each metadata call of a
# file it reads whole, through FUSE (tierfs, as tiersim record mounts it)
# and through ext4 in block mode (tiersim disk mount, the job in its
# memory cgroup, cache cold): the evidence for what the kernel-fs replay
# takes off as FUSE's own CPU for each request (traces/README.md, the
# in-kernel rule; pipeline/hosts.lua's replay_fuse_cpu_*_ns). For each
# file, in one Python thread, the thread's CPU clock
# (CLOCK_THREAD_CPUTIME_ID) read around
#   lookup   a stat of its name, not looked up before: through FUSE one
#            FUSE_LOOKUP (the high-level API's getattr, a GETATTR record);
#   open     its open, the name now known (the entry and attributes still
#            valid, 1 s): one FUSE_OPEN;
#   getattr  an fstat after reading it whole: a direct read leaves its
#            atime stale (fuse_invalidate_atime), so the fstat asks the
#            daemon: one FUSE_GETATTR;
#   close    its close: FUSE_RELEASE, sent in the background
#            (fs/fuse/file.c: synchronous on fuseblk mounts only), so the
#            thread queues it and goes on, with no sleep or wake-up;
# each in two variants, A/B in every round: "fstat" as above, and
# "nofstat", the same calls without the fstat, the close right after the
# read (does the fstat's round trip make the close dearer?);
# the FUSE recordings' request counts (first round) show which requests
# each call sent. Per run: each call's median (mean) in us; FUSE and block
# mode interleaved, and the two variants in each, REPS rounds; then each
# call's FUSE CPU beyond block mode's (the difference of the two medians
# in each round) and the close's with the fstat beyond without it, median
# [min-max] over the rounds.
#
# The job reads bench/fs_fidelity.sh's JPEG folder (FS_FIDELITY_DATA's
# jpeg/, 1,058 files in 106 folders).
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
root, out, fst = sys.argv[1], sys.argv[2], sys.argv[4] == "fstat"
tc = time.thread_time_ns
d = {"lookup": [], "open": [], "getattr": [], "close": []}
for rel in open(sys.argv[3]).read().split():
    p = os.path.join(root, rel)
    t0 = tc()
    os.stat(p)
    t1 = tc()
    fd = os.open(p, os.O_RDONLY)
    t2 = tc()
    while os.read(fd, 1 << 20):
        pass
    t3 = tc()
    if fst:
        os.fstat(fd)
    t4 = tc()
    os.close(fd)
    t5 = tc()
    d["lookup"].append(t1 - t0)
    d["open"].append(t2 - t1)
    if fst:
        d["getattr"].append(t4 - t3)
    d["close"].append(t5 - t4)
json.dump(d, open(out, "w"))
PYEOF
summ() { # MODE JSON: each op's median and mean, and the medians into $W/MODE.med (nan: not made)
	$PY - "$1" "$2" "$W/$1.med" <<'PYEOF'
import json, statistics as st, sys
d = json.load(open(sys.argv[2]))
print(f"  {sys.argv[1]:14} " + "  ".join(f"{k} {st.median(v) / 1e3:6.2f} ({st.mean(v) / 1e3:6.2f})"
                                         for k, v in d.items() if v) + f" us  ({len(d['open'])} files)")
with open(sys.argv[3], "a") as f:
    f.write(" ".join(f"{st.median(v) / 1e3:.3f}" if v else "nan" for v in d.values()) + "\n")
PYEOF
}
echo "== close_cpu.sh on $TIER, $REPS rounds ($(date -u +%T), $(bench_load))"
for rep in $(seq "$REPS"); do
	echo "== round $rep ($(date -u +%T))"
	for mode in $(bench_order $((rep - 1)) fuse block); do
		if [ "$mode" = fuse ]; then
			for v in $(bench_order $((rep - 1)) fstat nofstat); do
				"$B" record --data "$DATA" --tier "$TIER" --mem 4GiB --out "$W/fuse.trace" --no-wakes \
					-- $PY "$W/job.py" '{}/jpeg' "$W/out.json" "$W/list" "$v" >/dev/null 2>"$W/err" ||
					die "record: $(tail -1 "$W/err")"
				summ "$mode-$v" "$W/out.json"
				[ "$rep" = 1 ] && "$B" trace stats "$W/fuse.trace" --json 2>/dev/null |
					$PY -c 'import json, sys
o = json.load(sys.stdin)["ops"]
print("  the FUSE recording, requests: " + ", ".join("%s %d" % (k, v["count"]) for k, v in sorted(o.items())))'
			done
		else
			"$B" disk mount "$IMG" "$MNT" --tier "$TIER" --mem 4GiB 2>/dev/null || die "disk mount"
			for v in $(bench_order $((rep - 1)) fstat nofstat); do
				"$B" disk run "$MNT" --cache cold -- $PY "$W/job.py" "$MNT/jpeg" "$W/out.json" "$W/list" "$v" \
					>/dev/null 2>"$W/err" || die "disk run: $(tail -1 "$W/err")"
				summ "$mode-$v" "$W/out.json"
			done
			"$B" disk umount "$MNT" || die "disk umount"
		fi
	done
done
echo "== done ($(date -u +%T), $(bench_load))"
# each op's FUSE CPU beyond block mode's, round by round (the medians'
# difference), in each variant; the close's with the fstat beyond without
# it: median [min-max] over the rounds
$PY - "$W" <<'PYEOF'
import math, os, statistics as st, sys
w = sys.argv[1]
med = {m: [list(map(float, l.split())) for l in open(os.path.join(w, m + ".med"))]
       for m in ("fuse-fstat", "fuse-nofstat", "block-fstat", "block-nofstat")}
def line(what, d):
    print(f"  {what}: {st.median(d):6.2f} [{min(d):.2f}-{max(d):.2f}] us")
for v in ("fstat", "nofstat"):
    f, b = med["fuse-" + v], med["block-" + v]
    for i, k in enumerate(["lookup (stat of a name not seen)", "open (its name known)",
                           "getattr (fstat after the read)", "close"]):
        d = [x[i] - y[i] for x, y in zip(f, b)]
        if not any(math.isnan(x) for x in d):
            line(f"{v:7} FUSE - block, {k}", d)
    line(f"{v:7} FUSE - block, lookup + open", [x[0] + x[1] - y[0] - y[1] for x, y in zip(f, b)])
for m in ("fuse", "block"):
    line(f"{m:5} close, with the fstat - without", [x[3] - y[3] for x, y in zip(med[m + "-fstat"], med[m + "-nofstat"])])
line("FUSE - block close, with the fstat - without", [(a[3] - b[3]) - (c[3] - d[3]) for a, b, c, d in
     zip(med["fuse-fstat"], med["block-fstat"], med["fuse-nofstat"], med["block-nofstat"])])
PYEOF
