#!/usr/bin/env bash
# test_dlio_numpy.sh — numpy reads the npz kind's files as DLIO's NPZ
# reader does (np.load(f)['x']) and finds the planned bytes; Python's
# zipfile checks every member's CRC-32 (testzip); and each file is, byte
# for byte, what np.savez(f, x=x, y=[0]) writes, as DLIO's generator
# writes it (zip64 extra fields and all). Skips (77) without numpy.
set -u
prog=$1
/usr/bin/python3 -c 'import numpy' 2>/dev/null || { echo "no numpy"; exit 77; }
tmp=$(mktemp -d /tmp/ts_npz_XXXXXX)
trap 'rm -rf "$tmp"' EXIT
"$prog" dataset make npz --out "$tmp/d" --count 4 --record_length 20000 --record_stdev 3000 \
	--seed 9 >/dev/null || exit 1
"$prog" dataset list "$tmp/d" >"$tmp/list" || exit 1
/usr/bin/python3 - "$tmp/d" "$tmp/list" <<'PY'
import sys, zipfile, numpy as np, os
d, lst = sys.argv[1], sys.argv[2]
rows = [l.split('\t') for l in open(lst) if not l.startswith('#')]
assert len(rows) == 4, rows
for idx, f, nbytes in rows:
    p = os.path.join(d, f)
    assert os.path.getsize(p) == int(nbytes), (p, nbytes)
    assert zipfile.ZipFile(p).testzip() is None, p
    z = np.load(p)
    assert sorted(z.files) == ['x', 'y'], z.files
    x, y = z['x'], z['y']
    assert x.dtype == np.uint8 and x.ndim == 1 and y.tolist() == [0], (x.dtype, y)
    # the payload is what the description says: the file less the zip and .npy framing
    assert int(nbytes) - x.size == 2 * (30 + 5 + 20) + 128 + 128 + 8 + 2 * (46 + 5) + 22, p
    ref = os.path.join(d, 'ref.npz')
    np.savez(ref, x=x, y=[0])
    assert open(ref, 'rb').read() == open(p, 'rb').read(), p + ': not what np.savez writes'
    os.remove(ref)
print("ok")
PY
