#!/usr/bin/python3
"""epoch_reader.py — a training job's reads without a framework: every file
under --root, whole, EPOCHS times, each epoch in its own shuffled order
(seeded by the epoch number, so every run reads the same order), with an
optional per-file step (a sleep: the accelerator's time), and each epoch's
seconds and its thread's CPU seconds in it on stderr ("epoch E S CPU"), and at the end
its CPU time over the same span ("cpu USER SYS", seconds: its reads' copies and the
reclaim it does are SYS). Its own memory is
a few MiB, so a memory cgroup's limit is nearly all page cache. Run by
bench/block_memory.sh in block mode (tiersim disk run) and through
tiersim record.

  epoch_reader.py ROOT LIST EPOCHS [STEP_S [READ_KIB]]

READ_KIB (default 1024) is the buffer each read asks to fill: a file is
read in reads of that size until one returns less.

LIST holds the files' paths relative to ROOT, one a line (listed on the
backing directory, so that a trace holds the job's reads only). Prints one
line: the seconds from the first open to the last read.
"""
import os
import random
import resource
import sys
import time


def main():
    root, lst, epochs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    step = float(sys.argv[4]) if len(sys.argv) > 4 else 0.0
    kib = int(sys.argv[5]) if len(sys.argv) > 5 else 1024
    names = [n for n in open(lst).read().split("\n") if n]
    buf = bytearray(kib << 10)
    c0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.monotonic()
    te = t0
    ce = time.thread_time()
    for e in range(epochs):
        order = list(names)
        random.Random(e).shuffle(order)
        for n in order:
            fd = os.open(os.path.join(root, n), os.O_RDONLY)
            while os.readv(fd, [buf]) == len(buf):
                pass
            os.close(fd)
            if step:
                time.sleep(step)
        t, c = time.monotonic(), time.thread_time()
        print(f"epoch {e} {t - te:.6f} {c - ce:.6f}", file=sys.stderr)
        te, ce = t, c
    print(f"{time.monotonic() - t0:.6f}")
    c = resource.getrusage(resource.RUSAGE_SELF)
    print(f"cpu {c.ru_utime - c0.ru_utime:.4f} {c.ru_stime - c0.ru_stime:.4f}", file=sys.stderr)


if __name__ == "__main__":
    main()
