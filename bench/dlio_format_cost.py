#!/usr/bin/env python3
# dlio_format_cost.py — the CPU DLIO 2.0.0's own reader classes spend per
# sample, per format, outside the storage: NPZReader (np.load(f)['x']),
# HDF5Reader (h5py.File(f, 'r')['records'][0]) and ImageReader
# (np.asarray(PIL.Image.open(f))) on files made as DLIO's generators make
# them (bench/dlio_chain_probe.py: np.savez, h5py, Pillow of random uint8
# pixels, one sample a file), read from a local directory whose files are in
# the page cache, each by read_index() with read_type on_demand as a
# PyTorch DataLoader worker of DLIO calls it (open, the sample, close).
# Thread CPU time (time.thread_time_ns) of each call, one process, one
# thread: the reader's own work, without the storage's.
#
# Per round, the formats and sides interleaved (every file of every set
# read once, sets in turn); ROUNDS rounds after one not counted (the
# first calls of each reader load and warm its code). Prints per set the median over
# rounds of the mean us per sample (and min..max over rounds), then per
# format the line through its sides' medians (us + us per MiB of the file)
# and that line less npz's of the same run at each side (what the format
# adds to, or takes from, npz's reader).
# Usage: VENV/bin/python bench/dlio_format_cost.py DIR [ROUNDS] [SIDES]
#   DIR: a scratch directory for the files; SIDES: comma-separated (338,1024:
#   resnet50's sample of 114,660 B and a 1 MiB image)
import os
import statistics
import sys
import time

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import dlio_chain_probe as probe  # noqa: E402

FORMATS = ("npz", "hdf5", "png")
FILES_PER_SET = 40


def make(top, sides):
    sets = []
    np.random.seed(10)
    for d in sides:
        for fmt in FORMATS:
            sd = os.path.join(top, "%s_%d" % (fmt, d))
            os.makedirs(sd, exist_ok=True)
            files = []
            for k in range(FILES_PER_SET):
                p = os.path.join(sd, "img_%03d.%s" % (k, fmt))
                files.append(p)
                if os.path.exists(p):
                    continue
                if fmt == "npz":
                    np.savez(p, x=np.random.randint(255, size=(d, d, 1), dtype=np.uint8), y=[0])
                elif fmt == "hdf5":
                    import h5py
                    with h5py.File(p, "w") as hf:
                        ds = hf.create_dataset("records", (1, d, d), dtype=np.uint8)
                        ds[0:1] = np.random.randint(255, size=(1, d, d), dtype=np.uint8)
                        hf.create_dataset("labels", data=[0])
                else:
                    from PIL import Image
                    Image.fromarray(np.random.randint(255, size=(d, d), dtype=np.uint8)).save(
                        p, format="PNG", bits=8)
            sets.append((fmt, d, files))
    return sets


_mpi_set = False


def reader_for(files):
    """DLIO's reader class of these files, set up as a DataLoader worker of
    rank 0 sets it up (dlio_chain_probe.dlio_reader), every file indexed."""
    global _mpi_set
    if not _mpi_set:  # dlio_reader sets DLIO's rank once per process
        if probe.dlio_reader(files[0], 0) is None:
            sys.exit("dlio_format_cost.py: DLIO 2.0.0 is not importable: run it with DLIO's "
                     "venv python")
        _mpi_set = True
    from dlio_benchmark.common.enumerations import DatasetType
    from dlio_benchmark.reader.hdf5_reader import HDF5Reader
    from dlio_benchmark.reader.image_reader import ImageReader
    from dlio_benchmark.reader.npz_reader import NPZReader
    from dlio_benchmark.utils.config import ConfigArguments
    a = ConfigArguments.get_instance()
    a.file_list_train = files
    a.global_index_map = {i: (p, 0) for i, p in enumerate(files)}
    cls = {"npz": NPZReader, "hdf5": HDF5Reader}.get(files[0].rsplit(".", 1)[1], ImageReader)
    return cls(DatasetType.TRAIN, 0, 0), a


def main():
    top = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    sides = [int(s) for s in (sys.argv[3] if len(sys.argv) > 3 else "338,1024").split(",")]
    sets = make(top, sides)
    for _, _, files in sets:  # the page cache holds them: the storage is not timed
        for p in files:
            with open(p, "rb") as fp:
                while fp.read(1 << 20):
                    pass
    per = {(f, d): [] for f, d, _ in sets}
    size = {(f, d): statistics.mean(os.path.getsize(p) for p in files) for f, d, files in sets}
    for k in range(rounds + 1):  # round 0 warms the readers' code paths up: not counted
        for fmt, d, files in sets:
            r, a = reader_for(files)
            t = 0
            for i in range(len(files)):
                t0 = time.thread_time_ns()
                r.read_index(i, 1)
                t += time.thread_time_ns() - t0
            if k:
                per[(fmt, d)].append(t / len(files) / 1e3)
    print("set          bytes    us/sample median (min..max over %d rounds)" % rounds)
    med = {}
    for (fmt, d), v in per.items():
        med[(fmt, d)] = statistics.median(v)
        print("%-5s %4d %9.0f  %8.1f (%.1f..%.1f)" % (fmt, d, size[(fmt, d)], med[(fmt, d)],
                                                      min(v), max(v)))
    if len(sides) < 2:
        return
    lo, hi = min(sides), max(sides)

    def line(fmt):
        x0, x1 = size[(fmt, lo)] / 1048576, size[(fmt, hi)] / 1048576
        slope = (med[(fmt, hi)] - med[(fmt, lo)]) / (x1 - x0)
        return med[(fmt, lo)] - slope * x0, slope

    nb, ns = line("npz")
    for fmt in FORMATS:
        b, s = line(fmt)
        print("%-5s line: %.1f us + %.1f us/MiB; less npz's at its sizes: %+.1f us at %d, "
              "%+.1f us at %d" % (fmt, b, s,
                                  med[(fmt, lo)] - (nb + ns * size[(fmt, lo)] / 1048576), lo,
                                  med[(fmt, hi)] - (nb + ns * size[(fmt, hi)] / 1048576), hi))


if __name__ == "__main__":
    main()
