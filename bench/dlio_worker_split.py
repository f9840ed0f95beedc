#!/usr/bin/env python3
# dlio_worker_split.py — where DLIO 2.0.0's DataLoader workers spend their CPU,
# inside DLIO's own run and inside a loader built as `tiersim hosts measure`
# builds it (workloads/dlio_measure.py), with the same instrumentation: each
# worker's process CPU (user + sys, all its threads), the part inside
# TorchDataset.__getitem__ (the reader: open, np.load, the requests' system
# calls), the part in default_collate (the batch stacked into shared memory)
# and the part in Python's garbage collector, each per sample. A worker
# writes its counters after each batch to OUT/w-PID.txt:
#   samples batches proc_ns getitem_ns collate_ns gc_ns
#
# Usage (the python of DLIO's virtual environment):
#   dlio_worker_split.py OUT dlio HYDRA_ARGS...
#       runs dlio_benchmark's main with those arguments (under mpirun -np 1
#       as bench/dlio_peer.sh runs it)
#   dlio_worker_split.py OUT loader DIR FILES BATCH WORKERS PREFETCH SLEEP_S EPOCHS
#       DLIO's TorchDataset over the first FILES .npz files of DIR, as
#       dlio_measure.py's readers() (on demand, its sampler, fork, pin_memory,
#       persistent workers), PREFETCH the prefetch_factor, SLEEP_S slept per
#       batch (the step's computation), EPOCHS passes
#   dlio_worker_split.py OUT sum [SKIP]
#       totals the workers' files: us per sample of each part
import gc
import glob
import math
import os
import sys
import time

OUT = None
MAIN = os.getpid()
acc = {"p0": 0, "n": 0, "b": 0, "get": 0, "col": 0, "gc": 0, "gc0": 0, "at2": 0}
gens = [[0, 0], [0, 0], [0, 0]]  # per generation: collections, ns


def _gc_cb(phase, info):
    if os.getpid() == MAIN:
        return
    if phase == "start":
        acc["gc0"] = time.thread_time_ns()
    else:
        ns = time.thread_time_ns() - acc["gc0"]
        acc["gc"] += ns
        gens[info["generation"]][0] += 1
        gens[info["generation"]][1] += ns
        if info["generation"] == 2 and not acc["at2"]:
            acc["at2"] = acc["n"]


def _flush():
    with open(os.path.join(OUT, "w-%d.txt" % os.getpid()), "w") as f:
        f.write("%d %d %d %d %d %d %s %d\n" % (acc["n"], acc["b"], time.process_time_ns() - acc["p0"],
                                            acc["get"], acc["col"], acc["gc"],
                                            " ".join("%d %d" % tuple(g) for g in gens), acc["at2"]))


def patch():
    from torch.utils.data._utils import collate
    from dlio_benchmark.data_loader.torch_data_loader import TorchDataset
    get = TorchDataset.__getitem__

    def getitem(self, i):
        if not acc["p0"]:
            acc["p0"] = time.process_time_ns()
        t0 = time.thread_time_ns()
        r = get(self, i)
        acc["get"] += time.thread_time_ns() - t0
        acc["n"] += 1
        return r
    TorchDataset.__getitem__ = getitem
    col = collate.default_collate

    def collate_fn(batch):
        t0 = time.thread_time_ns()
        r = col(batch)
        acc["col"] += time.thread_time_ns() - t0
        acc["b"] += 1
        if os.getpid() != MAIN:
            _flush()
        return r
    collate.default_collate = collate_fn
    init = TorchDataset.worker_init

    def worker_init(self, wid):
        if wid == 0:  # the heap the workers inherit: objects the collector tracks
            with open(os.path.join(OUT, "heap.txt"), "w") as f:
                f.write("%d tracked objects, gc counts %s, thresholds %s, frozen %d\n" % (
                    len(gc.get_objects()), gc.get_count(), gc.get_threshold(), gc.get_freeze_count()))
        return init(self, wid)
    TorchDataset.worker_init = worker_init
    import torch.utils.data.dataloader as dl
    dl.default_collate = collate_fn
    gc.callbacks.append(_gc_cb)


