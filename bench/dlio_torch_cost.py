#!/usr/bin/env python3
# dlio_torch_cost.py — the CPU DLIO 2.0.0's PyTorch npz and jpeg paths spend
# per sample and per step, outside the storage: files read from a local
# directory (page cache warm) through a torch DataLoader as DLIO builds it
# (workers reading each file as DLIO's reader does — NPZReader's
# np.load(f, allow_pickle=True)['x'], ImageReader's
# np.asarray(PIL.Image.open(f)), Pillow's decode — and returning a
# record_length_resize image, batches collated and handed to the training
# process), CPU time from getrusage: the workers' (RUSAGE_CHILDREN, after
# they exit) per sample, the training process's per step, and its main
# thread's per step after the first (RUSAGE_THREAD: what is serial with the
# step, without starting the workers, which the first step pays and DLIO
# does once: persistent_workers=True).
# Usage: dlio_torch_cost.py DIR BATCH [RESIZE_BYTES] [WORKERS]
#   DIR holds .npz or .jpeg files (bench/dlio_peer.sh's DATA/train, DLIO's
#   generator's); npz when it holds both
import glob
import math
import os
import resource
import sys
import time

import numpy as np
import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset


class Npz(Dataset):
    def __init__(self, files, resize):
        self.files = files
        self.jpeg = files[0].endswith('.jpeg')
        side = int(math.sqrt(resize))
        self.image = np.random.randint(255, size=(side, side), dtype=np.uint8)

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        if self.jpeg:
            np.asarray(Image.open(self.files[i]))  # ImageReader.open
        else:
            np.load(self.files[i], allow_pickle=True)['x']  # NPZReader.open
        return self.image  # read_index returns args.resized_image


def cpu(who):
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


def main():
    top, batch = sys.argv[1], int(sys.argv[2])
    resize = int(sys.argv[3]) if len(sys.argv) > 3 else 2097152
    workers = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    files = sorted(glob.glob(os.path.join(top, '**', '*.npz'), recursive=True)) or \
        sorted(glob.glob(os.path.join(top, '**', '*.jpeg'), recursive=True))
    if not files:
        sys.exit('dlio_torch_cost.py: %s: no .npz or .jpeg files' % top)
    for f in files:  # warm the page cache: the storage is not what is timed
        with open(f, 'rb') as fp:
            while fp.read(1 << 20):
                pass
    n = len(files) // batch * batch
    ds = Npz(files[:n], resize)
    c0, s0, w0 = cpu(resource.RUSAGE_CHILDREN), cpu(resource.RUSAGE_SELF), time.time()
    dl = DataLoader(ds, batch_size=batch, num_workers=workers, pin_memory=True, drop_last=True,
                    prefetch_factor=2, persistent_workers=False)
    steps = 0
    t0 = t1 = cpu(resource.RUSAGE_THREAD)
    for _ in dl:
        steps += 1
        # from the first batch (the workers started: DLIO keeps them,
        # persistent_workers) to the last one's arrival, before the loader
        # stops its workers
        t1 = cpu(resource.RUSAGE_THREAD)
        if steps == 1:
            t0 = t1
    if not steps:
        sys.exit('dlio_torch_cost: no batch of %d from %d files' % (batch, len(files)))
    del dl
    c1, s1 = cpu(resource.RUSAGE_CHILDREN), cpu(resource.RUSAGE_SELF)
    size = sum(os.path.getsize(f) for f in files[:n]) / n
    print('%d samples of %.0f B in %d steps of %d, %d workers, %.1f s: workers %.1f us per sample, '
          'training process %.1f us per step, its main thread %.1f per step after the first '
          '(torch %s)' % (
              n, size, steps, batch, workers, time.time() - w0, (c1 - c0) / n * 1e6,
              (s1 - s0) / steps * 1e6, (t1 - t0) / max(steps - 1, 1) * 1e6, torch.__version__))


if __name__ == '__main__':
    main()
