#!/usr/bin/env bash
# test_dlio_mpi.sh — `mpirun -np 3 tiersim dlio` (workloads/dlio_mpi.c): three
# ranks read one tierfs mount in real time, each its own shard, so that
# every sample is read exactly once per epoch across the ranks (tierfs's
# trace says which process opened what), and rank 0 reports the figures
# with ranks = 3; refusals (an unknown tier, an unknown option, --find-max
# in real time, a mount that fails) and a rank whose loader fails mid-run
# are one line from tiersim, a non-zero exit and nothing mounted; in virtual time the ranks' run is the
# single-process run with --accelerators 3, figure for figure.
. "$(dirname "$0")/lib.sh"
command -v mpirun >/dev/null || { echo "no mpirun (openmpi-bin)"; exit 77; }
# CI runs as root on 2 cores: three ranks need root allowed and oversubscribing;
# unbound, so that the ranks' loader threads are not pinned to one core.
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none -q -np 3)
# Under ASan: what Open MPI allocates and never frees is suppressed for these
# runs only (tests/cli/lsan_mpi.supp), with its components kept loaded and
# stacks unwound in full so that the suppressions see Open MPI's modules.
export OMPI_MCA_mca_base_component_disable_dlclose=1 PMIX_MCA_mca_base_component_disable_dlclose=1
export LSAN_OPTIONS="suppressions=$here/lsan_mpi.supp:fast_unwind_on_malloc=0:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
"${mpi[@]}" "$tiersim" dlio unet3d_h100 --tier nosuch --virtual >"$work/out" 2>"$work/err"
if grep -q "built without MPI" "$work/err"; then
	echo "tiersim was built without MPI"
	exit 77
fi

# expect STATUS PATTERN ARGS...: mpirun's exit status, one line from tiersim matching PATTERN
expect() {
	local want=$1 pat=$2
	shift 2
	"${mpi[@]}" "$tiersim" dlio "$@" >"$work/out" 2>"$work/err"
	local rc=$?
	[ "$rc" -eq "$want" ] || { cat "$work/err" >&2; fail "mpirun dlio $*: exit $rc, expected $want"; }
	[ "$(grep -c '^tiersim' "$work/err")" -eq 1 ] || { cat "$work/err" >&2; fail "mpirun dlio $*: not one line"; }
	grep -q -- "$pat" "$work/err" || { cat "$work/err" >&2; fail "mpirun dlio $*: no '$pat'"; }
	check_clean "mpirun dlio $*"
}

# 24 npz files, batch 2: 4 steps of 2 samples per rank and epoch; unshuffled,
# so that each rank reads the same contiguous slice every epoch (shuffled,
# DLIO slices a freshly shuffled global list)
small="++workload.reader.sample_shuffle=off ++workload.reader.file_shuffle=off ++workload.dataset.num_files_train=24 ++workload.dataset.record_length_bytes=100000 ++workload.dataset.record_length_bytes_stdev=0 ++workload.reader.batch_size=2 ++workload.reader.read_threads=2 ++workload.train.computation_time=0.005 ++workload.train.epochs=2"
# shellcheck disable=SC2086
"${mpi[@]}" "$tiersim" dlio unet3d_h100 $small --tier ssd-cloud --quiet --trace "$work/t.trace" \
	--json "$work/ranks.json" >"$work/out" 2>"$work/err" || { cat "$work/err"; fail "the mpirun run failed"; }
check_clean "the mpirun run"
grep -q "3 accelerators (3 ranks), AU [0-9.]*%" "$work/out" || fail "no ranks in '$(cat "$work/out")'"
[ "$(wc -l <"$work/out")" -eq 1 ] || fail "more than rank 0 reported: $(cat "$work/out")"
"$tiersim" trace dump "$work/t.trace" >"$work/t.txt" || fail "the trace does not read"
# shellcheck disable=SC2086
"$tiersim" dlio unet3d_h100 $small --tier ssd-cloud --accelerators 3 --quiet \
	--json "$work/one.json" >/dev/null 2>"$work/err" || { cat "$work/err"; fail "the single-process run failed"; }
/usr/bin/python3 - "$work/ranks.json" "$work/one.json" "$work/t.txt" <<'PY' || fail "ranks: $(cat "$work/ranks.json")"
import json, re, sys
from collections import defaultdict
j = json.load(open(sys.argv[1]))
one = json.load(open(sys.argv[2]))['runs'][0]
assert j['ranks'] == 3 and j['clock'] == 'real', j
r = j['runs'][0]
assert r['accelerators'] == 3 and r['epochs'] == 2 and r['steps_per_epoch'] == 4, r
for k in ('au', 'au_min', 'au_max', 'samples_per_s', 'mib_per_s'):
    assert r[k] > 0, (k, r)
assert 0 < r['au'] <= 1 and r['au_min'] <= r['au'] <= r['au_max'], r
assert abs(r['mib_per_s'] - r['samples_per_s'] * 100000 / 2**20) < 1e-3 * r['mib_per_s'], r
# the ranks read what one process with 3 accelerators reads
assert r['read_bytes'] == one['read_bytes'] > 0, (r, one)
# the trace: the process of each thread, the path of each id, the opens
pid, path, opens = {}, {}, defaultdict(list)
for line in open(sys.argv[3]):
    w = line.split()
    if w[0] == 'cpu':
        pid[w[1]] = w[2].split('=')[1]
    elif w[0] == 'path':
        path[w[1]] = w[2].strip('"')
for line in open(sys.argv[3]):
    w = line.split()
    if len(w) > 7 and w[2] == 'open' and path.get(w[3], '').endswith('.npz'):
        opens[path[w[3]]].append(pid[w[7]])
