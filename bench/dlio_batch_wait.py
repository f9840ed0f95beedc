#!/usr/bin/env python3
"""dlio_batch_wait.py -- how long DLIO's DataLoader workers wait for a core
over each batch they read, and how many of them read at once, from a
tierfs trace of bench/dlio_peer.sh's real DLIO side.

  bench/dlio_batch_wait.py TRACE [--tiersim BIN] [--batch N] [--json]

TRACE: OUT/ROW-RUN/dlio.trace; BIN: tiersim (default build/cli/tiersim);
N: the batch size (default 400). The trace's cpu records carry, at each
request, the requesting thread's schedstat (its run time, on_ns, and its
wait on the run queue, runq_ns, both cumulative; on_ns 0 where the record
carries none). A worker is a thread that opened files; its batches are its
opens in runs of N (DataLoader's worker reads its batch's samples one after
the other). For each batch: its span (first to last request), the growth
of the thread's run time and run-queue wait over it, and the number of
workers whose batches overlap its span at its middle (readers). Prints, by
readers at once, the batches, the wait and CPU per sample (us, median
[min-max] over the batches), and the wait over the CPU; first, the same
over the whole run (every worker from its first record to its last, over
the samples it opened).
"""
import json
import os
import statistics
import sys
from collections import defaultdict

import tracedump


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    trace = args.pop(0)
    here = os.path.dirname(os.path.abspath(__file__))
    bin_ = os.path.join(here, "..", "build", "cli", "tiersim")
    batch, as_json = 400, False
    while args:
        a = args.pop(0)
        if a == "--tiersim":
            bin_ = args.pop(0)
        elif a == "--batch":
            batch = int(args.pop(0))
        elif a == "--json":
            as_json = True
        else:
            sys.exit("dlio_batch_wait.py: unknown argument %r" % a)
    opens = defaultdict(list)   # tid -> [submit ns of each open]
    last = defaultdict(int)     # tid -> its last request's completion
    stat = defaultdict(list)    # tid -> [(t, on_ns, runq_ns)]
    t_prev = None
    for kind, *x in tracedump.items(bin_, trace):
        if kind == "req":
            r = x[0]
            t_prev = r.complete
            if r.op == "open":
                opens[r.tid].append(r.submit)
            last[r.tid] = max(last[r.tid], r.complete)
        elif kind == "cpu" and t_prev is not None:
            kv = x[1]
            on, rq = int(kv.get("on_ns", 0)), int(kv.get("runq_ns", 0))
            if on:
                stat[x[0]].append((t_prev, on, rq))
    batches = []  # (tid, start, end, samples)
    for tid, ts in opens.items():
        ts.sort()
        for i in range(0, len(ts) - batch + 1, batch):
            end = ts[i + batch] if i + batch < len(ts) else last[tid]
            batches.append((tid, ts[i], end, batch))
    for s in stat.values():
        s.sort()

    def at(tid, t):
        """The thread's (on, runq) at its last record no later than t."""
        s = stat[tid]
        lo, hi = 0, len(s)
        while lo < hi:
            mid = (lo + hi) // 2
            if s[mid][0] <= t:
                lo = mid + 1
            else:
                hi = mid
        return s[lo - 1][1:] if lo else None

    rows = defaultdict(list)
    for tid, a, b, n in batches:
        x, y = at(tid, a), at(tid, b)
        if not x or not y:
            continue
        mid = (a + b) / 2
        readers = sum(1 for _, c, d, _ in batches if c <= mid < d)
        rows[readers].append({"cpu_us": (y[0] - x[0]) / n / 1e3, "wait_us": (y[1] - x[1]) / n / 1e3,
                              "span_s": (b - a) / 1e9})
    out = []
    # the whole run: every worker's wait and run time from its first record
    # to its last, over the samples it opened
    tw = tc = ns = 0
    for tid, ts in opens.items():
        if stat[tid]:
            tc += stat[tid][-1][1] - stat[tid][0][1]
            tw += stat[tid][-1][2] - stat[tid][0][2]
            ns += len(ts)
    if ns:
        print("all: %d workers, %d samples: wait for a core %.0f us a sample, CPU %.0f us, wait/CPU %.2f"
              % (len(opens), ns, tw / ns / 1e3, tc / ns / 1e3, tw / tc if tc else 0))
        out.append({"readers": "all", "samples": ns, "wait_us": tw / ns / 1e3, "cpu_us": tc / ns / 1e3})
    for k in sorted(rows):
        r = rows[k]
        c = [x["cpu_us"] for x in r]
        q = [x["wait_us"] for x in r]
        out.append({"readers": k, "batches": len(r), "wait_us": statistics.median(q),
                    "wait_min": min(q), "wait_max": max(q), "cpu_us": statistics.median(c),
                    "cpu_min": min(c), "cpu_max": max(c),
                    "span_s": statistics.median(x["span_s"] for x in r)})
        print("%d readers at once: %d batches, wait for a core %.0f [%.0f-%.0f] us a sample, CPU "
              "%.0f [%.0f-%.0f] us, wait/CPU %.2f, batch span %.2f s" % (
                  k, len(r), out[-1]["wait_us"], min(q), max(q), out[-1]["cpu_us"], min(c), max(c),
                  out[-1]["wait_us"] / out[-1]["cpu_us"] if out[-1]["cpu_us"] else 0,
                  out[-1]["span_s"]))
    if as_json:
        print(json.dumps(out))


if __name__ == "__main__":
    main()
