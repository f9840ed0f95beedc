#!/usr/bin/env python3
"""dlio_png_split.py -- DLIO 2.0.0's png reader's CPU at the batch size of
bench/dlio_peer.sh's p50 rows and in the pieces a sample's reads cut it in.

  VENV/bin/python bench/dlio_png_split.py gen DIR [FILES]
  VENV/bin/python bench/dlio_png_split.py batch DIR [ROUNDS] [BATCH,BATCH]
  VENV/bin/python bench/dlio_png_split.py split DIR [FILES] [ROUNDS]

gen: FILES (default 3200) greyscale pngs of 338 x 338 random pixels, as
workloads/dlio_measure.py writes its png-s set (114,746 B: resnet50's
114,660 B record as DLIO's png generator sizes it), into DIR/png-s.

batch: DLIO's own TorchDataset (ImageReader) in a torch DataLoader as DLIO
builds it (8 workers, pin_memory, persistent workers, prefetch 2), one per
batch size (default 50 and 400: the hold bench's, bench/dlio_host_holds.sh
through tiersim hosts measure, and the row's), over the same files (page
cache, no mount: the system calls are the same at both sizes), ROUNDS
rounds (default 3) with the sizes interleaved. Each loader's first pass
starts its workers and is not counted; then two passes, the workers' CPU
(schedstat) over the samples. With 3,200 files each of the 8 workers
builds one batch of 400 a pass, as in the row's epochs, or eight of 50.
Prints a line per loader and the median of the per-round differences.

split: in this thread, np.asarray(Image.open(f)) as ImageReader.open does,
through a BufferedReader of 4 KiB over a raw file whose reads are timed
(the thread's CPU clock at each read's entry and exit): the CPU between
one read's return and the next read (Pillow's work after it), and after
the last read to the array (the end), per read of the chain
(pipeline/dliochain.c's png: 4 KiB at 0, 61,440 at 4,096, the fill at
65,536 that completes the first IDAT chunk, the rest, the fill at the
end). Prints the median us per piece over FILES files (default 400),
ROUNDS rounds (default 3), and the median round.
"""
import io
import math
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "workloads"))

PASSES = 2


def gen(top, n):
    import dlio_measure
    dlio_measure.gen(top, only="png-s", files=n)


def files_of(top):
    d = os.path.join(top, "png-s")
    return sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".png"))


