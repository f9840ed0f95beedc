#!/usr/bin/python3
"""pillow_loader.py — what a real PyTorch DataLoader over a JPEG tree in the
page cache costs the CPU, with the transform of bench/pillow_cost.py (Pillow
decode, shorter side to 256 bilinear, random crop 224, flip, normalize to
float CHW), over the part `tiersim run --virtual` counts in a row: `warmup`
batches left out, then `iterations` batches. The consumer takes each batch
and asks for the next (no step). Rounds alternate the worker counts (1 2 1 2
...); each round builds a new DataLoader (workers forked inside the warm-up).

CPU time, not wall time, is the figure (the host is shared): each sample
carries its worker's process CPU clock when it was made, so a worker's CPU
per image is its clock's advance between its first and last sample of the
timed batches over the samples between (the decode, the collate and the
hand-off through shared memory: all the worker's work); the main process's
is its own clock over the timed batches (taking the batches out of shared
memory). One worker holding a core makes 1 / (worker CPU per image) images/s;
N workers and the main process on N cores, N / (all CPU per image). The wall
images/s is printed beside, with the load average, and not used.

    /usr/bin/python3 bench/pillow_loader.py DIR [ROUNDS] [WORKERS,...]

DIR is a `tiersim dataset make imagenet-jpeg` tree (its train/); every file is
read once first, so the page cache holds them. Prints one line per round and
the median and range per worker count, with the load average before and
after (validation/cases/loader-pytorch-pillow-*: the loader checks of the
build host's profile, pipeline/hosts.lua).
"""
import os
import random
import statistics
import sys
import time

import torch
from torch.utils.data import DataLoader, Dataset

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pillow_cost import transform  # noqa: E402  the one transform both measure
import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402
BATCH, WARMUP, ITERATIONS = 32, 3, 50


class Folder(Dataset):
    def __init__(self, paths):
        self.paths = paths

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        with open(self.paths[i], "rb") as f:
            data = f.read()
        a, _ = transform(data, random.Random(i))
        return (torch.from_numpy(a), os.getpid(),
                time.clock_gettime_ns(time.CLOCK_PROCESS_CPUTIME_ID))


def one(paths, workers, seed):
    """(wall images/s, worker CPU ns per image, main CPU ns per image)"""
    g = torch.Generator()
    g.manual_seed(seed)
    dl = DataLoader(Folder(paths), batch_size=BATCH, shuffle=True, num_workers=workers,
                    generator=g, drop_last=True)
    it = iter(dl)
    for _ in range(WARMUP):
        next(it)
    t0 = time.perf_counter()
    c0 = time.clock_gettime_ns(time.CLOCK_PROCESS_CPUTIME_ID)
    clocks = {}
    for _ in range(ITERATIONS):
        _, pids, cpu = next(it)
        for p, c in zip(pids.tolist(), cpu.tolist()):
            clocks.setdefault(p, []).append(c)
    main = time.clock_gettime_ns(time.CLOCK_PROCESS_CPUTIME_ID) - c0
    t = time.perf_counter() - t0
    del it, dl
    spent = sum(max(v) - min(v) for v in clocks.values())
    between = sum(len(v) - 1 for v in clocks.values())
    n = ITERATIONS * BATCH
    return n / t, spent / between, main / n


def main():
    top = os.path.join(sys.argv[1], "train")
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    counts = [int(w) for w in (sys.argv[3] if len(sys.argv) > 3 else "1,2").split(",")]
    paths = sorted(os.path.join(r, n) for r, _, ns in os.walk(top) for n in ns
                   if n.endswith(".JPEG"))
    if len(paths) < (WARMUP + ITERATIONS) * BATCH:
        sys.exit(f"pillow_loader: {len(paths)} images under {top}, fewer than "
                 f"{(WARMUP + ITERATIONS) * BATCH} for {WARMUP} + {ITERATIONS} batches")
    for p in paths:
        with open(p, "rb") as f:
            f.read()
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                if l.startswith("model name")), "?")
    print(f"host: {cpu}, {os.cpu_count()} CPUs; torch {torch.__version__}, "
          f"Pillow {Image.__version__}, numpy {np.__version__}; {len(paths)} images")
    print(f"load average before: {open('/proc/loadavg').read().split()[:3]}")
    got = {w: [] for w in counts}
    for r in range(rounds):
        for w in counts:
            wall, wk, mn = one(paths, w, r)
            # one worker on a core; N workers and the main process on N cores
            core = 1e9 / wk
            cores = w * 1e9 / (wk + mn)
            got[w].append((core, cores, wk, mn, wall))
            print(f"round {r + 1} workers {w}: worker {wk / 1e6:.3f} ms/image, main "
                  f"{mn / 1e6:.3f} ms/image: {core:.1f} images/s a worker's core, {cores:.1f} "
                  f"on {w} cores (wall {wall:.1f} images/s, not used)", flush=True)
    print(f"load average after: {open('/proc/loadavg').read().split()[:3]}")
    for w in counts:
        v = got[w]
        for i, what in ((0, "images/s of one worker's core"),
                        (1, f"images/s on {w} cores (workers + main)")):
            x = [r[i] for r in v]
            print(f"workers {w}: {what}: median {statistics.median(x):.1f}, "
                  f"range {min(x):.1f}..{max(x):.1f} over {len(x)} rounds")


if __name__ == "__main__":
    main()
