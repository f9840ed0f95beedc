#!/usr/bin/env python3
"""dlio_collate_tail.py -- each DLIO worker's CPU after its last read of an
epoch, from bench/dlio_peer.sh's outputs (OUT/ROW-RUN/dlio.trace): the
work a worker does at its last batch's end (the last sample's rest, the
batch's collation), to set beside `tiersim hosts measure`'s collate line.

  bench/dlio_collate_tail.py [--tiersim BUILD] DIR...

tierfs samples each requesting thread's schedstat at its requests (its
on-CPU clock when the request arrived; traces/FORMAT.md). A DLIO 2.0.0
PyTorch worker reads its batch's files in its own thread, then
default_collate stacks the batch in that thread; the result queue's
feeder thread pickles it. For every worker thread and every pair of
epochs (DIR/dlio/dlio.log's "Starting epoch" lines, placed on the trace's
clock by its header's start_wall_ns): the thread's clock at its last
sampled request before the later epoch's start, against its clock at its
first sampled request after it. Between them the thread reads nothing it
was not sampled for (the count of unsampled requests after the last
sampled one is printed: 0 means the window starts at the last read).

Prints per run each window, in ms, and then per run and over all the
windows the median, least and most.
"""
import argparse
import collections
import datetime
import os
import re
import statistics
import sys

import tracedump


def requests(tiersim, path):
    """{tid: [(start_ns, kind, on_ns or None)]}, and the trace's wall start."""
    per, cur, wall0 = collections.defaultdict(list), None, 0
    for kind, *x in tracedump.items(tiersim, path):
        if kind == "header":
            wall0 = int(x[0]["start_wall_ns"])
        elif kind == "req":
            r, cur = x[0], None
            if r.op in ("open", "read", "getattr", "close"):
                cur = [r.submit, r.op, None]
                per[r.tid].append(cur)
        elif kind == "cpu" and cur is not None:
            if x[1].get("flags", "0") == "0":
                cur[2] = int(x[1]["on_ns"])
        else:
            cur = None
    return per, wall0


def epoch_starts(d, wall0):
    starts = []
    with open(os.path.join(d, "dlio", "dlio.log")) as f:
        for line in f:
            m = re.search(r"\[INFO\] (\S+) Starting epoch (\d+)", line)
            if m:
                t = datetime.datetime.fromisoformat(m.group(1)).replace(
                    tzinfo=datetime.timezone.utc).timestamp()
                starts.append(t * 1e9 - wall0)
    return starts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tiersim", default="build", help="the build directory (default build)")
    ap.add_argument("dirs", nargs="+")
    args = ap.parse_args()
    tiersim = os.path.join(args.tiersim, "cli", "tiersim")
    if not os.access(tiersim, os.X_OK):
        sys.exit("dlio_collate_tail.py: --tiersim: no %s (build first)" % tiersim)
    every = []
    for d in args.dirs:
        path = os.path.join(d, "dlio.trace")
        if not os.path.exists(path) or not os.path.exists(os.path.join(d, "dlio", "dlio.log")):
            sys.exit("dlio_collate_tail.py: %s: no dlio.trace or dlio/dlio.log" % d)
        per, wall0 = requests(tiersim, path)
        starts = epoch_starts(d, wall0)
        mine = []
        for tid, xs in sorted(per.items()):
            xs.sort()
            if sum(1 for x in xs if x[1] == "open") < 2:
                continue
            for k in range(1, len(starts)):
                before = [i for i, x in enumerate(xs) if starts[k - 1] <= x[0] < starts[k]]
                after = [x for x in xs if x[0] >= starts[k] and
                         (k + 1 >= len(starts) or x[0] < starts[k + 1])]
                if not before or not after:
                    continue
                samp = [i for i in before if xs[i][2] is not None]
                a = next((x for x in after if x[2] is not None), None)
                if not samp or a is None:
                    continue
                z = samp[-1]
                unsampled = before[-1] - z
                ms = (a[2] - xs[z][2]) / 1e6
                mine.append(ms)
                print("%s tid %d epochs %d->%d: %.1f ms (unsampled after %d)" % (
                    d, tid, k, k + 1, ms, unsampled))
        if mine:
            print("%s: median %.1f ms [%.1f-%.1f] over %d windows" % (
                d, statistics.median(mine), min(mine), max(mine), len(mine)))
        every += mine
    if not every:
        sys.exit("dlio_collate_tail.py: no window measured")
    print("all: median %.1f ms [%.1f-%.1f] over %d windows" % (
        statistics.median(every), min(every), max(every), len(every)))


if __name__ == "__main__":
    main()