def batch(top, rounds, sizes):
    import dlio_measure
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
    files = files_of(top)
    big = max(sizes)
    files = files[:len(files) // big * big]
    a.file_list_train, a.file_list_eval = files, []
    a.global_index_map = {i: (f, 0) for i, f in enumerate(files)}
    a.num_samples_per_file = 1
    rs = int(math.sqrt(150528))  # resnet50's record_length_resize
    a.resized_image = np.random.randint(255, size=(rs, rs), dtype=np.uint8)
    for f in files:  # into the page cache
        with open(f, "rb") as fh:
            fh.read()
    per = {b: [] for b in sizes}
    for r in range(rounds):
        order = sizes if r % 2 == 0 else list(reversed(sizes))
        for b in order:
            ds = TorchDataset(FormatType.get_enum("png"), DatasetType.TRAIN, 1, len(files), 8, b)
            dl = DataLoader(ds, batch_size=b, sampler=dlio_sampler(0, 1, len(files), Shuffle.OFF, 2, 0),
                            num_workers=8, pin_memory=True, drop_last=True,
                            worker_init_fn=ds.worker_init, multiprocessing_context="fork",
                            prefetch_factor=2, persistent_workers=True)
            for _ in dl:
                pass
            pids = [w.pid for w in dl._iterator._workers]
            c0, t0 = dlio_measure.schedstat(pids), time.monotonic()
            k = 0
            for _ in range(PASSES):
                for x in dl:
                    k += len(x)
            ns = dlio_measure.schedstat(pids) - c0
            wall = time.monotonic() - t0
            del dl
            per[b].append(ns / k)
            print("round %d batch %d: %d samples, workers' CPU %.1f us a sample, %.2f s, load %s"
                  % (r + 1, b, k, ns / k / 1e3, wall, open("/proc/loadavg").read().split()[0]),
                  flush=True)
    for b in sizes:
        v = per[b]
        print("batch %d: median %.1f us [%.1f-%.1f]" % (b, statistics.median(v) / 1e3, min(v) / 1e3,
                                                        max(v) / 1e3))
    lo, hi = min(sizes), max(sizes)
    d = [per[lo][i] - per[hi][i] for i in range(rounds)]
    print("batch %d less batch %d, per round: %s; median %.1f us [%.1f-%.1f]"
          % (lo, hi, ", ".join("%.1f" % (x / 1e3) for x in d), statistics.median(d) / 1e3,
             min(d) / 1e3, max(d) / 1e3))


class Timed(io.RawIOBase):
    """A raw file whose reads log (offset, length, CPU at entry, at exit)."""

    def __init__(self, path, log):
        self.f = io.FileIO(path, "r")
        self.log = log

    def readable(self):
        return True

    def seekable(self):
        return True

    def seek(self, off, whence=0):
        return self.f.seek(off, whence)

    def tell(self):
        return self.f.tell()

    def fileno(self):
        return self.f.fileno()

    def readinto(self, b):
        t0 = time.thread_time_ns()
        off = self.f.tell()
        n = self.f.readinto(b)
        self.log.append((off, n, t0, time.thread_time_ns()))
        return n

    def close(self):
        self.f.close()
        super().close()


def split(top, nfiles, rounds):
    import numpy as np
    from PIL import Image
    files = files_of(top)[:nfiles]
    for f in files:
        with open(f, "rb") as fh:
            fh.read()
    res = []
    for r in range(rounds):
        pieces = {}
        tot = []
        for f in files:
            log = []
            t0 = time.thread_time_ns()
            raw = Timed(f, log)
            fh = io.BufferedReader(raw, 4096)
            x = np.asarray(Image.open(fh))
            t1 = time.thread_time_ns()
            fh.close()
            assert x.shape == (338, 338)
            # the CPU after each read (to the next read's entry, the last
            # to the array), keyed by the read's (offset, length)
            for i, (off, n, _, out) in enumerate(log):
                nxt = log[i + 1][2] if i + 1 < len(log) else t1
                key = "%d+%d" % (off, n) if i + 1 < len(log) else "end"
                pieces.setdefault(key, []).append(nxt - out)
            pieces.setdefault("open", []).append(log[0][2] - t0)
            tot.append(t1 - t0 - sum(o - i for _, _, i, o in log))
        m = {k: statistics.median(v) for k, v in pieces.items() if len(v) == len(files)}
        res.append((statistics.median(tot), m))
        print("round %d: Pillow's CPU a sample (reads excluded) %.1f us; after each read (us): %s"
              % (r + 1, statistics.median(tot) / 1e3,
                 ", ".join("%s %.1f" % (k, v / 1e3) for k, v in m.items())), flush=True)
    res.sort(key=lambda x: x[0])
    tot, m = res[len(res) // 2]
    print("median round: %.1f us a sample; %s" % (tot / 1e3, ", ".join("%s %.1f" % (k, v / 1e3)
                                                                     for k, v in m.items())))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    cmd, top = sys.argv[1], sys.argv[2]
    if cmd == "gen":
        gen(top, int(sys.argv[3]) if len(sys.argv) > 3 else 3200)
    elif cmd == "batch":
        sizes = [int(x) for x in sys.argv[4].split(",")] if len(sys.argv) > 4 else [50, 400]
        batch(top, int(sys.argv[3]) if len(sys.argv) > 3 else 3, sizes)
    elif cmd == "split":
        split(top, int(sys.argv[3]) if len(sys.argv) > 3 else 400,
              int(sys.argv[4]) if len(sys.argv) > 4 else 3)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
