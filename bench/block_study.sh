#!/usr/bin/env bash
# block_study.sh — the study's scenarios at their scaled-down size in block
# mode (mount.fs=ext4: the dataset in an ext4 image on a loop device over
# tierfs, the loader in a memory cgroup of mount.mem) against FUSE mode
# (tierfs over the dataset's folder, the page-cache model), real time,
# side by side: scripts/main.lua (GoogLeNet inference and training from an
# LMDB), scripts/tier_training.lua and scripts/preprocess.lua, each mode
# run in turn REPS times (FUSE first in odd repetitions, block first in
# even ones), and the ratio FUSE / block of each row's samples/s taken
# within each repetition (block mode being what an instance would see);
# and the virtual clock's prediction of the same scaled-down scenario
# (--virtual with the real-time sizes), once (it is deterministic: nothing
# to run beside each block run), against each block run. Ratios: median,
# [min-max] after; the load is printed with each run and with the table.
#
# usage: bench/block_study.sh BUILD [REPS] [TIER...]
#   Tiers default to ssd-cloud ultra-cloud; REPS to 3. Needs root (loop
#   devices, cgroups). TIERSIM_WORKDIR keeps the generated datasets between
#   runs (default: a fresh directory, removed at the end). Wall-clock
#   figures: run on a quiet host; the ratios are what to read.
#   BLOCK_STUDY_LOCK=FILE takes flock FILE for each scenario's pair of
#   runs (FUSE and block, one repetition), so that a bench on a shared
#   host holds the lock minutes at a time, not for the whole study (the
#   datasets are made before, outside it). BLOCK_STUDY_CHRT=PRIO runs each
#   real-time run under chrt -f PRIO, through bench/rt_job.sh PRIO (the
#   loop worker and tierfs above it). BLOCK_STUDY_SCRIPTS="main ..." runs
#   those scenarios only (default: main tier_training preprocess), so that
#   a study can be run one scenario at a time. BLOCK_STUDY_KEEP=DIR keeps
#   a timeline (--timeline: the reader's reads and, in real time, the
#   device requests the mount recorded) of each block-mode run there, as
#   SCRIPT.block.REP.timeline.json, and of the virtual run,
#   SCRIPT.virtual.timeline.json:
#   what to compare when a row's ratio misses (bench/timeline_device.py
#   sums up a timeline's device requests and reads); and each run's report
#   (SCRIPT.MODE.REP.json), which a study cut short leaves behind; after
#   the table, each kept block timeline's device summed up (the tier
#   model's latency beside tierfs's lateness, the pauses).
#   BLOCK_STUDY_HOP=both runs block mode twice in each repetition, with
#   the loop device's hop taken off (the default, disk/README.md) and
#   left in (mode "block-hop0": mount.loop_hop=false), interleaved with
#   FUSE (the three rotated in order across repetitions), and a second
#   table: virtual over each, and the two block modes' ratio;
#   BLOCK_STUDY_HOP=only runs the two block modes alone (no FUSE runs,
#   only the second table). BLOCK_STUDY_PREPARE=only makes the datasets
#   in TIERSIM_WORKDIR and stops (run it under a CPU-time lock first);
#   =skip then leaves that step out of the timed call.
set -u
BUILD=${1:?usage: bench/block_study.sh BUILD [REPS] [TIER...]}
REPS=${2:-3}
shift $(($# >= 2 ? 2 : 1))
TIERS=("$@")
[ ${#TIERS[@]} -gt 0 ] || TIERS=(ssd-cloud ultra-cloud)
SRC=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SRC/bench/lib.sh"
bench_build block_study.sh "$BUILD"
W=$(mktemp -d /tmp/block_study.XXXXXX)
export TIERSIM_DISK_STATE=$W/state
TIERSIM_WORKDIR_GIVEN=${TIERSIM_WORKDIR:-}
export TIERSIM_WORKDIR=${TIERSIM_WORKDIR:-$W/work}
trap 'rm -rf "$W"' EXIT
trap 'exit 1' INT TERM
PREPARE=${BLOCK_STUDY_PREPARE:-}
case $PREPARE in
'' | only | skip) ;;
*) echo "block_study.sh: BLOCK_STUDY_PREPARE='$PREPARE': only, skip or unset" >&2; exit 2 ;;
esac
if [ -n "$PREPARE" ] && [ -z "${TIERSIM_WORKDIR_GIVEN:-}" ]; then
	echo "block_study.sh: BLOCK_STUDY_PREPARE=$PREPARE needs TIERSIM_WORKDIR (where the datasets stay)" >&2
	exit 2
fi
tiers=$(IFS=,; echo "${TIERS[*]}")
# the error's own line, not the last of a Lua traceback under it
err1() { grep -v -e '^[[:space:]]' -e '^stack traceback' "$W/err" | tail -1; }

read -r -a SCRIPTS <<<"${BLOCK_STUDY_SCRIPTS:-main tier_training preprocess}"
# the real-time sizes, for --virtual (which otherwise runs the full size)
declare -A SIZE=([main]="count=2000 val=2000 iterations=30" [tier_training]="count=1500 iterations=20"
	[preprocess]="count=1000")
KEEP=${BLOCK_STUDY_KEEP:-}
[ -z "$KEEP" ] || mkdir -p "$KEEP" || { echo "block_study.sh: cannot make $KEEP" >&2; exit 1; }
# TL: --timeline KEEP/NAME.timeline.json when BLOCK_STUDY_KEEP is set, else
# nothing; none for preprocess.lua (a conversion has no timeline, and
# compare refuses --timeline when no training or inference row ran)
tl_args() { # NAME
	TL=()
	case $1 in preprocess.*) return ;; esac
	[ -z "$KEEP" ] || TL=(--timeline "$KEEP/$1.timeline.json" --timeline-max 2000000)
}
for s in "${SCRIPTS[@]}"; do
	[ "$PREPARE" = only ] && break
	tl_args "$s.virtual"
	# shellcheck disable=SC2086 # SIZE holds words
	"$B" compare "$SRC/scripts/$s.lua" --tiers "$tiers" --virtual ${SIZE[$s]} --quiet "${TL[@]}" \
		--json "$W/$s.virtual.json" >/dev/null 2>"$W/err" ||
		{ echo "block_study.sh: $s --virtual failed: $(err1)" >&2; exit 1; }
done
RT=()
# each timed run alone: its loader under chrt, the loop worker and its
# tierfs above it (rt_job.sh), only while it runs
[ -n "${BLOCK_STUDY_CHRT:-}" ] && RT=("$SRC/bench/rt_job.sh" "$BLOCK_STUDY_CHRT" chrt -f "$BLOCK_STUDY_CHRT")
# one scenario's FUSE and block runs (under the lock when asked), FUSE
# first in odd repetitions
MODES=(fuse block)
[ "${BLOCK_STUDY_HOP:-}" = both ] && MODES+=(block-hop0)
[ "${BLOCK_STUDY_HOP:-}" = only ] && MODES=(block block-hop0)
pair() { # REP SCRIPT
	local mode extra
	for mode in $(bench_order $(($1 - 1)) "${MODES[@]}"); do
		echo "== rep $1, $2, $mode ($(date -u +%T), $(bench_load))"
		extra=()
		tl_args "$2.$mode.$1"
		[ "$mode" = block ] && extra=(mount.fs=ext4 "${TL[@]}")
		[ "$mode" = block-hop0 ] && extra=(mount.fs=ext4 mount.loop_hop=false "${TL[@]}")
		"${RT[@]}" "$B" compare "$SRC/scripts/$2.lua" --tiers "$tiers" "${extra[@]}" --quiet \
			--json "$W/$2.$mode.$1.json" >/dev/null 2>"$W/err" ||
			{ echo "block_study.sh: $2 in $mode mode failed: $(err1)" >&2; return 1; }
		[ -z "$KEEP" ] || cp "$W/$2.$mode.$1.json" "$KEEP/"
	done
}
# the datasets, made before any timed run (compare keeps them in
# TIERSIM_WORKDIR): each scenario once, one iteration, untimed
for s in "${SCRIPTS[@]}"; do
	[ "$PREPARE" = skip ] && break
	one=iterations=1
	[ "$s" = preprocess ] && one=
	"$B" compare "$SRC/scripts/$s.lua" --tiers "${TIERS[0]}" $one --quiet >/dev/null 2>"$W/err" ||
		{ echo "block_study.sh: $s (making its datasets) failed: $(err1)" >&2; exit 1; }
done
[ "$PREPARE" = only ] && exit 0
for rep in $(seq "$REPS"); do
	for s in "${SCRIPTS[@]}"; do
		if [ -n "${BLOCK_STUDY_LOCK:-}" ]; then
			exec 9>>"$BLOCK_STUDY_LOCK"
			flock 9
		fi
		pair "$rep" "$s" || exit 1
		[ -n "${BLOCK_STUDY_LOCK:-}" ] && flock -u 9 && exec 9>&-
	done
done

if [ "${BLOCK_STUDY_HOP:-}" != only ]; then
	echo
	echo "== samples/s, median [min-max] of $REPS; ratios to block within each repetition, median [min-max]; $(bench_load)"
	/usr/bin/python3 - "$W" "$REPS" "${SCRIPTS[@]}" <<'EOF'
import json, os, sys
sys.path.insert(0, os.environ["BENCH_DIR"])
from benchstat import median, summary
w, reps, scripts = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def rows(s, mode, r):
    d = json.load(open(os.path.join(w, f"{s}.{mode}.{r}.json")))
    return {x["label"] + " " + (x.get("tier") or ""): x for x in d["rows"]}
def num(x, k):
    v = x.get(k, {})
    return v.get("value") if isinstance(v, dict) else v
def virt(s):
    d = json.load(open(os.path.join(w, f"{s}.virtual.json")))
    return {x["label"] + " " + (x.get("tier") or ""): x for x in d["rows"]}
print(f"{'scenario':14} {'row':40} {'FUSE samples/s':>22} {'block samples/s':>22} {'virtual':>9} {'FUSE/blk':>17} {'virt/blk':>17} {'FUSE stall%':>11} {'blk stall%':>10}")
for s in scripts:
    keys = rows(s, "fuse", 1).keys()
    for k in keys:
        f = [num(rows(s, "fuse", r)[k], "throughput") for r in range(1, reps + 1)]
        b = [num(rows(s, "block", r)[k], "throughput") for r in range(1, reps + 1)]
        fs_ = [num(rows(s, "fuse", r)[k], "io_stall") for r in range(1, reps + 1)]
        bs = [num(rows(s, "block", r)[k], "io_stall") for r in range(1, reps + 1)]
        fm, bm = median(f), median(b)
        v = num(virt(s).get(k, {}), "throughput") or float("nan")
        rr = lambda a: "%.2f [%.2f-%.2f]" % summary([x / y for x, y in zip(a, b)])
        print(f"{s:14} {k[:40]:40} {fm:9.1f} [{min(f):.1f}-{max(f):.1f}] {bm:9.1f} [{min(b):.1f}-{max(b):.1f}] "
              f"{v:9.1f} {rr(f):>17} {rr([v] * len(b)):>17} {median(fs_):11.1f} {median(bs):10.1f}")
EOF
fi
if [ "${BLOCK_STUDY_HOP:-}" = both ] || [ "${BLOCK_STUDY_HOP:-}" = only ]; then
	echo
	echo "== block mode with the loop hop taken off (block) and left in (block-hop0): samples/s, median [min-max] of $REPS; ratios within each repetition"
	/usr/bin/python3 - "$W" "$REPS" "${SCRIPTS[@]}" <<'EOF'
import json, os, sys
sys.path.insert(0, os.environ["BENCH_DIR"])
from benchstat import median, summary
w, reps, scripts = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def rows(s, mode, r=None):
    f = f"{s}.{mode}.{r}.json" if r else f"{s}.{mode}.json"
    d = json.load(open(os.path.join(w, f)))
    return {x["label"] + " " + (x.get("tier") or ""): x for x in d["rows"]}
def num(x, k):
    v = x.get(k, {})
    return v.get("value") if isinstance(v, dict) else v
print(f"{'scenario':14} {'row':40} {'block':>22} {'block-hop0':>22} {'virtual':>9} {'virt/blk':>17} {'virt/blk-hop0':>17} {'blk/blk-hop0':>17}")
for s in scripts:
    for k in rows(s, "block", 1).keys():
        b = [num(rows(s, "block", r)[k], "throughput") for r in range(1, reps + 1)]
        b0 = [num(rows(s, "block-hop0", r)[k], "throughput") for r in range(1, reps + 1)]
        v = num(rows(s, "virtual").get(k, {}), "throughput") or float("nan")
        rr = lambda a, c: "%.2f [%.2f-%.2f]" % summary([x / y for x, y in zip(a, c)])
        print(f"{s:14} {k[:40]:40} {median(b):9.1f} [{min(b):.1f}-{max(b):.1f}] "
              f"{median(b0):9.1f} [{min(b0):.1f}-{max(b0):.1f}] {v:9.1f} {rr([v] * reps, b):>17} "
              f"{rr([v] * reps, b0):>17} {rr(b, b0):>17}")
EOF
fi
# with the timelines kept: each block run's device, the tier model's own
# latency beside tierfs's lateness on this host (timeline_device.py)
if [ -n "$KEEP" ]; then
	echo
	echo "== block mode's device requests, per kept timeline (bench/timeline_device.py)"
	for f in "$KEEP"/*.block*.*.timeline.json; do
		[ -e "$f" ] || continue
		echo "$(basename "$f"):"
		/usr/bin/python3 "$SRC/bench/timeline_device.py" "$f" | grep -E '^\[|late|pauses|in the steps'
	done
fi
