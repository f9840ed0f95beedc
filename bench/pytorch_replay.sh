#!/usr/bin/env bash
# pytorch_replay.sh BUILD_DIR — record a real PyTorch DataLoader once, predict
# every tier, and check the prediction against real runs.
#
# A dataset (`tiersim dataset make imagenet-jpeg --count N`) is read by one
# epoch of a DataLoader (bench/pytorch_loader.py: bytes-only or Pillow decode
# + RandomResizedCrop, W workers, prefetch_factor P, the training step a
# sleep of S seconds) through `tiersim record` on each tier (mem=0: every read
# reaches the tier model), TS_REPEAT times. Each run's trace is its real
# measurement: its span (first request to last completion) and, with the
# wake file record writes as root, the command's own span (start to its last
# thread's end); the medians over the runs are the real figures. Then the
# first run's trace of the fastest tier and that of the slowest (by span)
# are replayed on every tier with each rule: the closed loop (the replay
# before CPU samples), the CPU samples' wait rule (measured against the
# span), and the wake rule without and with --cpu-model (measured against
# the command's span), each next to the real figure with its error.
#
# Installs python3-torch and python3-torchvision from Debian if missing.
# Environment: TS_IMAGES (default 1000), TS_REPEAT (runs per tier, default 3;
# the medians are the real figures), TS_TIERS (comma-separated, default
# nvme-local,ssd-cloud,essd-pl0,aws-gp3,ultra-cloud), TS_CONFIGS (names from
# the table below, default all), TS_PYTORCH_DATA (a dataset directory to
# reuse; made there if empty or missing), TS_FS (ext4 or xfs: record in block
# mode, `tiersim record --fs`; the replays then follow the stream rule,
# traces/README.md), TS_FROM (FAST,SLOW: the tiers whose recordings predict,
# default the fastest and slowest measured), TS_CHRT (a SCHED_FIFO priority:
# each recording runs under chrt -f, tierfs and the loader ahead of the
# host's other work, as traces/samples were recorded; on a loaded host the
# runs of one tier otherwise differ by up to 2x; bench/rt_job.sh raises the
# loop device's worker and tierfs above it), TS_KEEP=1 keeps the traces,
# TS_BAND (parts for each wake-rule replay's one-recording band,
# tiersim replay --band; default 10, 0: none).
# Block mode (a wake file): a table per recording follows, its own deviation
# from its tier's median, each tier's error and the error less that
# deviation, and per source the median prediction over its recordings with
# their band (lowest to highest) against the real median; then per source
# and tier the first recording's error, the worst one's and the median
# prediction's, with the lowest and highest error less each recording's own
# deviation, and how often each source's one-recording bands (--band) held
# the real median, with their median width. In block mode
# every recording must carry the request clock (trace format 9, tierfs's
# loop_issue measured per request: BPF on the block tracepoints, which
# needs tracefs mounted); a recording without it stops the bench unless
# TS_RECEIPT_OK=1. The source tier's own column in that table, less the
# deviation, is the replay's error on the recording's own tier: what the
# other columns hold beyond it is the model's move from tier to tier.
# Last, per source and tier, the same errors without the command's exit
# (tiersim replay's trail_ns: the main thread's interpreter shutdown after
# its workers ended, left out of the prediction and the real runs alike,
# as the command's start before its first request is), and the source's
# recordings combined (tiersim replay given them all: each predicts from
# its own requests, the start and the exit their median; the error from
# the first request and the band of the exit's lowest and highest).
set -u

