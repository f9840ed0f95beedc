#!/usr/bin/env bash
# dlio_chains.sh — the requests DLIO 2.0.0's readers make for one sample,
# measured through a tierfs mount's trace: per format (npz with numpy's
# np.load(f)['x'], hdf5 with h5py, jpeg and png with PIL) and per file size,
# each file read once in its own process (bench/dlio_chain_probe.py says how
# the files are made and read: by DLIO's own reader classes when PYTHON can
# import DLIO 2.0.0, as its venv's can). tiersim's own hdf5, png and npz
# files (tiersim dataset make, sides drawn apart) are read the same way, as
# tiersim_hdf5.hdf5, tiersim_png.png and tiersim_npz.npz. Writes one text file per file into OUTDIR:
#
#   # FORMAT FILE-BYTES MEMBER DATA-OFFSET DATA-BYTES
#   OP OFFSET LENGTH        then one request a line, in the order they were
#                           submitted: open, getattr, read (offset and length
#                           as the kernel sent them to tierfs), flush, close,
#                           and walk: a getattr of the mount's root (where the
#                           file lies) by the reading thread, a lookup by the
#                           file's path passing its folder
# MEMBER is where an npz's x.npy starts, DATA-OFFSET and DATA-BYTES where the
# sample's bytes lie (npz, hdf5; 0 for images).
#
# tests/workloads/chains/ holds the files this wrote here (2026-12-03,
# DLIO's venv as PYTHON), each as noflush_NAME: tierfs closes a read-only
# file without a flush; test_dlio_chain checks the modeled chains
# (pipeline/dliochain.c, the flush at the close taken out) against them.
# Usage: bench/dlio_chains.sh [TIERSIM_BUILD] [OUTDIR] [PYTHON]
set -eu
build=${1:-build}
out=${2:-tests/workloads/chains}
py=${3:-/usr/bin/python3}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/dlio-chains.XXXXXX)
trap 'fusermount3 -u "$tmp/m" 2>/dev/null || true; rm -rf "$tmp"' EXIT
mkdir -p "$tmp/b" "$tmp/m" "$out"
"$py" "$here/dlio_chain_probe.py" make "$tmp/b"
for k in hdf5 png npz; do
	"$build/cli/tiersim" dataset make "$k" --out "$tmp/t$k" --count 1 --record_length 114660 \
		--record_stdev 20000 --seed 3 >/dev/null
	cp "$tmp/t$k"/train/*."$k" "$tmp/b/tiersim_$k.$k"
done
for f in "$tmp"/b/*; do
	n=$(basename "$f")
	# attributes uncached (tierfs caches them for 1 s): every stat() and
	# fstat() the reader makes reaches the trace, as the chains list them
	"$build/fs/tierfs" -o "tier=nvme-local,attr_timeout=0,trace=$tmp/t.trace" "$tmp/b" "$tmp/m" >/dev/null 2>&1
	"$py" "$here/dlio_chain_probe.py" read "$tmp/m" "$n"
	fusermount3 -u "$tmp/m"
	# the daemon writes the trace's end as it exits
	for _ in $(seq 50); do "$build/cli/tiersim" trace dump "$tmp/t.trace" >"$tmp/t.txt" 2>/dev/null && break; sleep 0.1; done
	"$py" - "$tmp/t.txt" "$n" "$f" >"$out/${n%.*}.txt" <<'PY'
import os, struct, sys
txt, name, path = sys.argv[1:]
size = os.path.getsize(path)
member = off = ln = 0
if name.endswith('.npz'):
    import zipfile, numpy as np
    with zipfile.ZipFile(path) as z:
        zi = z.getinfo('x.npy')
        with open(path, 'rb') as fp:
            fp.seek(zi.header_offset)
            h = fp.read(30)
            member = zi.header_offset + 30 + struct.unpack('<H', h[26:28])[0] + struct.unpack('<H', h[28:30])[0]
        with z.open('x.npy') as m:
            v = np.lib.format.read_magic(m)
            shape, _, dt = np.lib.format._read_array_header(m, v)
            off = member + m.tell()
            ln = int(np.prod(shape)) * dt.itemsize
elif name.endswith('.hdf5'):
    import h5py
    with h5py.File(path, 'r') as h:
        r = h['records']
        ln = r.nbytes // r.shape[0]  # the record read (dlio_chain_probe.py's record())
        parts = name.rsplit('.', 1)[0].split('_')
        off = r.id.get_offset() + ln * (int(parts[2]) // 2 if len(parts) > 2 else 0)
paths, ios = {}, []
for line in open(txt):
    w = line.split()
    if w and w[0] == 'path':
        paths[int(w[1])] = w[2].strip('"')
    elif w and w[0].isdigit():
        ios.append((int(w[0]), w[2], int(w[3]), int(w[4]), int(w[5]), int(w[7])))
fid = [k for k, p in paths.items() if p == '/' + name]
root = [k for k, p in paths.items() if p == '/']
assert len(fid) == 1 and len(root) == 1, (name, paths)
ios.sort()
mine = [i for i, r in enumerate(ios) if r[2] == fid[0]]
tid = ios[mine[0]][5]
# the reading thread's getattrs of the mount's root (where the file lies)
# just before its first request and among its requests: a lookup by the
# file's path walking its folder, written "walk"
first = mine[0] - 1 if mine[0] and ios[mine[0] - 1][1:3] == ('getattr', root[0]) and \
    ios[mine[0] - 1][5] == tid else mine[0]
print('# %s %d %d %d %d' % (name.rsplit('.', 1)[1], size, member, off, ln))
for sub, op, f, off, ln, t in ios[first:mine[-1] + 1]:
    if f == fid[0]:
        print(op, off, ln)
    elif f == root[0] and op == 'getattr' and t == tid:
        print('walk 0 0')
PY
	echo "$n: $(grep -c '^read' "$out/${n%.*}.txt") reads, $(grep -c '^getattr' "$out/${n%.*}.txt") getattrs"
done
