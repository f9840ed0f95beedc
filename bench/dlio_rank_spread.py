#!/usr/bin/env python3
"""dlio_rank_spread.py -- how far apart DLIO's workers reading side by side
end their batches, from bench/dlio_peer.sh's outputs (OUT/ROW-RUN/).

  bench/dlio_rank_spread.py [--tiersim BUILD] --workers DIR...
      From each DIR/dlio.trace (the tierfs trace of DLIO's run), each
      epoch after the first: the workers given a batch when the epoch's
      loader started (their first request within 1 s of the epoch's first,
      each reading a whole batch, one after the other), the sample standard
      deviation of their batches' ends (from the epoch's first request)
      over the mean. Epoch 1 is left out: its first batches run on into
      the next ones on the same workers (no gap to tell them apart). One
      line per run, then the median, least and most over every epoch: the
      host profile's dlio_worker_spread.
  bench/dlio_rank_spread.py --ranks DIR...
      From each DIR/dlio/dlio.log (DLIO 2.0.0 logs each rank's step with
      its time), per epoch: the ranks' first steps' ends (the log line's
      time), how far the last is from the first, and the mean wait at the
      barrier after it (the last's end less each rank's), in seconds and
      over the first step's own time: what the spread costs DLIO's AU.

A worker is a process (its threads' cpu records in the trace give the
pid); its batch is its requests with no gap over 0.9 s.
"""
import argparse
import collections
import datetime
import os
import re
import statistics
import sys

import tracedump


def dump_requests(tiersim, path):
    """(header, ppid, by_pid) from `tiersim trace dump PATH`: the header
    line's key=value pairs, {pid: parent pid} from the cpu records, and
    each process's requests {pid: [(start, end, op)]} (open, close, read,
    getattr; a thread's pid from its cpu record, a thread without one its
    own), in the dump's order."""
    header, pid_of, ppid = {}, {}, {}
    per = collections.defaultdict(list)
    for kind, *x in tracedump.items(tiersim, path):
        if kind == "header":
            header = x[0]
        elif kind == "cpu":
            kv = x[1]
            pid_of[x[0]] = int(kv["pid"])
            if "ppid" in kv:
                ppid[int(kv["pid"])] = int(kv["ppid"])
        elif kind == "req" and x[0].op in ("open", "close", "read", "getattr"):
            r = x[0]
            per[r.tid].append((r.submit, r.complete, r.op))
    by_pid = collections.defaultdict(list)
    for tid, xs in per.items():
        by_pid[pid_of.get(tid, tid)].extend(xs)
    return header, ppid, by_pid


def trace_batches(tiersim, path, gap=0.9e9):
    """[(start, end, opens, pid)] of every worker's batch, sorted."""
    return worker_batches(dump_requests(tiersim, path)[2], gap)


def worker_batches(by_pid, gap=0.9e9):
    """[(start, end, opens, pid)] sorted: each process's requests
    {pid: [(start, end, op)]} cut where no request runs for over @gap ns;
    a batch without an open is left out."""
    out = []
    for pid, xs in by_pid.items():
        xs.sort()
        cur = None
        for s, c, op in xs:
            if cur is None or s - cur[1] > gap:
                if cur and cur[2]:
                    out.append((cur[0], cur[1], cur[2], pid))
                cur = [s, c, 0]
            cur[1] = max(cur[1], c)
            cur[2] += op == "open"
        if cur and cur[2]:
            out.append((cur[0], cur[1], cur[2], pid))
    return sorted(out)


def epochs(batches, gap=3e9):
    """The batches cut into epochs: a batch starting over @gap ns (3 s)
    after the epoch's first starts the next."""
    eps, cur = [], []
    for b in batches:
        if cur and b[0] - cur[0][0] > gap:
            eps.append(cur)
            cur = []
        cur.append(b)
    if cur:
        eps.append(cur)
    return eps


def workers(args):
    vals = []
    for d in args.dirs:
        eps = epochs(trace_batches(args.tiersim, os.path.join(d, "dlio.trace")))
        line = []
        for ep in eps[1:]:
            t0 = ep[0][0]
            full = max(b[2] for b in ep)
            wave = [b for b in ep if b[0] - t0 < 1e9 and b[2] == full]
            ends = [(b[1] - t0) / 1e9 for b in wave]
            if len(ends) < 3:
                continue
            v = statistics.stdev(ends) / statistics.mean(ends)
            vals.append(v)
            line.append("%d workers, mean %.2f s, sd %.2f%%" % (len(ends), statistics.mean(ends),
                                                                 100 * v))
        print("%s: %s" % (d, "; ".join(line) or "no epoch with 3 such workers"))
    if not vals:
        sys.exit("dlio_rank_spread.py: no epoch measured")
    print("dlio_worker_spread: median %.4f, least %.4f, most %.4f over %d epochs" % (
        statistics.median(vals), min(vals), max(vals), len(vals)))


STEP = re.compile(r"\[INFO\] (\S+) Rank (\d+) step (\d+) processed \d+ samples in (\S+) s")
EPOCH = re.compile(r"Starting epoch (\d+)")


def ranks(args):
    waits, rels = [], []
    for d in args.dirs:
        ep, first = 0, collections.defaultdict(dict)
        with open(os.path.join(d, "dlio", "dlio.log")) as f:
            for line in f:
                m = EPOCH.search(line)
                if m:
                    ep = int(m.group(1))
                    continue
                m = STEP.search(line)
                if m and m.group(3) == "1":
                    t = datetime.datetime.fromisoformat(m.group(1)).timestamp()
                    first[ep][int(m.group(2))] = (t, float(m.group(4)))
        line = []
        for e in sorted(first):
            if len(first[e]) < 2:
                continue
            ends = [t for t, _ in first[e].values()]
            took = statistics.mean(p for _, p in first[e].values())
            wait = statistics.mean(max(ends) - t for t in ends)
            waits.append(wait)
            rels.append((max(ends) - min(ends)) / took)
            line.append("epoch %d: %.3f s apart, mean wait %.3f s (%.2f%% of %.2f s)" % (
                e, max(ends) - min(ends), wait, 100 * (max(ends) - min(ends)) / took, took))
        print("%s: %s" % (d, "; ".join(line) or "one rank"))
    if waits:
        print("mean wait at the first barrier %.3f s (median %.3f); apart over the first step: "
              "median %.2f%%, mean %.2f%% over %d epochs" % (
                  statistics.mean(waits), statistics.median(waits), 100 * statistics.median(rels),
                  100 * statistics.mean(rels), len(waits)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tiersim", default="build", help="the build directory (default build)")
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--workers", action="store_true")
    g.add_argument("--ranks", action="store_true")
    ap.add_argument("dirs", nargs="+")
    args = ap.parse_args()
    args.tiersim = os.path.join(args.tiersim, "cli", "tiersim")
    if args.workers and not os.access(args.tiersim, os.X_OK):
        sys.exit("dlio_rank_spread.py: --tiersim: no %s (build first)" % args.tiersim)
    for d in args.dirs:
        if not os.path.isdir(d):
            sys.exit("dlio_rank_spread.py: %s: no such folder" % d)
    (workers if args.workers else ranks)(args)


if __name__ == "__main__":
    main()
