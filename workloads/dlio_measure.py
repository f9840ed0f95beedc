#!/usr/bin/env python3
# dlio_measure.py — DLIO's own CPU on this machine, for `tiersim hosts
# measure` (workloads/dlio_measure.h), run with the python of a virtual
# environment that has dlio_benchmark (DLIO 2.0.0) and torch.
#
#   dlio_measure.py gen DIR    writes the sample files as DLIO's generators
#                              do (numpy.savez of x = random uint8
#                              (side, side, 1) and y = [0]; Pillow's JPEG of
#                              random greyscale pixels, quality 75):
#                              DIR/npz-s (338 x 338, DLIO's resnet50 sample),
#                              DIR/npz-l (2896 x 2896, unet3d's 8 MiB),
#                              DIR/jpeg (338 x 338); h5py's file of one
#                              record (1, side, side) uint8 and labels [0]
#                              (DLIO's hdf5 generator): DIR/hdf5-s (338 x
#                              338), DIR/hdf5-l (2896 x 2896); Pillow's PNG
#                              of random greyscale pixels: DIR/png-s (338 x
#                              338), DIR/png-l (1024 x 1024)
#                              and marks DIR finished (GEN_MARK): a DIR
#                              so marked for the same SETS is not written
#                              again
#   dlio_measure.py gen DIR SET   the same, that set alone (SET: a name
#                              above, as `tiersim hosts measure --probe`)
#   dlio_measure.py read DIR SET  SET's sample line alone (below), its
#                              workers' CPU over PROBE_PASSES passes after
#                              the first, not one: each set of `tiersim
#                              hosts measure` and its probe (--probe), whose
#                              process starts for one set (a pass costs a
#                              second or two of a round's 10-20 s)
#   dlio_measure.py track DIR OUT [PERIOD_S]   the host's speed, tracked
#                              at low duty while something else runs (the
#                              tracker of bench/dlio_peer.sh --track): the
#                              sets of TRACK_SETS (written into DIR as gen
#                              does, TRACK_FILES files each, if missing) read
#                              from the page cache as DLIO's readers read a
#                              sample (NPZReader: np.load(f)['x'];
#                              ImageReader: np.asarray(Image.open(f));
#                              HDF5Reader: h5py.File(f)['records'][0]), every
#                              PERIOD_S seconds (default 1) each set's
#                              TRACK_FILES files once, a line each into OUT
#                              (flushed), until SIGTERM or SIGINT:
#                                tick WALL_NS SET FILES THREAD_CPU_NS
#                              (WALL_NS: time.time_ns() at the tick's start;
#                              the CPU is the reading thread's own): the
#                              same work each tick, so its CPU moves with the
#                              host's speed alone
#   dlio_measure.py rest DIR   the lines after the sets' below (step,
#                              collate, start, gc) alone: `tiersim hosts measure`
#                              reads each set in a process of its own
#                              (read DIR SET, as a probe does, so that a
#                              probe and the measurement it is held against
#                              read a set alike: read after other sets in
#                              one process, hdf5-s and jpeg cost 1.2-1.3x
#                              what they cost alone, 2026-12-05), then this
#   dlio_measure.py read DIR   reads every file of those folders through
#                              DLIO's own PyTorch loader (TorchDataset,
#                              dlio_sampler, its reader classes NPZReader and
#                              HDF5Reader and ImageReader, read_type
#                              on_demand, returning
#                              the workload's resized image) in a torch
#                              DataLoader as DLIO builds it, twice: the
#                              workers' CPU (schedstat of their threads) over
#                              the second pass, per set:
#                                sample SET SAMPLES NS_TOTAL BYTES_MEAN PIXELS [DATA_OFFSET]
#                              (BYTES_MEAN: npz and hdf5 the sample's array,
#                              images the file; DATA_OFFSET: hdf5, where the
#                              record lies in the file)
#                              then, per workload shape, the training
#                              process's main thread per step after the first
#                              through a torch DataLoader as DLIO builds it
#                              (pin_memory, persistent workers, batches of the
#                              resized image read_index returns):
#                                step MODEL BATCH RESIZE STEPS NS_TOTAL
#                              then a worker's end of a batch of each shape
#                              (default_collate of the resized images and
#                              ForkingPickler's copy into shared memory),
#                              the thread's CPU per batch:
#                                collate MODEL BATCH SAMPLE_BYTES NS
#                              then, per number of workers W, DLIO's
#                              DataLoader starting (iter() to its first
#                              batch, wall time): DLIO's TorchDataset
#                              (its worker_init: the arguments unpickled,
#                              logging, the reader made) with the
#                              arguments DLIO gives (fork, pin_memory,
#                              persistent workers), whose samples are the
#                              resized image (no file read: the batch's
#                              reads are the chain's), batches of one; the
#                              first epoch forks the workers, the second
#                              resumes them:
#                                start W EPOCH1_NS EPOCH2_NS
#                              then Python's first full collection in a
#                              process forked from this one, DLIO's
#                              training process's modules imported
#                              (dlio_benchmark.main): what each DataLoader
#                              worker pays once, copying and traversing the
#                              heap it inherited (bench/dlio_worker_split.py
#                              found it in DLIO's own runs), its thread's
#                              CPU, the mean of GC_FORKS children, and the
#                              objects the collector tracked at the fork:
#                                gc NS OBJECTS
import gc
import glob
import math
import os
import sys
import time