def loader(top, nfiles, batch, workers, prefetch, sleep_s, epochs):
    import numpy as np
    from dlio_benchmark.utils.utility import DLIOMPI
    DLIOMPI.get_instance().set_parent_values(0, 1)
    from dlio_benchmark.common.enumerations import DatasetType, FormatType, ReadType, Shuffle
    from dlio_benchmark.data_loader.torch_data_loader import TorchDataset, dlio_sampler
    from dlio_benchmark.utils.config import ConfigArguments
    from torch.utils.data import DataLoader
    a = ConfigArguments.get_instance()
    a.read_type = ReadType.ON_DEMAND
    a.preprocess_time = a.preprocess_time_stdev = 0.0
    files = sorted(glob.glob(os.path.join(top, "*.npz")))[:nfiles]
    files = files[:len(files) // batch * batch]
    a.file_list_train, a.file_list_eval = files, []
    a.global_index_map = {i: (f, 0) for i, f in enumerate(files)}
    a.num_samples_per_file = 1
    rs = int(math.sqrt(150528))
    a.resized_image = np.random.randint(255, size=(rs, rs), dtype=np.uint8)
    ds = TorchDataset(FormatType.get_enum("npz"), DatasetType.TRAIN, 1, len(files), workers, batch)
    dl = DataLoader(ds, batch_size=batch, sampler=dlio_sampler(0, 1, len(files), Shuffle.OFF, 2, 0),
                    num_workers=workers, pin_memory=True, drop_last=True,
                    worker_init_fn=ds.worker_init, multiprocessing_context="fork",
                    prefetch_factor=prefetch, persistent_workers=True)
    for _ in range(epochs):
        for _ in dl:
            if sleep_s > 0:
                time.sleep(sleep_s)
    del dl


def heap():
    try:
        with open(os.path.join(OUT, "heap.txt")) as f:
            return f.read().strip()
    except OSError:
        return "-"


def summ(skip):
    rows = []
    for p in sorted(glob.glob(os.path.join(OUT, "w-*.txt"))):
        with open(p) as f:
            rows.append([int(x) for x in f.read().split()])
    n = sum(r[0] for r in rows)
    if not n:
        sys.exit("dlio_worker_split.py: %s: no worker's counters" % OUT)
    proc, get, col, gcn = (sum(r[k] for r in rows) / n / 1e3 for k in (2, 3, 4, 5))
    g = [sum(r[6 + k] for r in rows) for k in range(6)]
    print("%d workers, %d samples, %d batches: us per sample: process %.0f, __getitem__ %.0f, "
          "collate %.0f, gc %.0f (inside the others), rest %.0f; gc per worker: gen0 %.0f x %.0f us, "
          "gen1 %.0f x %.0f us, gen2 %.0f x %.0f us (the first at sample %s); heap %s" % (
              len(rows), n, sum(r[1] for r in rows), proc, get, col, gcn, proc - get - col,
              g[0] / len(rows), g[1] / max(g[0], 1) / 1e3, g[2] / len(rows), g[3] / max(g[2], 1) / 1e3,
              g[4] / len(rows), g[5] / max(g[4], 1) / 1e3,
              ",".join(str(r[12]) for r in rows), heap()))


def main():
    global OUT
    if len(sys.argv) < 3 or sys.argv[2] not in ("dlio", "loader", "sum"):
        sys.exit("usage: dlio_worker_split.py OUT dlio|loader|sum ARGS...")
    OUT = sys.argv[1]
    os.makedirs(OUT, exist_ok=True)
    if sys.argv[2] == "sum":
        summ(int(sys.argv[3]) if len(sys.argv) > 3 else 0)
        return
    patch()
    if os.environ.get("SPLIT_IMPORT"):  # the modules DLIO's run has imported
        import dlio_benchmark.main  # noqa: F401
    if sys.argv[2] == "loader":
        d, nf, b, w, pf, sl, ep = sys.argv[3:10]
        loader(d, int(nf), int(b), int(w), int(pf), float(sl), int(ep))
    else:
        sys.argv = ["dlio_benchmark"] + sys.argv[3:]
        from dlio_benchmark.main import main as dlio_main
        dlio_main()


if __name__ == "__main__":
    main()
