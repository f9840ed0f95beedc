#!/usr/bin/env python3
# dlio_loader_fork.py — how much of DLIO's DataLoader start is the parent's
# serial work: iter() alone (the fork of each worker, its queues, the
# pin-memory thread; it returns before any worker has run worker_init)
# against iter() to the first batch (every worker's worker_init done on
# this host's cores), per number of workers, DLIO's TorchDataset with the
# arguments DLIO gives (as workloads/dlio_measure.py's starts()).
#
#   VENV/bin/python bench/dlio_loader_fork.py DIR [ROUNDS]
#     DIR: a folder of npz files (any; their names only, no file is read)
#   prints, per round and number of workers W:
#     fork W ITER_NS FIRST_NS
# On a host with a core per worker the workers' worker_init runs in
# parallel, so the start there is about the parent's iter() per worker
# plus one worker's init: the many-core end of a host profile's
# dlio_loader_* lines (pipeline/hosts.lua).
import glob
import os
import sys
import time

import numpy as np


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: dlio_loader_fork.py DIR [ROUNDS]")
    rounds = int(sys.argv[2]) if len(sys.argv) == 3 else 3
    from dlio_benchmark.utils.utility import DLIOMPI
    DLIOMPI.get_instance().set_parent_values(0, 1)
    from dlio_benchmark.common.enumerations import DatasetType, FormatType, ReadType, Shuffle
    from dlio_benchmark.data_loader.torch_data_loader import TorchDataset, dlio_sampler
    from dlio_benchmark.utils.config import ConfigArguments
    from torch.utils.data import DataLoader
    a = ConfigArguments.get_instance()
    a.read_type = ReadType.ON_DEMAND
    files = sorted(glob.glob(os.path.join(sys.argv[1], "*.npz")))
    if not files:
        sys.exit("dlio_loader_fork.py: no .npz file in %s" % sys.argv[1])
    a.file_list_train, a.file_list_eval = files, []
    a.global_index_map = {i: (f, 0) for i, f in enumerate(files)}
    a.num_samples_per_file = 1
    image = np.random.randint(255, size=(388, 388), dtype=np.uint8)

    class Started(TorchDataset):
        def __getitem__(self, i):
            return image

    for r in range(rounds):
        for workers in (1, 2, 4, 8):
            n = 2 * workers
            ds = Started(FormatType.get_enum("npz"), DatasetType.TRAIN, 1, n, workers, 1)
            dl = DataLoader(ds, batch_size=1, sampler=dlio_sampler(0, 1, n, Shuffle.OFF, 2, 0),
                            num_workers=workers, pin_memory=True, drop_last=True,
                            worker_init_fn=ds.worker_init, multiprocessing_context="fork",
                            prefetch_factor=2, persistent_workers=True)
            t0 = time.perf_counter_ns()
            it = iter(dl)
            t1 = time.perf_counter_ns()
            next(it)
            t2 = time.perf_counter_ns()
            for _ in it:
                pass
            del it, dl
            print("fork %d %d %d" % (workers, t1 - t0, t2 - t0), flush=True)


if __name__ == "__main__":
    main()
