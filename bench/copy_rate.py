#!/usr/bin/env python3
"""copy_rate.py — the rate at which a reading thread copies file data from
the page cache into its buffer: the copy block mode's job makes on each
read, which bench/block_memory.sh deducts from its thread's CPU (a FUSE
read with direct_io leaves the copy to tierfs's thread).

A file of SIZE MiB (default 64) is written, read once to fill the page
cache, then read PASSES times (default 5) with readinto() into one buffer
of each READ size (KiB, default 4 and 128): the thread's CPU
(time.thread_time) per pass. Prints per size each pass's GB/s (bytes over
the thread's CPU) and their median, then, from two sizes or more, a
read's CPU fitted as a call's part plus its bytes at the copy's rate
(least squares over the medians): "copy R GB/s beside C us a read". Keep
the sizes to what a read copies in the job measured: a piece larger than
the CPU's cache (1 MiB on a Zen 3, L2 512 KiB) copies several times
slower (2.7 against 12.2 GB/s at 128 KiB on epyc-zen3-kvm-2vcpu).

usage: copy_rate.py DIR [SIZE_MIB [PASSES [READ_KIB...]]]"""
import os, statistics, sys, time

if len(sys.argv) < 2:
    sys.exit(__doc__.split("usage: ")[1])
d = sys.argv[1]
size = int(sys.argv[2]) if len(sys.argv) > 2 else 64
passes = int(sys.argv[3]) if len(sys.argv) > 3 else 5
kibs = [int(x) for x in sys.argv[4:]] or [4, 128]
path = os.path.join(d, "copy_rate.%d.dat" % os.getpid())
try:
    with open(path, "wb") as f:
        chunk = os.urandom(1 << 20)
        for _ in range(size):
            f.write(chunk)
    nbytes = size << 20
    pts = []
    for kib in kibs:
        buf = bytearray(kib << 10)
        rates = []
        for p in range(passes + 1):
            with open(path, "rb", buffering=0) as f:
                t0 = time.thread_time()
                n = 0
                while True:
                    k = f.readinto(buf)
                    if not k:
                        break
                    n += k
                cpu = time.thread_time() - t0
            assert n == nbytes
            if p:  # the first pass only makes sure every page is cached
                rates.append(n / cpu / 1e9)
        med = statistics.median(rates)
        print("read %d KiB: %s GB/s; median %.2f GB/s (%d MiB, %d passes)" % (
            kib, " ".join("%.2f" % r for r in rates), med, size, passes))
        pts.append((kib << 10, (kib << 10) / (med * 1e9)))  # bytes, s a read
    if len(set(b for b, _ in pts)) >= 2:
        n = len(pts)
        mb, mt = sum(b for b, _ in pts) / n, sum(t for _, t in pts) / n
        slope = sum((b - mb) * (t - mt) for b, t in pts) / sum((b - mb) ** 2 for b, _ in pts)
        if slope <= 0:
            sys.exit("copy_rate.py: a read's CPU does not grow with its size: no rate")
        print("copy %.2f GB/s beside %.2f us a read" % (1 / slope / 1e9, (mt - slope * mb) * 1e6))
finally:
    os.unlink(path)