[ $# -ge 1 ] || { echo "usage: bench/pytorch_replay.sh BUILD_DIR" >&2; exit 2; }
BUILD=$(cd "$1" 2>/dev/null && pwd) || { echo "pytorch_replay: no build directory '$1'" >&2; exit 1; }
SRC=$(cd "$(dirname "$0")/.." && pwd)
export TIERSIM_DATADIR=${TIERSIM_DATADIR:-$SRC}
# shellcheck source=bench/lib.sh
. "$SRC/bench/lib.sh"
B=$BUILD/cli/tiersim
PY=/usr/bin/python3
N=${TS_IMAGES:-1000}
R=${TS_REPEAT:-3}
IFS=, read -r -a TIERS <<< "${TS_TIERS:-nvme-local,ssd-cloud,essd-pl0,aws-gp3,ultra-cloud}"
[ -x "$B" ] || { echo "pytorch_replay: $B is not built (ninja -C $BUILD)" >&2; exit 1; }
"$B" record --help > /dev/null 2>&1 || { echo "pytorch_replay: this tiersim has no 'record'" >&2; exit 1; }
command -v jq > /dev/null || { echo "pytorch_replay: jq is not installed" >&2; exit 1; }
if ! "$PY" -c 'import torch, torchvision, PIL' 2> /dev/null; then
	echo "pytorch_replay: installing python3-torch python3-torchvision (Debian)" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
		python3-torch python3-torchvision python3-pil > /dev/null ||
		{ echo "pytorch_replay: apt-get install failed" >&2; exit 1; }
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/pytorch-replay.XXXXXX")
[ "${TS_KEEP:-0}" = 1 ] || trap 'rm -rf "$WORK"' EXIT
DS=${TS_PYTORCH_DATA:-$WORK/ds}
if [ ! -f "$DS/dataset.json" ]; then
	"$B" dataset make imagenet-jpeg --count "$N" --out "$DS" --quiet ||
		{ echo "pytorch_replay: making the dataset failed" >&2; exit 1; }
fi
# the file list comes from the backing directory, so the traces hold the
# loader's reads alone
(cd "$DS" && find train -type f | sort | head -n "$N") > "$WORK/list"

# name mode workers prefetch batch step_s
CONFIGS=(
	"bytes-w4-p2-s40 bytes 4 2 32 0.040"
	"bytes-w2-p2-s40 bytes 2 2 32 0.040"
	"bytes-w8-p4-s20 bytes 8 4 32 0.020"
	"bytes-w4-p4-s80 bytes 4 4 32 0.080"
	"decode-w2-p2-s40 decode 2 2 32 0.040"
	"decode-w4-p4-s20 decode 4 4 32 0.020"
	"bytes-w3-p2-b16-s15 bytes 3 2 16 0.015"
)
want=${TS_CONFIGS:-}
BAND=${TS_BAND-10}
[ "$BAND" != 0 ] || BAND=

ns() { jq -r ".results[$2].total_ns" "$1"; }
# from the first request on: the span less the command's start before it
# (Python's imports, the same on every tier and the noisiest part of a run)
io() { jq -r ".results[$2] | if .total_ns == null then null else .total_ns - (.lead_ns // 0) end" "$1"; }
# and less the command's exit after its other threads ended (trail_ns: the
# interpreter's shutdown, on a CPU, which no tier changes and which varied
# 182-274 ms from run to run: noise of the kind the command's start is)
iox() { jq -r ".results[$2] | if .total_ns == null then null else .total_ns - (.lead_ns // 0) - (.trail_ns // 0) end" "$1"; }
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# (max - min) / median of the runs, %
spread() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { m = v[int((NR + 1) / 2)]; printf "%.1f", m ? 100 * (v[NR] - v[1]) / m : 0 }'; }
err() { awk -v p="$1" -v r="$2" 'BEGIN { printf "%+7.1f%%", 100 * (p - r) / r }'; }
sec() { awk -v n="$1" 'BEGIN { printf "%7.3f", n / 1e9 }'; }

printf '%-18s %-12s %7s %7s %6s %7s | %-52s | %s\n' "" "" "span" "app" "runs" "epoch" \
	"from fastest: closed  wait    wake  +cpu    wake$R" "from slowest: closed  wait    wake  +cpu    wake$R"
for c in "${CONFIGS[@]}"; do
	read -r name mode w p bs step <<< "$c"
	[ -z "$want" ] || [[ ",$want," == *",$name,"* ]] || continue
	declare -A real=() app=() spread=() key=() epoch=() spans=() apps=() epochs=() appx=() appsx=()
	fast="" slow=""
	# round by round, each round every tier: a load that drifts over the
	# bench weighs on every tier alike
	for r in $(seq 1 "$R"); do
		for t in "${TIERS[@]}"; do
			# the first run's trace is the one predictions start from
			tr="$WORK/$name.$t.trace"
			[ "$r" = 1 ] || tr="$WORK/$name.$t.r$r.trace"
			bench_loader_record "$B" "$DS" "$t" "${TS_FS:-}" "$tr" "$WORK/list" "$WORK/$name.$t.r$r.json" \
				--mode "$mode" --workers "$w" --prefetch "$p" --batch "$bs" --step "$step" \
				> "$WORK/$name.$t.rec" 2> "$WORK/$name.$t.err" ||
				{ echo "pytorch_replay: $name on $t failed:" >&2; cat "$WORK/$name.$t.err" >&2; exit 1; }
			# block mode: the trace must hold each request's issue (format
			# 9's request clock); without the tracepoints tierfs charges
			# from its receipt and the figures are another model's
			if [ -n "${TS_FS:-}" ]; then
				clk=$(bench_request_clock "$B" "$tr")
				if [ -z "$clk" ] && [ "${TS_RECEIPT_OK:-0}" != 1 ]; then
					echo "pytorch_replay: $name on $t: the trace has no request clock (tierfs: $(strings "$tr" | grep -o 'loop_issue=[a-z ]*' | head -n 1)); mount tracefs at /sys/kernel/tracing, or TS_RECEIPT_OK=1" >&2
					exit 1
				fi
				[ "$r" != 1 ] || echo "$name $t: request clock on ${clk:-none} reads and writes" >&2
			fi
			"$B" replay "$tr" --virtual --tier "$t" --no-wakes --json > "$WORK/own.json" 2> /dev/null
			spans[$t]+=" $(ns "$WORK/own.json" 0)"
			epochs[$t]+=" $(jq -r .epoch_s "$WORK/$name.$t.r$r.json")"
			if [ -f "$tr.wakes" ]; then
				"$B" replay "$tr" --virtual --tier "$t" --json > "$WORK/own.json" 2> /dev/null
				apps[$t]+=" $(io "$WORK/own.json" 0)"
				appsx[$t]+=" $(iox "$WORK/own.json" 0)"
			else
				apps[$t]+=" 0"
				appsx[$t]+=" 0"
			fi
		done
	done
	for t in "${TIERS[@]}"; do
		# shellcheck disable=SC2086 # the runs, one word each
		real[$t]=$(median ${spans[$t]})
		# shellcheck disable=SC2086
		epoch[$t]=$(median ${epochs[$t]})
		# shellcheck disable=SC2086
		app[$t]=$(median ${apps[$t]})
		# shellcheck disable=SC2086
		appx[$t]=$(median ${appsx[$t]})
		# shellcheck disable=SC2086
		spread[$t]=$(spread ${apps[$t]})
		# shellcheck disable=SC2086
		[ "${app[$t]}" != 0 ] || spread[$t]=$(spread ${spans[$t]})
		# fastest and slowest by the command's time where the wake file
		# gives it (the trace span holds block mode's mount reads)
		key[$t]=${app[$t]}
		[ "${key[$t]}" != 0 ] || key[$t]=${real[$t]}
		[ -n "$fast" ] && [ "${key[$t]}" -ge "${key[$fast]}" ] || fast=$t
		[ -n "$slow" ] && [ "${key[$t]}" -le "${key[$slow]}" ] || slow=$t
	done
	[ -z "${TS_FROM:-}" ] || IFS=, read -r fast slow <<< "$TS_FROM"
	tl=()
	for t in "${TIERS[@]}"; do tl+=(--tier "$t"); done
	for from in fast slow; do
		src=${!from}
		"$B" replay "$WORK/$name.$src.trace" --virtual "${tl[@]}" --closed-loop --json \
			> "$WORK/$name.$from.closed.json"
		"$B" replay "$WORK/$name.$src.trace" --virtual "${tl[@]}" --no-wakes --json \
			> "$WORK/$name.$from.wait.json"
		if [ -f "$WORK/$name.$src.trace.wakes" ]; then
			"$B" replay "$WORK/$name.$src.trace" --virtual "${tl[@]}" ${BAND:+--band "$BAND"} \
				--json > "$WORK/$name.$from.wake.json"
			"$B" replay "$WORK/$name.$src.trace" --virtual "${tl[@]}" --cpu-model --json \
				> "$WORK/$name.$from.wakec.json"
			# every recording of the tier predicts: the median of them
			for r in $(seq 2 "$R"); do
				"$B" replay "$WORK/$name.$src.r$r.trace" --virtual "${tl[@]}" \
					${BAND:+--band "$BAND"} --json > "$WORK/$name.$from.wake.r$r.json"
			done
			# all of them at once: each predicts from its own requests, the
			# command's start and exit their median, with that band
			cf=("$WORK/$name.$src.trace")
			for r in $(seq 2 "$R"); do cf+=("$WORK/$name.$src.r$r.trace"); done
			[ "$R" -lt 2 ] || "$B" replay "${cf[@]}" --virtual "${tl[@]}" --json \
				> "$WORK/$name.$from.comb.json"
		else
			echo '{"results":[]}' > "$WORK/$name.$from.wake.json"
			echo '{"results":[]}' > "$WORK/$name.$from.wakec.json"
		fi
	done
	# the median over a source's recordings of its prediction for tier $2
	wmed() {
		local v=() f
		for f in "$WORK/$name.$1.wake.json" "$WORK/$name.$1".wake.r*.json; do
			[ -f "$f" ] && v+=("$(io "$f" "$2")")
		done
		[ "${#v[@]}" -gt 0 ] && [ "${v[0]}" != null ] && median "${v[@]}" || echo null
	}
	i=1
	for t in "${TIERS[@]}"; do
		r=${real[$t]}
		ep=${epoch[$t]}
		fw=$(ns "$WORK/$name.fast.wait.json" $i)
		sw=$(ns "$WORK/$name.slow.wait.json" $i)
		a=${app[$t]}
		fk=$(io "$WORK/$name.fast.wake.json" $i)
		sk=$(io "$WORK/$name.slow.wake.json" $i)
		fq=$(io "$WORK/$name.fast.wakec.json" $i)
		sq=$(io "$WORK/$name.slow.wakec.json" $i)
		fm=$(wmed fast $i)
		sm=$(wmed slow $i)
		wk() { if [ "$a" != 0 ] && [ "$1" != null ]; then err "$1" "$a"; else printf '%8s' -; fi; }
		printf '%-18s %-12s %7s %7s %5s%% %7.3f |  %-12s %s %s %s %s %s |  %-12s %s %s %s %s %s\n' "$name" "$t" \
			"$(sec "$r")" "$(sec "$a")" "${spread[$t]}" "$ep" \
			"$fast" "$(err "$(ns "$WORK/$name.fast.closed.json" $i)" "$r")" "$(err "$fw" "$r")" "$(wk "$fk")" "$(wk "$fq")" "$(wk "$fm")" \
			"$slow" "$(err "$(ns "$WORK/$name.slow.closed.json" $i)" "$r")" "$(err "$sw" "$r")" "$(wk "$sk")" "$(wk "$sq")" "$(wk "$sm")"
		i=$((i + 1))
	done
	# Per recording: its own deviation (its app time against its tier's
	# median), each tier's error, and the error less that deviation (the
	# part a recording closer to its median would not remove); then over
	# the recordings of a source, the median's error and the band (lowest
	# to highest prediction) against the real median.
	if [ -f "$WORK/$name.fast.wake.json" ] && [ "${app[${TIERS[0]}]}" != 0 ]; then
		{
			for t in "${TIERS[@]}"; do echo "real $t ${app[$t]} ${appx[$t]}"; done
			for from in fast slow; do
				src=${!from}
				# shellcheck disable=SC2206 # the runs, one word each
				own=(${apps[$src]})
				# shellcheck disable=SC2206
				ownx=(${appsx[$src]})
				for r in $(seq 1 "$R"); do
					f=$WORK/$name.$from.wake.json
					[ "$r" = 1 ] || f=$WORK/$name.$from.wake.r$r.json
					echo "rec $from $src $r ${own[$((r - 1))]} ${ownx[$((r - 1))]} $f"
				done
				[ ! -s "$WORK/$name.$from.comb.json" ] || echo "comb $from $WORK/$name.$from.comb.json"
			done
		} > "$WORK/$name.recs"
		/usr/bin/python3 - "$WORK/$name.recs" "$name" <<'PYEOF'
import json, statistics, sys
real, realx, recs, tiers, combs = {}, {}, [], [], []
for line in open(sys.argv[1]):
    w = line.split()
    if w[0] == "real":
        real[w[1]] = int(w[2]); realx[w[1]] = int(w[3]); tiers.append(w[1])
    elif w[0] == "comb":
        combs.append((w[1], w[2]))
    else:
        recs.append((w[1], w[2], int(w[3]), int(w[4]), int(w[5]), w[6]))
def io(r):
    return r["total_ns"] - (r.get("lead_ns") or 0)
def iox(r):  # less the command's exit after its other threads ended
    return io(r) - (r.get("trail_ns") or 0)
print(f"\n{sys.argv[2]}: each recording's prediction, error % against the tier's real median"
      " (error less the recording's own deviation in brackets)")
print(f"{'from':5} {'tier':12} {'run':>3} {'own dev':>8} | " + " ".join(f"{t[:16]:>16}" for t in tiers))
worst, worst_net, per = 0.0, 0.0, {}
bands, held, widths = [], 0, []
errs, srcs, bsrc, errx = {}, {}, {}, {}
for frm, src, run, own, ownx, f in recs:
    doc = json.load(open(f))
    res = doc["results"]
    dev = 100.0 * (own - real[src]) / real[src]
    devx = 100.0 * (ownx - realx[src]) / realx[src]
    cells = []
    for i, t in enumerate(tiers):
        p = io(res[i + 1])
        e = 100.0 * (p - real[t]) / real[t]
        ex = 100.0 * (iox(res[i + 1]) - realx[t]) / realx[t]
        errx.setdefault((frm, t), []).append((ex, ex - devx))
        per.setdefault((frm, t), []).append(p)
        errs.setdefault((frm, t), []).append((e, e - dev))
        srcs[frm] = src
        worst, worst_net = max(worst, abs(e)), max(worst_net, abs(e - dev))
        cells.append(f"{e:+7.1f} ({e - dev:+5.1f})")
        b = res[i + 1].get("band")
        if b:  # --band: one recording's band, from its first request
            lo = 100.0 * (b["low_first_ns"] - real[t]) / real[t]
            hi = 100.0 * (b["high_first_ns"] - real[t]) / real[t]
            bands.append(f"{frm} r{run} {t} [{lo:+.1f}, {hi:+.1f}]")
            held += round(lo, 1) <= 0 <= round(hi, 1)
            widths.append(hi - lo)
            bsrc.setdefault(frm, []).append((round(lo, 1) <= 0 <= round(hi, 1), hi - lo))
    print(f"{frm:5} {src:12} {run:3} {dev:+7.1f}% | " + " ".join(f"{c:>16}" for c in cells))
print(f"worst |error| of one recording {worst:.1f}%; less its own deviation {worst_net:.1f}%")
if bands:
    print("one recording's band (--band), error % of its ends against the real median: "
          + "; ".join(bands))
    print(f"one recording's band held the real median on {held} of {len(bands)} "
          f"recording-tier pairs; width median {statistics.median(widths):.1f} points "
          f"[{min(widths):.1f}-{max(widths):.1f}]")
    for frm, v in bsrc.items():
        print(f"  from {frm} ({srcs[frm]}): held {sum(h for h, _ in v)} of {len(v)}, width median "
              f"{statistics.median(w for _, w in v):.1f} points")
# per source and tier: the first recording's error, the worst one's, the
# median prediction's; and the errors less each recording's own deviation
for frm in ("fast", "slow"):
    row = []
    for t in tiers:
        v = errs[(frm, t)]
        m = 100.0 * (statistics.median_low(per[(frm, t)]) - real[t]) / real[t]
        w = max(v, key=lambda x: abs(x[0]))[0]
        row.append(f"{t} {v[0][0]:+.1f}/{w:+.1f}/{m:+.1f} "
                   f"[{min(x[1] for x in v):+.1f}, {max(x[1] for x in v):+.1f}]")
    print(f"from {frm} ({srcs[frm]}), error % first/worst/median [less own deviation, "
          f"lowest to highest]: " + "; ".join(row))
for frm in ("fast", "slow"):
    row = []
    for t in tiers:
        v = per[(frm, t)]
        m, lo, hi = statistics.median_low(v), min(v), max(v)
        el, eh = round(100.0 * (lo - real[t]) / real[t], 1), round(100.0 * (hi - real[t]) / real[t], 1)
        inside = "in" if el <= 0 <= eh else "out"  # as printed: 0.0 counts as in
        row.append(f"{t} {100.0 * (m - real[t]) / real[t]:+.1f}% [{el:+.1f}, {eh:+.1f}] {inside}")
    print(f"from {frm}, median of {len(v)} recordings [band]: " + "; ".join(row))
# the same without the command's exit (trail_ns), in the prediction and in
# the real runs alike: what is left is the part a tier moves
for frm in ("fast", "slow"):
    row = []
    for t in tiers:
        v = errx[(frm, t)]
        row.append(f"{t} {v[0][0]:+.1f} [{min(x[1] for x in v):+.1f}, {max(x[1] for x in v):+.1f}]")
    print(f"from {frm} ({srcs[frm]}), without the command's exit (real medians "
          + "/".join(f"{realx[t] / 1e9:.3f}" for t in tiers) + " s): error % first "
          f"[less own deviation, lowest to highest]: " + "; ".join(row))
# the recordings combined (tiersim replay with all of a source's
# recordings): from the first request, the start and the exit their
# median, the band those two at their lowest and highest
for frm, f in combs:
    row = []
    for i, t in enumerate(tiers):
        c = json.load(open(f))["combined"]["predict"][i].get("combined")
        if not c:
            continue
        e, lo, hi = (round(100.0 * (c[k] - real[t]) / real[t], 1)
                     for k in ("from_first_ns", "from_first_low_ns", "from_first_high_ns"))
        row.append(f"{t} {e:+.1f} [{lo:+.1f}, {hi:+.1f}] {'in' if lo <= 0 <= hi else 'out'}")
    print(f"from {frm} ({srcs[frm]}), combined ({len(json.load(open(f))['traces'])} recordings,"
          f" their exit's median): error % [band] " + "; ".join(row))
PYEOF
	fi
	unset real app spread key epoch spans apps epochs
done
echo
echo "Each tier ran $R times, the tiers in turn: span and app are the medians, runs the spread of those runs"
echo "((max - min) / median); predictions start from the first run's trace."
echo "span: the run's own trace span (first request to last completion), s; app: from the"
echo "first request to the end of the command's last thread (the wake file's), s; epoch:"
echo "the loader's epoch as Python timed it (median), s; the rest: each prediction's error,"
echo "closed and wait vs span, wake vs app (closed: --closed-loop, the replay without CPU"
echo "samples; wait: the CPU samples' wait rule, --no-wakes; wake: the wake rule, from the"
echo "wake file tiersim record wrote; +cpu: the same with --cpu-model, each gap's CPU time"
echo "served by the recorded host's CPUs, shared; wake$R: the median of the wake rule's"
echo "predictions from each of the tier's $R recordings)."
[ "${TS_KEEP:-0}" = 1 ] && echo "traces kept in $WORK"
exit 0
