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
images/s is printed beside, with the load average.

With --split each round also runs, before the DataLoaders, the same
Folder.__getitem__ (file read, transform, torch.from_numpy) over the same
number of shuffled images (a) in a plain loop in this process and (b) in a
loop in a child forked from it (what a DataLoader worker is, less the
DataLoader), and every run says where its process's CPU went: per image its
minor page faults (getrusage ru_minflt) and its collector's CPU (gc.callbacks
around each collection, thread CPU time); a DataLoader worker's clock is
split by its samples' batches into the work within a batch (one
__getitem__ after another, the fetcher between) and the work between the
last sample of a batch and the first of the next (default_collate's copy of
the batch into new shared memory, the hand-off to the queue, then one
__getitem__), whose excess over one __getitem__ is the worker's per-batch
cost. pin_memory is off, as in the cases (no accelerator).

    /usr/bin/python3 bench/pillow_loader.py DIR [ROUNDS] [WORKERS,...] [--split]

DIR is a `tiersim dataset make imagenet-jpeg` tree (its train/); every file is
read once first, so the page cache holds them. Prints one line per round and
the median and range per worker count, with the load average before and
after (validation/cases/loader-pytorch-pillow-*: the loader checks of the
build host's profile, pipeline/hosts.lua).
"""
import gc
import json
import os
import random
import resource
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
CPU = time.CLOCK_PROCESS_CPUTIME_ID
GC_NS = [0, 0]  # the collector's thread CPU: total, and the start of the one running


def _gc_clock(phase, _info):
    t = time.thread_time_ns()
    if phase == "start":
        GC_NS[1] = t
    else:
        GC_NS[0] += t - GC_NS[1]


def stamp():
    """(process CPU ns, minor faults, the collector's CPU ns) of this process."""
    return (time.clock_gettime_ns(CPU), resource.getrusage(resource.RUSAGE_SELF).ru_minflt,
            GC_NS[0])


class Folder(Dataset):
    def __init__(self, paths):
        self.paths = paths

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        with open(self.paths[i], "rb") as f:
            data = f.read()
        a, _ = transform(data, random.Random(i))
        return (torch.from_numpy(a), os.getpid()) + stamp()


def one(paths, workers, seed):
    """A DataLoader's timed batches: a dict of its figures per image."""
    g = torch.Generator()
    g.manual_seed(seed)
    dl = DataLoader(Folder(paths), batch_size=BATCH, shuffle=True, num_workers=workers,
                    generator=g, drop_last=True)
    it = iter(dl)
    for _ in range(WARMUP):
        next(it)
    t0 = time.perf_counter()
    c0 = time.clock_gettime_ns(CPU)
    got = {}  # pid -> [(cpu, minflt, gc, batch)]
    for b in range(ITERATIONS):
        _, pids, cpu, flt, gcn = next(it)
        for p, c, f, n in zip(pids.tolist(), cpu.tolist(), flt.tolist(), gcn.tolist()):
            got.setdefault(p, []).append((c, f, n, b))
    main = time.clock_gettime_ns(CPU) - c0
    t = time.perf_counter() - t0
    del it, dl
    spent = flt = gcn = within = between = 0
    n_in = n_btw = 0
    for v in got.values():
        v.sort()
        spent += v[-1][0] - v[0][0]
        flt += v[-1][1] - v[0][1]
        gcn += v[-1][2] - v[0][2]
        for a, b in zip(v, v[1:]):
            if a[3] == b[3]:
                within += b[0] - a[0]
                n_in += 1
            else:
                between += b[0] - a[0]
                n_btw += 1
    steps = n_in + n_btw
    n = ITERATIONS * BATCH
    w_in = within / n_in
    return {"wall_ips": n / t, "worker_ns": spent / steps, "main_ns": main / n,
            "minflt": flt / steps, "gc_ns": gcn / steps, "item_ns": w_in,
            "batch_ns": between / n_btw - w_in}


def loop(ds, seed):
    """The same __getitem__ over as many shuffled images in this process."""
    order = list(range(len(ds)))
    random.Random(seed).shuffle(order)
    for i in order[:WARMUP * BATCH]:
        ds[i]
    order = order[WARMUP * BATCH:(WARMUP + ITERATIONS) * BATCH]
    t0 = time.perf_counter()
    a = stamp()
    for i in order:
        ds[i]
    b = stamp()
    t = time.perf_counter() - t0
    n = len(order)
    return {"wall_ips": n / t, "worker_ns": (b[0] - a[0]) / n, "main_ns": 0.0,
            "minflt": (b[1] - a[1]) / n, "gc_ns": (b[2] - a[2]) / n,
            "item_ns": (b[0] - a[0]) / n, "batch_ns": 0.0}


def forked(ds, seed):
    """loop() in a child forked from this process; its figures through a pipe."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            out = json.dumps(loop(ds, seed)).encode()
        except BaseException as e:  # noqa: BLE001  said in the parent, one line
            out = json.dumps({"error": repr(e)}).encode()
        os.write(w, out)
        os._exit(0)
    os.close(w)
    chunks = []
    while True:
        c = os.read(r, 65536)
        if not c:
            break
        chunks.append(c)
    os.close(r)
    os.waitpid(pid, 0)
    got = json.loads(b"".join(chunks))
    if "error" in got:
        sys.exit(f"pillow_loader: the forked loop failed: {got['error']}")
    return got


def line(name, f):
    return (f"{name}: worker {f['worker_ns'] / 1e6:.3f} ms/image (within a batch "
            f"{f['item_ns'] / 1e6:.3f}, per batch {f['batch_ns'] / 1e6:.2f}), main "
            f"{f['main_ns'] / 1e6:.3f}; {f['minflt']:.0f} minor faults/image, gc "
            f"{f['gc_ns'] / 1e3:.0f} us/image; wall {f['wall_ips']:.1f} images/s")


def main():
    args = [a for a in sys.argv[1:] if a != "--split"]
    split = len(args) < len(sys.argv) - 1
    if not args:
        sys.exit("usage: pillow_loader.py DIR [ROUNDS] [WORKERS,...] [--split]")
    top = os.path.join(args[0], "train")
    rounds = int(args[1]) if len(args) > 1 else 3
    counts = [int(w) for w in (args[2] if len(args) > 2 else "1,2").split(",")]
    paths = sorted(os.path.join(r, n) for r, _, ns in os.walk(top) for n in ns
                   if n.endswith(".JPEG"))
    if len(paths) < (WARMUP + ITERATIONS) * BATCH:
        sys.exit(f"pillow_loader: {len(paths)} images under {top}, fewer than "
                 f"{(WARMUP + ITERATIONS) * BATCH} for {WARMUP} + {ITERATIONS} batches")
    for p in paths:
        with open(p, "rb") as f:
            f.read()
    gc.callbacks.append(_gc_clock)
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                if l.startswith("model name")), "?")
    print(f"host: {cpu}, {os.cpu_count()} CPUs; torch {torch.__version__}, "
          f"Pillow {Image.__version__}, numpy {np.__version__}; {len(paths)} images")
    print(f"load average before: {open('/proc/loadavg').read().split()[:3]}")
    kinds = (["plain", "forked"] if split else []) + counts
    got = {k: [] for k in kinds}
    for r in range(rounds):
        for k in kinds:
            if k == "plain":
                f = loop(Folder(paths), r)
            elif k == "forked":
                f = forked(Folder(paths), r)
            else:
                f = one(paths, k, r)
            got[k].append(f)
            if k in ("plain", "forked"):
                print(f"round {r + 1} {line(k + ' loop', f)}", flush=True)
                continue
            # one worker on a core; N workers and the main process on N cores
            core = 1e9 / f["worker_ns"]
            cores = k * 1e9 / (f["worker_ns"] + f["main_ns"])
            f["core"], f["cores"] = core, cores
            print(f"round {r + 1} workers {k}: worker {f['worker_ns'] / 1e6:.3f} ms/image, "
                  f"main {f['main_ns'] / 1e6:.3f} ms/image: {core:.1f} images/s a worker's "
                  f"core, {cores:.1f} on {k} cores (wall {f['wall_ips']:.1f} images/s)",
                  flush=True)
            if split:
                print(f"round {r + 1} {line(f'workers {k}', f)}", flush=True)
    print(f"load average after: {open('/proc/loadavg').read().split()[:3]}")

    def spread(k, key, scale, fmt):
        x = [v[key] / scale for v in got[k]]
        return (f"median {statistics.median(x):{fmt}}, range {min(x):{fmt}}.."
                f"{max(x):{fmt}}")
    for w in counts:
        print(f"workers {w}: images/s of one worker's core: {spread(w, 'core', 1, '.1f')} "
              f"over {rounds} rounds")
        print(f"workers {w}: images/s on {w} cores (workers + main): "
              f"{spread(w, 'cores', 1, '.1f')} over {rounds} rounds")
    if split:
        for k in kinds:
            for key, what, scale, fmt in (
                    ("worker_ns", "CPU ms/image", 1e6, ".3f"),
                    ("item_ns", "within a batch ms/image", 1e6, ".3f"),
                    ("batch_ns", "per batch ms", 1e6, ".2f"),
                    ("main_ns", "main ms/image", 1e6, ".3f"),
                    ("minflt", "minor faults/image", 1, ".0f"),
                    ("gc_ns", "gc us/image", 1e3, ".0f"),
                    ("wall_ips", "wall images/s", 1, ".1f")):
                print(f"{k}: {what}: {spread(k, key, scale, fmt)}")
        # each round's worker CPU per image over its own round's plain loop
        for k in kinds[1:]:
            x = [v["worker_ns"] / p["worker_ns"] for v, p in zip(got[k], got["plain"])]
            print(f"{k} over plain, per round: {', '.join(f'{y:.3f}' for y in x)}; "
                  f"median {statistics.median(x):.3f}")


if __name__ == "__main__":
    main()
