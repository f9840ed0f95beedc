#!/usr/bin/env bash
# trace_sparse.sh BUILD_DIR [TRACE...] — do the CPU clocks tierfs leaves
# unread (trace format 4, traces/FORMAT.md "Samples left unread") change
# what a replay predicts?
#
# Each TRACE must have been recorded with every clock read
# (-o trace_cpu_every=true). The script applies tierfs's rule to it
# offline — a clock within G thresholds (two round trips each) of the
# thread's previous reply left unread, up to a budget of B thresholds per
# run, one such gap in L read all the same — so that the same run is replayed both
# ways: the trace as recorded, and with those clocks left for the reader to
# fill.
# (Offline, gaps are exact nanoseconds where tierfs counts 1.024 us units,
# and one counter of short gaps stands for each worker's.) Each is
# replayed in virtual time on TS_TIERS; the script prints each tier's
# total both ways, and the tier's effect (its total less the recording
# tier's) both ways with their ratio.
#
# Without TRACE, it makes one: a PyTorch DataLoader (bench/pytorch_loader.py,
# decode mode, 2 workers; TS_MODE=bytes reads without decoding, so that
# the tier weighs more) over 300 generated JPEGs, through tierfs on
# nvme-local with every clock read.
# Environment: TS_TIERS (default nvme-local,ssd-cloud,ultra-cloud,aws-gp3;
# the first is taken for the recording's own); TS_RULES, the rules to
# compare as space-separated B:L[:G] (G default 1; default "32:256:8",
# tierfs's own, fs/trace_hook.c; "8:32:1" and "32:256:1" were its rules
# before), each applied to the same recording.
set -u

