#!/usr/bin/env bash
# block_memory.sh — block mode's real page cache against the virtual
# clock's page-cache model, for a dataset 0.5x, 1x and 2x the instance's
# memory.
#
# The job (bench/epoch_reader.py) reads a folder of FILE_KIB files, whole,
# for EPOCHS epochs, each in its own shuffled order, as a training job
# does. The memory is a memory cgroup of LIMIT MiB:
#   block:   the folder in an ext4 image on a loop device over tierfs on
#            TIER (tiersim disk make / mount), the job in the cgroup
#            (tiersim disk run --cache cold): the kernel's own readahead,
#            LRU and reclaim. Figures: the job's wall time, the device's
#            bytes (tierfs's counters), the job's own memory ("own");
#   virtual: the same job recorded through tierfs in FUSE mode with no
#            page cache (tiersim record --mem 0: every read in the trace)
#            and replayed on TIER in virtual time with the page-cache model
#            at LIMIT less the block run's "own" (what the cgroup leaves
#            for the cache; tiersim replay --mem), and at LIMIT itself.
# The kernel-fs replay (block mode predicted from the FUSE recording,
# traces/README.md) runs three ways: as it is ("k"), without the wake
# file's pauses (its P lines left out: the in-kernel rule as it was before
# it kept a thread's own sleeps, "k0") and with --keep-gaps ("kg"). Block
# mode's mount is traced (--trace): "dev busy s" is the time the loop
# device had a read in flight (the union of the reads' spans), against the
# kernel-fs replay's time waiting on the device. A read is counted from the
# loop device's issue to the model's completion counted from it (which
# tierfs aims the kernel's completion at), or to tierfs's reply where that
# is later: trace format 9's issue items (traces/FORMAT.md, "Request
# clock"); a read without one (the mount's first few, or a mount that
# cannot time the issue) from tierfs's receipt to its reply.
# FUSE's own CPU per request on the job's thread beyond ext4's (the
# in-kernel rule's --fuse-cpu, pipeline/hosts.lua's replay_fuse_cpu_ns) is
# measured from the runs (below, at the smallest size), and the kernel-fs
# replay runs without it (--fuse-cpu 0) and with it too.
# Each size runs REPS times, block and record interleaved (each repetition
# runs every size once, starting one further along the sizes, block first
# in odd repetitions and record first in even ones); the figures are the
# medians, [min-max] after them; the ratios v/b and k/b are taken within
# each repetition (the replay of its recording against its block run):
# their median, [min-max] after; "hit %" is the share of the job's bytes
# the device did not serve. Needs root (loop devices, cgroups).
#
# usage: bench/block_memory.sh BUILD [REPS] [TIER]
#   Environment: LIMIT (MiB, default 128), EPOCHS (default 2), FILE_KIB
#   (default 128), STEP (seconds per file, default 0), READ_KIB (the job's
#   read size, default 1024: a file in one read), BLOCK_MEMORY_SIZES (the
#   dataset sizes in MiB, default LIMIT/2 LIMIT 2*LIMIT; the first must fit
#   in the cgroup: FUSE's CPU is measured there), CHRT (a SCHED_FIFO
#   priority for the job and its mount's tierfs: run the whole bench under
#   bench/rt_job.sh CHRT so the loop worker and tierfs stand above it),
#   BLOCK_MEMORY_DATA (a directory to keep the datasets in between runs),
#   BLOCK_MEMORY_PREPARE=only (make the datasets in BLOCK_MEMORY_DATA and
#   the images, then stop: run it under a CPU-time lock before the timed
#   call),
#   BLOCK_MEMORY_KEEP (a directory to copy the runs' outputs and traces to),
#   BLOCK_MEMORY_COPY_GBPS (the page cache's copy rate deducted from block
#   mode's thread CPU, GB/s; default measured by bench/copy_rate.py),
#   BLOCK_MEMORY_HOST (the pipeline/hosts.lua entry whose replay figures
#   every replay takes, tiersim replay --host; default build-host),
#   BLOCK_MEMORY_CPU_ONLY=1 (stop after FUSE's CPU per request: no
#   replays, no tables).
# Wall-clock figures: run under the quiet lock and say the load.
set -u
BUILD=${1:?usage: bench/block_memory.sh BUILD [REPS] [TIER]}
REPS=${2:-3}
TIER=${3:-ssd-cloud}
LIMIT=${LIMIT:-128}
EPOCHS=${EPOCHS:-2}
FILE_KIB=${FILE_KIB:-128}
STEP=${STEP:-0}
READ_KIB=${READ_KIB:-1024}
SRC=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SRC/bench/lib.sh"
bench_build block_memory.sh "$BUILD"
export TIERSIM_DATADIR=${TIERSIM_DATADIR:-$SRC}
JOB=$SRC/bench/epoch_reader.py
RT=()
[ -n "${CHRT:-}" ] && RT=(chrt -f "$CHRT")

