#!/usr/bin/env python3
# dlio_chain_probe.py — the files and the reads behind bench/dlio_chains.sh.
#
#   dlio_chain_probe.py make DIR           one file per (format, size) below,
#                                          made as DLIO 2.0.0's generators make them
#   dlio_chain_probe.py read DIR NAME...   each file read once, as DLIO 2.0.0's
#                                          readers read a sample
#
# Generators (dlio_benchmark/data_generator/*_generator.py): npz is
# np.savez(x=uint8 (d, d, 1), y=[0]); hdf5 is h5py.File(w) with 'records'
# (1, d, d) uint8 (no chunking, no compression) and 'labels' [0]; jpeg and png
# are PIL images of a random uint8 (d, d) array, saved with format=, bits=8.
# Readers (dlio_benchmark/reader/): npz_reader.py np.load(f, allow_pickle=True)['x'];
# hdf5_reader.py h5py.File(f, 'r')['records'][0]; image_reader.py
# np.asarray(Image.open(f)). Where DLIO 2.0.0 is importable (run with its
# venv's python) each file is read by DLIO's own reader class, as a PyTorch
# DataLoader worker calls it: read_index() with read_type on_demand opens,
# takes the sample and closes; otherwise by the calls above.
import os
import sys

import numpy as np

# (format, d[, n]): sample bytes d*d; the sizes the bench and the MLPerf
# workloads use; n records in an hdf5 file (num_samples_per_file), of which
# the middle one, n // 2, is read
FILES = [("npz", 64), ("npz", 338), ("npz", 1024), ("npz", 2896),
         ("hdf5", 64), ("hdf5", 338), ("hdf5", 2896),
         ("jpeg", 338), ("jpeg", 1024), ("png", 338), ("png", 1024),
         ("hdf5", 338, 3)]


def name(fmt, d, n=1):
    return "%s_%d%s.%s" % (fmt, d, "_%d" % n if n > 1 else "", fmt)


def record(n):
    """The record read in a file named @n: the middle one."""
    parts = n.rsplit(".", 1)[0].split("_")
    return int(parts[2]) // 2 if len(parts) > 2 else 0


def make(top):
    np.random.seed(10)
    for f in FILES:
        fmt, d, n = f[0], f[1], f[2] if len(f) > 2 else 1
        p = os.path.join(top, name(fmt, d, n))
        if fmt == "npz":
            np.savez(p, x=np.random.randint(255, size=(d, d, 1), dtype=np.uint8), y=[0])
        elif fmt == "hdf5":
            import h5py
            with h5py.File(p, "w") as hf:
                ds = hf.create_dataset("records", (n, d, d), dtype=np.uint8)
                ds[0:n] = np.random.randint(255, size=(n, d, d), dtype=np.uint8)
                hf.create_dataset("labels", data=[0] * n)
        else:
            from PIL import Image
            img = Image.fromarray(np.random.randint(255, size=(d, d), dtype=np.uint8))
            img.save(p, format=fmt.upper(), bits=8)


def dlio_reader(p, i):
    """DLIO's reader of @p, set up as in a DataLoader worker of rank 0;
    None without DLIO."""
    try:
        from dlio_benchmark.common.enumerations import DatasetType, ReadType
        from dlio_benchmark.utils.config import ConfigArguments
        from dlio_benchmark.utils.utility import DLIOMPI
    except ImportError:
        return None
    from dlio_benchmark.reader.hdf5_reader import HDF5Reader
    from dlio_benchmark.reader.image_reader import ImageReader
    from dlio_benchmark.reader.npz_reader import NPZReader
    DLIOMPI.get_instance().set_parent_values(0, 1)
    a = ConfigArguments.get_instance()
    a.file_list_train = [p]
    a.global_index_map = {0: (p, i)}
    a.read_type = ReadType.ON_DEMAND
    a.resized_image = np.zeros((1, 1), np.uint8)
    ext = p.rsplit(".", 1)[1]
    cls = {"npz": NPZReader, "hdf5": HDF5Reader}.get(ext, ImageReader)
    return cls(DatasetType.TRAIN, 0, 0)


def read(top, names):
    for n in names:
        p = os.path.join(top, n)
        r = dlio_reader(p, record(n))
        if r is not None:
            r.read_index(0, 1)
            continue
        if n.endswith(".npz"):
            np.load(p, allow_pickle=True)["x"]
        elif n.endswith(".hdf5"):
            import h5py
            f = h5py.File(p, "r")
            f["records"][record(n)]
            f.close()
        else:
            from PIL import Image
            np.asarray(Image.open(p))


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "make":
        make(sys.argv[2])
    elif len(sys.argv) >= 4 and sys.argv[1] == "read":
        read(sys.argv[2], sys.argv[3:])
    else:
        sys.exit("usage: dlio_chain_probe.py make DIR | read DIR NAME...")
