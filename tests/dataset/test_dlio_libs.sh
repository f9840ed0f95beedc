#!/usr/bin/env bash
# test_dlio_libs.sh — the hdf5 and png kinds' files are, byte for byte,
# what DLIO's generators get from their libraries: h5py writing the same
# 'records' (and 'labels') into a new file, and Pillow saving the same
# pixels as PNG (format='PNG', bits=8); each reads back as DLIO's readers
# read it (h5py.File(f)['records'][i], np.asarray(Image.open(f))). Sides
# drawn apart (record_stdev); hdf5 files of 1 and of 3 records; png files
# of several IDAT chunks. Each part skips without its library; 77 when
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
for k in hdf5 png hdf5x3; do
	spf=1
	[ $k = hdf5x3 ] && spf=3
	"$prog" dataset make ${k%x3} --out "$tmp/$k" --count 4 --record_length 200000 --record_stdev 60000 \
		--samples_per_file $spf --seed 7 >/dev/null || { echo "dataset make $k failed"; exit 1; }
	"$prog" dataset list "$tmp/$k" >"$tmp/$k.list" || exit 1
done
$py - "$tmp" $has_h5 $has_pil <<'PY'
import io, os, sys
import numpy as np
top, has_h5, has_pil = sys.argv[1], sys.argv[2] == '1', sys.argv[3] == '1'
def files(k):
    rows = [l.rstrip('\n').split('\t') for l in open(os.path.join(top, k + '.list')) if l[0] != '#']
    fs = sorted({(os.path.join(top, k, f)) for _, f, _ in rows})
    assert len(fs) == 4, rows
    return [(f, os.path.getsize(f)) for f in fs]
sides = set()
if has_h5:
    import h5py
    for k, per in (('hdf5', 1), ('hdf5x3', 3)):
        for p, n in files(k):
            mine = open(p, 'rb').read()
            with h5py.File(p, 'r') as f:
                rec = f['records']
                assert rec.dtype == np.uint8 and rec.ndim == 3 and rec.shape[0] == per, rec
                assert rec.chunks is None and rec.compression is None, p
                x = rec[:]
                assert f['labels'].dtype == np.int64 and f['labels'][:].tolist() == [0] * per, p
            assert x.max() <= 254 and len(np.unique(x[0])) == 255, p  # randint(255)
            sides.add(x.shape[1:])
            ref = os.path.join(top, 'ref.hdf5')
            with h5py.File(ref, 'w') as f:  # as hdf5_generator.py writes
                d = f.create_dataset('records', x.shape, chunks=None, compression=None,
                                     compression_opts=None, dtype=np.uint8)
                d[0:per] = x
                f.create_dataset('labels', data=[0] * per)
            assert open(ref, 'rb').read() == mine, p + ': not what h5py writes'
if has_pil:
    from PIL import Image
    idats = 0
    for p, n in files('png'):
        mine = open(p, 'rb').read()
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
