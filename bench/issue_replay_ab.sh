#!/usr/bin/env bash
# issue_replay_ab.sh — a block-mode recording replayed in virtual time on
# its own tier against the span it was recorded in, with two builds, A
# and B, in turn REPS times (A first in odd repetitions): the PyTorch
# folder loader of bench/fs_fidelity.sh (1,058 JPEGs, 2 workers, batch 32,
# bytes only) through `tiersim record --fs ext4 --predict TIER`. A build
# whose tierfs records block mode's request clock (trace format 9, issue
# items: traces/FORMAT.md) charges each request in the replay from its
# recorded issue; an older one from its receipt less the mount's floor and
# hop. Per run: the recorded span and the prediction, whole and from the
# first request (the span less the command's lead, Python's imports, which
# no tier changes), the requests charged from their issue, and the
# prediction / recorded ratios; then per build the median [min-max] of
# each ratio over the repetitions. A wall-time measurement (the recording
# is a real run): run it under `q bench`.
#
# usage: bench/issue_replay_ab.sh BUILD_A BUILD_B [REPS] [TIER]
#   Defaults: 3 ssd-cloud. Needs root (loop devices, cgroups, the wake
#   capture). ISSUE_AB_DATA keeps the dataset between runs (default: a
#   fresh directory, removed at the end; made before any timed run).
#   ISSUE_AB_REP=N numbers the first repetition N (default 1), so that
#   repetitions run in separate calls keep alternating which build runs
#   first.
set -u
A=${1:?usage: bench/issue_replay_ab.sh BUILD_A BUILD_B [REPS] [TIER]}
B=${2:?usage: bench/issue_replay_ab.sh BUILD_A BUILD_B [REPS] [TIER]}
REPS=${3:-3}
TIER=${4:-ssd-cloud}
SRC=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SRC/bench/lib.sh"
A=$(cd "$A" && pwd) B=$(cd "$B" && pwd)
for b in "$A" "$B"; do
	{ [ -x "$b/cli/tiersim" ] && [ -x "$b/fs/tierfs" ]; } ||
		{ echo "issue_replay_ab.sh: no tiersim or tierfs in $b" >&2; exit 2; }
done
[ "$(id -u)" -eq 0 ] || { echo "issue_replay_ab.sh: block mode needs root" >&2; exit 2; }
PY=/usr/bin/python3
W=$(mktemp -d /tmp/issue_replay_ab.XXXXXX)
export TIERSIM_DISK_STATE=$W/state
trap 'rm -rf "$W"' EXIT
trap 'exit 1' INT TERM
DATA=${ISSUE_AB_DATA:-$W/data}
[ -e "$DATA/jpeg/dataset.json" ] || "$A/cli/tiersim" dataset make imagenet-jpeg --out "$DATA/jpeg" --count 1058 \
	>/dev/null 2>&1 || { echo "issue_replay_ab.sh: dataset make failed" >&2; exit 1; }
(cd "$DATA/jpeg" && find train -type f | sort) >"$W/jpeg.list"
FIRST=${ISSUE_AB_REP:-1}
for r in $(seq "$FIRST" $((FIRST + REPS - 1))); do
	for k in $(bench_order $((r - 1)) A B); do
		b=${!k}
		echo "== rep $r, $k ($(date -u +%T), $(bench_load))"
		TIERSIM_TIERFS=$b/fs/tierfs "$b/cli/tiersim" record --fs ext4 --data "$DATA" --tier "$TIER" \
			--mem 4GiB --out "$W/$k.$r.trace" --predict "$TIER" --json -- \
			"$PY" "$SRC/bench/pytorch_loader.py" --root '{}/jpeg' --list "$W/jpeg.list" --mode bytes \
			--workers 2 --batch 32 --step 0 --out "$W/out.json" >"$W/$k.$r.json" 2>"$W/err" ||
			{ echo "issue_replay_ab.sh: record $k failed: $(tail -1 "$W/err")" >&2; exit 1; }
		"$PY" - "$W/$k.$r.json" <<'EOF'
import json, sys
p = {r["what"]: r for r in json.load(open(sys.argv[1]))["predict"]}
rec = p.pop("recorded")
(pred,) = p.values()
lead = rec.get("lead_ns", 0)
print("  recorded %.4f s (%.4f from the first request), predicted %.4f (%.4f); "
      "%d of %d requests charged from their issue; ratio %.4f (%.4f)" % (
      rec["total_ns"] / 1e9, (rec["total_ns"] - lead) / 1e9, pred["total_ns"] / 1e9,
      (pred["total_ns"] - pred.get("lead_ns", 0)) / 1e9, pred.get("from_issue", 0), pred["ops"],
      pred["total_ns"] / rec["total_ns"],
      (pred["total_ns"] - pred.get("lead_ns", 0)) / (rec["total_ns"] - lead)))
EOF
	done
done
echo "== done ($(date -u +%T), $(bench_load))"
"$PY" - "$W" "$FIRST" "$REPS" <<'EOF'
import json, statistics as st, sys
w, rep0, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def ratios(k):
    whole, first = [], []
    for r in range(rep0, rep0 + reps):
        p = {x["what"]: x for x in json.load(open("%s/%s.%d.json" % (w, k, r)))["predict"]}
        rec = p.pop("recorded")
        (pred,) = p.values()
        lead = rec.get("lead_ns", 0)
        whole.append(pred["total_ns"] / rec["total_ns"])
        first.append((pred["total_ns"] - pred.get("lead_ns", 0)) / (rec["total_ns"] - lead))
    return whole, first
fmt = lambda v: "%.4f [%.4f-%.4f]" % (st.median(v), min(v), max(v))
for k in "AB":
    whole, first = ratios(k)
    print("%s: predicted / recorded, whole %s; from the first request %s" % (k, fmt(whole), fmt(first)))
EOF