[ $# -ge 1 ] || { echo "usage: bench/trace_sparse.sh BUILD_DIR [TRACE...]" >&2; exit 2; }
BUILD=$(cd "$1" 2>/dev/null && pwd) || { echo "trace_sparse: no build directory '$1'" >&2; exit 1; }
shift
SRC=$(cd "$(dirname "$0")/.." && pwd)
export TIERSIM_DATADIR=${TIERSIM_DATADIR:-$SRC}
CLI=$BUILD/cli/tiersim
TIERS=${TS_TIERS:-nvme-local,ssd-cloud,ultra-cloud,aws-gp3}
RULES=${TS_RULES:-32:256:8}
[ -x "$CLI" ] || { echo "trace_sparse: $CLI is not built" >&2; exit 1; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/trace-sparse.XXXXXX")
mounted() { awk -v m="$1" '$5 == m { f = 1 } END { exit !f }' /proc/self/mountinfo; }
cleanup() {
	mounted "$WORK/mnt" && { fusermount3 -u "$WORK/mnt" 2>/dev/null || umount -l "$WORK/mnt"; }
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

declare -a TRACES=("$@")
if [ ${#TRACES[@]} = 0 ]; then
	mkdir -p "$WORK/data" "$WORK/mnt"
	/usr/bin/python3 - "$WORK/data" <<'EOF' || exit 1
import sys
import numpy as np
from PIL import Image
rng = np.random.default_rng(1)
for i in range(300):
    a = (rng.random((320, 400, 3)) * 255).astype(np.uint8)
    Image.fromarray(a).save("%s/img%04d.jpg" % (sys.argv[1], i), quality=85)
EOF
	ls "$WORK/data" > "$WORK/list"
	"$BUILD/fs/tierfs" -f -o "tier=${TIERS%%,*},trace=$WORK/loader.trace,trace_cpu_every=true" \
		"$WORK/data" "$WORK/mnt" 2>"$WORK/tierfs.log" &
	pid=$!
	for _ in $(seq 600); do
		grep -q '"calibrated": true' "$WORK/mnt/.tierfs/stats" 2>/dev/null && break
		kill -0 "$pid" 2>/dev/null || { echo "trace_sparse: mount failed: $(tail -1 "$WORK/tierfs.log")" >&2; exit 1; }
		sleep 0.05
	done
	/usr/bin/python3 "$SRC/bench/pytorch_loader.py" --root "$WORK/mnt" --list "$WORK/list" \
		--mode "${TS_MODE:-decode}" --workers 2 --prefetch 2 --batch 16 --step 0.02 >/dev/null || exit 1
	fusermount3 -u "$WORK/mnt" && wait "$pid"
	TRACES=("$WORK/loader.trace")
fi

# the dump of a trace with every clock read -> the same with tierfs's rule applied
sparsify() { # BUDGET LEARN LIMIT
	python3 -c '
import collections, sys
lines = sys.stdin.read().splitlines()
floor = 0
for l in lines:
    if l.startswith("header"):
        floor = int(([f[9:] for f in l.split() if f.startswith("floor_ns=")] or ["0"])[0])
budget, learn, limit = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
T = 2 * floor
B = min(budget * T, 4095 * 1024)
G = min(limit * T, B)
recs = []
for i, l in enumerate(lines):
    if l and l[0].isdigit():
        recs.append([i, None])
    elif l.startswith("cpu ") and recs and recs[-1][0] == i - 1:
        recs[-1][1] = i
by = collections.defaultdict(list)
for r in recs:
    f = lines[r[0]].split()
    by[int(f[7])].append((int(f[0]), int(f[1]), r[1]))
unread = total = shorts = 0
for tid, rs in by.items():
    rs.sort()
    last, owed = None, 0
    for s, c, ci in rs:
        if ci is None or not tid:
            continue
        total += 1
        g = s - last if last is not None else -1
        flag = 0
        if 0 <= g <= G:
            shorts += 1
            flag = 1 if owed + g <= B and shorts % learn else 2
        owed = owed + g if flag == 1 else 0
        last = max(c, s)
        if "flags=" in lines[ci]:
            sys.exit("trace_sparse: the trace already has clocks left unread: record it with trace_cpu_every=true")
        if flag == 1:
            kv = lines[ci].split()
            kv = ["on_ns=0" if x.startswith("on_ns=") else "runq_ns=0" if x.startswith("runq_ns=") else x for x in kv]
            lines[ci] = " ".join(kv) + " flags=1"
            unread += 1
        elif flag == 2:
            lines[ci] += " flags=2"
print("\n".join(lines))
print("%d of %d clocks left unread (threshold %d ns, limit %d ns, budget %d ns, one gap within the limit in %d read)" % (unread, total, T, G, B, learn), file=sys.stderr)' "$1" "$2" "$3"
}

totals() { # TRACE -> one total per tier
	"$CLI" replay "$1" --virtual --tier "$TIERS" --json | python3 -c '
import json, sys
print(" ".join(str(r["total_ns"]) for r in json.load(sys.stdin)["results"][1:]))'
}

for tr in "${TRACES[@]}"; do
	"$CLI" trace dump "$tr" > "$WORK/full.txt" || exit 1
	read -r -a full <<<"$(totals "$tr")"
	IFS=, read -r -a names <<<"$TIERS"
	for rule in $RULES; do
		IFS=: read -r rb rl rg <<<"$rule"
		sparsify "$rb" "$rl" "${rg:-1}" < "$WORK/full.txt" > "$WORK/sparse.txt" 2> "$WORK/sparse.err" ||
			{ cat "$WORK/sparse.err" >&2; exit 1; }
		"$CLI" trace undump "$WORK/sparse.txt" -o "$WORK/sparse.trace" || exit 1
		echo "# $tr, rule $rule: $(cat "$WORK/sparse.err")"
		read -r -a sparse <<<"$(totals "$WORK/sparse.trace")"
		printf '%-14s %16s %16s %14s %14s %8s\n' tier "total, read" "total, unread" "effect, read" \
			"effect, unread" ratio
		for k in "${!names[@]}"; do
			awk -v n="${names[$k]}" -v a="${full[$k]}" -v b="${sparse[$k]}" -v a0="${full[0]}" -v b0="${sparse[0]}" \
				'BEGIN { ea = a - a0; eb = b - b0
				printf "%-14s %14.3f ms %14.3f ms %11.3f ms %11.3f ms %8s\n", n, a / 1e6, b / 1e6, ea / 1e6, eb / 1e6,
					ea ? sprintf("%.4f", eb / ea) : "-" }'
		done
	done
done
