#!/usr/bin/python3
"""mapped_scan.py SCAN BIO FRAG DEV TITLE -- which touch of a mapped scan
queued each bio (bench/mapped_scan.sh): SCAN is bench/mapped_scan.c's
"PAGE START_NS END_NS" lines, BIO a tracefs block_bio_queue trace of the
scan's own thread (trace_clock mono), FRAG `filefrag -v` of the file, DEV `tiersim trace dump` of the mount's device requests.

A bio queued inside a touch's [START, END] was issued by that touch (the
scan's thread queues the readahead bios itself). Printed: the windows
(bios of one touch merged) by size; for a window that does not hold its
touch's page (an async window), where that page lay in the window that
read it (0 = its first page); and, for each async window, how far ahead
of the reader it starts (its first page less the touched page). Then the
reader's waits and the device's reads by size.
"""
import bisect
import re
import statistics as st
import sys
from collections import Counter

scan_f, bio_f, frag_f, dev_f, title = sys.argv[1:6]
touch = [tuple(int(x) for x in l.split()) for l in open(scan_f)]
starts = [t[1] for t in touch]
ext = []  # (physical block, logical block, length), in the file system's blocks
bs = 4096
for l in open(frag_f):
    m = re.search(r"blocks of (\d+) bytes", l)
    if m:
        bs = int(m.group(1))
    m = re.match(r"\s*\d+:\s*(\d+)\.\.\s*(\d+):\s*(\d+)\.\.\s*(\d+):\s*(\d+):", l)
    if m:
        ext.append((int(m.group(3)), int(m.group(1)), int(m.group(5))))


def page_of(sector):
    blk = sector * 512 // bs
    for p, lg, n in ext:
        if p <= blk < p + n:
            return (lg + blk - p) * bs // 4096
    return None


wins = {}  # touch index -> [first page, last page + 1]
for l in open(bio_f):
    m = re.search(r"\s(\d+)\.(\d+): block_bio_queue: \S+ (\S+) (\d+) \+ (\d+)", l)
    if not m or "R" not in m.group(3):
        continue
    ts = int(m.group(1)) * 1000000000 + int(m.group(2).ljust(9, "0")[:9])
    pg = page_of(int(m.group(4)))
    if pg is None:
        continue
    n = max(1, int(m.group(5)) // 8)
    i = bisect.bisect_right(starts, ts) - 1
    if i < 0 or ts > touch[i][2]:
        i = -1  # between touches: none issued it
    w = wins.setdefault(i, [pg, pg + n])
    w[0], w[1] = min(w[0], pg), max(w[1], pg + n)
order = sorted((w[0], w[1], i) for i, w in wins.items())
read_by = {}
for a, b, i in order:
    for p in range(a, b):
        read_by.setdefault(p, a)
size = Counter(b - a for a, b, _ in order)
pos, ahead, sync = Counter(), Counter(), 0
for a, b, i in order:
    if i < 0:
        continue
    q = touch[i][0]
    if a <= q < b:
        sync += 1
        continue
    pos[q - read_by.get(q, q)] += 1
    ahead[a - q] += 1
waits = [t[2] - t[1] for t in touch if t[2] - t[1] > 20000]
print(f"{title}: {len(touch)} pages, {len(order)} windows "
      f"({sync} read around a missing page, {len(order) - sync - (1 if -1 in wins else 0)} async), "
      f"{len(waits)} touches waited (median {st.median(waits) / 1000 if waits else 0:.0f} us)")
print("  windows (pages: count):", dict(sorted(size.items())))
print("  async trigger's place in its window (page: count):", dict(sorted(pos.items())))
print("  async window's start ahead of the touch (pages: count):", dict(sorted(ahead.items())))
print("  first windows (first+pages@touched page):",
      " ".join(f"{a}+{b - a}@{touch[i][0] if i >= 0 else '-'}" for a, b, i in order[:8]))
reads = Counter()
for l in open(dev_f):
    f = l.split()  # submit_ns complete_ns op file offset length ...
    if len(f) > 5 and f[2] == "read":
        reads[int(f[5]) // 1024] += 1
print("  device reads (KiB: count):", dict(sorted(reads.items())))