import numpy as np

# (name, format, side, files, batch, record_length_resize, read_threads):
# resnet50's npz and jpeg samples as bench/dlio_peer.sh's r50 and j50 rows
# read them, unet3d's 8 MiB as its u64 rows
SETS = (("npz-s", "npz", 338, 400, 50, 150528, 8), ("npz-l", "npz", 2896, 28, 7, 2097152, 4),
        ("jpeg", "jpeg", 338, 400, 50, 150528, 8),
        ("hdf5-s", "hdf5", 338, 400, 50, 150528, 8), ("hdf5-l", "hdf5", 2896, 28, 7, 2097152, 4),
        ("png-s", "png", 338, 400, 50, 150528, 8), ("png-l", "png", 1024, 56, 7, 2097152, 4))
# (model, batch, the resized image's bytes, read_threads): the shipped
# unet3d_h100 and resnet50_h100 workloads (workloads/dlio/) as DLIO 2.0.0
# hands their samples over: resized_image is int(sqrt(record_length_resize
# or record_length)) a side, and 2.0.0 reads no unet3d resize key
# (record_length_bytes_resize is a later version's), so unet3d's batch is
# 7 x 2896 x 2896 (its 8 MiB record_length), resnet50's 400 x 387 x 387
STEPS = (("unet3d", 7, 8388608, 4), ("resnet50", 400, 150528, 8))


# gen's mark of a folder it finished: the SETS it wrote, so that a folder
# kept between measurements (tiersim hosts measure --dir, measured in
# several holds by bench/dlio_host_holds.sh) is written once, outside the
# timed holds, and written again when SETS changes
GEN_MARK = "gen-done"


def gen(top, only=None, files=None):
    from PIL import Image
    mark = os.path.join(top, GEN_MARK)
    if not only and not files:
        try:
            with open(mark) as f:
                if f.read() == repr(SETS):
                    return
        except OSError:
            pass
    rng = np.random.default_rng(10)
    for name, fmt, side, n, _, _, _ in SETS:
        if only and name != only:
            continue
        n = files or n
        d = os.path.join(top, name)
        os.makedirs(d, exist_ok=True)
        for i in range(n):
            p = os.path.join(d, "img_%04d.%s" % (i, fmt))
            if fmt == "npz":
                x = rng.integers(0, 255, size=(side, side, 1), dtype=np.uint8)
                np.savez(p, x=x, y=[0])
            elif fmt == "hdf5":
                import h5py
                x = rng.integers(0, 255, size=(1, side, side), dtype=np.uint8)
                with h5py.File(p, "w") as hf:
                    hf.create_dataset("records", (1, side, side), dtype=np.uint8)[0:1] = x
                    hf.create_dataset("labels", data=[0])
            else:
                x = rng.integers(0, 255, size=(side, side), dtype=np.uint8)
                Image.fromarray(x).save(p, format=fmt.upper(), bits=8)
    if not only and not files:
        with open(mark, "w") as f:
            f.write(repr(SETS))


