#!/usr/bin/env python3
"""dlio_tail_cpu.py -- a DLIO worker's CPU per sample while it reads with
the host's cores to spare, against while more workers read than there are
cores, from bench/dlio_peer.sh's outputs (OUT/ROW-RUN/dlio.trace).

  bench/dlio_tail_cpu.py [--tiersim BUILD] [--cores N] [--epochs LIST] DIR...

DLIO 2.0.0's PyTorch workers each build a whole batch; at an epoch's start
every worker reads one (more readers than cores: a 2-vCPU host, 8
workers), at its end the batches left over are read by fewer (resnet50's
10 batches of 8 workers: the 9th and 10th by two workers alone). tierfs
samples each reading thread's schedstat at its requests, so a batch's CPU
on a core is the thread's on-CPU clock from its first sampled request to
its last, over the samples (opens) between them.

A worker is a process (its threads' cpu records give the pid); its batches
are its requests cut every BATCH opens (DIR/dlio/.hydra/config.yaml's
reader.batch_size). A batch reads alone when at its middle no more
batches are being read, itself included, than --cores (default 2).
Epochs are cut at DLIO's "Starting epoch" lines (DIR/dlio/dlio.log,
placed on the trace's clock by its header's start_wall_ns).

Prints per run and epoch the median us a sample of the batches read
alone and of the others, and their ratio; then the median, least and most
ratio over every epoch: the host profile's dlio_worker_cpu_alone.
--epochs 3 keeps the third epoch alone (npz's workers make their first
full collection, 100 ms, at sample 463: epochs 1 and 2 hold it); epoch 1
also holds the workers' start in their first batches.
"""
import datetime
import argparse
import collections
import os
import re
import statistics
import sys

import tracedump


def batch_size(d):
    try:
        with open(os.path.join(d, "dlio", ".hydra", "config.yaml")) as f:
            m = re.search(r"^\s+batch_size:\s*(\d+)", f.read(), re.M)
            return int(m.group(1)) if m else None
    except OSError:
        return None


def batches(tiersim, path, bsize):
    """[(start, end, cpu_ns, samples, pid)]: each worker's batches, the
    thread's on-CPU clock between its first and last sampled request."""
    pid_of, per, cur, wall0 = {}, collections.defaultdict(list), None, 0
    for kind, *x in tracedump.items(tiersim, path):
        if kind == "header":
            wall0 = int(x[0]["start_wall_ns"])
        elif kind == "req":
            r, cur = x[0], None
            if r.op in ("open", "read", "getattr", "close"):
                cur = [r.submit, r.complete, r.op, None]
                per[r.tid].append(cur)
        elif kind == "cpu" and cur is not None:
            pid_of[x[0]] = int(x[1]["pid"])
            if x[1].get("flags", "0") == "0":
                cur[3] = int(x[1]["on_ns"])
        else:
            cur = None
    out = []
    for tid, xs in per.items():
        xs.sort()
        opens = [i for i, x in enumerate(xs) if x[2] == "open"]
        if len(opens) < bsize:
            continue
        for b in range(len(opens) // bsize):
            lo = opens[b * bsize]
            hi = opens[(b + 1) * bsize] if (b + 1) * bsize < len(opens) else len(xs)
            seg = xs[lo:hi]
            io = [x for x in seg if x[2] in ("open", "read")]
            sampled = [i for i, x in enumerate(seg) if x[3] is not None]
            if len(sampled) < 2:
                continue
            a, z = sampled[0], sampled[-1]
            n = sum(1 for x in seg[a + 1:z + 1] if x[2] == "open")
            if n < bsize // 2:
                continue
            out.append((io[0][0], max(x[1] for x in io), seg[z][3] - seg[a][3], n,
                        pid_of.get(tid, tid)))
    return sorted(out), wall0


def epochs(d, bs, wall0):
    """The batches by DLIO's epochs (its log's "Starting epoch" lines)."""
    starts = []
    with open(os.path.join(d, "dlio", "dlio.log")) as f:
        for line in f:
            m = re.search(r"\[INFO\] (\S+) Starting epoch (\d+)", line)
            if m:
                t = datetime.datetime.fromisoformat(m.group(1)).replace(
                    tzinfo=datetime.timezone.utc).timestamp()
                starts.append(t * 1e9 - wall0)
    eps = [[] for _ in starts]
    for b in bs:
        k = sum(1 for s in starts if s <= b[0]) - 1
        if k >= 0:
            eps[k].append(b)
    return eps


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tiersim", default="build", help="the build directory (default build)")
    ap.add_argument("--cores", type=int, default=2, help="the host's CPUs (default 2)")
    ap.add_argument("--epochs", default="", help="epochs to keep, e.g. 2,3 (default all)")
    ap.add_argument("dirs", nargs="+")
    args = ap.parse_args()
    tiersim = os.path.join(args.tiersim, "cli", "tiersim")
    if not os.access(tiersim, os.X_OK):
        sys.exit("dlio_tail_cpu.py: --tiersim: no %s (build first)" % tiersim)
    keep = {int(x) for x in args.epochs.split(",") if x}
    ratios = []
    for d in args.dirs:
        path = os.path.join(d, "dlio.trace")
        bsize = batch_size(d)
        if not os.path.exists(path) or not bsize:
            sys.exit("dlio_tail_cpu.py: %s: no dlio.trace or no batch_size in its config" % d)
        line = []
        bs, wall0 = batches(tiersim, path, bsize)
        for e, ep in enumerate(epochs(d, bs, wall0), 1):
            if keep and e not in keep:
                continue
            alone, shared = [], []
            for b in ep:
                mid = (b[0] + b[1]) / 2
                busy = sum(1 for o in ep if o[0] <= mid <= o[1])
                (alone if busy <= args.cores else shared).append(b[2] / b[3] / 1e3)
            if not alone or not shared:
                continue
            r = statistics.median(alone) / statistics.median(shared)
            ratios.append(r)
            line.append("epoch %d: alone %.0f us (%d), shared %.0f us (%d), %.3f" % (
                e, statistics.median(alone), len(alone), statistics.median(shared),
                len(shared), r))
        print("%s: %s" % (d, "; ".join(line) or "no epoch with batches of both kinds"))
    if not ratios:
        sys.exit("dlio_tail_cpu.py: no epoch measured")
    print("dlio_worker_cpu_alone: median %.3f, least %.3f, most %.3f over %d epochs" % (
        statistics.median(ratios), min(ratios), max(ratios), len(ratios)))


if __name__ == "__main__":
    main()