assert len(opens) == 24, sorted(opens)
# every sample once per epoch across the ranks, each by one rank only
for p, who in opens.items():
    assert len(who) == 2 and len(set(who)) == 1, (p, who)
readers = set(w[0] for w in opens.values())
assert len(readers) == 3, readers
# each rank's shard is 8 files, contiguous as DLIO's ranges
by = defaultdict(list)
for p, who in opens.items():
    by[who[0]].append(int(re.search(r'img_(\d+)_of', p).group(1)))
shards = sorted(sorted(v) for v in by.values())
assert shards == [list(range(0, 8)), list(range(8, 16)), list(range(16, 24))], shards
PY

# the ranks meet before an epoch's loader starts, as DLIO's do (main.py:
# initialize() ends in a barrier; the iterator starts after it): ranks 1 and
# 2 read the dataset's description from the mount (231 KB for 3,000 files,
# about 60 requests at aws-st1's 3 ms, over a second) while rank 0 holds it,
# and rank 0 reads no sample before both have done so (it did: its first
# open came 1.2 s before their description was read)
meet="++workload.reader.sample_shuffle=off ++workload.reader.file_shuffle=off ++workload.dataset.num_files_train=3000 ++workload.dataset.record_length_bytes=4096 ++workload.dataset.record_length_bytes_stdev=0 ++workload.reader.batch_size=2 ++workload.reader.read_threads=2 ++workload.train.computation_time=0.001 ++workload.train.epochs=1 ++workload.train.total_training_steps=2"
# shellcheck disable=SC2086
"${mpi[@]}" "$tiersim" dlio unet3d_h100 $meet --tier aws-st1 --quiet --trace "$work/m.trace" \
	>"$work/out" 2>"$work/err" || { cat "$work/err"; fail "the meeting run failed"; }
check_clean "the meeting run"
"$tiersim" trace dump "$work/m.trace" >"$work/m.txt" || fail "the meeting trace does not read"
/usr/bin/python3 - "$work/m.txt" <<'PY' || fail "a rank read before the ranks met"
import sys
from collections import defaultdict
pid, path, recs = {}, {}, []
for line in open(sys.argv[1]):
    w = line.split()
    if not w or w[0] in ('#', 'header'):
        continue
    if w[0] == 'cpu':
        pid[w[1]] = w[2].split('=')[1]
    elif w[0] == 'path':
        path[w[1]] = w[2].strip('"')
    elif w[0].isdigit() and len(w) > 8:
        recs.append(w)
desc, first = defaultdict(int), {}
for w in recs:  # submit complete op file offset length result tid ...
    p, f = pid.get(w[7]), path.get(w[3], '')
    if p and f == '/dataset.json':
        desc[p] = max(desc[p], int(w[1]))
    if p and w[2] == 'open' and f.endswith('.npz'):
        first[p] = min(first.get(p, 1 << 62), int(w[0]))
rank0 = set(first) - set(desc)
assert len(desc) == 2 and len(rank0) == 1, (dict(desc), first)
r0 = first[rank0.pop()]
assert all(r0 > t for t in desc.values()), (r0, dict(desc))
PY

# refusals: one line, a non-zero exit, nothing mounted
expect 2 "unknown tier 'nosuch'" unet3d_h100 $small --tier nosuch
expect 2 "unknown option '--bogus'" unet3d_h100 $small --tier ssd-cloud --bogus
expect 2 "--find-max: under mpirun the accelerator count is the world size (3)" unet3d_h100 $small --tier ssd-cloud --find-max
expect 2 "--accelerators 2: under mpirun each rank is one accelerator" unet3d_h100 $small --tier ssd-cloud --accelerators 2
expect 1 "capacity 1.00 KiB is outside its range" unet3d_h100 $small --tier ssd-cloud --capacity 1k --quiet
expect 1 "make no step of 2 samples on each of 3 ranks" unet3d_h100 $small ++workload.dataset.num_files_train=4 --tier ssd-cloud --quiet

# one rank failing in the middle of the run: a sample of rank 2's shard cut
# short in the dataset; rank 0 says which rank failed, and still unmounts
truncate -s 1000 "$work"/dlio/unet3d-npz-24x1-100000-*/train/img_20_of_24.npz || fail "no dataset to cut"
expect 1 "rank 2: loader: .*img_20_of_24.npz: file ends before the sample does" unet3d_h100 $small --tier ssd-cloud --quiet
left=$(find "$work/dlio" -maxdepth 1 -type d -name '*.mnt-*')
[ -z "$left" ] || fail "a mount point was left: $left"

# virtual time: rank 0 runs the 3 accelerators on one tier model, exactly
io="++workload.dataset.num_files_train=200 ++workload.dataset.record_length_bytes=1000000 ++workload.dataset.record_length_bytes_stdev=0 ++workload.reader.batch_size=2 ++workload.train.computation_time=0.02 ++workload.train.epochs=2"
# shellcheck disable=SC2086
"${mpi[@]}" "$tiersim" dlio unet3d_h100 $io --tier ssd-cloud --virtual --quiet --json "$work/v3.json" >/dev/null 2>"$work/err" ||
	{ cat "$work/err"; fail "the virtual mpirun run failed"; }
# shellcheck disable=SC2086
"$tiersim" dlio unet3d_h100 $io --tier ssd-cloud --virtual --accelerators 3 --quiet --json "$work/v1.json" >/dev/null
/usr/bin/python3 - "$work/v3.json" "$work/v1.json" <<'PY' || fail "virtual: the ranks' run differs"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a['ranks'] == 3 and b['ranks'] == 1, (a, b)
ra, rb = a['runs'][0], b['runs'][0]
ra.pop('wall_s'), rb.pop('wall_s')
assert ra == rb and ra['accelerators'] == 3, (ra, rb)
PY
check_clean "dlio mpi"
echo ok