def schedstat(pids):
    ns = 0
    for pid in pids:
        for t in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/schedstat" % (pid, t)) as f:
                ns += int(f.read().split()[0])
    return ns


# the passes a probe measures (after the first, which starts the workers)
PROBE_PASSES = 4


def readers(top, only=None):
    from dlio_benchmark.utils.utility import DLIOMPI
    DLIOMPI.get_instance().set_parent_values(0, 1)
    from dlio_benchmark.common.enumerations import DatasetType, FormatType, ReadType, Shuffle
    from dlio_benchmark.data_loader.torch_data_loader import TorchDataset, dlio_sampler
    from dlio_benchmark.utils.config import ConfigArguments
    from torch.utils.data import DataLoader
    a = ConfigArguments.get_instance()
    a.read_type = ReadType.ON_DEMAND
    a.preprocess_time = a.preprocess_time_stdev = 0.0
    for name, fmt, side, n, batch, resize, workers in SETS:
        if only and name != only:
            continue
        files = sorted(glob.glob(os.path.join(top, name, "*." + fmt)))
        if len(files) < 2 * batch:
            sys.exit("dlio_measure.py: %s: too few .%s files" % (os.path.join(top, name), fmt))
        files = files[:len(files) // batch * batch]
        a.file_list_train, a.file_list_eval = files, []
        a.global_index_map = {i: (f, 0) for i, f in enumerate(files)}
        a.num_samples_per_file = 1
        rs = int(math.sqrt(resize))
        a.resized_image = np.random.randint(255, size=(rs, rs), dtype=np.uint8)
        # DLIO's own dataset and loader (data_loader/torch_data_loader.py)
        ds = TorchDataset(FormatType.get_enum(fmt), DatasetType.TRAIN, 1, len(files), workers, batch)
        dl = DataLoader(ds, batch_size=batch, sampler=dlio_sampler(0, 1, len(files), Shuffle.OFF, 2, 0),
                        num_workers=workers, pin_memory=True, drop_last=True,
                        worker_init_fn=ds.worker_init, multiprocessing_context="fork",
                        prefetch_factor=2, persistent_workers=True)
        for _ in dl:  # the first epoch starts the workers: not a sample's cost
            pass
        pids = [w.pid for w in dl._iterator._workers]
        c0 = schedstat(pids)
        k = 0
        for _ in range(PROBE_PASSES if only else 1):
            for b in dl:
                k += len(b)
        ns = schedstat(pids) - c0
        del dl
        size = sum(os.path.getsize(f) for f in files) / len(files)
        extra = ""
        if fmt in ("npz", "hdf5"):
            size = side * side  # the sample: the array's bytes
        if fmt == "hdf5":
            import h5py
            with h5py.File(files[0], "r") as hf:
                extra = " %d" % hf["records"].id.get_offset()
        print("sample %s %d %d %.0f %d%s" % (name, k, ns, size,
                                             side * side if fmt in ("jpeg", "png") else 0, extra),
              flush=True)


def steps():
    import torch
    from torch.utils.data import DataLoader, Dataset

    class Resized(Dataset):
        def __init__(self, n, resize):
            side = int(math.sqrt(resize))
            self.n, self.image = n, np.random.randint(255, size=(side, side), dtype=np.uint8)

        def __len__(self):
            return self.n

        def __getitem__(self, i):
            return self.image  # read_index returns args.resized_image

    for model, batch, resize, workers in STEPS:
        k = 12
        dl = DataLoader(Resized(batch * k, resize), batch_size=batch, num_workers=workers,
                        pin_memory=True, drop_last=True, prefetch_factor=2,
                        persistent_workers=True)
        n = 0
        t0 = t1 = 0
        for _ in dl:
            n += 1
            t1 = time.thread_time_ns()
            if n == 1:
                t0 = t1
        del dl
        print("step %s %d %d %d %d (torch %s)" % (model, batch, resize, n - 1, t1 - t0,
                                                   torch.__version__), flush=True)


COLLATE_REPEATS = 6


# The batches collated: resized_image is a square uint8 array of side
# int(sqrt(record_length_resize or record_length)). unet3d's 7 x 2896 x 2896
# (the resize of an 8 MiB record where none is set: the repository's
# upstream unet3d_h100.yaml names record_length_bytes_resize, no key 2.0.0
# reads) and resnet50's 400 x 387 x 387 (its record_length_resize): the two
# ends, few large samples and many small ones, that a per-sample constant
# and a per-MiB slope are fitted through. DLIO's own packaged
# unet3d_h100.yaml, which its Hydra reads first, sets record_length_resize
# 2097152 (1448 x 1448, between the two ends; workloads/DLIO.md)
COLLATES = (("unet3d", 7, 8388608), ("resnet50", 400, 150528))


def collate():
    # A DataLoader worker at its batch's end (torch's _worker_loop): the
    # fetcher's default_collate stacks the batch's samples (DLIO 2.0.0's
    # resized_image each) and the worker's queue pickles the result with
    # ForkingPickler. In a worker (get_worker_info() set) default_collate
    # stacks the batch straight into new shared memory, so the pickler
    # copies nothing more: one copy, not two, as here with the worker's
    # info set (without it, the stack and then the copy into shared memory
    # cost twice as much). The thread's CPU per batch of each COLLATES
    # shape, fresh memory each time as a worker's is. After the timed part
    # the pickled batch is taken back as the loader's main process takes it
    # (ForkingPickler.loads: the descriptor fetched from the pickler's
    # resource sharer, which then closes its copy), so that each batch's
    # shared memory is freed when dropped, as DLIO's is once the batch is
    # used; a pickle never taken left the sharer holding every batch's
    # memory for the process's life, and the stack into fresh memory then
    # cost more the more was held (bench/dlio_collate_probe.py)
    import io
    from multiprocessing.reduction import ForkingPickler
    from torch.utils.data import default_collate
    import torch.utils.data._utils.worker as worker
    worker._worker_info = worker.WorkerInfo(id=0, num_workers=1, seed=0, dataset=None)
    for model, batch, resize in COLLATES:
        side = int(math.sqrt(resize))
        image = np.random.randint(255, size=(side, side), dtype=np.uint8)
        ns = 0
        for i in range(COLLATE_REPEATS + 1):
            t0 = time.thread_time_ns()
            b = default_collate([image] * batch)
            buf = io.BytesIO()
            ForkingPickler(buf).dump(b)
            if i:  # the first warms the allocator and the modules
                ns += time.thread_time_ns() - t0
            back = ForkingPickler.loads(buf.getvalue())  # the consumer's side, untimed
            del back, b, buf
        print("collate %s %d %d %d" % (model, batch, side * side, ns // COLLATE_REPEATS), flush=True)
    worker._worker_info = None


# read_threads of the loaders timed starting: a line through them
START_WORKERS = (1, 2, 4, 8)


def starts(top):  # DLIO's MPI values set (readers(), or main's rest)
    from dlio_benchmark.common.enumerations import DatasetType, FormatType, ReadType, Shuffle
    from dlio_benchmark.data_loader.torch_data_loader import TorchDataset, dlio_sampler
    from dlio_benchmark.utils.config import ConfigArguments
    from torch.utils.data import DataLoader
    a = ConfigArguments.get_instance()
    a.read_type = ReadType.ON_DEMAND
    files = sorted(glob.glob(os.path.join(top, "npz-s", "*.npz")))
    a.file_list_train, a.file_list_eval = files, []
    a.global_index_map = {i: (f, 0) for i, f in enumerate(files)}
    a.num_samples_per_file = 1
    image = np.random.randint(255, size=(388, 388), dtype=np.uint8)  # resnet50's resize

    class Started(TorchDataset):
        def __getitem__(self, i):
            return image

    for workers in START_WORKERS:
        n = 2 * workers
        ds = Started(FormatType.get_enum("npz"), DatasetType.TRAIN, 1, n, workers, 1)
        dl = DataLoader(ds, batch_size=1, sampler=dlio_sampler(0, 1, n, Shuffle.OFF, 2, 0),
                        num_workers=workers, pin_memory=True, drop_last=True,
                        worker_init_fn=ds.worker_init, multiprocessing_context="fork",
                        prefetch_factor=2, persistent_workers=True)
        took = []
        for _ in range(2):
            t0 = time.perf_counter_ns()
            it = iter(dl)
            next(it)
            took.append(time.perf_counter_ns() - t0)
            for _ in it:
                pass
        del it, dl
        print("start %d %d %d" % (workers, took[0], took[1]), flush=True)


GC_FORKS = 4


def worker_gc():
    import dlio_benchmark.main  # noqa: F401  (the modules DLIO's run holds)
    objects = len(gc.get_objects())
    total = 0
    for _ in range(GC_FORKS):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            t0 = time.thread_time_ns()
            gc.collect()
            os.write(w, b"%d" % (time.thread_time_ns() - t0))
            os._exit(0)
        os.close(w)
        with os.fdopen(r, "rb") as f:
            ns = f.read()
        _, st = os.waitpid(pid, 0)
        if st or not ns:
            sys.exit("dlio_measure.py: the forked collection failed")
        total += int(ns)
    print("gc %d %d" % (total // GC_FORKS, objects), flush=True)


# the tracker's sets (the peer rows' readers: r50 npz, j50 jpeg, h50 hdf5,
# p50 png) and the files it reads of each a tick: about 8 ms of CPU a set on
# the 2-vCPU EPYC (2026-12-05), 3% of one core at a tick a second
TRACK_SETS = ("npz-s", "jpeg", "hdf5-s", "png-s")
TRACK_FILES = 6


def track(top, out, period):
    import signal
    from PIL import Image
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    files = {}
    for name in TRACK_SETS:
        fmt = [s[1] for s in SETS if s[0] == name][0]
        f = sorted(glob.glob(os.path.join(top, name, "*." + fmt)))[:TRACK_FILES]
        if len(f) < TRACK_FILES:
            gen(top, name, TRACK_FILES)
            f = sorted(glob.glob(os.path.join(top, name, "*." + fmt)))[:TRACK_FILES]
        files[name] = (fmt, f)

    def read(fmt, f):  # as DLIO 2.0.0's reader classes do (reader/*.py)
        if fmt == "npz":
            return np.load(f, allow_pickle=True)["x"]
        if fmt == "hdf5":
            import h5py
            with h5py.File(f, "r") as hf:
                return hf["records"][0]
        return np.asarray(Image.open(f))

    for name in TRACK_SETS:  # imports and first reads: not a tick's work
        for f in files[name][1]:
            read(files[name][0], f)
    with open(out, "w") as o:
        nxt = time.monotonic()
        while not stop:
            for name in TRACK_SETS:
                fmt, f = files[name]
                w = time.time_ns()
                c = time.thread_time_ns()
                for x in f:
                    read(fmt, x)
                o.write("tick %d %s %d %d\n" % (w, name, len(f), time.thread_time_ns() - c))
            o.flush()
            nxt += period
            time.sleep(max(nxt - time.monotonic(), 0))


def main():
    if len(sys.argv) in (4, 5) and sys.argv[1] == "track":
        try:
            period = float(sys.argv[4]) if len(sys.argv) == 5 else 1.0
        except ValueError:
            period = 0
        if not 0.05 <= period <= 60:
            sys.exit("dlio_measure.py track: PERIOD_S '%s': not seconds from 0.05 to 60" % sys.argv[4])
        track(sys.argv[2], sys.argv[3], period)
        return
    if len(sys.argv) == 2 and sys.argv[1] == "collate":
        collate()
        return
    if len(sys.argv) == 3 and sys.argv[1] == "rest":
        from dlio_benchmark.utils.utility import DLIOMPI
        DLIOMPI.get_instance().set_parent_values(0, 1)  # as readers() sets them
        steps()
        collate()
        starts(sys.argv[2])
        worker_gc()
        return
    if len(sys.argv) not in (3, 4) or sys.argv[1] not in ("gen", "read") or \
            (len(sys.argv) == 4 and sys.argv[3] not in [s[0] for s in SETS]):
        sys.exit("usage: dlio_measure.py gen|read DIR [SET] | rest DIR | collate | track DIR OUT [PERIOD_S]")
    only = sys.argv[3] if len(sys.argv) == 4 else None
    if sys.argv[1] == "gen":
        gen(sys.argv[2], only)
    elif only:
        readers(sys.argv[2], only)
    else:
        readers(sys.argv[2])
        steps()
        collate()
        starts(sys.argv[2])
        worker_gc()


if __name__ == "__main__":
    main()
