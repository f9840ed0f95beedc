#!/usr/bin/env bash
# dlio_endcpu.sh — where DLIO's DataLoader workers spend the CPU after an
# epoch's reading stops: the real DLIO 2.0.0 on one row of
# bench/dlio_peer.sh (its dataset, already generated there: run dlio_peer.sh
# once first), through a tierfs mount (mem=0, untraced), under
# `perf record -a -g`; then, per epoch, the samples of the run's processes
# by part (the tierfs daemon, the ranks' main threads, the workers) and by
# kind (clear_page: the kernel zeroing a page at its first write; another
# page fault; an unmap; MPI's progress; the rest), first over the epoch's
# reading (the 100 ms bins in which the daemon ran) and then over the time
# after it until the next epoch's reading.
#
# Usage: bench/dlio_endcpu.sh [--venv DIR] [--tiersim BUILD] [--work DIR]
#                             [--row r50-2-essd|r50-2-ssd] [--freq HZ]
#                             [--epochs N] OUT
#   --venv DIR   DLIO's virtual environment (default: env DLIO_VENV)
#   --tiersim    the build directory whose fs/tierfs mounts (default build)
#   --work DIR   bench/dlio_peer.sh's work folder (default /tmp/tiersim-dlio-peer)
#   --row        resnet50 npz, 2 ranks, 8 workers, batch 400, on essd-pl1 or
#                ssd-cloud (default r50-2-essd)
#   --freq HZ    perf's sampling rate per CPU (default 397)
#   --epochs N   DLIO's epochs (default 3, as the row)
#   OUT          a folder for perf.data, DLIO's log and the table
# Needs perf and root (perf record -a); run it under `q bench`.
# A perf sample is 1/HZ s of a CPU: the table's counts over HZ are seconds.
set -euo pipefail
venv=${DLIO_VENV:-} build=build work=/tmp/tiersim-dlio-peer row=r50-2-essd hz=397 epochs=3
while [ $# -gt 1 ]; do
	case $1 in
	--venv) venv=$2; shift 2 ;;
	--tiersim) build=$2; shift 2 ;;
	--work) work=$2; shift 2 ;;
	--row) row=$2; shift 2 ;;
	--freq) hz=$2; shift 2 ;;
	--epochs) epochs=$2; shift 2 ;;
	*) echo "dlio_endcpu.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
[ $# -eq 1 ] || { sed -n '2,/^set/p' "$0" | sed '$d' >&2; exit 2; }
out=$1
[ -x "$venv/bin/dlio_benchmark" ] || { echo "dlio_endcpu.sh: no dlio_benchmark in VENV '$venv'" >&2; exit 2; }
case $row in
r50-2-essd) tier=essd-pl1 ;;
r50-2-ssd) tier=ssd-cloud ;;
*) echo "dlio_endcpu.sh: unknown row $row" >&2; exit 2 ;;
esac
[ -d "$work/data/r50/train" ] || { echo "dlio_endcpu.sh: no $work/data/r50 (run bench/dlio_peer.sh --rows $row once)" >&2; exit 2; }
mkdir -p "$out/m" "$out/dlio"
common="++workload.workflow.checkpoint=False ++workload.workflow.evaluation=False ++workload.dataset.num_files_eval=0 ++workload.train.epochs=$epochs"
over="++workload.framework=pytorch ++workload.reader.data_loader=pytorch ++workload.dataset.format=npz ++workload.dataset.num_files_train=4000 ++workload.dataset.num_samples_per_file=1 ++workload.dataset.record_length=114660 ++workload.dataset.record_length_stdev=0 ++workload.train.computation_time=0.224 ++workload.reader.batch_size=400 ++workload.reader.read_threads=8"
# the backing files warm, as bench/dlio_peer.sh leaves them
find "$work/data/r50" -type f -exec cat {} + >/dev/null
"$build/fs/tierfs" -o "tier=$tier,mem=0" "$work/data/r50" "$out/m" >/dev/null
echo "start $(date -u +%FT%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
rc=0
# shellcheck disable=SC2086
perf record -a -g -F "$hz" -o "$out/perf.data" -- \
	mpirun --allow-run-as-root --oversubscribe --bind-to none -q -np 2 "$venv/bin/dlio_benchmark" \
	--config-dir "$work/config" workload=resnet50_h100 $common $over \
	++workload.dataset.data_folder="$out/m" hydra.run.dir="$out/dlio" \
	++workload.output.folder="$out/dlio" </dev/null >"$out/dlio.log" 2>&1 || rc=$?
echo "end $(date -u +%FT%T) load $(cut -d' ' -f1-3 /proc/loadavg) rc $rc"
fusermount3 -u "$out/m"
grep -h "Accelerator Utilization\|Throughput (samples" "$out/dlio.log" | sed 's/ \[\/.*//' || true
perf script -i "$out/perf.data" -F comm,pid,tid,time,ip,sym,dso 2>/dev/null >"$out/script.txt"
python3 - "$out/script.txt" "$hz" <<'PY' | tee "$out/endcpu.txt"
import collections, re, sys
hz = float(sys.argv[2])
S = []
for blk in open(sys.argv[1], errors="replace").read().split("\n\n"):
    lines = blk.strip().split("\n")
    m = re.match(r"\s*(\S.*?)\s+(\d+)/(\d+)\s+([\d.]+):", lines[0]) if lines else None
    if m:
        S.append((float(m.group(4)), m.group(1), int(m.group(2)), " ".join(lines[1:])))
S.sort()
t0 = S[0][0]
# the ranks' main processes: the DLIO processes that ran before any daemon sample
first_fs = min(t for t, c, p, s in S if c.startswith("tierfs"))
dlio = lambda c: "dlio" in c or "python" in c or c.startswith("pt_")
mains = {p for t, c, p, s in S if t < first_fs and dlio(c)}
B = 0.1
fs = collections.Counter(int((t - t0) / B) for t, c, p, s in S if c.startswith("tierfs"))
nb = int((S[-1][0] - t0) / B) + 1
reading = [fs[i] >= 3 for i in range(nb)]
# epochs: runs of reading bins (gaps under 0.5 s joined), each followed by its after
spans, i = [], 0
while i < nb:
    if reading[i]:
        j = i
        while j + 1 < nb and (reading[j + 1] or any(reading[j + 1:j + 6])):
            j += 1
        spans.append((i, j + 1))
        i = j + 1
    else:
        i += 1
def kind(s):
    if "clear_page" in s: return "clear_page"
    if "exc_page_fault" in s: return "fault"
    if "unmap" in s or "exit_mmap" in s: return "unmap"
    if "openmpi" in s or "open-pal" in s: return "mpi"
    return "rest"
print("perf samples at %g Hz; the ranks' main processes %s" % (hz, sorted(mains)))
print("%-6s %-6s %13s  %s" % ("epoch", "part", "window s", "samples by part:kind"))
for e, (a, b) in enumerate(spans):
    nxt = spans[e + 1][0] if e + 1 < len(spans) else nb
    for part, (x, y) in (("read", (a, b)), ("after", (b, nxt))):
        c = collections.Counter()
        for t, comm, p, s in S:
            k = int((t - t0) / B)
            if not (x <= k < y): continue
            g = "daemon" if comm.startswith("tierfs") else "main" if p in mains else "workers" if dlio(comm) else None
            if g: c[g + ":" + kind(s)] += 1
        print("%-6d %-6s %6.1f-%6.1f  %s" % (e + 1, part, x * B, y * B, " ".join("%s=%d" % kv for kv in sorted(c.items()))))
PY
exit "$rc"