W=$(mktemp -d /tmp/block_memory.XXXXXX)
export TIERSIM_DISK_STATE=$W/state
MNT=$W/mnt
mkdir -p "$MNT" "$W/img" "$W/res"
is_mounted() { awk -v m="$1" '$5 == m { f = 1 } END { exit !f }' /proc/self/mountinfo; }
cleanup() {
	is_mounted "$MNT" && "$B" disk umount "$MNT" >/dev/null 2>&1
	if [ -n "${BLOCK_MEMORY_KEEP:-}" ]; then
		mkdir -p "$BLOCK_MEMORY_KEEP" && cp -r "$W/res" "$BLOCK_MEMORY_KEEP/"
	fi
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
die() { echo "block_memory.sh: $*" >&2; exit 1; }

DATA=${BLOCK_MEMORY_DATA:-$W/data}
read -r -a SIZES <<<"${BLOCK_MEMORY_SIZES:-$((LIMIT / 2)) $LIMIT $((LIMIT * 2))}"
for mib in "${SIZES[@]}"; do
	d=$DATA/d$mib
	n=$(((mib << 10) / FILE_KIB))
	if [ ! -f "$d/list" ] || [ "$(wc -l <"$d/list")" -ne "$n" ]; then
		rm -rf "$d" && mkdir -p "$d/files"
		for i in $(seq -w 1 "$n"); do
			head -c $((FILE_KIB << 10)) /dev/urandom >"$d/files/f$i"
		done
		(cd "$d/files" && find . -type f | sort) >"$d/list.tmp" && mv "$d/list.tmp" "$d/list"
	fi
	# the image: the files and a third more for ext4's own blocks
	"$B" disk make "$W/img/d$mib.ext4" --size $(((mib * 4 / 3 + 64) << 20)) --fs ext4 \
		--from "$d/files" >/dev/null || die "disk make d$mib"
done
[ "${BLOCK_MEMORY_PREPARE:-}" = only ] && exit 0

echo "== $TIER, a ${LIMIT} MiB cgroup, $EPOCHS epochs of ${FILE_KIB} KiB files read ${READ_KIB} KiB at a time; REPS $REPS; ${RT[*]:-no chrt}; $(date -u +%T), load $(cut -d' ' -f1-3 /proc/loadavg)"
for rep in $(seq "$REPS"); do
	for mib in $(bench_order $((rep - 1)) "${SIZES[@]}"); do
		d=$DATA/d$mib
		for mode in $(bench_order $((rep - 1)) block record); do
			if [ "$mode" = block ]; then
				"$B" disk mount "$W/img/d$mib.ext4" "$MNT" --tier "$TIER" \
					--trace "$W/res/bt.$mib.$rep" || die "mount d$mib"
				"${RT[@]}" "$B" disk run "$MNT" --mem "${LIMIT}MiB" --cache cold -- \
					"$PY" "$JOB" "$MNT" "$d/list" "$EPOCHS" "$STEP" "$READ_KIB" >"$W/res/block.$mib.$rep" 2>&1 ||
					die "disk run d$mib: $(tail -2 "$W/res/block.$mib.$rep")"
				"$B" disk umount "$MNT" || die "umount d$mib"
			else
				"${RT[@]}" "$B" record --data "$d/files" --tier "$TIER" --mem 0 --out "$W/res/t.$mib.$rep" -- \
					"$PY" "$JOB" {} "$d/list" "$EPOCHS" "$STEP" "$READ_KIB" >"$W/res/rec.$mib.$rep" 2>&1 ||
					die "record d$mib: $(tail -2 "$W/res/rec.$mib.$rep")"
			fi
		done
	done
	echo "   rep $rep done $(date -u +%T), load $(cut -d' ' -f1 /proc/loadavg)"
done
# FUSE's own CPU per request on the job's thread, beyond ext4's for the
# same calls: at the smallest size block mode's second epoch reads every
# file from the page cache, the recording's (mem 0) through tierfs, so the
# difference of the thread's CPU in that epoch (epoch_reader.py's "epoch 1
# S CPU" lines) over the job's requests in it (thread id > 0: open, read,
# a lookup) is FUSE's: the figure the in-kernel rule takes off each
# request (pipeline/hosts.lua's replay_fuse_cpu_ns, replay --fuse-cpu).
# The epoch is cut from the trace by time (its records are in the order
# tierfs wrote them, not the order they came): from the epoch's first
# open by the job to the next epoch's. Block mode's thread copied each
# file from the page cache, which a FUSE read with direct_io leaves to
# tierfs's thread and the replay charges as memory time: that copy is not
# block mode's own CPU. It is deducted at this host's rate, measured here
# by bench/copy_rate.py (a cached file read 4 KiB and a read's piece at a
# time, the thread's CPU, the medians of 5 passes fitted as a call's part
# plus the copy), or BLOCK_MEMORY_COPY_GBPS; before, the model's memory
# rate (10 GB/s, tier/cache.c), near the 13.7 GB/s measured on the AMD
# EPYC Zen 3 guest (pipeline/hosts.lua, its entry).
# The read pages asked (a direct read pins its
# buffer's) are printed too: two runs with different READ_KIB give the
# CPU a request and a page (pipeline/hosts.lua's replay_fuse_cpu_page_ns).
# The rule takes both off (a request's, and a page's for each page of a
# direct read's buffer): the figure a request here is the epoch's excess
# less the host's page figure for the pages asked (BLOCK_MEMORY_HOST,
# default build-host, as tiersim replay's --host), and the replays below
# pass the two, as the rule uses them.
# Its median over the repetitions, [min-max] after, and each.
mib=${SIZES[0]}
nfiles=$(wc -l <"$DATA/d$mib/list")
HOST=${BLOCK_MEMORY_HOST:-build-host}
PAGE_NS=$("$B" hosts --evidence 2>/dev/null | awk -v h="$HOST" '$1 == h && $2 == "replay_fuse_cpu_page_ns" { print $4 }')
PAGE_NS=${PAGE_NS:-0}
# the pieces a read copies: a file's whole at most
piece=$((READ_KIB < FILE_KIB ? READ_KIB : FILE_KIB))
[ "$piece" -gt 4 ] || piece=128
COPY_GBPS=${BLOCK_MEMORY_COPY_GBPS:-$("$PY" "$SRC/bench/copy_rate.py" "$W" 64 5 4 "$piece" | sed -n 's/^copy \([0-9.]*\) GB.*/\1/p')}
[ -n "$COPY_GBPS" ] || die "no copy rate (bench/copy_rate.py)"
echo "== the page cache's copy into the job's buffer: $COPY_GBPS GB/s (${BLOCK_MEMORY_COPY_GBPS:+given}${BLOCK_MEMORY_COPY_GBPS:-measured, bench/copy_rate.py, 4 and $piece KiB reads})"
fcpu=()
for rep in $(seq "$REPS"); do
	cb=$(awk '$1 == "epoch" && $2 == 1 { print $4 }' "$W/res/block.$mib.$rep")
	cr=$(awk '$1 == "epoch" && $2 == 1 { print $4 }' "$W/res/rec.$mib.$rep")
	# the job's requests, their read pages asked and bytes read in the
	# second epoch
	read -r nreq pages bytes < <("$B" trace dump "$W/res/t.$mib.$rep" | $PY -c '
import sys
n = int(sys.argv[1])
recs = [l.split() for l in sys.stdin if l[:1].isdigit()]
opens = sorted(int(r[0]) for r in recs if r[2] == "open" and int(r[7]) > 0)
lo = opens[n] if len(opens) > n else None
hi = opens[2 * n] if len(opens) > 2 * n else float("inf")
e = [r for r in recs if lo is not None and lo <= int(r[0]) < hi and int(r[7]) > 0]
rd = [r for r in e if r[2] == "read"]
print(len(e), sum((int(r[5]) + 4095) // 4096 for r in rd), sum(int(r[6]) for r in rd))
' "$nfiles")
	if [ -z "$cb" ] || [ -z "$cr" ] || [ "${nreq:-0}" -eq 0 ]; then
		echo "   rep $rep: no epoch CPU or requests (an older epoch_reader.py?): 0"
		fcpu+=(0)
		continue
	fi
	fcpu+=("$(awk -v b="$cb" -v r="$cr" -v n="$nreq" -v c="$bytes" -v p="$pages" -v pn="$PAGE_NS" \
		-v g="$COPY_GBPS" 'BEGIN { x = ((r - b + c / (g * 1e9)) * 1e9 - p * pn) / n; printf "%.0f", x < 0 ? 0 : x }')")
	echo "   rep $rep: epoch 1 thread CPU block ${cb} s (its copy $(awk -v c="$bytes" -v g="$COPY_GBPS" 'BEGIN { printf "%.4f", c / (g * 1e9) }') s), FUSE ${cr} s; $nreq requests, $pages read pages asked: ${fcpu[-1]} ns a request beside $PAGE_NS ns a page ($HOST's)"
done
FUSE_CPU=$(printf '%s\n' "${fcpu[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
echo "== FUSE's CPU per request beyond ext4's (d$mib, second epoch): median $FUSE_CPU ns [$(printf '%s\n' "${fcpu[@]}" | sort -n | sed -n '1p;$p' | paste -sd-)], and $PAGE_NS ns a page ($HOST's replay_fuse_cpu_page_ns)"
[ "${BLOCK_MEMORY_CPU_ONLY:-}" = 1 ] && { echo "$(bench_load) at the end"; exit 0; }
# the replays (virtual time: no lock needed, but they are quick)
for rep in $(seq "$REPS"); do
	for mib in "${SIZES[@]}"; do
		own=$(sed -n 's/.* own=\([0-9]*\).*/\1/p' "$W/res/block.$mib.$rep")
		[ -n "$own" ] || die "no own= in block.$mib.$rep"
		"$B" replay "$W/res/t.$mib.$rep" --host "$HOST" --virtual --tier "$TIER" --mem $(((LIMIT << 20) - own)) \
			--json >"$W/res/v.$mib.$rep.json" || die "replay d$mib (limit less own)"
		"$B" replay "$W/res/t.$mib.$rep" --host "$HOST" --virtual --tier "$TIER" --mem "${LIMIT}MiB" \
			--json >"$W/res/vl.$mib.$rep.json" || die "replay d$mib (limit)"
		"$B" replay "$W/res/t.$mib.$rep" --host "$HOST" --virtual --kernel-fs --tier "$TIER" \
			--mem $(((LIMIT << 20) - own)) --json >"$W/res/vk.$mib.$rep.json" ||
			die "replay d$mib (kernel fs)"
		# the in-kernel rule without FUSE's CPU (0: as before it) and with
		# the figures measured above, a request's and a page's, as the
		# rule takes them (a build without --fuse-cpu-page: as is)
		for f in 0 "$FUSE_CPU"; do
			pg=0
			[ "$f" = 0 ] || pg=$PAGE_NS
			"$B" replay "$W/res/t.$mib.$rep" --host "$HOST" --virtual --kernel-fs --fuse-cpu "${f}ns" \
				--fuse-cpu-page "${pg}ns" --tier "$TIER" \
				--mem $(((LIMIT << 20) - own)) --json >"$W/res/vkf$f.$mib.$rep.json" 2>/dev/null ||
				cp "$W/res/vk.$mib.$rep.json" "$W/res/vkf$f.$mib.$rep.json"
		done
		cp "$W/res/vkf0.$mib.$rep.json" "$W/res/vkc0.$mib.$rep.json"
		cp "$W/res/vkf$FUSE_CPU.$mib.$rep.json" "$W/res/vkc1.$mib.$rep.json"
		grep -v '^P ' "$W/res/t.$mib.$rep.wakes" >"$W/res/t.$mib.$rep.nopause"
		"$B" replay "$W/res/t.$mib.$rep" --host "$HOST" --virtual --kernel-fs --tier "$TIER" \
			--wakes "$W/res/t.$mib.$rep.nopause" \
			--mem $(((LIMIT << 20) - own)) --json >"$W/res/vk0.$mib.$rep.json" ||
			die "replay d$mib (kernel fs, no pauses)"
		"$B" replay "$W/res/t.$mib.$rep" --host "$HOST" --virtual --kernel-fs --keep-gaps --tier "$TIER" \
			--mem $(((LIMIT << 20) - own)) --json >"$W/res/vkg.$mib.$rep.json" ||
			die "replay d$mib (kernel fs, keep gaps)"
		# each read's span: from its issue where the trace has it (the
		# issue line after the read's own), else from tierfs's receipt
		"$B" trace dump "$W/res/bt.$mib.$rep" | awk '
			function out() { if (p) print s, e, f; p = 0 }
			/^[0-9]/ { out(); if ($3 == "read") { s = $1; e = $2; f = 0; p = 1 } next }
			$1 == "issue" && p {
				for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
				s = v["issue_ns"]; if (v["end_ns"] + 0 > e + 0) e = v["end_ns"]; f = 1
			}
			END { out() }' |
			sort -n >"$W/res/bt.$mib.$rep.reads" || die "trace dump d$mib"
	done
done
$PY - "$W/res" "$REPS" "$LIMIT" "$EPOCHS" "$FUSE_CPU" "${SIZES[@]}" <<'EOF'
import json, os, re, sys
sys.path.insert(0, os.environ["BENCH_DIR"])
from benchstat import median, summary
res, reps, lim, epochs, fuse_cpu, sizes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), [int(x) for x in sys.argv[6:]]
def block(mib, r):
    txt = open(os.path.join(res, f"block.{mib}.{r}")).read()
    kv = dict(re.findall(r"(\w+)=([0-9.]+)", [l for l in txt.splitlines() if "wall_s=" in l][-1]))
    job = float([l for l in txt.splitlines() if re.fullmatch(r"[0-9.]+", l.strip())][-1])
    cpu = re.findall(r"^cpu ([0-9.]+) ([0-9.]+)$", txt, re.M)
    return float(kv["wall_s"]), job, int(kv["dev_read_bytes"]), int(kv["own"]), sum(map(float, cpu[-1])) if cpu else float("nan")
def virt(f):
    r = [x for x in json.load(open(os.path.join(res, f)))["results"] if x["what"] != "recorded"][0]
    return r["total_ns"] / 1e9, r.get("device_read_bytes", 0), (r["total_ns"] - (r.get("lead_ns") or 0)) / 1e9
def busy(mib, r):  # the union of the block trace's read spans (from the issue), s
    tot, end = 0, None
    for line in open(os.path.join(res, f"bt.{mib}.{r}.reads")):
        a, b = (int(x) for x in line.split()[:2])
        if end is None or a > end:
            tot += b - a
            end = b
        elif b > end:
            tot += b - end
            end = b
    return tot / 1e9
def io(f):
    r = [x for x in json.load(open(os.path.join(res, f)))["results"] if x["what"] != "recorded"][0]
    return r["io_wait_ns"] / 1e9
def rec(mib, r):
    txt = open(os.path.join(res, f"rec.{mib}.{r}")).read()
    return float([l for l in txt.splitlines() if re.fullmatch(r"[0-9.]+", l.strip())][0])
def fm(v, f="{:.2f}"):
    m, lo, hi = summary(v)
    return f"{f.format(m)} [{f.format(lo)}-{f.format(hi)}]"
def rr(a, b):  # a / b within each repetition
    return fm([x / y for x, y in zip(a, b)])
print()
print(f"{'data':>8} {'x mem':>5} | {'block s':>19} {'reads s':>19} {'dev MiB':>17} {'hit %':>6} {'own MiB':>7} | "
      f"{'virtual s':>19} {'reads s':>19} {'dev MiB':>17} {'hit %':>6} {'v/b':>17} | {'kernel fs: reads s':>19} {'k/b':>17} | {'at limit: s':>19} {'dev MiB':>7} | {'FUSE rec reads s':>19}")
more, cpu_rows = [], []
for mib in sizes:
    b = [block(mib, r) for r in range(1, reps + 1)]
    v = [virt(f"v.{mib}.{r}.json") for r in range(1, reps + 1)]
    vl = [virt(f"vl.{mib}.{r}.json") for r in range(1, reps + 1)]
    vk = [virt(f"vk.{mib}.{r}.json")[2] for r in range(1, reps + 1)]
    fr = [rec(mib, r) for r in range(1, reps + 1)]
    job = epochs * (mib << 20)
    bw, bd = [x[0] for x in b], [x[2] / 2**20 for x in b]
    vs, vd = [x[0] for x in v], [x[1] / 2**20 for x in v]
    bj, vf = [x[1] for x in b], [x[2] for x in v]
    print(f"{mib:5} MiB {mib / lim:5.1f} | {fm(bw):>19} {fm(bj):>19} {fm(bd, '{:.0f}'):>17} {100 * (1 - median(bd) * 2**20 / job):6.1f} "
          f"{median([x[3] for x in b]) / 2**20:7.1f} | {fm(vs):>19} {fm(vf):>19} {fm(vd, '{:.0f}'):>17} "
          f"{100 * (1 - median(vd) * 2**20 / job):6.1f} {rr(vf, bj):>17} | "
          f"{fm(vk):>19} {rr(vk, bj):>17} | "
          f"{fm([x[0] for x in vl]):>19} {median([x[1] for x in vl]) / 2**20:7.0f} | {fm(fr):>19}")
    k0 = [virt(f"vk0.{mib}.{r}.json")[2] for r in range(1, reps + 1)]
    kg = [virt(f"vkg.{mib}.{r}.json")[2] for r in range(1, reps + 1)]
    bb = [busy(mib, r) for r in range(1, reps + 1)]
    ki = [io(f"vk.{mib}.{r}.json") for r in range(1, reps + 1)]
    c0 = [virt(f"vkc0.{mib}.{r}.json")[2] for r in range(1, reps + 1)]
    c1 = [virt(f"vkc1.{mib}.{r}.json")[2] for r in range(1, reps + 1)]
    cpu_rows.append(f"{mib:5} MiB {mib / lim:5.1f} | {fm(bj):>19} | {fm(c0):>19} {rr(c0, bj):>17} | {fm(c1):>19} {rr(c1, bj):>17}")
    more.append(f"{mib:5} MiB {mib / lim:5.1f} | {fm(bj):>19} | {fm(vk):>19} {rr(vk, bj):>17} | {fm(k0):>19} {rr(k0, bj):>17} | "
                f"{fm(kg):>19} {rr(kg, bj):>17} | {fm(bb):>19} {fm([x[4] for x in b]):>19} {fm(ki):>19} | "
                + " ".join(f"{x / y:.2f}" for x, y in zip(vk, bj)))
print()
print(f"{'data':>8} {'x mem':>5} | {'block reads s':>19} | {'kernel fs s':>19} {'k/b':>17} | {'no pauses s':>19} {'k0/b':>17} | "
      f"{'--keep-gaps s':>19} {'kg/b':>17} | {'block dev busy s':>19} {'block job CPU s':>19} {'k dev wait s':>19} | k/b per rep")
for line in more:
    print(line)
print()
print(f"kernel fs without FUSE's CPU per request (--fuse-cpu 0, the rule before it) and with the {fuse_cpu} ns a request measured above (and the host's page figure):")
print(f"{'data':>8} {'x mem':>5} | {'block reads s':>19} | {'fuse-cpu 0 s':>19} {'k/b':>17} | {'fuse-cpu ' + str(fuse_cpu) + 'ns s':>19} {'k/b':>17}")
for line in cpu_rows:
    print(line)
print()
def issued(mib, r):  # the reads timed from their issue, of all
    f = [line.split()[2] for line in open(os.path.join(res, f"bt.{mib}.{r}.reads"))]
    return f"{f.count('1')}/{len(f)}"
print("per block run: data MiB, rep, reads s, dev busy s, job CPU s, the rest (reads s less both),")
print("device reads timed from their issue / all")
for mib in sizes:
    for r in range(1, reps + 1):
        x = block(mib, r)
        print(f"  {mib:5} {r} {x[1]:7.3f} {busy(mib, r):7.3f} {x[4]:7.3f} {x[1] - busy(mib, r) - x[4]:7.3f} {issued(mib, r):>11}")
print()
print("block s: tiersim disk run's wall time (the job in the cgroup, Python's start included);")
print("reads s: the job's own time from its first open to its last read (block: as the job timed")
print("it; virtual: the replay from its first request); virtual: the FUSE recording (mem 0)")
print("replayed with the page-cache model at the limit less the block run's own memory; v/b:")
print("virtual / block reads s (within each repetition); kernel fs: the same replay with --kernel-fs (the")
print("recording's FUSE round trip off every gap, the kernel's in-memory ops free), k/b its ratio;")
print("at limit: the replay at the whole limit; FUSE rec")
print("reads s: the job's own time in the recording run (tierfs, no cache), the recordings' spread.")
print("no pauses: the kernel-fs replay without the wake file's pauses (P lines: the job's own")
print("sleeps that an interrupt ended); --keep-gaps: with the in-kernel rule off; block dev busy s:")
print("the loop device's reads in flight (block trace, union of spans, each from its issue to the")
print("model's completion where the trace has its issue, else at tierfs); block job CPU s:")
print("the job's user+sys time in block mode (its copies, its reclaim); k dev wait s: the")
print("kernel-fs replay's time waiting on the device.")
EOF
echo "$(bench_load) at the end"
