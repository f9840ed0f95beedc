#!/usr/bin/env bash
# test_dlio_libs.sh — the hdf5 and png kinds' files are, byte for byte,
# what DLIO's generators get from their libraries: h5py writing the same
# 'records' (and 'labels') into a new file, and Pillow saving the same
# pixels as PNG (format='PNG', bits=8); each reads back as DLIO's readers
# read it (h5py.File(f)['records'][0], np.asarray(Image.open(f))) with the
# shape the description gives. Sides drawn apart (record_stdev), one file
# with several IDAT chunks. Each part skips without its library; 77 when
# neither is at hand.
set -u
prog=$1
py=/usr/bin/python3
has_h5=0 has_pil=0
$py -c 'import numpy, h5py' 2>/dev/null && has_h5=1
$py -c 'import numpy, PIL' 2>/dev/null && has_pil=1
[ $has_h5 = 1 ] || [ $has_pil = 1 ] || { echo "no h5py, no Pillow"; exit 77; }
tmp=$(mktemp -d /tmp/ts_dliolibs_XXXXXX)
trap 'rm -rf "$tmp"' EXIT
for k in hdf5 png; do
	"$prog" dataset make $k --out "$tmp/$k" --count 4 --record_length 200000 --record_stdev 60000 \
		--seed 7 >/dev/null || { echo "dataset make $k failed"; exit 1; }
	"$prog" dataset list "$tmp/$k" >"$tmp/$k.list" || exit 1
done
$py - "$tmp" $has_h5 $has_pil <<'PY'
import io, os, sys
import numpy as np
top, has_h5, has_pil = sys.argv[1], sys.argv[2] == '1', sys.argv[3] == '1'
def files(k):
    rows = [l.rstrip('\n').split('\t') for l in open(os.path.join(top, k + '.list')) if l[0] != '#']
    assert len(rows) == 4, rows
    return [(os.path.join(top, k, f), int(n)) for _, f, n in rows]
sides = set()
if has_h5:
    import h5py
    for p, n in files('hdf5'):
        mine = open(p, 'rb').read()
        assert len(mine) == n, (p, len(mine), n)
        with h5py.File(p, 'r') as f:
            rec = f['records']
            assert rec.dtype == np.uint8 and rec.ndim == 3 and rec.shape[0] == 1, rec
            assert rec.chunks is None and rec.compression is None, p
            x = rec[0]
            assert f['labels'].dtype == np.int64 and f['labels'][:].tolist() == [0], p
        assert x.max() <= 254 and len(np.unique(x)) == 255, p  # randint(255)
        sides.add(x.shape)
        ref = os.path.join(top, 'ref.hdf5')
        with h5py.File(ref, 'w') as f:  # as hdf5_generator.py writes
            d = f.create_dataset('records', (1,) + x.shape, chunks=None, compression=None,
                                 compression_opts=None, dtype=np.uint8)
            d[0:1] = x[None]
            f.create_dataset('labels', data=[0])
        assert open(ref, 'rb').read() == mine, p + ': not what h5py writes'
if has_pil:
    from PIL import Image
    idats = 0
    for p, n in files('png'):
        mine = open(p, 'rb').read()
        assert len(mine) == n, (p, len(mine), n)
        a = np.asarray(Image.open(p))
        assert a.dtype == np.uint8 and a.ndim == 2 and a.max() <= 254, (p, a.shape)
        sides.add(a.shape)
        b = io.BytesIO()
        Image.fromarray(a).save(b, format='PNG', bits=8)  # as png_generator.py saves
        assert b.getvalue() == mine, p + ': not what Pillow writes'
        idats = max(idats, mine.count(b'IDAT'))
    assert idats >= 2, idats
assert len(sides) >= 4 and any(h != w for h, w in sides), sides
print('ok')
PY
