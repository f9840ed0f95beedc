#!/usr/bin/python3
"""loader_cost.py — what a PyTorch DataLoader costs the CPU per sample and
per batch by itself, with no decode: the work bench/pillow_loader.py's
workers do besides bench/pillow_cost.py's transform (reading the file in
Python, torch.from_numpy, the fetcher, default_collate's copy of the batch
into shared memory, the hand-off through the worker's queue), and the main
process's side (taking each batch out of the queue and out of shared
memory).

The dataset is pillow_loader.py's Folder with the decode taken out: each
__getitem__ reads its JPEG file (in the page cache) as Folder does and
returns a pre-decoded tensor of the transform's output size (3 x 224 x 224
float32, made once by that transform from the first images), with the
worker's pid and process CPU clock, as Folder returns them. A DataLoader
over it (1 worker, shuffle, WARMUP batches left out, then SAMPLES samples)
is run at each batch size; a plain loop calls the same __getitem__ in the
main process (no DataLoader: the file read and from_numpy alone). Rounds
alternate all of them (B1, B2, ..., plain; again ...); each DataLoader is
new (its worker forked in the warm-up).

CPU time, not wall time (the host is shared): the worker's CPU per sample
is its clock's advance from its first to its last sample of the timed
batches over the samples between (pillow_loader.py's measure); the main
process's is its own clock over the timed batches. Per batch size B, a
batch costs the worker B x (its CPU per sample): the line through the batch
sizes, batch = per_batch + per_sample x B, splits the two (least squares
per round; the median and range over rounds). The main process likewise.

    /usr/bin/python3 bench/loader_cost.py DIR [ROUNDS] [BATCHES,...]

DIR is a `tiersim dataset make imagenet-jpeg` tree (its train/). Prints one
line per run, each round's lines, and the medians and ranges, with the load
average before and after (pipeline/hosts.lua: loader_sample_ns,
loader_batch_ns, loader_main_*).
"""
import os
import random
import statistics
import sys
import time

import torch
from torch.utils.data import DataLoader, Dataset

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pillow_cost import transform  # noqa: E402  the transform whose output size is returned
import numpy as np  # noqa: E402
WARMUP, SAMPLES, TEMPLATES = 3, 1600, 4


class Predecoded(Dataset):
    """pillow_loader.py's Folder, the transform replaced by a tensor made before."""

    def __init__(self, paths, made):
        self.paths = paths
        self.made = made

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        with open(self.paths[i], "rb") as f:
            f.read()
        a = self.made[i % len(self.made)]
        return (torch.from_numpy(a), os.getpid(),
                time.clock_gettime_ns(time.CLOCK_PROCESS_CPUTIME_ID))


def loader(ds, batch, seed):
    """(worker CPU ns per sample, main CPU ns per sample) over SAMPLES."""
    g = torch.Generator()
    g.manual_seed(seed)
    dl = DataLoader(ds, batch_size=batch, shuffle=True, num_workers=1, generator=g,
                    drop_last=True)
    it = iter(dl)
    for _ in range(WARMUP):
        next(it)
    iters = SAMPLES // batch
    c0 = time.clock_gettime_ns(time.CLOCK_PROCESS_CPUTIME_ID)
    clocks = []
    for _ in range(iters):
        _, _, cpu = next(it)
        clocks.extend(cpu.tolist())
    main = time.clock_gettime_ns(time.CLOCK_PROCESS_CPUTIME_ID) - c0
    del it, dl
    return (max(clocks) - min(clocks)) / (len(clocks) - 1), main / (iters * batch)


def plain(ds, seed):
    """The same __getitem__ in a loop in this process: CPU ns per sample."""
    order = list(range(len(ds)))
    random.Random(seed).shuffle(order)
    order = order[:SAMPLES]
    c0 = time.clock_gettime_ns(time.CLOCK_PROCESS_CPUTIME_ID)
    for i in order:
        ds[i]
    return (time.clock_gettime_ns(time.CLOCK_PROCESS_CPUTIME_ID) - c0) / len(order)


def line(bs, per_sample):
    """Least squares of B x per_sample(B) on B: (per batch, per sample) ns."""
    ys = [b * c for b, c in zip(bs, per_sample)]
    mb, my = statistics.fmean(bs), statistics.fmean(ys)
    slope = (sum((b - mb) * (y - my) for b, y in zip(bs, ys))
             / sum((b - mb) ** 2 for b in bs))
    return my - slope * mb, slope


def spread(x):
    return f"median {statistics.median(x):,.0f}, range {min(x):,.0f}..{max(x):,.0f}"


def main():
    top = os.path.join(sys.argv[1], "train")
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    bs = [int(b) for b in (sys.argv[3] if len(sys.argv) > 3 else "8,32").split(",")]
    if len(set(bs)) < 2:
        sys.exit("loader_cost: two batch sizes at least (BATCHES, e.g. 8,32)")
    paths = sorted(os.path.join(r, n) for r, _, ns in os.walk(top) for n in ns
                   if n.endswith(".JPEG"))
    if len(paths) < SAMPLES + WARMUP * max(bs):
        sys.exit(f"loader_cost: {len(paths)} images under {top}, fewer than "
                 f"{SAMPLES + WARMUP * max(bs)}")
    blobs = []
    for p in paths:
        with open(p, "rb") as f:
            blobs.append(f.read())
    made = [transform(b, random.Random(i))[0] for i, b in enumerate(blobs[:TEMPLATES])]
    ds = Predecoded(paths, made)
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                if l.startswith("model name")), "?")
    print(f"host: {cpu}, {os.cpu_count()} CPUs; torch {torch.__version__}, numpy "
          f"{np.__version__}; {len(paths)} images, tensors {made[0].shape} {made[0].dtype}")
    print(f"load average before: {open('/proc/loadavg').read().split()[:3]}", flush=True)
    got = {k: [] for k in ("w_batch", "w_sample", "m_batch", "m_sample", "plain")}
    for r in range(rounds):
        wk, mn = [], []
        for b in bs:
            w, m = loader(ds, b, r)
            wk.append(w)
            mn.append(m)
            print(f"round {r + 1} batch {b}: worker {w:,.0f} ns/sample, main {m:,.0f} "
                  f"ns/sample", flush=True)
        p = plain(ds, r)
        wb, ws = line(bs, wk)
        mb, ms = line(bs, mn)
        print(f"round {r + 1} plain loop: {p:,.0f} ns/sample; worker {wb:,.0f} ns/batch + "
              f"{ws:,.0f} ns/sample, main {mb:,.0f} ns/batch + {ms:,.0f} ns/sample", flush=True)
        for k, v in zip(got, (wb, ws, mb, ms, p)):
            got[k].append(v)
    print(f"load average after: {open('/proc/loadavg').read().split()[:3]}")
    print(f"worker per batch: {spread(got['w_batch'])} ns")
    print(f"worker per sample: {spread(got['w_sample'])} ns")
    print(f"main per batch: {spread(got['m_batch'])} ns")
    print(f"main per sample: {spread(got['m_sample'])} ns")
    print(f"plain loop per sample (file read + from_numpy): {spread(got['plain'])} ns "
          f"over {rounds} rounds")


if __name__ == "__main__":
    main()
