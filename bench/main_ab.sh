#!/usr/bin/env bash
# main_ab.sh — scripts/main.lua's inference row (GoogLeNet inference from an
# LMDB read through a memory map, the study's scaled-down size) in block
# mode with two builds, A and B, run in turn REPS times (A first in odd
# repetitions), and each build's virtual prediction of the same row (once:
# it is deterministic); the ratios virtual / block within each repetition,
# for each build, and block B / block A: median [min-max]. Each block run
# under chrt -f PRIO with the loop worker and tierfs above it
# (bench/rt_job.sh); each records its mount's trace, whose header gives
# the loop hop and its size part as measured at that mount and whether
# its requests were timed from the loop device's issue (loop_issue=,
# disk/issue.h), and whose device reads are counted (reads=, and of_128k=
# those a whole 128 KiB readahead window, as the virtual clock's mapped
# read sends them). A wall-time measurement: run it under `q bench`.
#
# usage: bench/main_ab.sh BUILD_A BUILD_B [REPS] [TIER] [PRIO]
#   Defaults: 3 ssd-cloud 10. Needs root (loop devices, cgroups).
#   TIERSIM_WORKDIR keeps the dataset between runs (default: a fresh
#   directory, removed at the end; the dataset is made before any timed run).
#   MAIN_AB_COPY=memcpy|pages: the LMDB source's copy= (pipeline/LOADER.md;
#   default main.lua's, pages); MAIN_AB_HOST=NAME: main.lua's host= (a
#   profile of pipeline/hosts.lua; default main.lua's): e.g. memcpy on
#   epyc-kvm-2vcpu, a reader whose copy touches each Datum tail first in
#   both clocks on a CPU without ERMS.
set -u
A=${1:?usage: bench/main_ab.sh BUILD_A BUILD_B [REPS] [TIER] [PRIO]}
B=${2:?usage: bench/main_ab.sh BUILD_A BUILD_B [REPS] [TIER] [PRIO]}
REPS=${3:-3}
TIER=${4:-ssd-cloud}
PRIO=${5:-10}
SRC=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SRC/bench/lib.sh"
A=$(cd "$A" && pwd) B=$(cd "$B" && pwd)
for b in "$A" "$B"; do
	{ [ -x "$b/cli/tiersim" ] && [ -x "$b/fs/tierfs" ]; } || { echo "main_ab.sh: no tiersim or tierfs in $b" >&2; exit 2; }
done
[ "$(id -u)" -eq 0 ] || { echo "main_ab.sh: block mode needs root" >&2; exit 2; }
W=$(mktemp -d /tmp/main_ab.XXXXXX)
export TIERSIM_DISK_STATE=$W/state
export TIERSIM_WORKDIR=${TIERSIM_WORKDIR:-$W/work}
trap 'rm -rf "$W"' EXIT
trap 'exit 1' INT TERM
SIZE=(count=2000 val=2000 iterations=30)
[ -z "${MAIN_AB_HOST:-}" ] || SIZE+=("host=$MAIN_AB_HOST")
COPY=${MAIN_AB_COPY:-}
case $COPY in '' | memcpy | pages) ;; *) echo "main_ab.sh: MAIN_AB_COPY '$COPY' is not memcpy or pages" >&2; exit 2 ;; esac
sed -n '1,/label = "inference"/p' "$SRC/scripts/main.lua" |
	sed "${COPY:+s/pipeline{ source = \"lmdb\",/pipeline{ source = \"lmdb\", copy = \"$COPY\",/}" >"$W/inference.lua"
[ -z "$COPY" ] || grep -q "copy = \"$COPY\"" "$W/inference.lua" ||
	{ echo "main_ab.sh: no lmdb pipeline{} in scripts/main.lua to set copy= on" >&2; exit 1; }
sps() { /usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["rows"][0]["throughput"]["value"])' "$1"; }
for k in A B; do
	b=${!k}
	TIERSIM_TIERFS=$b/fs/tierfs "$b/cli/tiersim" compare "$W/inference.lua" --tiers "$TIER" --virtual \
		"${SIZE[@]}" --quiet --json "$W/$k.virtual.json" >/dev/null 2>"$W/err" ||
		{ echo "main_ab.sh: $k --virtual failed: $(tail -1 "$W/err")" >&2; exit 1; }
	echo "virtual $k: $(sps "$W/$k.virtual.json") samples/s"
done
# the dataset, made before any timed run, untimed
TIERSIM_TIERFS=$A/fs/tierfs "$A/cli/tiersim" compare "$W/inference.lua" --tiers "$TIER" iterations=1 \
	--quiet >/dev/null 2>"$W/err" || { echo "main_ab.sh: making the dataset failed: $(tail -1 "$W/err")" >&2; exit 1; }
for r in $(seq "$REPS"); do
	for k in $(bench_order $((r - 1)) A B); do
		b=${!k}
		echo "== rep $r, block $k ($(date -u +%T), $(bench_load))"
		TIERSIM_TIERFS=$b/fs/tierfs "$SRC/bench/rt_job.sh" "$PRIO" chrt -f "$PRIO" "$b/cli/tiersim" \
			compare "$W/inference.lua" --tiers "$TIER" mount.fs=ext4 mount.trace="$W/$k.$r.trace" \
			"${SIZE[@]}" --quiet --json "$W/$k.$r.json" >/dev/null 2>"$W/err" ||
			{ echo "main_ab.sh: block $k failed: $(grep -v '^rt_job' "$W/err" | tail -1)" >&2; exit 1; }
		"$b/cli/tiersim" trace dump "$W/$k.$r.trace" >"$W/dump" 2>/dev/null
		# the device's reads: how many, and how many a whole 128 KiB
		# readahead window (the virtual clock's mapped read sends windows)
		echo "  $(sps "$W/$k.$r.json") samples/s; $(grep -m1 -o 'floor=[0-9]*ns\|loop_hop[_0-9a-z]*=[0-9]*ns([a-z]*)\|loop_issue=[a-z]*\( per request\)\?' "$W/dump" |
			tr '\n' ' ')$(awk '$3 == "read" { n++; if ($6 == 131072) w++ } END { printf "reads=%d of_128k=%d", n, w }' "$W/dump")"
	done
done
echo "== done ($(date -u +%T), $(bench_load))"
/usr/bin/python3 - "$W" "$REPS" <<'EOF'
import json, statistics as st, sys
w, reps = sys.argv[1], int(sys.argv[2])
sps = lambda f: json.load(open(f))["rows"][0]["throughput"]["value"]
v = {k: sps(f"{w}/{k}.virtual.json") for k in "AB"}
blk = {k: [sps(f"{w}/{k}.{r}.json") for r in range(1, reps + 1)] for k in "AB"}
def show(name, xs):
    print(f"  {name:22s} {st.median(xs):8.3f} [{min(xs):.3f}-{max(xs):.3f}]")
print(f"{reps} repetitions; median [min-max]")
for k in "AB":
    show(f"block {k} samples/s", blk[k])
    show(f"virtual {k} / block {k}", [v[k] / x for x in blk[k]])
show("block B / block A", [b / a for a, b in zip(blk["A"], blk["B"])])
EOF
