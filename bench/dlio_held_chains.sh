#!/usr/bin/env bash
# dlio_held_chains.sh — the requests of DLIO 2.0.0's readers when the
# workload gives reader.read_type (files kept open; pipeline/dliochain.h,
# ts_chain_build_kept), measured through a tierfs trace: each file read by
# one reader (bench/dlio_held_probe.py), its first sample and a later one.
# Writes tests/workloads/chains/ files in bench/dlio_chains.sh's form:
#   keep_hdf5_338_3.txt   record 0 of a 3-record hdf5 file, the file left open
#   held_hdf5_338_3.txt   record 1 of it, read next by the same reader
#   held_hdf5_2896_3.txt  the same with records of 2896 x 2896 (8 MiB)
#   held_npz_338.txt      the one sample of an npz file, read a second time
#   held_jpeg_338.txt     the same for a jpeg
# Usage: bench/dlio_held_chains.sh [TIERSIM_BUILD] [OUTDIR] [PYTHON]
set -eu
build=${1:-build}
out=${2:-tests/workloads/chains}
py=${3:-/usr/bin/python3}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/dlio-held.XXXXXX)
trap 'fusermount3 -u "$tmp/m" 2>/dev/null || true; rm -rf "$tmp"' EXIT
mkdir -p "$tmp/b" "$tmp/m" "$out"
"$py" - "$tmp/b" <<'PY'
import sys, numpy as np, h5py
from PIL import Image
top = sys.argv[1]
np.random.seed(10)
for d in (338, 2896):
    with h5py.File("%s/hdf5_%d_3.hdf5" % (top, d), "w") as hf:
        ds = hf.create_dataset("records", (3, d, d), dtype=np.uint8)
        ds[0:3] = np.random.randint(255, size=(3, d, d), dtype=np.uint8)
        hf.create_dataset("labels", data=[0] * 3)
np.savez(top + "/npz_338.npz", x=np.random.randint(255, size=(338, 338, 1), dtype=np.uint8), y=[0])
Image.fromarray(np.random.randint(255, size=(338, 338), dtype=np.uint8)).save(
    top + "/jpeg_338.jpeg", format="JPEG", bits=8)
for i in range(3):
    open("%s/MARK%d" % (top, i), "w").close()
PY
# probe FILE RECORDS...: the trace's requests on FILE, one line per sample
probe() {
	f=$1
	shift
	rm -f "$tmp/t.trace"
	# attributes uncached (tierfs caches them for 1 s): every stat() and
	# fstat() the reader makes reaches the trace, as the chains list them
	"$build/fs/tierfs" -o "tier=nvme-local,attr_timeout=0,trace=$tmp/t.trace" "$tmp/b" "$tmp/m" >/dev/null 2>&1
	"$py" "$here/dlio_held_probe.py" memory "$tmp/m/$f" "$@"
	fusermount3 -u "$tmp/m"
	for _ in $(seq 50); do "$build/cli/tiersim" trace dump "$tmp/t.trace" >"$tmp/t.txt" 2>/dev/null && break; sleep 0.1; done
}
# write NAME FILE SAMPLE DATA-OFFSET DATA-BYTES: sample SAMPLE's requests
write() {
	"$py" - "$tmp/t.txt" "$2" "$3" "$tmp/b/$2" "$4" "$5" >"$out/$1.txt" <<'PY'
import os, sys
txt, name, k, path, off, ln = sys.argv[1:]
k = int(k)
paths, ios = {}, []
for line in open(txt):
    w = line.split()
    if w and w[0] == 'path':
        paths[w[2].strip('"')] = int(w[1])
    elif w and w[0].isdigit():
        ios.append((int(w[0]), w[2], int(w[3]), int(w[4]), int(w[5]), int(w[7])))
ios.sort()
fid, root = paths['/' + name], paths['/']
marks = [paths.get('/MARK%d' % i) for i in range(3)]
fmt = name.rsplit('.', 1)[1]
print('# %s %d %d %s %s' % (fmt, os.path.getsize(path), 55 if fmt == 'npz' else 0, off, ln))
# the sample's requests on the file, between the stats of MARK(k-1) and MARKk,
# and the root's getattrs by the reading thread among them (and just before
# the first): "walk", as bench/dlio_chains.sh writes them
seg, sample = [], 0
for i, r in enumerate(ios):
    if r[2] in marks and r[1] == 'getattr':
        sample = max(sample, marks.index(r[2]) + 1)
    elif sample == k:
        seg.append(i)
mine = [i for i in seg if ios[i][2] == fid]
if mine:
    tid = ios[mine[0]][5]
    first = mine[0] - 1 if mine[0] - 1 in seg and ios[mine[0] - 1][1:3] == ('getattr', root) and \
        ios[mine[0] - 1][5] == tid else mine[0]
    for i in range(first, mine[-1] + 1):
        sub, op, f, o, l, t = ios[i]
        if f == fid:
            print(op, o, l)
        elif f == root and op == 'getattr' and t == tid:
            print('walk 0 0')
PY
}
probe hdf5_338_3.hdf5 0 1 2
write keep_hdf5_338_3 hdf5_338_3.hdf5 0 2048 114244
write held_hdf5_338_3 hdf5_338_3.hdf5 1 116292 114244
probe hdf5_2896_3.hdf5 0 1 2
write held_hdf5_2896_3 hdf5_2896_3.hdf5 1 8388864 8386816
probe npz_338.npz 0 0 0
write held_npz_338 npz_338.npz 1 183 114244
probe jpeg_338.jpeg 0 0 0
write held_jpeg_338 jpeg_338.jpeg 1 0 0
