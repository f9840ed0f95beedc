#!/usr/bin/python3
# dlio_collate_probe.py — what a DLIO 2.0.0 DataLoader worker spends at a
# batch's end, beside what workloads/dlio_measure.py's collate times, side by
# side in one process, rounds interleaved (a diagnostic: run it under
# `bench/q bench`).
#
#   python3 bench/dlio_collate_probe.py [ROUNDS] [BATCHES] [MODEL]
#
# DLIO's TorchDataset.__getitem__ returns the reader's read_index, which for
# every format returns the same array, ConfigArguments.resized_image (a
# square uint8 array of side int(sqrt(record_length)), record_length_resize
# where set); the DataLoader's fetcher collates the batch with
# default_collate in the worker and puts it on the worker's result queue,
# whose feeder thread pickles it (ForkingPickler) and writes it to the pipe.
# Per shape (unet3d 7 x 2896 x 2896, resnet50 400 x 387 x 387), per round:
#   measure  dlio_measure.py's collate as it stands: in this process with the
#            worker info set, default_collate then ForkingPickler.dump into a
#            BytesIO, this thread's CPU per batch (fresh memory each time)
#   stack    the same default_collate alone, without the dump
#   worker   a real DataLoader worker (fork, persistent, pin_memory as DLIO
#            builds it; a dataset whose samples are the one resized array):
#            default_collate's CPU in the worker's own thread (collate_fn
#            timing it), per batch over BATCHES batches
#   process  the worker process's whole CPU (its threads: main, the queue's
#            feeder) per batch over the same batches (/proc/PID/stat), which
#            also holds the __getitem__ calls (returning the array: no read)
# Phases: "release" (the measure way with each batch taken back and freed
# after the timed part, as DLIO's main process frees it, then the worker),
# "kept" (the measure way as dlio_measure.py took it until 2026-12-07: the
# pickled batch never taken, so the pickler's resource sharer keeps its
# shared memory for the process's life), then "release-after".
# Prints one line per shape, phase and round (ns; Shmem from /proc/meminfo):
#   probe MODEL BATCH SAMPLE_BYTES PHASE ROUND measure_ns stack_ns worker_ns process_ns dump_ns shmem_kib KIB
import io
import math
import os
import sys
import time

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, default_collate

SHAPES = (("unet3d", 7, 8388608), ("resnet50", 400, 150528))
TICK = os.sysconf("SC_CLK_TCK")


def proc_cpu_ns(pid):
    with open("/proc/%d/stat" % pid) as f:
        s = f.read()
    fields = s[s.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) * 1_000_000_000 // TICK


def task_cpu_ns(pid):
    # the sum of the process's threads' schedstat run time (ns, not ticks)
    total = 0
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                total += int(f.read().split()[0])
        except OSError:
            pass
    return total


class Same(Dataset):
    def __init__(self, image, n):
        self.image, self.n = image, n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return self.image


def timed_collate(batch):
    t0 = time.thread_time_ns()
    b = default_collate(batch)
    return b, time.thread_time_ns() - t0


def measure_way(image, batch, repeats, release=False):
    # release: after the timed part, the pickled batch taken back as the
    # loader's main process takes it (ForkingPickler.loads: the file
    # descriptor fetched from the resource sharer, which then closes its
    # copy), so that the batch's shared memory is freed when dropped, as
    # DLIO's is; without it the sharer keeps every batch's memory
    from multiprocessing.reduction import ForkingPickler
    import torch.utils.data._utils.worker as worker
    worker._worker_info = worker.WorkerInfo(id=0, num_workers=1, seed=0, dataset=None)
    full = stack = dump = 0
    for i in range(repeats + 1):
        t0 = time.thread_time_ns()
        b = default_collate([image] * batch)
        t1 = time.thread_time_ns()
        buf = io.BytesIO()
        ForkingPickler(buf).dump(b)
        t2 = time.thread_time_ns()
        if i:
            full += t2 - t0
            stack += t1 - t0
            dump += t2 - t1
        if release:
            back = ForkingPickler.loads(buf.getvalue())
            del back
        del b, buf
    worker._worker_info = None
    return full // repeats, stack // repeats, dump // repeats


def shmem_kib():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("Shmem:"):
                return int(line.split()[1])
    return 0


def worker_way(dl, batches):
    it = iter(dl)
    next(it)  # the first batch warms the worker
    pids = [w.pid for w in it._workers]
    c0 = sum(task_cpu_ns(p) for p in pids)
    ns = 0
    n = 0
    for b, t in it:
        ns += t
        n += 1
        del b
        if n == batches:
            break
    c1 = sum(task_cpu_ns(p) for p in pids)
    del it
    return ns // n, (c1 - c0) // n


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    batches = int(sys.argv[2]) if len(sys.argv) > 2 else 6
    print("probe torch %s threads %d sharing %s" % (
        torch.__version__, torch.get_num_threads(),
        torch.multiprocessing.get_sharing_strategy()), flush=True)
    only = sys.argv[3] if len(sys.argv) > 3 else None  # one shape (a process each: the kept memory stays)
    for model, batch, length in SHAPES:
        if only and model != only:
            continue
        side = int(math.sqrt(length))
        image = np.random.randint(255, size=(side, side), dtype=np.uint8)
        dl = DataLoader(Same(image, batch * (batches + 1)), batch_size=batch, num_workers=1,
                        collate_fn=timed_collate, pin_memory=True, persistent_workers=True,
                        prefetch_factor=2, multiprocessing_context="fork")
        # first the ways that free each batch's memory, then the way
        # dlio_measure.py took (the memory kept), then the first again
        for phase in ("release", "kept", "release-after"):
            for r in range(rounds):
                if phase == "kept":
                    full, stack, dump = measure_way(image, batch, batches)
                    w = p = 0
                else:
                    w, p = worker_way(dl, batches)
                    full, stack, dump = measure_way(image, batch, batches, release=True)
                print("probe %s %d %d %s %d %d %d %d %d %d shmem_kib %d" % (
                    model, batch, side * side, phase, r, full, stack, w, p, dump,
                    shmem_kib()), flush=True)
        del dl


if __name__ == "__main__":
    main()
